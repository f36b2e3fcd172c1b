/* overlay.c — the grid overlay, one rectangle at a time (see overlay.h). */
#include "overlay.h"

rl_rect rl_block_rect(const relay_layout *l, int bi, int bj, int transposed)
{
    rl_rect r = {rl_layout_row_split(l, bi), rl_layout_row_split(l, bi + 1), rl_layout_col_split(l, bj),
                 rl_layout_col_split(l, bj + 1)};
    if (transposed) r = (rl_rect){r.c0, r.c1, r.r0, r.r1};
    return r;
}

int64_t rl_place_in_block(const relay_layout *l, int bi, int bj, int transposed, int64_t i, int64_t j)
{
    int64_t r = transposed ? j : i, c = transposed ? i : j;
    return rl_layout_offset(l, bi, bj) +
           rl_elem_offset(l->order, rl_layout_ld(l, bi, bj), r - rl_layout_row_split(l, bi), c - rl_layout_col_split(l, bj));
}

void rl_overlay(const relay_layout *other, int transposed, rl_rect in, rl_overlay_visitor visit, void *ctx)
{
    /* In `other`'s own coordinates the rectangle's rows are A's columns when transposed. */
    int64_t or0 = transposed ? in.c0 : in.r0, or1 = transposed ? in.c1 : in.r1;
    int64_t oc0 = transposed ? in.r0 : in.c0, oc1 = transposed ? in.r1 : in.c1;
    int bi0 = rl_layout_block_row(other, or0), bi1 = rl_layout_block_row(other, or1 - 1);
    int bj0 = rl_layout_block_col(other, oc0), bj1 = rl_layout_block_col(other, oc1 - 1);
    for (int bj = bj0; bj <= bj1; bj++)
        for (int bi = bi0; bi <= bi1; bi++) {
            rl_rect b = rl_block_rect(other, bi, bj, transposed);
            rl_rect piece = {in.r0 > b.r0 ? in.r0 : b.r0, in.r1 < b.r1 ? in.r1 : b.r1,
                             in.c0 > b.c0 ? in.c0 : b.c0, in.c1 < b.c1 ? in.c1 : b.c1};
            visit(bi, bj, piece, ctx);
        }
}
