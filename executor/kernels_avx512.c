/* kernels_avx512.c — the SIMD kernels (kernels_simd_template.h) for
 * AVX-512's 512-bit registers (AVX512F only).  Compiled with -mavx512f
 * (executor/CMakeLists.txt), and called only when the CPU has AVX512F
 * (kernels.c). */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include "kernels_simd.h"

#define SIMD_BYTES 64
#define SIMD_SET rl_simd_avx512
typedef __m512 vf;
typedef __m512d vd;
typedef __m512i vi;

/* One instruction per half: a masked move picks b's lanes into a's
 * places (and a's into b's) from a copy permuted within 128 or 256 bits,
 * or a shuffle of 128-bit quarters. */
static inline void swap_blocks(vf *a, vf *b, int lanes)
{
    vf lo, hi;
    if (lanes == 8) {
        lo = _mm512_shuffle_f32x4(*a, *b, 0x44);
        hi = _mm512_shuffle_f32x4(*a, *b, 0xEE);
    } else if (lanes == 4) {
        lo = (vf)_mm512_mask_permutex_pd((vd)*a, 0xCC, (vd)*b, 0x44);
        hi = (vf)_mm512_mask_permutex_pd((vd)*b, 0x33, (vd)*a, 0xEE);
    } else if (lanes == 2) {
        lo = _mm512_shuffle_ps(*a, *b, 0x44);
        hi = _mm512_shuffle_ps(*a, *b, 0xEE);
    } else {
        lo = _mm512_mask_moveldup_ps(*a, 0xAAAA, *b);
        hi = _mm512_mask_movehdup_ps(*b, 0x5555, *a);
    }
    *a = lo;
    *b = hi;
}

static inline vf swap_pairs_f(vf x) { return _mm512_permute_ps(x, 0xB1); }
static inline vd swap_pairs_d(vd x) { return _mm512_permute_pd(x, 0x55); }
static inline void stream_store(char *p, vf x) { _mm512_stream_ps((float *)p, x); }

/* The 32-bit lanes that hold bytes [lo, hi) of a register. */
static inline __mmask16 lanes_of(int lo, int hi) { return (__mmask16)((1u << (hi / 4)) - (1u << (lo / 4))); }
/* Masked lanes never fault (AVX-512's fault suppression). */
static inline vf load_part(uintptr_t p, int lo, int hi) { return _mm512_maskz_loadu_ps(lanes_of(lo, hi), (const void *)p); }
static inline void store_part(uintptr_t p, vf x, int lo, int hi) { _mm512_mask_storeu_ps((void *)p, lanes_of(lo, hi), x); }

#include "kernels_simd_template.h"
#endif
