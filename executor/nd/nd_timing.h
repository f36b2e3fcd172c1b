/* nd_timing.h — where an N-D replay's time goes (relay_exec_time): one row
 * per message this rank sends (packing it) and receives (waiting for it,
 * moving it into A), one for its local transfers and one for the waiting
 * no received message accounts for, as for transform replays
 * (relay/exec.h). */
#ifndef RELAY_ND_TIMING_H
#define RELAY_ND_TIMING_H

#include <mpi.h>

#include "nd_messages.h"
#include "relay/exec.h"

typedef struct {
    int on;
    int64_t replays;
    int nrows;
    relay_exec_timing *rows;
} rl_nd_timing;

/* The rows of message i, of the local transfers and of the completion. */
static inline int rl_nd_row_send(const rl_nd_messages *m, int i) { (void)m; return i; }
static inline int rl_nd_row_recv(const rl_nd_messages *m, int i) { return m->nsend + i; }
static inline int rl_nd_row_local(const rl_nd_messages *m) { return m->nsend + m->nrecv; }
static inline int rl_nd_row_completion(const rl_nd_messages *m) { return m->nsend + m->nrecv + 1; }

/* Now, for a step about to be timed (0 while timing is off). */
static inline double rl_nd_clock(const rl_nd_timing *t) { return t->on ? MPI_Wtime() : 0.0; }

typedef enum { RL_ND_PACK, RL_ND_WAIT, RL_ND_UNPACK } rl_nd_phase;
/* Adds the seconds since `since` (rl_nd_clock's) to a row's phase. */
void rl_nd_time_since(rl_nd_timing *t, rl_nd_phase phase, int row, double since);

/* The rows of messages m (their seconds zero): when the transfers are derived. */
relay_status rl_nd_timing_rows_of(rl_nd_timing *t, const rl_nd_messages *m, int rank, size_t esz);
/* relay_exec_time (restarting the sums when on) and relay_exec_timings. */
void rl_nd_timing_switch(rl_nd_timing *t, int on);
void rl_nd_timing_rows(const rl_nd_timing *t, int64_t *replays, relay_exec_timing *out, int *count);
void rl_nd_timing_free(rl_nd_timing *t);

#endif
