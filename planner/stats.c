/* stats.c — a transform plan's statistics (relay_plan_stats) from its
 * structure (see stats.h):
 *   bytes_total   every element of every A_k moves once;
 *   bytes_remote  the volumes whose sender is not the receiver sigma gives
 *                 (with sigma = identity: bytes_remote_identity);
 *   messages      the sender-receiver pairs with a volume, less self-pairs;
 *   pieces        one per (block of B) x (block of A) intersection: the grids
 *                 are tensor products of row and column splits, so a pair
 *                 has (row segments) x (column segments) pieces, the
 *                 segments of the merged splits of A and op(B); between
 *                 block-cyclic layouts a dimension on one process is one
 *                 block, as the planner cuts it (bc_runs.c). */
#include "bc_lattice.h"
#include "stats.h"

/* One dimension of a layout: its rows, or its columns; one_block when it
 * is cut as a single block. */
typedef struct {
    const relay_layout *l;
    int rows, one_block;
} dimension;

static dimension dimension_of(const rl_pair *pr, const relay_layout *l, int rows)
{
    int procs = rows ? l->bc.nprow : l->bc.npcol;
    return (dimension){l, rows, rl_pair_is_block_cyclic(pr) && procs == 1};
}

static int64_t dim_blocks(dimension d)
{
    if (d.one_block) return (d.rows ? d.l->m : d.l->n) > 0;
    return d.rows ? d.l->nbr : d.l->nbc;
}

/* Where block k of the dimension begins; past the last block, never. */
static int64_t dim_split(dimension d, int64_t k)
{
    if (k > dim_blocks(d)) return INT64_MAX;
    if (d.one_block && k == 1) return d.rows ? d.l->m : d.l->n;
    return d.rows ? rl_layout_row_split(d.l, k) : rl_layout_col_split(d.l, k);
}

/* Segments of [0, extent) cut at the block boundaries of two dimensions of
 * that extent. */
static int64_t merged_segments(dimension a, dimension b)
{
    int64_t i = 1, j = 1, segments = 0;
    while (i <= dim_blocks(a) || j <= dim_blocks(b)) {
        int64_t ai = dim_split(a, i), bj = dim_split(b, j), next = ai < bj ? ai : bj;
        i += ai == next;
        j += bj == next;
        segments++;
    }
    return segments;
}

static int64_t pair_pieces(const rl_pair *pr)
{
    int t = rl_op_transposes(pr->op);
    dimension a_rows = dimension_of(pr, pr->dst, 1), a_cols = dimension_of(pr, pr->dst, 0);
    dimension b_rows = dimension_of(pr, pr->src, !t), b_cols = dimension_of(pr, pr->src, t); /* op(B)'s */
    return merged_segments(a_rows, b_rows) * merged_segments(a_cols, b_cols);
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
