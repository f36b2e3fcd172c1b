/* schedule.h — the schedules a replay can run: in what order its messages
 * go.  One file per schedule in this folder, each defining one table of
 * the operations below, and one line per schedule in the table of
 * schedule_table.c (PETSc's PetscSF types, one folder each under
 * src/vec/is/sf/impls/, registered in one list, are the model):
 *   p2p.c         every message at once (and, before the replays are
 *                 bound, the one-off replay of every plan)
 *   rounds.c      contention-free steps, one send and one receive each
 *   collective.c  alltoallv and neighbor: one collective call
 *   capped.c      rounds under a memory cap, each message in chunks
 * Binding chooses one from the schedule replayed (the plan's or a tuned
 * choice) and whether the plan has a memory cap; docs/extending.md lists
 * what adding one takes. */
#ifndef RELAY_SCHEDULE_H
#define RELAY_SCHEDULE_H

#include "transform.h"

struct rl_schedule_s {
    const char *name;
    relay_schedule id;       /* what relay_exec_schedule reports */
    int capped;              /* replays a plan with a memory cap (and only such plans) */
    /* Binding the replays, collective on the executor's communicator:
     * requests, agreements with peers, what the schedule needs.  `local` is
     * how binding went so far on this rank: a binding that is collective
     * agrees on it first (a schedule that settles on another may hand the
     * binding on to it, changing x->schedule and x->sched). */
    relay_status (*bind)(rl_transform_exec *x, relay_status local);
    /* A replay's two halves (relay_exec_start, relay_exec_wait): MPI
     * error codes.  The wait moves the local lattices too, at the point
     * the schedule gives them. */
    int (*start)(rl_transform_exec *x);
    int (*wait)(rl_transform_exec *x);
};

/* The schedule that replays `id` (with a memory cap or without), or NULL
 * where none does. */
const rl_schedule *rl_schedule_find(relay_schedule id, int capped);

/* The schedules, for the kinds that name one: p2p runs every one-off
 * replay (exec_internal.h) and is what a collective that cannot describe
 * its buffers settles on. */
extern const rl_schedule rl_schedule_p2p, rl_schedule_rounds, rl_schedule_alltoallv, rl_schedule_neighbor,
    rl_schedule_capped;
#ifdef RELAY_TEST_SCHEDULES
extern const rl_schedule rl_schedule_p2p_reversed;
#endif

#endif
