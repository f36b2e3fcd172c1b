/* transform_replay.h — a transform replay's two halves (transform_replay.c),
 * as the kind table rl_exec_transform calls them: start takes the buffers
 * and scalars and starts the schedule bound (or, before the replays are
 * bound, a one-off p2p replay); wait completes it. */
#ifndef RELAY_TRANSFORM_REPLAY_H
#define RELAY_TRANSFORM_REPLAY_H

#include "transform.h"

relay_status rl_transform_start(void *state, void *const *dst, const void *const *src, const void *alpha, const void *beta);
relay_status rl_transform_wait(void *state);

#endif
