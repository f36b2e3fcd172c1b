/* nd.c — relay-run's fill function and check for N-D plans.
 *
 * B's element at global index j = (j_0, .., j_{d-1}) of pair k holds
 *   re v(j) = (7 j_0 + 13 j_1 + 29 j_2 + 31 j_3 + .. + 17 k) mod 1021 - 510
 *   im v(j) = (3 j_0 +  5 j_1 + 11 j_2 + 17 j_3 + .. + 11 k) mod  509 - 254
 * (coefficients per dimension below; imaginary parts for complex types
 * only): small integers, exact in every element type.  Every replica holds
 * v.  A partial source of P pieces, piece q being its partial mesh
 * coordinates in mesh order (the last fastest), holds in each part
 *   w_q = ((s + q) mod 3) - 1  for q < P - 1,   the last piece v - (the others' sum)
 * (s: the part's sum mod 1021 or 509 above), so the pieces add up to v
 * exactly in any order.  B's padding holds NaN; A starts as NaN, its
 * padding as 2^100.  After the replay of A := permute(B) (alpha 1, beta
 * 0) every element A(i) must equal v(j) with j[perm[k]] = i_k (conjugated
 * for op C) exactly, and A's padding must still hold 2^100.
 *
 * Where a rank holds what is computed here from the layout's description
 * (its mesh ranks, placements, order and padding), not by relay's own
 * arithmetic: per dimension the global indices the rank holds, in order,
 * and the strides of its local array; a buffer size that differs from
 * relay's is an error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nd_layout.h"
#include "plan_internal.h"
#include "run.h"

enum { RE_MOD = 1021, IM_MOD = 509 };
static const int re_coef[RELAY_ND_MAX_DIMS] = {7, 13, 29, 31, 37, 41, 43, 47};
static const int im_coef[RELAY_ND_MAX_DIMS] = {3, 5, 11, 17, 19, 23, 53, 59};
static const double padding_value = 0x1p100; /* exact in every element type */

/* ---- what a rank holds of a layout, from its description ------------------- */

typedef struct {
    const relay_nd_layout *l;
    int ndims, coords[RELAY_ND_MAX_MESH];   /* coords: on the mesh (elems > 0) */
    relay_order order;
    int64_t extent[RELAY_ND_MAX_DIMS], stored[RELAY_ND_MAX_DIMS], stride[RELAY_ND_MAX_DIMS];
    int64_t *global[RELAY_ND_MAX_DIMS];  /* extent[k] global indices, in order */
    int64_t elems;                       /* the buffer: 0 when the rank holds nothing */
    int64_t piece, pieces;               /* partial piece of this rank, of how many */
} nd_local;

static void local_free(nd_local *loc)
{
    for (int k = 0; k < RELAY_ND_MAX_DIMS; k++) free(loc->global[k]);
}

/* The mesh dimension that shards array dimension k, or -1. */
static int shard_of(const relay_nd_layout *l, int k)
{
    for (int m = 0; m < l->mesh_ndims; m++)
        if (l->place[m].kind == RELAY_SHARD && l->place[m].dim == k) return m;
    return -1;
}

/* The global indices of dimension k that the rank at mesh coordinates
 * `coords` holds, in order, into out (when not NULL); returns their
 * count, without a walk when out is NULL.  All of them when no mesh
 * dimension shards k, else its coordinate c's: [splits[c], splits[c+1]),
 * or the blocks c, c + p, c + 2p, .. of b (the last one short). */
static int64_t dim_indices(const relay_nd_layout *l, int k, const int *coords, int64_t *out)
{
    int m = shard_of(l, k);
    int64_t n = l->shape[k], lo = 0, hi = n, count = 0;
    if (m >= 0 && l->place[m].splits) lo = l->place[m].splits[coords[m]], hi = l->place[m].splits[coords[m] + 1];
    if (m < 0 || l->place[m].splits) {
        for (int64_t g = lo; out && g < hi; g++) out[g - lo] = g;
        return hi - lo;
    }
    int64_t b = l->place[m].block, p = l->mesh_shape[m], c = coords[m], nblocks = (n + b - 1) / b;
    if (!out) {
        int64_t mine = c < nblocks ? (nblocks - 1 - c) / p + 1 : 0, last = n - (nblocks - 1) * b;
        return mine * b - (nblocks > 0 && (nblocks - 1) % p == c ? b - last : 0);
    }
    for (int64_t blk = c; blk < nblocks; blk += p)
        for (int64_t g = blk * b; g < blk * b + b && g < n; g++) out[count++] = g;
    return count;
}

/* The rank's mesh coordinates (row-major over the mesh), or 0 when it is
 * not on the mesh. */
static int mesh_coords(const relay_nd_layout *l, int rank, int *coords)
{
    int64_t at = -1;
    for (int64_t i = 0; i < l->mesh_size && at < 0; i++)
        if (l->mesh_ranks[i] == rank) at = i;
    for (int m = l->mesh_ndims - 1; m >= 0 && at >= 0; m--) {
        coords[m] = (int)(at % l->mesh_shape[m]);
        at /= l->mesh_shape[m];
    }
    return at >= 0;
}

static void local_strides(nd_local *loc, const relay_nd_layout *l)
{
    int64_t stride = 1;
    loc->elems = 1;
    for (int i = 0; i < loc->ndims; i++) {
        int k = loc->order == RELAY_ROW_MAJOR ? loc->ndims - 1 - i : i;
        loc->stored[k] = l->padded[k] ? l->padded[k] : loc->extent[k];
        loc->stride[k] = stride;
        stride *= loc->stored[k];
        if (!loc->extent[k]) loc->elems = 0;
    }
    if (loc->elems) loc->elems = stride;
}

/* What rank holds of l: its extents, strides, buffer size and partial
 * piece (global indices not yet listed). */
static void local_shape(nd_local *loc, const relay_nd_layout *l, int rank)
{
    *loc = (nd_local){.ndims = l->ndims, .order = l->order, .pieces = 1, .l = l};
    if (!mesh_coords(l, rank, loc->coords)) return; /* holds nothing */
    for (int m = 0; m < l->mesh_ndims; m++)
        if (l->place[m].kind == RELAY_PARTIAL)
            loc->piece = loc->piece * l->mesh_shape[m] + loc->coords[m], loc->pieces *= l->mesh_shape[m];
    for (int k = 0; k < l->ndims; k++) loc->extent[k] = dim_indices(l, k, loc->coords, NULL);
    local_strides(loc, l);
}

/* The global indices it holds, per dimension (none when its buffer is empty). */
static int local_indices(nd_local *loc, cli_error *e)
{
    for (int k = 0; loc->elems && k < loc->ndims; k++) {
        if (!(loc->global[k] = malloc((size_t)loc->extent[k] * sizeof *loc->global[k])))
            return cli_fail(e, CLI_FAILED, "out of memory for the global indices of %lld elements", (long long)loc->elems);
        dim_indices(loc->l, k, loc->coords, loc->global[k]);
    }
    return CLI_OK;
}

/* ---- the values ---------------------------------------------------------------- */

/* The parts' sums before the offsets (v = s - 510 + i (t - 254)), term by
 * term: per local index of each dimension, that index's term, with the
 * coefficient of B's dimension `bdim[k]` it stands for. */
typedef struct {
    int *re[RELAY_ND_MAX_DIMS], *im[RELAY_ND_MAX_DIMS];
    int base_re, base_im;
} value_terms;

static void terms_free(value_terms *t)
{
    for (int k = 0; k < RELAY_ND_MAX_DIMS; k++) free(t->re[k]), free(t->im[k]);
}

static int terms_build(value_terms *t, const nd_local *loc, const int *bdim, int pair, cli_error *e)
{
    *t = (value_terms){.base_re = 17 * pair % RE_MOD, .base_im = 11 * pair % IM_MOD};
    for (int k = 0; loc->elems && k < loc->ndims; k++) {
        t->re[k] = malloc((size_t)loc->extent[k] * sizeof(int));
        t->im[k] = malloc((size_t)loc->extent[k] * sizeof(int));
        if (!t->re[k] || !t->im[k]) return cli_fail(e, CLI_FAILED, "out of memory for the values of %lld elements", (long long)loc->elems);
        for (int64_t i = 0; i < loc->extent[k]; i++) {
            t->re[k][i] = (int)(re_coef[bdim[k]] * (loc->global[k][i] % RE_MOD) % RE_MOD);
            t->im[k][i] = (int)(im_coef[bdim[k]] * (loc->global[k][i] % IM_MOD) % IM_MOD);
        }
    }
    return CLI_OK;
}

/* Piece q of `pieces` of a part whose sum is s and value v (see the top). */
static int piece_part(int s, int v, int64_t q, int64_t pieces)
{
    if (q < pieces - 1) return (int)((s + q) % 3) - 1;
    int others = 0;
    for (int64_t t = 0; t < (pieces - 1) % 3; t++) others += (int)((s + t) % 3) - 1; /* whole cycles of 3 add 0 */
    return v - others;
}

static double complex element_value(int s_re, int s_im, int64_t q, int64_t pieces)
{
    int re = s_re - 510, im = s_im - 254;
    return (double)piece_part(s_re, re, q, pieces) + I * (double)piece_part(s_im, im, q, pieces);
}

/* ---- visiting a buffer in memory order ----------------------------------------- */

/* visit(ctx, pos, held, s_re, s_im, index) for every element of the
 * buffer, padding included (held 0); index: the local indices. */
typedef void (*element_fn)(void *ctx, int64_t pos, int held, int s_re, int s_im, const int64_t *index);

static void walk(const nd_local *loc, const value_terms *t, element_fn visit, void *ctx)
{
    int64_t index[RELAY_ND_MAX_DIMS] = {0};
    int d = loc->ndims;
    if (!loc->elems) return;
    for (;;) {
        int64_t pos = 0;
        int held = 1, s_re = t->base_re, s_im = t->base_im;
        for (int k = 0; k < d; k++) {
            pos += index[k] * loc->stride[k];
            if (index[k] >= loc->extent[k]) held = 0;
            else s_re = (s_re + t->re[k][index[k]]) % RE_MOD, s_im = (s_im + t->im[k][index[k]]) % IM_MOD;
        }
        visit(ctx, pos, held, s_re, s_im, index);
        int i = 0; /* the next index, the fastest dimension first */
        for (; i < d; i++) {
            int k = loc->order == RELAY_ROW_MAJOR ? d - 1 - i : i;
            if (++index[k] < loc->stored[k]) break;
            index[k] = 0;
        }
        if (i == d) return;
    }
}

/* ---- filling ------------------------------------------------------------------- */

typedef struct {
    void *buf;
    relay_type type;
    int64_t piece, pieces;
    int is_source;
} fill_visit;

static void fill_element(void *ctx, int64_t pos, int held, int s_re, int s_im, const int64_t *index)
{
    const fill_visit *v = ctx;
    (void)index;
    double complex x = !v->is_source ? (held ? CMPLX(NAN, NAN) : CMPLX(padding_value, padding_value))
                                     : held ? element_value(s_re, s_im, v->piece, v->pieces) : CMPLX(NAN, NAN);
    run_store(v->buf, v->type, pos, x);
}

/* What rank holds of pair k's A or B, its buffer size checked against relay's. */
static int local_for(nd_local *loc, const relay_plan *p, int is_dst, int k, int rank, cli_error *e)
{
    local_shape(loc, is_dst ? relay_plan_nd_dst(p, k) : relay_plan_nd_src(p, k), rank);
    int64_t relay_elems = relay_plan_buffer_elems(p, is_dst, k, rank);
    if (relay_elems != loc->elems)
        return cli_fail(e, CLI_FAILED, "rank %d's %s buffer of pair %d: relay sizes it %lld elements, its layout %lld", rank,
                        is_dst ? "A" : "B", k, (long long)relay_elems, (long long)loc->elems);
    return CLI_OK;
}

/* Fills one side's buffer: B's values (A's NaN) and the padding. */
static int fill_side(const relay_plan *p, nd_local *loc, void *buf, int is_dst, int k, cli_error *e)
{
    value_terms t = {0};
    int bdim[RELAY_ND_MAX_DIMS] = {0, 1, 2, 3, 4, 5, 6, 7};
    int status = local_indices(loc, e);
    if (!status) status = terms_build(&t, loc, bdim, k, e);
    if (!status) {
        fill_visit v = {buf, p->type, loc->piece, loc->pieces, !is_dst};
        walk(loc, &t, fill_element, &v);
    }
    terms_free(&t);
    return status;
}

static int prepare_pair(const relay_plan *p, int k, int rank, run_buffers *buf, cli_error *e)
{
    nd_local a = {0}, b = {0};
    int status = local_for(&a, p, 1, k, rank, e);
    if (!status) status = local_for(&b, p, 0, k, rank, e);
    if (!status) status = run_alloc_pair(buf, k, a.elems, b.elems, p->type, rank, e);
    if (!status) status = fill_side(p, &a, buf->a[k], 1, k, e);
    if (!status) status = fill_side(p, &b, buf->b[k], 0, k, e);
    local_free(&a);
    local_free(&b);
    return status;
}

int prepare_nd(const relay_plan *p, int rank, run_buffers *buf, cli_error *e)
{
    if (run_buffers_init(buf, relay_plan_count(p), e)) return e->status;
    for (int k = 0; k < buf->count; k++)
        if (prepare_pair(p, k, rank, buf, e)) return e->status;
    return CLI_OK;
}

/* ---- checking ------------------------------------------------------------------ */

typedef struct {
    const void *buf;
    relay_type type;
    const nd_local *loc;
    int conjugate, complex_type, ndims;
    int64_t checked, wrong;
    int64_t bad_index[RELAY_ND_MAX_DIMS];    /* global, or local for padding */
    int bad_held;
    double complex bad_got, bad_want;
} check_visit;

static void check_element(void *ctx, int64_t pos, int held, int s_re, int s_im, const int64_t *index)
{
    check_visit *v = ctx;
    double complex want = held ? element_value(s_re, s_im, 0, 1) : CMPLX(padding_value, padding_value);
    if (held && v->conjugate) want = conj(want);
    if (!v->complex_type) want = creal(want);
    double complex got = run_load(v->buf, v->type, pos);
    v->checked++;
    if (got == want) return;
    if (v->wrong++) return;
    for (int k = 0; k < v->ndims; k++) v->bad_index[k] = held ? v->loc->global[k][index[k]] : index[k];
    v->bad_held = held;
    v->bad_got = got;
    v->bad_want = want;
}

static void describe_wrong(const check_visit *v, int pair, char *first, size_t cap)
{
    char index[160] = "", got[64], want[64];
    size_t used = 0;
    for (int k = 0; k < v->ndims && used < sizeof index; k++)
        used += (size_t)snprintf(index + used, sizeof index - used, "%s%lld", k ? ", " : "", (long long)v->bad_index[k]);
    if (v->complex_type) {
        snprintf(got, sizeof got, "%g%+gi", creal(v->bad_got), cimag(v->bad_got));
        snprintf(want, sizeof want, "%g%+gi", creal(v->bad_want), cimag(v->bad_want));
    } else {
        snprintf(got, sizeof got, "%g", creal(v->bad_got));
        snprintf(want, sizeof want, "%g", creal(v->bad_want));
    }
    if (v->bad_held) snprintf(first, cap, "A[%s] of pair %d holds %s instead of %s", index, pair, got, want);
    else snprintf(first, cap, "A's padding at local [%s] of pair %d holds %s instead of %s", index, pair, got, want);
}

/* Pair k's A on this rank: returns its wrong elements (1 when it cannot
 * be checked), the first described when it is the first of all. */
static int64_t check_pair(const relay_plan *p, int k, int rank, const void *a, int64_t *checked, char *first, size_t cap,
                          int64_t wrong_before)
{
    nd_local loc;
    value_terms t = {0};
    int perm[RELAY_ND_MAX_DIMS];
    cli_error e;
    relay_plan_nd_perm(p, k, perm);
    if (local_for(&loc, p, 1, k, rank, &e) || local_indices(&loc, &e) || terms_build(&t, &loc, perm, k, &e)) {
        if (!wrong_before) snprintf(first, cap, "%s", e.msg);
        local_free(&loc);
        terms_free(&t);
        return 1;
    }
    relay_type type = p->type;
    check_visit v = {.buf = a, .type = type, .loc = &loc, .conjugate = p->nd->pairs[k].op == RELAY_OP_C,
                     .complex_type = type == RELAY_CFLOAT || type == RELAY_CDOUBLE, .ndims = loc.ndims};
    walk(&loc, &t, check_element, &v);
    if (v.wrong && !wrong_before) describe_wrong(&v, k, first, cap);
    *checked += v.checked;
    terms_free(&t);
    local_free(&loc);
    return v.wrong;
}

int64_t check_nd(const relay_plan *p, int rank, const run_buffers *buf, int64_t *checked, char *first, size_t cap)
{
    int64_t wrong = 0;
    *checked = 0;
    for (int k = 0; k < buf->count; k++) wrong += check_pair(p, k, rank, buf->a[k], checked, first, cap, wrong);
    return wrong;
}
