/* collective.h — what the collective schedules (collective.c: alltoallv
 * and neighbor, their tables in schedule.h) hold beyond the replay's
 * requests: the counts, the graph and the collective's request. */
#ifndef RELAY_COLLECTIVE_H
#define RELAY_COLLECTIVE_H

#include "transform.h"

/* Bytes its counts and displacements hold; releasing them, the request
 * and the graph. */
int64_t rl_collective_bytes(const rl_transform_exec *x);
void rl_collective_free(rl_transform_exec *x);

#endif
