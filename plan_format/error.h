/* error.h — failing with a message, and the small checked-arithmetic and
 * allocation helpers every module uses to keep "bad input changes nothing". */
#ifndef RELAY_ERROR_H
#define RELAY_ERROR_H

#include <stdlib.h>
#include "relay/status.h"

/* Records the message (printf-style) and returns s, so that callers write
 * `return rl_fail(RELAY_ERR_ARG, "m = %lld is negative", m);`. */
relay_status rl_fail(relay_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define RL_NOMEM() rl_fail(RELAY_ERR_NOMEM, "out of memory in %s", __func__)

/* calloc/malloc of count elements that never return NULL for count 0 and
 * check count*size for overflow. */
void *rl_calloc(size_t count, size_t size);
void *rl_malloc_array(size_t count, size_t size);

/* Non-zero when a*b (a+b) overflows int64_t; the result goes to *out. */
int rl_mul_overflows(int64_t a, int64_t b, int64_t *out);
int rl_add_overflows(int64_t a, int64_t b, int64_t *out);

#endif
