/* overlay.h — cutting a rectangle of A by another layout's grid: the grid
 * overlay of COSTA's Algorithm 2, one block at a time. */
#ifndef RELAY_OVERLAY_H
#define RELAY_OVERLAY_H

#include "plan_internal.h"

/* A rectangle of A's coordinate space: rows [r0, r1) x columns [c0, c1). */
typedef struct { int64_t r0, r1, c0, c1; } rl_rect;

/* Block (bi, bj) of l in A's coordinates (l's own, transposed when
 * `transposed`: l stores op(B) with B = A^T). */
rl_rect rl_block_rect(const relay_layout *l, int bi, int bj, int transposed);

/* Offset of A-coordinate element (i, j) in block (bi, bj) of l. */
int64_t rl_place_in_block(const relay_layout *l, int bi, int bj, int transposed, int64_t i, int64_t j);

/* Calls visit for every block of `other` that intersects `in`, with the
 * intersection, in column-major order of blocks. */
typedef void (*rl_overlay_visitor)(int obi, int obj, rl_rect piece, void *ctx);
void rl_overlay(const relay_layout *other, int transposed, rl_rect in, rl_overlay_visitor visit, void *ctx);

#endif
