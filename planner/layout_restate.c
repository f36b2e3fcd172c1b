/* layout_restate.c — a relabeled layout said again without rank maps, and
 * whether two layouts store a matrix the same way.
 *
 * A plan's destination layout carries its relabeling as a rank map over
 * the layout the caller gave (layout_internal.h), which the plan file
 * stores as sigma beside it; a source layout has nowhere to keep one.  So
 * when a relabeled layout becomes a plan's source (planning from
 * relay_plan_dst_layout, inverting a relabeled plan), it is restated as an
 * explicit grid of the same blocks with their owners mapped.  Plan algebra
 * (algebra.c) also asks whether the layout one plan delivers is the one
 * the next plan reads: the same elements at the same rank and index. */
#include <string.h>

#include "error.h"
#include "planner_internal.h"

enum { RESTATE_MAX_BLOCKS = 1 << 22 }; /* 80 MiB of grid arrays */

/* Blocks of l, or -1 past RESTATE_MAX_BLOCKS blocks or splits (an m x 0
 * matrix has no blocks but may have 2^31 row splits). */
static int64_t bounded_blocks(const relay_layout *l)
{
    int64_t n = (int64_t)l->nbr * l->nbc;
    return n <= RESTATE_MAX_BLOCKS && (int64_t)l->nbr + l->nbc <= RESTATE_MAX_BLOCKS ? n : -1;
}

static relay_status restate_as_grid(relay_layout **out, const relay_layout *l, int64_t blocks)
{
    int64_t *rows = rl_malloc_array((size_t)l->nbr + 1, sizeof *rows), *cols = rl_malloc_array((size_t)l->nbc + 1, sizeof *cols);
    int *owners = rl_malloc_array((size_t)blocks, sizeof *owners);
    int64_t *offsets = rl_malloc_array((size_t)blocks, sizeof *offsets), *lds = rl_malloc_array((size_t)blocks, sizeof *lds);
    relay_status st = rows && cols && owners && offsets && lds ? RELAY_OK : RL_NOMEM();
    for (int i = 0; !st && i <= l->nbr; i++) rows[i] = rl_layout_row_split(l, i);
    for (int j = 0; !st && j <= l->nbc; j++) cols[j] = rl_layout_col_split(l, j);
    for (int i = 0; !st && i < l->nbr; i++)
        for (int j = 0; j < l->nbc; j++) {
            int64_t b = (int64_t)i * l->nbc + j;
            owners[b] = rl_layout_owner(l, i, j);
            offsets[b] = rl_layout_offset(l, i, j);
            lds[b] = rl_layout_ld(l, i, j);
        }
    if (!st) st = relay_layout_grid(out, l->nranks, l->m, l->n, l->nbr, rows, l->nbc, cols, owners, offsets, lds, l->order);
    free(rows);
    free(cols);
    free(owners);
    free(offsets);
    free(lds);
    return st;
}

static int identity_map(const relay_layout *l)
{
    for (int b = 0; b < l->base_nranks; b++)
        if (l->rank_map[b] != b) return 0;
    return 1;
}

relay_status rl_layout_restate(relay_layout **out, const relay_layout *l)
{
    if (!l->rank_map || identity_map(l)) { /* a plain copy: the description stays O(ranks) */
        relay_layout plain = *l;
        plain.rank_map = plain.rank_unmap = NULL;
        plain.maps_borrowed = 0;
        return rl_layout_relabel(out, &plain, NULL, l->nranks);
    }
    int64_t blocks = bounded_blocks(l);
    if (blocks < 0)
        return rl_fail(RELAY_ERR_UNSUPPORTED,
                       "a relabeled layout of %d x %d blocks is too large to restate as a grid layout (at most %d blocks)",
                       l->nbr, l->nbc, RESTATE_MAX_BLOCKS);
    return restate_as_grid(out, l, blocks);
}

static int mapped_rank(const relay_layout *l, int base) { return l->rank_map ? l->rank_map[base] : base; }

/* Block-cyclic layouts: the same formulas, lds and (rank maps applied)
 * owners of each grid process; O(ranks) however many blocks. */
static int same_block_cyclic(const relay_layout *a, const relay_layout *b)
{
    const rl_block_cyclic *x = &a->bc, *y = &b->bc;
    if (x->mb != y->mb || x->nb != y->nb || x->nprow != y->nprow || x->npcol != y->npcol || x->grid_order != y->grid_order ||
        x->rsrc != y->rsrc || x->csrc != y->csrc || x->i0 != y->i0 || x->j0 != y->j0)
        return 0;
    int processes = x->nprow * x->npcol;
    for (int r = 0; r < processes; r++)
        if (a->bc_ld[r] != b->bc_ld[r] || mapped_rank(a, r) != mapped_rank(b, r)) return 0;
    return 1;
}

static int same_blocks(const relay_layout *a, const relay_layout *b)
{
    for (int i = 0; i <= a->nbr; i++)
        if (rl_layout_row_split(a, i) != rl_layout_row_split(b, i)) return 0;
    for (int j = 0; j <= a->nbc; j++)
        if (rl_layout_col_split(a, j) != rl_layout_col_split(b, j)) return 0;
    for (int i = 0; i < a->nbr; i++)
        for (int j = 0; j < a->nbc; j++)
            if (rl_layout_owner(a, i, j) != rl_layout_owner(b, i, j) || rl_layout_offset(a, i, j) != rl_layout_offset(b, i, j) ||
                rl_layout_ld(a, i, j) != rl_layout_ld(b, i, j))
                return 0;
    return 1;
}

int rl_layout_same_storage(const relay_layout *a, const relay_layout *b)
{
    if (a->m != b->m || a->n != b->n || a->order != b->order || a->nbr != b->nbr || a->nbc != b->nbc) return 0;
    if (a->kind == RL_LAYOUT_BLOCK_CYCLIC && b->kind == RL_LAYOUT_BLOCK_CYCLIC && same_block_cyclic(a, b)) return 1;
    if (bounded_blocks(a) < 0) return -1;
    return same_blocks(a, b);
}
