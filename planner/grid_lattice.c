/* grid_lattice.c — lattices of pieces found in a custom layout's piece
 * lists (see grid_lattice.h).
 *
 * Pieces come as 1 x 1 lattices.  Two greedy passes then grow them, in
 * the spirit of PETSc's pack-pattern detection (PetscSFCreatePackOpt):
 *   1. down A's rows: pieces of one message, pair and first column with
 *      one shape and leading dimensions, taken in row order, join a
 *      lattice while their first rows and their offsets in both buffers
 *      keep the lattice's steps;
 *   2. across A's columns: column lattices equal in everything but their
 *      first column and offsets join while those keep constant steps.
 * Steps must be positive, so pieces of one lattice never coincide.  Both
 * ends of a message hold the same pieces (each carries its place in both
 * buffers) and sort them by the same keys, so they form the same lattices.
 * The cost is that of the pieces and one sort per pass. */
#include <stdlib.h>

#include "error.h"
#include "grid_lattice.h"
#include "overlay.h"

/* ---- pieces ------------------------------------------------------------------ */

typedef struct {
    const rl_pair *pair;
    int64_t k;
    int rank;
    int transposed;     /* op transposes: B's coordinates are A's transposed */
    int bi, bj;         /* the block of this rank being cut */
    rl_lattice_list *out;
    int failed;
} cut_ctx;

/* A piece of A rows/cols `pc` between B block (b_i, b_j) and A block (a_i, a_j). */
static void emit(cut_ctx *c, int b_i, int b_j, int a_i, int a_j, rl_rect pc)
{
    const relay_layout *a = c->pair->dst_relabeled, *b = c->pair->src;
    rl_ended_lattice e = {rl_layout_owner(b, b_i, b_j), rl_layout_owner(a, a_i, a_j),
                          {.pair = c->k, .rows = pc.r1 - pc.r0, .cols = pc.c1 - pc.c0, .count_r = 1, .count_c = 1,
                           .r0 = pc.r0, .c0 = pc.c0,
                           .src_off = rl_place_in_block(b, b_i, b_j, c->transposed, pc.r0, pc.c0),
                           .src_ld = rl_layout_ld(b, b_i, b_j),
                           .dst_off = rl_place_in_block(a, a_i, a_j, 0, pc.r0, pc.c0),
                           .dst_ld = rl_layout_ld(a, a_i, a_j)}};
    if (!c->failed && !rl_lattice_list_push(c->out, e)) c->failed = 1;
}

static void emit_send_piece(int ai, int aj, rl_rect pc, void *vctx)
{
    cut_ctx *c = vctx;
    emit(c, c->bi, c->bj, ai, aj, pc);
}

static void cut_src_block(int bi, int bj, void *vctx)
{
    cut_ctx *c = vctx;
    c->bi = bi;
    c->bj = bj;
    rl_overlay(c->pair->dst_relabeled, 0, rl_block_rect(c->pair->src, bi, bj, c->transposed), emit_send_piece, c);
}

/* A receiver leaves out its local pieces: the send side has them. */
static void emit_recv_piece(int bi, int bj, rl_rect pc, void *vctx)
{
    cut_ctx *c = vctx;
    if (rl_layout_owner(c->pair->src, bi, bj) != c->rank) emit(c, bi, bj, c->bi, c->bj, pc);
}

static void cut_dst_block(int ai, int aj, void *vctx)
{
    cut_ctx *c = vctx;
    c->bi = ai;
    c->bj = aj;
    rl_overlay(c->pair->src, c->transposed, rl_block_rect(c->pair->dst_relabeled, ai, aj, 0), emit_recv_piece, c);
}

/* ---- grouping ------------------------------------------------------------------ */

static int cmp64(int64_t a, int64_t b) { return (a > b) - (a < b); }

static int cmp_keys(const int64_t *x, const int64_t *y, int n)
{
    for (int i = 0; i < n; i++)
        if (x[i] != y[i]) return cmp64(x[i], y[i]);
    return 0;
}

/* Pass 1 key: what must be equal down a column, then the row. */
static void column_key(const rl_ended_lattice *e, int64_t key[8])
{
    const rl_lattice *l = &e->l;
    int64_t k[8] = {e->sender, e->receiver, l->c0, l->rows, l->cols, l->src_ld, l->dst_ld, l->r0};
    for (int i = 0; i < 8; i++) key[i] = k[i];
}

/* Pass 2 key: what must be equal across columns, then the column. */
static void row_key(const rl_ended_lattice *e, int64_t key[12])
{
    const rl_lattice *l = &e->l;
    int64_t k[12] = {e->sender, e->receiver, l->rows, l->cols, l->src_ld, l->dst_ld, l->count_r,
                     l->grs, l->src_di, l->dst_di, l->r0, l->c0};
    for (int i = 0; i < 12; i++) key[i] = k[i];
}

static int by_column_key(const void *a, const void *b)
{
    int64_t x[8], y[8];
    column_key(a, x);
    column_key(b, y);
    return cmp_keys(x, y, 8);
}

static int by_row_key(const void *a, const void *b)
{
    int64_t x[12], y[12];
    row_key(a, x);
    row_key(b, y);
    return cmp_keys(x, y, 12);
}

/* Whether b extends lattice a by one step along rows (down = 1) or
 * columns, setting the steps when a is still a single row (column). */
static int extends(rl_lattice *a, const rl_lattice *b, int down)
{
    int64_t n = down ? a->count_r : a->count_c;
    int64_t g = down ? b->r0 - a->r0 : b->c0 - a->c0;
    int64_t ds = b->src_off - a->src_off, dd = b->dst_off - a->dst_off;
    if (n == 1) {
        if (g <= 0 || ds <= 0 || dd <= 0) return 0;
        if (down) a->grs = g, a->src_di = ds, a->dst_di = dd;
        else a->gcs = g, a->src_dj = ds, a->dst_dj = dd;
        return 1;
    }
    if (down) return g == n * a->grs && ds == n * a->src_di && dd == n * a->dst_di;
    return g == n * a->gcs && ds == n * a->src_dj && dd == n * a->dst_dj;
}

/* Greedy pass over v (sorted so that candidates are adjacent): joins each
 * element into the previous lattice when their keys agree but for the last
 * field (the row, or the column) and it extends that lattice. */
static int64_t join_pass(rl_ended_lattice *v, int64_t n, int down)
{
    int64_t out = 0;
    for (int64_t i = 0; i < n; i++) {
        rl_ended_lattice *last = out ? &v[out - 1] : NULL;
        int64_t kl[12], ki[12];
        int same = 0;
        if (last) {
            if (down) {
                column_key(last, kl);
                column_key(&v[i], ki);
                same = cmp_keys(kl, ki, 7) == 0;
            } else {
                row_key(last, kl);
                row_key(&v[i], ki);
                same = cmp_keys(kl, ki, 11) == 0;
            }
        }
        if (same && extends(&last->l, &v[i].l, down)) {
            if (down) last->l.count_r++;
            else last->l.count_c++;
        } else {
            v[out++] = v[i];
        }
    }
    return out;
}

static void group(rl_ended_lattice *v, int64_t *n)
{
    if (*n < 2) return;
    qsort(v, (size_t)*n, sizeof *v, by_column_key);
    *n = join_pass(v, *n, 1);
    qsort(v, (size_t)*n, sizeof *v, by_row_key);
    *n = join_pass(v, *n, 0);
}

relay_status rl_grid_side_lattices(const rl_pair *pair, int64_t k, int rank, int send_side, rl_lattice_list *out)
{
    int64_t before = out->n;
    cut_ctx ctx = {pair, k, rank, rl_op_transposes(pair->op), 0, 0, out, 0};
    if (send_side) rl_layout_for_each_block(pair->src, rank, cut_src_block, &ctx);
    else rl_layout_for_each_block(pair->dst_relabeled, rank, cut_dst_block, &ctx);
    if (ctx.failed) return RL_NOMEM();
    int64_t n = out->n - before;
    group(out->v + before, &n);
    out->n = before + n;
    return RELAY_OK;
}
