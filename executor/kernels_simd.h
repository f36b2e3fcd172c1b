/* kernels_simd.h — what an instruction set's kernels give kernels.c.
 *
 * kernels.c hands these kernels a transpose whole, and the part of runs
 * that whole vector registers cover (the rest of each run it moves with
 * its portable C loops), for the instruction set chosen at run time
 * (SSE2, AVX2 or AVX-512 on x86, each file compiled for its own:
 * kernels_sse2.c, kernels_avx2.c, kernels_avx512.c, all written once in
 * kernels_simd_template.h).
 *
 * In both kernels dst is contiguous along i: element (i, j) of dst sits at
 * d[i + j*dld].  The update is dst := alpha * x + beta * dst by mode
 * (0: x, 1: alpha * x, 2: alpha * x + beta * dst), where x is the source
 * element, conjugated if conj. */
#ifndef RELAY_KERNELS_SIMD_H
#define RELAY_KERNELS_SIMD_H

#include <stdint.h>
#include <string.h>

#include "kernels.h"

/* A cache line; the transpose is made of squares of one line by one
 * line (64 / element size elements on a side). */
enum { RL_LINE_BYTES = 64 };

/* What a kernel applies to each element. */
typedef struct {
    const rl_scalars *sc;
    int mode;     /* 0, 1 or 2, as above */
    int conj;     /* conjugate the source (complex types only) */
    int stream;   /* non-temporal stores of the whole squares (modes 0 and 1; dst's leading dimension
                     whole lines, so that they lie on its lines) */
} rl_update;

/* The transpose: d[i + j*dld] := update(s[j + i*sld]) over rows x cols,
 * in line squares that begin lead_i rows and lead_j columns before the
 * rectangle (0 <= lead < the type's elements per line), so that they lie
 * on the cache lines of both sides where the leading dimensions are whole
 * lines; the squares the rectangle's edges cut move only their part. */
typedef void (*rl_transpose_fn)(void *d, int64_t dld, const void *s, int64_t sld, int64_t rows, int64_t cols,
                                int64_t lead_i, int64_t lead_j, const rl_update *u);

/* Runs: d[i + j*dld] := update(s[i + j*sld]) over i < rows - rows % n
 * (n elements a register), every j < cols; returns rows - rows % n, so
 * that the caller moves the rest. */
typedef int64_t (*rl_runs_fn)(void *d, int64_t dld, const void *s, int64_t sld, int64_t rows, int64_t cols,
                              const rl_update *u);

/* Bytes [lo, hi) of a register of reg_bytes at address p, through a
 * copy (the rest of reg zeros), and back: partial registers where an
 * instruction set has no masked load and store that never touch the
 * lanes masked off (SSE2; AVX2 across a page boundary). */
static inline void rl_part_in(void *reg, size_t reg_bytes, uintptr_t p, int lo, int hi)
{
    memset(reg, 0, reg_bytes);
    memcpy((char *)reg + lo, (const char *)(p + (uintptr_t)lo), (size_t)(hi - lo));
}

static inline void rl_part_out(uintptr_t p, const void *reg, int lo, int hi)
{
    memcpy((char *)(p + (uintptr_t)lo), (const char *)reg + lo, (size_t)(hi - lo));
}

/* One instruction set's kernels, indexed by relay_type. */
typedef struct {
    rl_transpose_fn transpose[4];
    rl_runs_fn runs[4];
} rl_simd_set;

#if defined(__x86_64__) || defined(__i386__)
extern const rl_simd_set rl_simd_sse2, rl_simd_avx2, rl_simd_avx512;
#endif

#endif
