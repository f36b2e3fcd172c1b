/* schedule_p2p_reversed.c — a schedule added the way any schedule is added
 * (docs/extending.md): this one file and one line of the executor's
 * schedule table (executor/schedules/schedule_table.c, the line a test
 * build's RELAY_TEST_SCHEDULES adds).  p2p with its sends started in
 * reverse order, last message first: bound, waited for and travelling as
 * p2p's do; mpi_added_schedule.c replays plans through it. */
#include "p2p.h"

static int start(rl_transform_exec *x)
{
    int rc = rl_p2p_start_receives(x);
    for (int k = x->set.send.n - 1; k >= 0 && rc == MPI_SUCCESS; k--) rc = rl_p2p_send(x, k);
    return rc;
}

const rl_schedule rl_schedule_p2p_reversed = {
    .name = "p2p, sends in reverse order",
    .id = (relay_schedule)64, /* outside relay_schedule's values: the test names it through the table */
    .capped = 0,
    .bind = rl_p2p_bind,
    .start = start,
    .wait = rl_p2p_wait,
};
