/* schedule_table.c — the schedules this build of relay replays (schedule.h):
 * one line each.  The test that proves a schedule is one file and one line
 * compiles this file again with RELAY_TEST_SCHEDULES, which adds its line
 * (tests/CMakeLists.txt, mpi_added_schedule). */
#include <stddef.h>

#include "schedule.h"

static const rl_schedule *const schedules[] = {
    &rl_schedule_p2p,
    &rl_schedule_rounds,
    &rl_schedule_alltoallv,
    &rl_schedule_neighbor,
    &rl_schedule_capped,
#ifdef RELAY_TEST_SCHEDULES
    &rl_schedule_p2p_reversed, /* tests/schedule_p2p_reversed.c */
#endif
};

const rl_schedule *rl_schedule_find(relay_schedule id, int capped)
{
    for (size_t i = 0; i < sizeof schedules / sizeof *schedules; i++)
        if (schedules[i]->id == id && schedules[i]->capped == (capped != 0)) return schedules[i];
    return NULL;
}
