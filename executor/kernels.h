/* kernels.h — the executor's memory kernels.
 *
 * One primitive moves a rectangle: dst := alpha * op(src) + beta * dst,
 * where the rectangle is rows x cols in dst's coordinates and src stores it
 * transposed when op is T or C.  Whatever the element orders of the two
 * sides, it reduces to one of two loops over memory (kernels.c):
 *   runs:      both sides contiguous along the same dimension — one memcpy
 *              per run (or one for the whole rectangle) when alpha = 1,
 *              beta = 0 and no conjugation, a scaled loop otherwise;
 *   transpose: contiguous along different dimensions — a cache-blocked
 *              tile loop with alpha and beta fused in.
 * Each element is read once and written once: one memory pass. */
#ifndef RELAY_KERNELS_H
#define RELAY_KERNELS_H

#include <complex.h>
#include "relay/status.h"

/* alpha and beta in the plan's type, and what they let the kernels skip. */
typedef struct {
    relay_type type;
    union { float f; double d; float complex cf; double complex cd; } alpha, beta;
    int alpha_one;   /* alpha == 1 */
    int beta_zero;   /* beta == 0: dst is never read */
} rl_scalars;

/* Reads alpha and beta (NULL: 1 and 0) as values of type t. */
void rl_scalars_set(rl_scalars *s, relay_type t, const void *alpha, const void *beta);

/* One side of a move: base pointer, leading dimension, element order, and
 * whether the side stores dst's rows as its columns. */
typedef struct {
    void *base;
    int64_t ld;
    relay_order order;
    int transposed;
} rl_side;

/* dst := alpha * op(src) + beta * dst over rows x cols (dst coordinates);
 * conj applies complex conjugation to src (op C). */
void rl_move(const rl_scalars *s, int conj, rl_side dst, rl_side src, int64_t rows, int64_t cols);

/* Plain copy of the rectangle (alpha 1, beta 0, no conjugation). */
void rl_copy(relay_type t, rl_side dst, rl_side src, int64_t rows, int64_t cols);

#endif
