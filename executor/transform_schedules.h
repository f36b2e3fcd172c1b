/* transform_schedules.h — a transform replay's two halves
 * (transform_schedules.c), as the kind table rl_exec_transform calls them:
 * start takes the buffers and scalars and starts the plan's schedule (or,
 * before the replays are bound, a one-off p2p replay); wait completes it.
 * Binding (transform_exec.c) creates the staged messages' requests here. */
#ifndef RELAY_TRANSFORM_SCHEDULES_H
#define RELAY_TRANSFORM_SCHEDULES_H

#include "transform.h"

/* Creates x->reqs[k], staged receive k (k < nrecv) or send k - nrecv:
 * persistent (MPI_Recv_init, MPI_Send_init) or, for one replay,
 * started (MPI_Irecv, MPI_Isend).  Returns an MPI error code. */
int rl_transform_post_staged(rl_transform_exec *x, int k, int persistent);

relay_status rl_transform_start(void *state, void *const *dst, const void *const *src, const void *alpha, const void *beta);
relay_status rl_transform_wait(void *state);

#endif
