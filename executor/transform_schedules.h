/* transform_schedules.h — a transform replay's two halves
 * (transform_schedules.c), as the kind table rl_exec_transform calls them:
 * start takes the buffers and scalars and starts the plan's schedule; wait
 * completes it. */
#ifndef RELAY_TRANSFORM_SCHEDULES_H
#define RELAY_TRANSFORM_SCHEDULES_H

#include "transform.h"

relay_status rl_transform_start(void *state, void *const *dst, const void *const *src, const void *alpha, const void *beta);
relay_status rl_transform_wait(void *state);

#endif
