/* convert_simd.h — the conversions that instruction sets beyond the
 * compiler's baseline make faster: float32 to and from bfloat16 and
 * float16, each a loop of n elements in one file per instruction set
 * (convert_avx2.c, with F16C), called by convert.c only where the CPU has
 * it.  Each gives the bits elements.h's rules give. */
#ifndef RELAY_ELEMENTS_CONVERT_SIMD_H
#define RELAY_ELEMENTS_CONVERT_SIMD_H

#include <stdint.h>

typedef void (*rl_convert_fn)(void *restrict dst, const void *restrict src, int64_t n);

/* One instruction set's loops; NULL where it has none of its own. */
typedef struct {
    rl_convert_fn float_to_bfloat16, bfloat16_to_float, float_to_float16, float16_to_float;
} rl_convert_simd_set;

#if defined(__x86_64__) || defined(__i386__)
extern const rl_convert_simd_set rl_convert_avx2;
#endif

#endif
