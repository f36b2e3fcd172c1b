/* bc_lattice.c — a block-cyclic transform's pieces as 2-D lattices (see
 * bc_lattice.h).
 *
 * A pair's overlay is two 1-D overlays from bc_runs.c: A's rows against
 * the B dimension op maps onto them, and A's columns likewise.  A run
 * progression of each, R and C, meets in a lattice of pieces that all go
 * from one B process (R.from, C.from) to one A process (R.to, C.to):
 *   A element (r, c) is at A-local (INDXG2L r, INDXG2L c), which for the
 *     pieces of the lattice is (R.dst0 + i R.dst_stride, C.dst0 + j
 *     C.dst_stride) plus the place inside the piece;
 *   its B element is (r, c) (op N) or (c, r) (op T/C), at B-local
 *     (R.src, C.src) or (C.src, R.src) likewise;
 * and an element order turns a local (row, col) into row + col*ld or
 * row*ld + col, linear in both, so the offsets are affine in (i, j).
 *
 * A rank's send side is every product of the row progressions leaving its
 * process row with the column progressions leaving its process column (for
 * op T/C: B's column, then row); its receive side, every product of those
 * arriving at its A process row and column.  The cost is that product of
 * progressions plus bc_runs' one period per dimension; pieces are never
 * visited.  Relabeling and the grid orders only rename the ranks at the
 * two ends. */
#include <stdlib.h>
#include <string.h>

#include "bc_lattice.h"
#include "bc_runs.h"
#include "error.h"

/* ---- ranks and process coordinates ------------------------------------- */

/* The rank holding the blocks of grid process (pr, pc), and their ld. */
static int rank_of(const relay_layout *l, int pr, int pc)
{
    int base = rl_bc_rank(&l->bc, pr, pc);
    return l->rank_map ? l->rank_map[base] : base;
}

static int64_t ld_of(const relay_layout *l, int pr, int pc) { return l->bc_ld[rl_bc_rank(&l->bc, pr, pc)]; }

/* ---- one pair's two 1-D overlays ---------------------------------------- */

int rl_pair_is_block_cyclic(const rl_pair *pair)
{
    return pair->src->kind == RL_LAYOUT_BLOCK_CYCLIC && pair->dst_relabeled->kind == RL_LAYOUT_BLOCK_CYCLIC;
}

relay_status rl_bc_pair_overlay_init(rl_bc_pair_overlay *ov, const rl_pair *pair, int64_t k)
{
    memset(ov, 0, sizeof *ov);
    if (!rl_pair_is_block_cyclic(pair))
        return rl_fail(RELAY_ERR_ARG, "block-cyclic lattices: pair %lld is not block-cyclic on both sides", (long long)k);
    ov->a = pair->dst_relabeled;
    ov->b = pair->src;
    ov->transposed = rl_op_transposes(pair->op);
    const rl_block_cyclic *a = &ov->a->bc, *b = &ov->b->bc;
    int t = ov->transposed;
    rl_bc_dim b_rows = {ov->b->m, b->mb, b->nprow, b->rsrc, b->i0}, b_cols = {ov->b->n, b->nb, b->npcol, b->csrc, b->j0};
    rl_bc_dim a_rows = {ov->a->m, a->mb, a->nprow, a->rsrc, a->i0}, a_cols = {ov->a->n, a->nb, a->npcol, a->csrc, a->j0};
    relay_status st = rl_bc_runs(t ? &b_cols : &b_rows, &a_rows, &ov->rows, &ov->nrows);
    if (!st) st = rl_bc_runs(t ? &b_rows : &b_cols, &a_cols, &ov->cols, &ov->ncols);
    return st;
}

void rl_bc_pair_overlay_free(rl_bc_pair_overlay *ov)
{
    free(ov->rows);
    free(ov->cols);
}

/* The processes of the row and column overlays a rank sends from (its B
 * process row and column, swapped by op T/C) or receives at; -1 when the
 * rank holds nothing on that side. */
static void sender_procs(const rl_bc_pair_overlay *ov, int rank, int *row, int *col)
{
    int base = rl_layout_base_rank(ov->b, rank), pr, pc;
    *row = *col = -1;
    if (base < 0) return;
    rl_bc_coords(&ov->b->bc, base, &pr, &pc);
    *row = ov->transposed ? pc : pr;
    *col = ov->transposed ? pr : pc;
}

static void receiver_procs(const rl_bc_pair_overlay *ov, int rank, int *row, int *col)
{
    int base = rl_layout_base_rank(ov->a, rank);
    *row = *col = -1;
    if (base >= 0) rl_bc_coords(&ov->a->bc, base, row, col);
}

/* ---- lattices ------------------------------------------------------------- */

/* The lattice of row progression r and column progression c. */
static rl_ended_lattice product(const rl_bc_pair_overlay *ov, int64_t k, const rl_run_lattice *r, const rl_run_lattice *c)
{
    int t = ov->transposed;
    int b_pr = t ? c->from : r->from, b_pc = t ? r->from : c->from;
    int64_t bld = ld_of(ov->b, b_pr, b_pc), ald = ld_of(ov->a, r->to, c->to);
    relay_order bo = ov->b->order, ao = ov->a->order;
    rl_ended_lattice e = {rank_of(ov->b, b_pr, b_pc), rank_of(ov->a, r->to, c->to), {0}};
    e.l = (rl_lattice){
        .pair = k, .rows = r->len, .cols = c->len, .count_r = r->count, .count_c = c->count,
        .r0 = r->g0, .c0 = c->g0, .grs = r->gstride, .gcs = c->gstride,
        /* B-local (row, col) is (R.src, C.src), or (C.src, R.src) under op T/C */
        .src_off = t ? rl_elem_offset(bo, bld, c->src0, r->src0) : rl_elem_offset(bo, bld, r->src0, c->src0),
        .src_di = t ? rl_elem_offset(bo, bld, 0, r->src_stride) : rl_elem_offset(bo, bld, r->src_stride, 0),
        .src_dj = t ? rl_elem_offset(bo, bld, c->src_stride, 0) : rl_elem_offset(bo, bld, 0, c->src_stride),
        .src_ld = bld,
        .dst_off = rl_elem_offset(ao, ald, r->dst0, c->dst0),
        .dst_di = rl_elem_offset(ao, ald, r->dst_stride, 0),
        .dst_dj = rl_elem_offset(ao, ald, 0, c->dst_stride),
        .dst_ld = ald};
    return e;
}

/* Whether a progression leaves process `from` and reaches `to` (-1: any). */
static int selected(const rl_run_lattice *p, int from, int to)
{
    return (from < 0 || p->from == from) && (to < 0 || p->to == to);
}

/* Appends the products of the row progressions from row_from to row_to
 * with the column progressions from col_from to col_to (-1: any process).
 * Time of the products and one pass over each dimension's progressions. */
static relay_status add_products(const rl_bc_pair_overlay *ov, int64_t k, int row_from, int row_to, int col_from,
                                 int col_to, rl_lattice_list *out)
{
    const rl_run_lattice **cols = rl_malloc_array((size_t)ov->ncols, sizeof *cols);
    if (!cols) return RL_NOMEM();
    int64_t ncols = 0;
    for (int64_t j = 0; j < ov->ncols; j++)
        if (selected(&ov->cols[j], col_from, col_to)) cols[ncols++] = &ov->cols[j];
    relay_status st = RELAY_OK;
    for (int64_t i = 0; i < ov->nrows && !st; i++) {
        if (!selected(&ov->rows[i], row_from, row_to)) continue;
        for (int64_t j = 0; j < ncols && !st; j++)
            if (!rl_lattice_list_push(out, product(ov, k, &ov->rows[i], cols[j]))) st = RL_NOMEM();
    }
    free(cols);
    return st;
}

static relay_status check_rank(const rl_pair *pair, int rank)
{
    if (rank < 0 || rank >= pair->src->nranks || rank >= pair->dst_relabeled->nranks)
        return rl_fail(RELAY_ERR_ARG, "block-cyclic lattices: rank %d outside the pair's %d ranks", rank,
                       pair->src->nranks);
    return RELAY_OK;
}

/* ---- a rank's side ------------------------------------------------------------ */

relay_status rl_bc_side_lattices(const rl_bc_pair_overlay *ov, const rl_pair *pair, int64_t k, int rank, int send_side,
                                 rl_lattice_list *out)
{
    int r = -1, c = -1;
    relay_status st = check_rank(pair, rank);
    if (st) return st;
    if (send_side) sender_procs(ov, rank, &r, &c);
    else receiver_procs(ov, rank, &r, &c);
    if (r < 0) return RELAY_OK;
    return send_side ? add_products(ov, k, r, -1, c, -1, out) : add_products(ov, k, -1, r, -1, c, out);
}
