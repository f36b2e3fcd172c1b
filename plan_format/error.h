/* error.h — failing with a message, and the small checked-arithmetic and
 * allocation helpers every module uses to keep "bad input changes nothing". */
#ifndef RELAY_ERROR_H
#define RELAY_ERROR_H

#include <stdint.h>
#include <stdlib.h>

#include "relay/status.h"

/* Records the message (printf-style) and returns s, so that callers write
 * `return rl_fail(RELAY_ERR_ARG, "m = %lld is negative", m);`.
 * The one internal function the shared libraries export (as
 * relay_internal_fail, declared only here): relay_scalapack, a library of
 * its own, must record into the same thread-local message that
 * relay_last_error() of the library below it returns. */
RELAY_API relay_status relay_internal_fail(relay_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define rl_fail relay_internal_fail

#define RL_NOMEM() rl_fail(RELAY_ERR_NOMEM, "out of memory in %s", __func__)

/* calloc/malloc of count elements that never return NULL for count 0 and
 * check count*size for overflow.  Inline, like the checks below, so that
 * every library of relay has them without exporting them. */
static inline void *rl_calloc(size_t count, size_t size) { return calloc(count ? count : 1, size); }

static inline void *rl_malloc_array(size_t count, size_t size)
{
    if (count == 0) count = 1;
    if (size && count > SIZE_MAX / size) return NULL;
    return malloc(count * size);
}

/* Non-zero when a*b (a+b) overflows int64_t; the result goes to *out. */
static inline int rl_mul_overflows(int64_t a, int64_t b, int64_t *out) { return __builtin_mul_overflow(a, b, out); }
static inline int rl_add_overflows(int64_t a, int64_t b, int64_t *out) { return __builtin_add_overflow(a, b, out); }

/* The greatest common divisor of a, b >= 0 (Euclid's). */
static inline int64_t rl_gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

#endif
