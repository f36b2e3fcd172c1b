/* volumes.c — the package volumes |S_yx| (COSTA, Algorithm 2): bytes each
 * rank y sends to each logical rank x of the destination layouts, summed
 * over the pairs of a batch, before any relabeling.
 *
 * Between two block-cyclic layouts the volume factorises: the rows that a
 * process row of B and a process row of A share, times the columns that a
 * process column of B and a process column of A share.  Both counts come
 * from the run progressions of bc_runs.c, in time of one period
 * lcm(b P, b' P') of each dimension, so 1 x 1 blocks of a 10^5 x 10^5
 * matrix cost O(10^5), not O(10^10), and a 10^12-row dimension of regular
 * blocks costs a few progressions.  Other pairs cut each block of B by A's
 * grid (overlay.c). */
#include <string.h>

#include "bc_runs.h"
#include "error.h"
#include "overlay.h"
#include "volumes.h"

/* ---- per-sender accumulation ------------------------------------------- */

/* A dense row of bytes per destination with the list of touched entries, so
 * clearing costs only what was used. */
typedef struct {
    int64_t *bytes;
    int32_t *touched;
    int32_t ntouched;
} accumulator;

static void add(accumulator *acc, int32_t x, int64_t bytes)
{
    if (bytes == 0) return;
    if (acc->bytes[x] == 0) acc->touched[acc->ntouched++] = x;
    acc->bytes[x] += bytes;
}

/* ---- general pairs: cut blocks -------------------------------------------- */

typedef struct {
    const rl_pair *pair;
    int transposed;
    int64_t esz;
    accumulator *acc;
} cut_ctx;

static void count_piece(int ai, int aj, rl_rect pc, void *vctx)
{
    cut_ctx *c = vctx;
    add(c->acc, rl_layout_owner(c->pair->dst, ai, aj), (pc.r1 - pc.r0) * (pc.c1 - pc.c0) * c->esz);
}

static void cut_block(int bi, int bj, void *vctx)
{
    cut_ctx *c = vctx;
    rl_overlay(c->pair->dst, 0, rl_block_rect(c->pair->src, bi, bj, c->transposed), count_piece, c);
}

/* ---- block-cyclic pairs: separable counts ------------------------------------ */

/* Rows shared by a process of B and a process of A, and how many. */
typedef struct { int32_t b, a; int64_t count; } share;

/* The 1-D overlay of two cyclic distributions of the same extent: shares
 * sorted by (b, a), with b_first[pb] the first share of B process pb. */
typedef struct {
    share *s;
    int64_t n;
    int64_t *b_first;   /* B processes + 1 */
} shares;

/* Sums the run progressions of bc_runs.c per (b, a): they come sorted by
 * process pair, so each pair's shares are adjacent. */
static relay_status overlay_1d(shares *out, rl_bc_dim b, rl_bc_dim a)
{
    rl_run_lattice *runs = NULL;
    int64_t nruns = 0;
    relay_status st = rl_bc_runs(&b, &a, &runs, &nruns);
    if (st) return st;
    out->s = rl_malloc_array((size_t)nruns, sizeof *out->s);
    out->b_first = rl_calloc((size_t)b.P + 1, sizeof *out->b_first);
    if (!out->s || !out->b_first) {
        free(runs);
        return RL_NOMEM();
    }
    int64_t n = 0;
    for (int64_t k = 0; k < nruns; k++) {
        const rl_run_lattice *r = &runs[k];
        if (n > 0 && out->s[n - 1].b == r->from && out->s[n - 1].a == r->to) out->s[n - 1].count += r->len * r->count;
        else out->s[n++] = (share){r->from, r->to, r->len * r->count};
    }
    free(runs);
    out->n = n;
    for (int64_t k = 0; k < n; k++) out->b_first[out->s[k].b + 1]++;
    for (int p = 0; p < b.P; p++) out->b_first[p + 1] += out->b_first[p];
    return RELAY_OK;
}

static void shares_free(shares *s)
{
    free(s->s);
    free(s->b_first);
}

/* Row and column overlays of a block-cyclic pair: A's rows against the B
 * dimension that op maps onto them (B's rows, or B's columns when op
 * transposes), likewise for A's columns. */
typedef struct {
    shares rows, cols;
} separable;

static relay_status separable_init(separable *sp, const rl_pair *pr)
{
    const rl_block_cyclic *a = &pr->dst->bc, *b = &pr->src->bc;
    int64_t m = pr->dst->m, n = pr->dst->n;
    int t = rl_op_transposes(pr->op);
    memset(sp, 0, sizeof *sp);
    rl_bc_dim a_rows = {m, a->mb, a->nprow, a->rsrc, a->i0}, a_cols = {n, a->nb, a->npcol, a->csrc, a->j0};
    rl_bc_dim b_rows = {t ? n : m, b->mb, b->nprow, b->rsrc, b->i0}, b_cols = {t ? m : n, b->nb, b->npcol, b->csrc, b->j0};
    relay_status st = overlay_1d(&sp->rows, t ? b_cols : b_rows, a_rows);
    if (!st) st = overlay_1d(&sp->cols, t ? b_rows : b_cols, a_cols);
    return st;
}

static void separable_free(separable *sp)
{
    shares_free(&sp->rows);
    shares_free(&sp->cols);
}

static void count_separable(const separable *sp, const rl_pair *pr, int sender, int64_t esz, accumulator *acc)
{
    const rl_block_cyclic *a = &pr->dst->bc, *b = &pr->src->bc;
    if (sender >= b->nprow * b->npcol) return;
    int br, bc, t = rl_op_transposes(pr->op);
    rl_bc_coords(b, sender, &br, &bc);
    int row_side = t ? bc : br, col_side = t ? br : bc;
    for (int64_t i = sp->rows.b_first[row_side]; i < sp->rows.b_first[row_side + 1]; i++)
        for (int64_t j = sp->cols.b_first[col_side]; j < sp->cols.b_first[col_side + 1]; j++)
            add(acc, rl_bc_rank(a, sp->rows.s[i].a, sp->cols.s[j].a), sp->rows.s[i].count * sp->cols.s[j].count * esz);
}

static int is_separable(const rl_pair *pr)
{
    return pr->dst->kind == RL_LAYOUT_BLOCK_CYCLIC && pr->src->kind == RL_LAYOUT_BLOCK_CYCLIC;
}

/* ---- the whole matrix ------------------------------------------------------ */

/* Volumes from each sender as sparse rows (entries to logical receivers). */
typedef struct {
    int32_t *to;
    int64_t *bytes;
    int32_t n;
} sender_row;

static relay_status sender_rows(const relay_plan *p, const separable *sp, sender_row *rows)
{
    int n = p->nranks;
    int64_t esz = (int64_t)relay_type_size(p->type);
    relay_status st = RELAY_OK;
#pragma omp parallel if (n >= RL_PARALLEL_RANKS)
    {
        accumulator acc = {rl_calloc((size_t)n, sizeof(int64_t)), rl_malloc_array((size_t)n, sizeof(int32_t)), 0};
        int ok = acc.bytes && acc.touched;
#pragma omp for schedule(dynamic, 16)
        for (int y = 0; y < n; y++) {
            for (int k = 0; ok && k < p->count; k++) {
                const rl_pair *pr = &p->pairs[k];
                cut_ctx ctx = {pr, rl_op_transposes(pr->op), esz, &acc};
                if (is_separable(pr)) count_separable(&sp[k], pr, y, esz, &acc);
                else rl_layout_for_each_block(pr->src, y, cut_block, &ctx);
            }
            rows[y].to = ok ? rl_malloc_array((size_t)acc.ntouched, sizeof(int32_t)) : NULL;
            rows[y].bytes = ok ? rl_malloc_array((size_t)acc.ntouched, sizeof(int64_t)) : NULL;
            ok = ok && rows[y].to && rows[y].bytes;
            for (int32_t e = 0; ok && e < acc.ntouched; e++) {
                int32_t x = acc.touched[e];
                rows[y].to[e] = x;
                rows[y].bytes[e] = acc.bytes[x];
                acc.bytes[x] = 0;
            }
            rows[y].n = ok ? acc.ntouched : 0;
            acc.ntouched = 0;
        }
        if (!ok) {
#pragma omp atomic write
            st = RELAY_ERR_NOMEM;
        }
        free(acc.bytes);
        free(acc.touched);
    }
    return st ? RL_NOMEM() : RELAY_OK;
}

/* Transposes sender rows into receiver rows, senders increasing. */
static relay_status by_receiver(rl_volumes *v, const sender_row *rows)
{
    int n = v->n;
    v->start = rl_calloc((size_t)n + 1, sizeof *v->start);
    if (!v->start) return RL_NOMEM();
    for (int y = 0; y < n; y++)
        for (int32_t e = 0; e < rows[y].n; e++) v->start[rows[y].to[e] + 1]++;
    for (int x = 0; x < n; x++) v->start[x + 1] += v->start[x];
    int64_t total = v->start[n];
    v->from = rl_malloc_array((size_t)total, sizeof *v->from);
    v->bytes = rl_malloc_array((size_t)total, sizeof *v->bytes);
    int64_t *cursor = rl_malloc_array((size_t)n, sizeof *cursor);
    if (!v->from || !v->bytes || !cursor) {
        free(cursor);
        return RL_NOMEM();
    }
    memcpy(cursor, v->start, (size_t)n * sizeof *cursor);
    for (int y = 0; y < n; y++)
        for (int32_t e = 0; e < rows[y].n; e++) {
            int64_t at = cursor[rows[y].to[e]]++;
            v->from[at] = y;
            v->bytes[at] = rows[y].bytes[e];
        }
    free(cursor);
    return RELAY_OK;
}

relay_status rl_volumes_compute(rl_volumes *v, const relay_plan *p)
{
    memset(v, 0, sizeof *v);
    v->n = p->nranks;
    separable *sp = rl_calloc((size_t)p->count, sizeof *sp);
    sender_row *rows = rl_calloc((size_t)p->nranks, sizeof *rows);
    relay_status st = sp && rows ? RELAY_OK : RL_NOMEM();
    for (int k = 0; !st && k < p->count; k++)
        if (is_separable(&p->pairs[k])) st = separable_init(&sp[k], &p->pairs[k]);
    if (!st) st = sender_rows(p, sp, rows);
    if (!st) st = by_receiver(v, rows);
    for (int k = 0; sp && k < p->count; k++) separable_free(&sp[k]);
    for (int y = 0; rows && y < p->nranks; y++) {
        free(rows[y].to);
        free(rows[y].bytes);
    }
    free(sp);
    free(rows);
    if (st) rl_volumes_free(v);
    return st;
}

void rl_volumes_free(rl_volumes *v)
{
    free(v->start);
    free(v->from);
    free(v->bytes);
    memset(v, 0, sizeof *v);
}
