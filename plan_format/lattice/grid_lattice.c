/* grid_lattice.c — lattices of pieces found in a custom layout's piece
 * lists (see grid_lattice.h).
 *
 * Pieces come as 1 x 1 lattices.  Two passes then grow them, in the
 * spirit of PETSc's pack-pattern detection (PetscSFCreatePackOpt):
 *   1. down A's rows: pieces of one message, pair and first column with
 *      one shape and leading dimensions join a lattice while their first
 *      rows and their offsets in both buffers keep the lattice's steps;
 *   2. across A's columns: column lattices equal in everything but their
 *      first column and offsets join while those keep constant steps.
 * In each pass, from the first element not yet taken, the next few are
 * tried as its second and the longest progression kept (as bc_runs.c
 * does), so interleaved phases are found.  Steps must be positive, so
 * pieces of one lattice never coincide.  Both
 * ends of a message hold the same pieces (each carries its place in both
 * buffers) and sort them by the same keys, so they form the same lattices.
 * The cost is that of the pieces and one sort per pass. */
#include <stdlib.h>
#include <string.h>

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

/* Second elements tried per progression (as bc_runs.c does): the pieces of
 * one key may interleave two phases, 0 8 64 72 ..., whose lasting step is
 * from 0 to 64, not to 8. */
enum { CANDIDATES = 8 };

static int cmp64(int64_t a, int64_t b) { return (a > b) - (a < b); }

/* What must be equal for two elements to join a progression, then their
 * position along it: pass 1 (down A's rows) joins pieces of one column and
 * shape by row; pass 2 (across columns) joins column lattices equal in all
 * but column and offsets, by column. */
enum { KEY_FIELDS = 12 };

static int key_of(const rl_ended_lattice *e, int down, int64_t key[KEY_FIELDS])
{
    const rl_lattice *l = &e->l;
    if (down) {
        int64_t k[] = {e->sender, e->receiver, l->c0, l->rows, l->cols, l->src_ld, l->dst_ld, l->r0};
        for (int i = 0; i < 8; i++) key[i] = k[i];
        return 8;
    }
    int64_t k[] = {e->sender, e->receiver, l->rows, l->cols, l->src_ld, l->dst_ld, l->count_r,
                   l->grs, l->src_di, l->dst_di, l->r0, l->c0};
    for (int i = 0; i < KEY_FIELDS; i++) key[i] = k[i];
    return KEY_FIELDS;
}

/* Compares the keys of a and b: all fields, or all but the position. */
static int cmp_key(const rl_ended_lattice *a, const rl_ended_lattice *b, int down, int with_position)
{
    int64_t x[KEY_FIELDS], y[KEY_FIELDS];
    int n = key_of(a, down, x) - !with_position;
    key_of(b, down, y);
    for (int i = 0; i < n; i++)
        if (x[i] != y[i]) return cmp64(x[i], y[i]);
    return 0;
}

static int by_down_key(const void *a, const void *b) { return cmp_key(a, b, 1, 1); }
static int by_across_key(const void *a, const void *b) { return cmp_key(a, b, 0, 1); }

static int64_t position(const rl_ended_lattice *e, int down) { return down ? e->l.r0 : e->l.c0; }

/* The element of a group (sorted by position, all distinct) at pos, or -1. */
static int64_t find_at(const rl_ended_lattice *v, int64_t lo, int64_t hi, int64_t pos, int down)
{
    int64_t end = hi;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (position(&v[mid], down) < pos) lo = mid + 1;
        else hi = mid;
    }
    return lo < end && position(&v[lo], down) == pos ? lo : -1;
}

/* A progression of a group [lo, hi): its first element and steps. */
typedef struct {
    int64_t first, count, step, src_step, dst_step;
} progression;

/* Follows the progression that starts at `first` and continues at
 * `second` as far as the group's untaken elements keep its steps in
 * position and both offsets (all positive). */
static progression follow(const rl_ended_lattice *v, const char *taken, int64_t lo, int64_t hi, int64_t first,
                          int64_t second, int down)
{
    const rl_lattice *a = &v[first].l, *b = &v[second].l;
    progression pr = {first, 1, position(&v[second], down) - position(&v[first], down), b->src_off - a->src_off,
                      b->dst_off - a->dst_off};
    if (pr.step <= 0 || pr.src_step <= 0 || pr.dst_step <= 0) return pr;
    for (int64_t at = second; at >= 0 && !taken[at]; pr.count++) {
        const rl_lattice *e = &v[at].l;
        if (e->src_off != a->src_off + pr.count * pr.src_step || e->dst_off != a->dst_off + pr.count * pr.dst_step) break;
        at = find_at(v, lo, hi, position(&v[first], down) + (pr.count + 1) * pr.step, down);
    }
    return pr;
}

/* The longest progression from `first`, trying the next CANDIDATES
 * untaken elements as its second. */
static progression longest_from(const rl_ended_lattice *v, const char *taken, int64_t lo, int64_t hi, int64_t first,
                                int down)
{
    progression best = {first, 1, 0, 0, 0};
    int tried = 0;
    for (int64_t j = first + 1; j < hi && tried < CANDIDATES; j++) {
        if (taken[j]) continue;
        tried++;
        progression pr = follow(v, taken, lo, hi, first, j, down);
        if (pr.count > best.count) best = pr;
    }
    return best;
}

/* The lattice a progression makes of its first element. */
static rl_ended_lattice joined(const rl_ended_lattice *first, const progression *pr, int down)
{
    rl_ended_lattice e = *first;
    if (pr->count == 1) return e;
    if (down) e.l.count_r = pr->count, e.l.grs = pr->step, e.l.src_di = pr->src_step, e.l.dst_di = pr->dst_step;
    else e.l.count_c = pr->count, e.l.gcs = pr->step, e.l.src_dj = pr->src_step, e.l.dst_dj = pr->dst_step;
    return e;
}

/* Marks a progression's elements taken. */
static void take(const rl_ended_lattice *v, char *taken, int64_t lo, int64_t hi, const progression *pr, int down)
{
    int64_t p0 = position(&v[pr->first], down);
    for (int64_t k = 0; k < pr->count; k++) taken[find_at(v, lo, hi, p0 + k * pr->step, down)] = 1;
}

/* One pass: v sorted by key, each group of equal keys (but for position)
 * compressed into progressions, written to out; returns their number. */
static int64_t join_pass(const rl_ended_lattice *v, int64_t n, int down, char *taken, rl_ended_lattice *out)
{
    int64_t nout = 0;
    for (int64_t lo = 0, hi; lo < n; lo = hi) {
        for (hi = lo + 1; hi < n && cmp_key(&v[lo], &v[hi], down, 0) == 0; hi++) continue;
        for (int64_t i = lo; i < hi; i++) {
            if (taken[i]) continue;
            progression pr = longest_from(v, taken, lo, hi, i, down);
            take(v, taken, lo, hi, &pr, down);
            out[nout++] = joined(&v[i], &pr, down);
        }
    }
    return nout;
}

/* Both passes over v[0, *n), in place. */
static relay_status group(rl_ended_lattice *v, int64_t *n)
{
    if (*n < 2) return RELAY_OK;
    char *taken = rl_malloc_array((size_t)*n, 1);
    rl_ended_lattice *tmp = rl_malloc_array((size_t)*n, sizeof *tmp);
    if (!taken || !tmp) {
        free(taken);
        free(tmp);
        return RL_NOMEM();
    }
    for (int down = 1; down >= 0; down--) {
        qsort(v, (size_t)*n, sizeof *v, down ? by_down_key : by_across_key);
        memset(taken, 0, (size_t)*n);
        *n = join_pass(v, *n, down, taken, tmp);
        memcpy(v, tmp, (size_t)*n * sizeof *v);
    }
    free(taken);
    free(tmp);
    return RELAY_OK;
}

relay_status rl_grid_side_lattices(const rl_pair *pair, int64_t k, int rank, int send_side, rl_lattice_list *out)
{
    int64_t before = out->n;
    cut_ctx ctx = {pair, k, rank, rl_op_transposes(pair->op), 0, 0, out, 0};
    if (send_side) rl_layout_for_each_block(pair->src, rank, cut_src_block, &ctx);
    else rl_layout_for_each_block(pair->dst_relabeled, rank, cut_dst_block, &ctx);
    if (ctx.failed) return RL_NOMEM();
    int64_t n = out->n - before;
    if (n == 0) return RELAY_OK; /* out->v may still be NULL */
    relay_status st = group(out->v + before, &n);
    out->n = before + n;
    return st;
}
