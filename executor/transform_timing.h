/* transform_timing.h — where a transform replay's time goes
 * (transform_timing.c, relay_exec_time): the replay's steps add the
 * seconds they take to their message's row while timing is on. */
#ifndef RELAY_TRANSFORM_TIMING_H
#define RELAY_TRANSFORM_TIMING_H

#include "transform.h"

/* The rows of a rank's timings: its sends, its receives, its local
 * lattices, and the waiting no received message accounts for. */
static inline int rl_row_send(const rl_transform_exec *x, int k) { (void)x; return k; }
static inline int rl_row_recv(const rl_transform_exec *x, int k) { return x->set.send.n + k; }
static inline int rl_row_local(const rl_transform_exec *x) { return x->set.send.n + x->set.recv.n; }
static inline int rl_row_completion(const rl_transform_exec *x) { return x->set.send.n + x->set.recv.n + 1; }

/* Now, for a step about to be timed (0 while timing is off). */
static inline double rl_clock(const rl_transform_exec *x) { return x->timing.on ? MPI_Wtime() : 0.0; }

/* Adds the seconds since `since` (rl_clock's) to a row's column. */
typedef enum { RL_PACK, RL_WAIT, RL_UNPACK } rl_phase;
void rl_time_since(rl_transform_exec *x, rl_phase phase, int row, double since);
/* The local lattices moved (transform_pack.c), timed. */
void rl_transform_move_locals_timed(rl_transform_exec *x);
/* Receive k unpacked (transform_pack.c), timed. */
void rl_transform_unpack_timed(rl_transform_exec *x, int k);
/* One replay completed. */
void rl_timing_replayed(rl_transform_exec *x);

/* The kind table's relay_exec_time and relay_exec_timings. */
relay_status rl_transform_time(void *state, int on);
void rl_transform_timings(const void *state, int64_t *replays, relay_exec_timing *out, int *count);
void rl_timing_free(rl_transform_exec *x);

#endif
