/* transform_collective.h — the schedules a bound transform replays as one
 * collective call over all its messages (transform_collective.c):
 * alltoallv on the executor's communicator, and the neighbourhood
 * alltoallv on a graph of the plan's messages. */
#ifndef RELAY_TRANSFORM_COLLECTIVE_H
#define RELAY_TRANSFORM_COLLECTIVE_H

#include "transform.h"

/* Whether schedule s replays as one collective call. */
int rl_schedule_is_collective(relay_schedule s);

/* The byte counts and displacements of the collective (no MPI call; made
 * when the replays are bound, once the schedule is chosen), which are
 * ints: when a pack buffer reaches 2 GiB they cannot describe it and
 * nothing is made (rl_collective_bind then settles on p2p). */
relay_status rl_collective_prepare(rl_transform_exec *x);

/* Binding, collective on x->comm: every rank agrees on `local` (how
 * binding went so far here) and on whether all can replay the collective
 * (else all replay p2p: x->schedule changes), then the neighbourhood
 * schedule creates its graph communicator, and with MPI-4 the persistent
 * collective is created; each step agreed. */
relay_status rl_collective_bind(rl_transform_exec *x, relay_status local);

/* A replay: pack every message and start the collective; wait for it and
 * unpack every message.  MPI error codes. */
int rl_collective_start(rl_transform_exec *x);
int rl_collective_wait(rl_transform_exec *x);

/* Bytes its counts and displacements hold; releasing them, the request
 * and the graph. */
int64_t rl_collective_bytes(const rl_transform_exec *x);
void rl_collective_free(rl_transform_exec *x);

#endif
