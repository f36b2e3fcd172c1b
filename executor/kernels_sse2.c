/* kernels_sse2.c — the SIMD kernels (kernels_simd_template.h) for SSE2's
 * 128-bit registers: the baseline every x86-64 CPU has.  Compiled with
 * -msse2 (executor/CMakeLists.txt: 32-bit x86 does not assume it), and
 * called only when the CPU has SSE2 (kernels.c). */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include "kernels_simd.h"

#define SIMD_BYTES 16
#define SIMD_SET rl_simd_sse2
typedef __m128 vf;
typedef __m128d vd;
typedef __m128i vi;

static inline void swap_blocks(vf *a, vf *b, int lanes)
{
    vf lo, hi;
    if (lanes == 2) {
        lo = _mm_movelh_ps(*a, *b);
        hi = _mm_movehl_ps(*b, *a);
    } else { /* interleave, then take the 64-bit halves apart */
        vf u0 = _mm_unpacklo_ps(*a, *b), u1 = _mm_unpackhi_ps(*a, *b);
        lo = _mm_movelh_ps(u0, u1);
        hi = _mm_movehl_ps(u1, u0);
    }
    *a = lo;
    *b = hi;
}

static inline vf swap_pairs_f(vf x) { return _mm_shuffle_ps(x, x, 0xB1); }
static inline vd swap_pairs_d(vd x) { return _mm_shuffle_pd(x, x, 1); }
static inline void stream_store(char *p, vf x) { _mm_stream_ps((float *)p, x); }

/* Bytes [lo, hi) of a register through a copy: SSE2 has no masked loads
 * (maskmovdqu stores past the caches). */
static inline vf load_part(uintptr_t p, int lo, int hi)
{
    vf x;
    rl_part_in(&x, sizeof x, p, lo, hi);
    return x;
}

static inline void store_part(uintptr_t p, vf x, int lo, int hi) { rl_part_out(p, &x, lo, hi); }

#include "kernels_simd_template.h"
#endif
