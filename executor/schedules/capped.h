/* capped.h — replaying under a memory cap (capped.c, the schedule
 * rl_schedule_capped): rounds whose messages travel in chunks, two in
 * flight each way, through two buffers of the cap's size. */
#ifndef RELAY_CAPPED_H
#define RELAY_CAPPED_H

#include "schedule.h"

/* Cuts this rank's messages into chunks of at most half of cap bytes
 * (x's message sets built); no MPI call.  RELAY_ERR_ARG when the cap would cut
 * them into absurdly many. */
relay_status rl_capped_prepare(rl_transform_exec *x, int64_t cap);
/* Chunks of message k of a side. */
int64_t rl_capped_chunks(const rl_capped_side *side, int k);
/* A number that both ends of message k (m, its lattices in spans) compute
 * alike exactly when they cut it into the same chunks: binding compares
 * it (transform_exec.c). */
int64_t rl_capped_signature(const rl_capped_side *side, int k, const rl_message *m, const rl_span *spans);
int64_t rl_capped_bytes(const rl_transform_exec *x);
void rl_capped_free(rl_capped *c);

#endif
