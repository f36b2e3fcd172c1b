/* transform_capped.h — replaying under a memory cap (transform_capped.c):
 * rounds whose messages travel in chunks, two in flight each way, through
 * two buffers of the cap's size. */
#ifndef RELAY_TRANSFORM_CAPPED_H
#define RELAY_TRANSFORM_CAPPED_H

#include "transform.h"

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
/* A whole replay, step by step (start has nothing to start). */
int rl_capped_replay(rl_transform_exec *x);
int64_t rl_capped_bytes(const rl_transform_exec *x);
void rl_capped_free(rl_capped *c);

#endif
