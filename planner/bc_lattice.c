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

/* The base rank (of the layout's own grid) whose blocks rank holds, or -1. */
static int base_of(const relay_layout *l, int rank)
{
    return l->rank_unmap ? l->rank_unmap[rank] : rank < l->base_nranks ? rank : -1;
}

/* The rank holding the blocks of grid process (pr, pc), and their ld. */
static int rank_of(const relay_layout *l, int pr, int pc)
{
    int base = rl_bc_rank(&l->bc, pr, pc);
    return l->rank_map ? l->rank_map[base] : base;
}

static int64_t ld_of(const relay_layout *l, int pr, int pc) { return l->bc_ld[rl_bc_rank(&l->bc, pr, pc)]; }

/* ---- one pair's two 1-D overlays ---------------------------------------- */

typedef struct {
    const relay_layout *a, *b;   /* A as relabeled (receivers), B (senders) */
    int transposed;
    rl_run_lattice *rows, *cols; /* A's rows and A's columns, from B's processes to A's */
    int64_t nrows, ncols;
} pair_overlay;

int rl_pair_is_block_cyclic(const rl_pair *pair)
{
    return pair->src->kind == RL_LAYOUT_BLOCK_CYCLIC && pair->dst_relabeled->kind == RL_LAYOUT_BLOCK_CYCLIC;
}

static relay_status overlay_init(pair_overlay *ov, const rl_pair *pair, int64_t k)
{
    memset(ov, 0, sizeof *ov);
    if (!rl_pair_is_block_cyclic(pair))
        return rl_fail(RELAY_ERR_ARG, "block-cyclic lattices: pair %lld is not block-cyclic on both sides", (long long)k);
    ov->a = pair->dst_relabeled;
    ov->b = pair->src;
    ov->transposed = rl_op_transposes(pair->op);
    const rl_block_cyclic *a = &ov->a->bc, *b = &ov->b->bc;
    int t = ov->transposed;
    rl_bc_dim b_rows = {ov->b->m, b->mb, b->nprow, b->rsrc}, b_cols = {ov->b->n, b->nb, b->npcol, b->csrc};
    rl_bc_dim a_rows = {ov->a->m, a->mb, a->nprow, a->rsrc}, a_cols = {ov->a->n, a->nb, a->npcol, a->csrc};
    relay_status st = rl_bc_runs(t ? &b_cols : &b_rows, &a_rows, &ov->rows, &ov->nrows);
    if (!st) st = rl_bc_runs(t ? &b_rows : &b_cols, &a_cols, &ov->cols, &ov->ncols);
    return st;
}

static void overlay_free(pair_overlay *ov)
{
    free(ov->rows);
    free(ov->cols);
}

/* The processes of the row and column overlays a rank sends from (its B
 * process row and column, swapped by op T/C) or receives at; -1 when the
 * rank holds nothing on that side. */
static void sender_procs(const pair_overlay *ov, int rank, int *row, int *col)
{
    int base = base_of(ov->b, rank), pr, pc;
    *row = *col = -1;
    if (base < 0) return;
    rl_bc_coords(&ov->b->bc, base, &pr, &pc);
    *row = ov->transposed ? pc : pr;
    *col = ov->transposed ? pr : pc;
}

static void receiver_procs(const pair_overlay *ov, int rank, int *row, int *col)
{
    int base = base_of(ov->a, rank);
    *row = *col = -1;
    if (base >= 0) rl_bc_coords(&ov->a->bc, base, row, col);
}

/* ---- lattices ------------------------------------------------------------- */

/* A lattice with the ranks at its two ends. */
typedef struct {
    int64_t sender, receiver;
    rl_lattice l;
} ended;

typedef struct {
    ended *v;
    int64_t n, cap;
} ended_list;

static int push(ended_list *list, ended e)
{
    if (list->n == list->cap) {
        int64_t cap = list->cap ? 2 * list->cap : 64;
        ended *grown = realloc(list->v, (size_t)cap * sizeof *grown);
        if (!grown) return 0;
        list->v = grown;
        list->cap = cap;
    }
    list->v[list->n++] = e;
    return 1;
}

/* The lattice of row progression r and column progression c. */
static ended product(const pair_overlay *ov, int64_t k, const rl_run_lattice *r, const rl_run_lattice *c)
{
    int t = ov->transposed;
    int b_pr = t ? c->from : r->from, b_pc = t ? r->from : c->from;
    int64_t bld = ld_of(ov->b, b_pr, b_pc), ald = ld_of(ov->a, r->to, c->to);
    relay_order bo = ov->b->order, ao = ov->a->order;
    ended e = {rank_of(ov->b, b_pr, b_pc), rank_of(ov->a, r->to, c->to), {0}};
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
static relay_status add_products(const pair_overlay *ov, int64_t k, int row_from, int row_to, int col_from,
                                 int col_to, ended_list *out)
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
            if (!push(out, product(ov, k, &ov->rows[i], cols[j]))) st = RL_NOMEM();
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

/* ---- canonical order ------------------------------------------------------- */

static int cmp64(int64_t a, int64_t b) { return (a > b) - (a < b); }

static int by_place(const rl_lattice *x, const rl_lattice *y)
{
    if (x->pair != y->pair) return cmp64(x->pair, y->pair);
    if (x->c0 != y->c0) return cmp64(x->c0, y->c0);
    return cmp64(x->r0, y->r0);
}

static int by_receiver(const void *a, const void *b)
{
    const ended *x = a, *y = b;
    return x->receiver != y->receiver ? cmp64(x->receiver, y->receiver) : by_place(&x->l, &y->l);
}

static int by_sender(const void *a, const void *b)
{
    const ended *x = a, *y = b;
    return x->sender != y->sender ? cmp64(x->sender, y->sender) : by_place(&x->l, &y->l);
}

/* ---- one rank pair ------------------------------------------------------------ */

relay_status rl_bc_lattices(const rl_pair *pair, int64_t k, int y, int x, rl_lattice **out, int64_t *nout)
{
    if (!pair || !out || !nout) return rl_fail(RELAY_ERR_ARG, "rl_bc_lattices: NULL argument");
    relay_status st = check_rank(pair, y);
    if (!st) st = check_rank(pair, x);
    if (st) return st;
    pair_overlay ov;
    ended_list list = {0};
    int fr, fc, tr, tc;
    st = overlay_init(&ov, pair, k);
    if (!st) {
        sender_procs(&ov, y, &fr, &fc);
        receiver_procs(&ov, x, &tr, &tc);
        if (fr >= 0 && tr >= 0) st = add_products(&ov, k, fr, tr, fc, tc, &list);
    }
    overlay_free(&ov);
    rl_lattice *v = NULL;
    if (!st && list.n && !(v = rl_malloc_array((size_t)list.n, sizeof *v))) st = RL_NOMEM();
    if (!st) {
        if (list.n) qsort(list.v, (size_t)list.n, sizeof *list.v, by_receiver);
        for (int64_t i = 0; i < list.n; i++) v[i] = list.v[i].l;
        *out = v;
        *nout = list.n;
    }
    free(list.v);
    return st;
}

/* ---- a rank's section side ------------------------------------------------------ */

void rl_lattice_side_free(rl_lattice_side *s)
{
    free(s->msgs);
    free(s->lattices);
    free(s->local);
    memset(s, 0, sizeof *s);
}

/* A batch's overlays, made once and shared by every rank's side. */
struct rl_bc_overlay {
    const rl_pair *pairs;
    int count;
    pair_overlay *pair;      /* count entries */
};

void rl_bc_overlay_free(rl_bc_overlay *ov)
{
    if (!ov) return;
    for (int k = 0; ov->pair && k < ov->count; k++) overlay_free(&ov->pair[k]);
    free(ov->pair);
    free(ov);
}

relay_status rl_bc_overlay_create(rl_bc_overlay **out, const rl_pair *pairs, int count)
{
    if (!out || !pairs || count < 0) return rl_fail(RELAY_ERR_ARG, "rl_bc_overlay_create: invalid argument");
    rl_bc_overlay *ov = calloc(1, sizeof *ov);
    if (!ov || !(ov->pair = rl_calloc((size_t)count, sizeof *ov->pair))) {
        free(ov);
        return RL_NOMEM();
    }
    ov->pairs = pairs;
    ov->count = count;
    relay_status st = RELAY_OK;
    for (int k = 0; k < count && !st; k++) st = overlay_init(&ov->pair[k], &pairs[k], k);
    if (st) {
        rl_bc_overlay_free(ov);
        return st;
    }
    *out = ov;
    return RELAY_OK;
}

/* Every lattice of the batch with `rank` at the side's end. */
static relay_status collect(const rl_bc_overlay *ov, int rank, int send_side, ended_list *list)
{
    for (int k = 0; k < ov->count; k++) {
        relay_status st = check_rank(&ov->pairs[k], rank);
        int r = -1, c = -1;
        if (!st && send_side) sender_procs(&ov->pair[k], rank, &r, &c);
        else if (!st) receiver_procs(&ov->pair[k], rank, &r, &c);
        if (!st && r >= 0)
            st = send_side ? add_products(&ov->pair[k], k, r, -1, c, -1, list)
                           : add_products(&ov->pair[k], k, -1, r, -1, c, list);
        if (st) return st;
    }
    return RELAY_OK;
}

/* Splits lattices sorted by peer into messages and local lattices (the
 * rank's own, kept on the send side only). */
static relay_status split(const ended_list *list, int rank, int send_side, rl_lattice_side *s)
{
    s->lattices = rl_malloc_array((size_t)list->n, sizeof *s->lattices);
    s->local = rl_malloc_array((size_t)list->n, sizeof *s->local);
    s->msgs = rl_malloc_array((size_t)list->n, sizeof *s->msgs);
    if (!s->lattices || !s->local || !s->msgs) return RL_NOMEM();
    for (int64_t i = 0; i < list->n; i++) {
        const ended *e = &list->v[i];
        int64_t peer = send_side ? e->receiver : e->sender;
        if (peer == rank) {
            if (send_side) s->local[s->nlocal++] = e->l;
            continue;
        }
        if (s->nmsg == 0 || s->msgs[s->nmsg - 1].peer != peer)
            s->msgs[s->nmsg++] = (rl_message){peer, s->nlattices, 0, 0};
        s->msgs[s->nmsg - 1].count++;
        s->msgs[s->nmsg - 1].elems += e->l.rows * e->l.cols * rl_lattice_npieces(&e->l);
        s->lattices[s->nlattices++] = e->l;
    }
    return RELAY_OK;
}

relay_status rl_bc_overlay_side(const rl_bc_overlay *ov, int rank, int send_side, rl_lattice_side *out)
{
    if (!ov || !out) return rl_fail(RELAY_ERR_ARG, "rl_bc_overlay_side: NULL argument");
    memset(out, 0, sizeof *out);
    ended_list list = {0};
    relay_status st = collect(ov, rank, send_side, &list);
    if (!st && list.n) qsort(list.v, (size_t)list.n, sizeof *list.v, send_side ? by_receiver : by_sender);
    if (!st) st = split(&list, rank, send_side, out);
    free(list.v);
    if (st) rl_lattice_side_free(out);
    return st;
}

relay_status rl_bc_section_lattices(const rl_pair *pairs, int count, int rank, int send_side, rl_lattice_side *out)
{
    if (!pairs || !out || count < 0) return rl_fail(RELAY_ERR_ARG, "rl_bc_section_lattices: invalid argument");
    rl_bc_overlay *ov;
    relay_status st = rl_bc_overlay_create(&ov, pairs, count);
    if (st) return st;
    st = rl_bc_overlay_side(ov, rank, send_side, out);
    rl_bc_overlay_free(ov);
    return st;
}

/* ---- pieces ------------------------------------------------------------------------ */

int64_t rl_lattice_npieces(const rl_lattice *l) { return l->count_r * l->count_c; }

rl_local_piece rl_lattice_piece(const rl_lattice *l, int64_t i, int64_t j)
{
    return (rl_local_piece){l->pair, l->rows, l->cols, l->src_off + i * l->src_di + j * l->src_dj, l->src_ld,
                            l->dst_off + i * l->dst_di + j * l->dst_dj, l->dst_ld};
}

rl_piece rl_lattice_half(const rl_lattice *l, int64_t i, int64_t j, int receiving)
{
    rl_local_piece p = rl_lattice_piece(l, i, j);
    return receiving ? (rl_piece){p.pair, p.rows, p.cols, p.dst_off, p.dst_ld}
                     : (rl_piece){p.pair, p.rows, p.cols, p.src_off, p.src_ld};
}

void rl_lattice_expand(const rl_lattice *l, int receiving, rl_piece *out)
{
    for (int64_t j = 0; j < l->count_c; j++)
        for (int64_t i = 0; i < l->count_r; i++) *out++ = rl_lattice_half(l, i, j, receiving);
}

void rl_lattice_expand_local(const rl_lattice *l, rl_local_piece *out)
{
    for (int64_t j = 0; j < l->count_c; j++)
        for (int64_t i = 0; i < l->count_r; i++) *out++ = rl_lattice_piece(l, i, j);
}
