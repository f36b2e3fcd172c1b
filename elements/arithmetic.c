/* arithmetic.c — dst := alpha * src + beta * dst over n elements of one
 * type, computed in its accumulation type and rounded once (elements.h).
 *
 * float16 and bfloat16 widen a block at a time to float32 (exactly),
 * compute there, and round the result once on the way back; integers
 * compute in the unsigned type of their width, so that signed ones wrap
 * modulo 2^bits as unsigned ones do, with no undefined overflow; the
 * float and complex types compute in themselves. */
#include <complex.h>
#include <string.h>

#include "elements.h"

/* alpha and beta read as T, the update computed in C (T itself, or for
 * the narrow unsigned types unsigned int, where C's promotion to int
 * could overflow) and stored as T. */
#define AXPBY(NAME, T, C)                                                                            \
    static void axpby_##NAME(void *restrict d, const void *restrict s, int64_t n, const void *a, const void *b) \
    {                                                                                                \
        T alpha, beta;                                                                               \
        memcpy(&alpha, a, sizeof alpha);                                                             \
        memcpy(&beta, b, sizeof beta);                                                               \
        for (int64_t i = 0; i < n; i++)                                                              \
            ((T *)d)[i] = (T)((C)alpha * (C)((const T *)s)[i] + (C)beta * (C)((T *)d)[i]);           \
    }
AXPBY(float, float, float)
AXPBY(double, double, double)
AXPBY(cfloat, float complex, float complex)
AXPBY(cdouble, double complex, double complex)
AXPBY(uint8, uint8_t, unsigned)
AXPBY(uint16, uint16_t, unsigned)
AXPBY(uint32, uint32_t, uint32_t)
AXPBY(uint64, uint64_t, uint64_t)
#undef AXPBY

/* The unsigned type of an integer type's width: its arithmetic modulo 2^bits. */
static rl_elem modular_of(rl_elem t)
{
    switch (t) {
    case RL_ELEM_INT8: return RL_ELEM_UINT8;
    case RL_ELEM_INT16: return RL_ELEM_UINT16;
    case RL_ELEM_INT32: return RL_ELEM_UINT32;
    case RL_ELEM_INT64: return RL_ELEM_UINT64;
    default: return t;
    }
}

typedef void (*axpby_fn)(void *restrict d, const void *restrict s, int64_t n, const void *a, const void *b);

static axpby_fn axpby_of(rl_elem t)
{
    switch (modular_of(t)) {
    case RL_ELEM_FLOAT: return axpby_float;
    case RL_ELEM_DOUBLE: return axpby_double;
    case RL_ELEM_CFLOAT: return axpby_cfloat;
    case RL_ELEM_CDOUBLE: return axpby_cdouble;
    case RL_ELEM_UINT8: return axpby_uint8;
    case RL_ELEM_UINT16: return axpby_uint16;
    case RL_ELEM_UINT32: return axpby_uint32;
    case RL_ELEM_UINT64: return axpby_uint64;
    default: return NULL;
    }
}

/* A type narrower than its accumulation type (float16, bfloat16): both
 * operands widened a block at a time, computed, rounded once back. */
static void axpby_widened(rl_elem t, void *dst, const void *src, int64_t n, const void *alpha, const void *beta)
{
    enum { BLOCK = 512 };
    rl_elem acc = rl_elem_info_of(t)->accumulate;
    size_t size = rl_elem_info_of(t)->size;
    float x[BLOCK], y[BLOCK];
    for (int64_t i = 0; i < n; i += BLOCK) {
        int64_t m = n - i < BLOCK ? n - i : BLOCK;
        char *d = (char *)dst + (size_t)i * size;
        rl_elem_convert(acc, x, t, (const char *)src + (size_t)i * size, m);
        rl_elem_convert(acc, y, t, d, m);
        axpby_float(y, x, m, alpha, beta);
        rl_elem_convert(t, d, acc, y, m);
    }
}

void rl_elem_axpby(rl_elem t, void *dst, const void *src, int64_t n, const void *alpha, const void *beta)
{
    if (n <= 0) return;
    if (rl_elem_info_of(t)->accumulate != t) axpby_widened(t, dst, src, n, alpha, beta);
    else axpby_of(t)(dst, src, n, alpha, beta);
}
