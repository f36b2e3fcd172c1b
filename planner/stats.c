/* stats.c — a transform plan's statistics (relay_plan_stats) from its
 * structure (see stats.h):
 *   bytes_total   every element of every A_k moves once;
 *   bytes_remote  the volumes whose sender is not the receiver sigma gives
 *                 (with sigma = identity: bytes_remote_identity);
 *   messages      the sender-receiver pairs with a volume, less self-pairs;
 *   pieces        one per (block of B) x (block of A) intersection: the grids
 *                 are tensor products of row and column splits, so a pair
 *                 has (row segments) x (column segments) pieces, the
 *                 segments of the merged splits of A and op(B). */
#include "stats.h"

/* Segments of [0, extent) cut at the union of two sorted split lists (each
 * from 0 to extent, na + 1 and nb + 1 entries). */
static int64_t merged_segments(const int64_t *a, int64_t na, const int64_t *b, int64_t nb)
{
    int64_t i = 1, j = 1, segments = 0;
    while (i <= na || j <= nb) {
        int64_t next = i > na ? b[j] : j > nb ? a[i] : a[i] < b[j] ? a[i] : b[j];
        if (i <= na && a[i] == next) i++;
        if (j <= nb && b[j] == next) j++;
        segments++;
    }
    return segments;
}

static int64_t pair_pieces(const rl_pair *pr)
{
    const relay_layout *a = pr->dst, *b = pr->src;
    int t = rl_op_transposes(pr->op);
    int64_t rows = t ? merged_segments(a->row_splits, a->nbr, b->col_splits, b->nbc)
                     : merged_segments(a->row_splits, a->nbr, b->row_splits, b->nbr);
    int64_t cols = t ? merged_segments(a->col_splits, a->nbc, b->row_splits, b->nbr)
                     : merged_segments(a->col_splits, a->nbc, b->col_splits, b->nbc);
    return rows * cols;
}

void rl_transform_stats(relay_plan *p, const rl_volumes *v)
{
    int64_t esz = (int64_t)relay_type_size(p->type);
    relay_plan_stats st = {0};
    for (int k = 0; k < p->count; k++) {
        st.bytes_total += p->pairs[k].dst->m * p->pairs[k].dst->n * esz;
        st.pieces += pair_pieces(&p->pairs[k]);
    }
    for (int x = 0; x < v->n; x++)
        for (int64_t e = v->start[x]; e < v->start[x + 1]; e++) {
            if (v->bytes[e] <= 0) continue;
            if (v->from[e] != x) st.bytes_remote_identity += v->bytes[e];
            if (v->from[e] != p->sigma[x]) {
                st.bytes_remote += v->bytes[e];
                st.messages++;
            }
        }
    p->stats = st;
}
