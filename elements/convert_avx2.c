/* convert_avx2.c — float32 to and from bfloat16 (AVX2's integer lanes) and
 * float16 (F16C's conversions), 16 elements at a time, the tail with the
 * same arithmetic on a copy.  Compiled with -mavx2 -mf16c
 * (elements/CMakeLists.txt) and called only on a CPU with both
 * (convert.c). */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>

#include "convert_simd.h"

enum { LANES = 16 };

/* The last n < LANES elements, converted by f on copies a whole step long. */
static void through_copy(rl_convert_fn f, void *d, const void *s, int64_t n, size_t in_bytes, size_t out_bytes)
{
    unsigned char in[LANES * 4] = {0}, out[LANES * 4];
    memcpy(in, s, (size_t)n * in_bytes);
    f(out, in, LANES);
    memcpy(d, out, (size_t)n * out_bytes);
}

/* Sixteen float32 bits to bfloat16, nearest even; NaN quieted with its
 * sign and the top of its payload. */
static inline __m256i bfloat16_of(__m256i u)
{
    const __m256i one = _mm256_set1_epi32(1), below_half = _mm256_set1_epi32(0x7fff);
    const __m256i magnitude = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
    __m256i odd = _mm256_and_si256(_mm256_srli_epi32(u, 16), one);
    __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, below_half), odd), 16);
    __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
    __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, magnitude), inf);
    return _mm256_blendv_epi8(rounded, quiet, nan);
}

/* Two registers of 32-bit lanes below 2^16 to one of 16-bit lanes, in order. */
static inline __m256i narrow(__m256i lo, __m256i hi)
{
    return _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xD8);
}

/* Eight bfloat16 to float32: the bits shifted up, NaN quieted. */
static inline __m256i float_of_bfloat16(__m128i h)
{
    __m256i u = _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16);
    __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
    return _mm256_or_si256(u, _mm256_and_si256(nan, _mm256_set1_epi32(0x00400000)));
}

/* Sixteen elements a step. */
static inline void step_to_bfloat16(uint16_t *d, const float *s)
{
    __m256i lo = bfloat16_of(_mm256_loadu_si256((const __m256i *)s));
    __m256i hi = bfloat16_of(_mm256_loadu_si256((const __m256i *)(s + 8)));
    _mm256_storeu_si256((__m256i *)d, narrow(lo, hi));
}

static inline void step_from_bfloat16(float *d, const uint16_t *s)
{
    _mm256_storeu_si256((__m256i *)d, float_of_bfloat16(_mm_loadu_si128((const __m128i *)s)));
    _mm256_storeu_si256((__m256i *)(d + 8), float_of_bfloat16(_mm_loadu_si128((const __m128i *)(s + 8))));
}

static inline void step_to_float16(uint16_t *d, const float *s)
{
    __m128i lo = _mm256_cvtps_ph(_mm256_loadu_ps(s), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m128i hi = _mm256_cvtps_ph(_mm256_loadu_ps(s + 8), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm256_storeu_si256((__m256i *)d, _mm256_set_m128i(hi, lo));
}

static inline void step_from_float16(float *d, const uint16_t *s)
{
    _mm256_storeu_ps(d, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)s)));
    _mm256_storeu_ps(d + 8, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + 8))));
}

/* The loop of n elements over a step: whole steps, then the rest through
 * a copy. */
#define STEPPED_LOOP(NAME, STEP, IN, OUT)                                                   \
    static void NAME(void *restrict dst, const void *restrict src, int64_t n)               \
    {                                                                                       \
        const IN *s = src;                                                                  \
        OUT *d = dst;                                                                       \
        int64_t i = 0;                                                                      \
        for (; i + LANES <= n; i += LANES) STEP(d + i, s + i);                              \
        if (i < n) through_copy(NAME, d + i, s + i, n - i, sizeof *s, sizeof *d);           \
    }

STEPPED_LOOP(float_to_bfloat16, step_to_bfloat16, float, uint16_t)
STEPPED_LOOP(bfloat16_to_float, step_from_bfloat16, uint16_t, float)
STEPPED_LOOP(float_to_float16, step_to_float16, float, uint16_t)
STEPPED_LOOP(float16_to_float, step_from_float16, uint16_t, float)

const rl_convert_simd_set rl_convert_avx2 = {float_to_bfloat16, bfloat16_to_float, float_to_float16, float16_to_float};
#endif
