/* transform_replay.h — a transform replay's two halves (transform_replay.c),
 * as the kind table rl_exec_transform calls them: start takes the buffers
 * and scalars and starts the schedule bound (or, before the replays are
 * bound, a one-off p2p replay); wait completes it. */
#ifndef RELAY_TRANSFORM_REPLAY_H
#define RELAY_TRANSFORM_REPLAY_H

#include "transform.h"

relay_status rl_transform_start(void *state, void *const *dst, const void *const *src, const void *alpha, const void *beta);
relay_status rl_transform_wait(void *state);
/* A replay's deadline (relay_exec_set_deadline): seconds, 0 none. */
void rl_transform_deadline(void *state, double seconds);
/* Freeing an executor whose replay passed its deadline: every request
 * cancelled where MPI can, and the memory MPI may still read or write
 * (pack buffers and chunk slots, control words, pulled addresses, the
 * window) kept for the process's life instead of freed; what freeing does
 * with the rest follows.  No call here waits for a peer. */
void rl_transform_abandon(rl_transform_exec *x);

#endif
