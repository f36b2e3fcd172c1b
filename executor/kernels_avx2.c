/* kernels_avx2.c — the SIMD kernels (kernels_simd_template.h) for AVX2's
 * 256-bit registers.  Compiled with -mavx2 (executor/CMakeLists.txt), and
 * called only when the CPU has AVX2 (kernels.c). */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include "kernels_simd.h"

#define SIMD_BYTES 32
#define SIMD_SET rl_simd_avx2
typedef __m256 vf;
typedef __m256d vd;
typedef __m256i vi;

static inline void swap_blocks(vf *a, vf *b, int lanes)
{
    vf lo, hi;
    if (lanes == 4) {
        lo = _mm256_permute2f128_ps(*a, *b, 0x20);
        hi = _mm256_permute2f128_ps(*a, *b, 0x31);
    } else if (lanes == 2) {
        lo = _mm256_shuffle_ps(*a, *b, 0x44);
        hi = _mm256_shuffle_ps(*a, *b, 0xEE);
    } else { /* odd lanes of a from b's even ones, even lanes of b from a's odd ones */
        lo = _mm256_blend_ps(*a, _mm256_moveldup_ps(*b), 0xAA);
        hi = _mm256_blend_ps(_mm256_movehdup_ps(*a), *b, 0xAA);
    }
    *a = lo;
    *b = hi;
}

static inline vf swap_pairs_f(vf x) { return _mm256_permute_ps(x, 0xB1); }
static inline vd swap_pairs_d(vd x) { return _mm256_permute_pd(x, 0x5); }
static inline void stream_store(char *p, vf x) { _mm256_stream_ps((float *)p, x); }

/* The 32-bit lanes that hold bytes [lo, hi) of a register, as a mask of
 * vmaskmovps (each lane's sign bit). */
static inline __m256i lanes_of(int lo, int hi)
{
    __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i from = _mm256_set1_epi32(lo / 4 - 1), to = _mm256_set1_epi32(hi / 4);
    return _mm256_and_si256(_mm256_cmpgt_epi32(lane, from), _mm256_cmpgt_epi32(to, lane));
}
/* AMD's manual lets vmaskmov fault on a page the lanes masked off reach:
 * a register across a page boundary goes through a copy. */
static inline int within_a_page(uintptr_t p) { return p % 4096 <= 4096 - 32; }

static inline vf load_part(uintptr_t p, int lo, int hi)
{
    if (within_a_page(p)) return _mm256_maskload_ps((const float *)p, lanes_of(lo, hi));
    vf x;
    rl_part_in(&x, sizeof x, p, lo, hi);
    return x;
}

static inline void store_part(uintptr_t p, vf x, int lo, int hi)
{
    if (within_a_page(p)) _mm256_maskstore_ps((float *)p, lanes_of(lo, hi), x);
    else rl_part_out(p, &x, lo, hi);
}

#include "kernels_simd_template.h"
#endif
