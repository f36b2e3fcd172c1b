/* kernels.h — the executor's memory kernels.
 *
 * One primitive moves a rectangle: dst := alpha * op(src) + beta * dst,
 * where the rectangle is rows x cols in dst's coordinates and each side
 * places element (i, j) at its own strides, i * rs + j * cs elements from
 * its base (so a side that stores the rectangle transposed, or only every
 * k-th element of a buffer, is just other strides).  Whatever the strides,
 * it reduces to one of three loops over memory (kernels.c):
 *   runs:      both sides contiguous along the same dimension — one memcpy
 *              per run (or one for the whole rectangle) when alpha = 1,
 *              beta = 0 and no conjugation, a scaled loop otherwise;
 *   transpose: contiguous along different dimensions — a cache-blocked
 *              tile loop with alpha and beta fused in;
 *   strided:   anything else (a side contiguous along neither dimension) —
 *              the same tile loop over general strides.
 * Each element is read once and written once: one memory pass.  Runs and
 * transposes move whole vector registers with the instruction set chosen
 * at run time (kernels_simd.h), the rest with portable C loops. */
#ifndef RELAY_KERNELS_H
#define RELAY_KERNELS_H

#include <complex.h>
#include "layout_internal.h"

/* alpha and beta in the plan's type, and what they let the kernels skip. */
typedef struct {
    relay_type type;
    union { float f; double d; float complex cf; double complex cd; } alpha, beta;
    int alpha_one;   /* alpha == 1 */
    int beta_zero;   /* beta == 0: dst is never read */
    int large_dst;   /* set by callers whose rectangles are parts of one destination larger than the
                        caches (RL_LARGE_DST_BYTES), written once: streaming stores, whatever one
                        rectangle spans, wherever its lines are aligned (0 from rl_scalars_set) */
    int defer_fence; /* set by callers that call rl_stream_fence once after many moves, instead of
                        each move that streamed fencing its own stores (0 from rl_scalars_set) */
} rl_scalars;

/* A destination at least this large, written once, is better written past
 * the caches (kernels.c's streaming stores): N-D reshapes of 64^3 complex
 * doubles (4 MiB) ran slower streamed, those of 128^3 (32 MiB) and larger
 * faster, the more so the larger. */
enum { RL_LARGE_DST_BYTES = 16 << 20 };

/* Reads alpha and beta (NULL: 1 and 0) as values of type t. */
void rl_scalars_set(rl_scalars *s, relay_type t, const void *alpha, const void *beta);

/* One side of a move: element (i, j) of the rectangle (dst coordinates) is
 * i * rs + j * cs elements from base. */
typedef struct {
    void *base;
    int64_t rs, cs;
} rl_side;

/* A side stored at leading dimension ld in order o (see rl_strides). */
static inline rl_side rl_side_at(void *base, int64_t ld, relay_order o, int transposed)
{
    rl_side s = {base, 0, 0};
    rl_strides(o, ld, transposed, &s.rs, &s.cs);
    return s;
}

/* dst := alpha * op(src) + beta * dst over rows x cols (dst coordinates);
 * conj applies complex conjugation to src (op C). */
void rl_move(const rl_scalars *s, int conj, rl_side dst, rl_side src, int64_t rows, int64_t cols);

/* Makes this thread's streamed stores visible to other threads and
 * processes, as a move with defer_fence unset does on its own. */
void rl_stream_fence(void);

/* Plain copy of the rectangle (alpha 1, beta 0, no conjugation). */
void rl_copy(relay_type t, rl_side dst, rl_side src, int64_t rows, int64_t cols);

/* The instruction sets the kernels are built for.  The best one the CPU
 * has is used unless rl_kernels_use chose another (the tests check each,
 * the benchmarks compare them). */
typedef enum { RL_ISA_C, RL_ISA_SSE2, RL_ISA_AVX2, RL_ISA_AVX512, RL_ISA_COUNT } rl_isa;

int rl_isa_supported(rl_isa isa);              /* built in, and the CPU has it */
const char *rl_isa_name(rl_isa isa);           /* "c", "sse2", "avx2", "avx512" */
relay_status rl_kernels_use(rl_isa isa);       /* RELAY_ERR_ARG if not supported */
rl_isa rl_kernels_isa(void);                   /* the one in use */

#endif
