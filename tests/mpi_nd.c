/* mpi_nd.c — N-D transforms (relay/nd.h) replayed, against an independent
 * serial reference written here.
 *
 * The reference: a layout is described by the test (shape, mesh, ranks,
 * placements, order, padding); for each rank it lists, per array
 * dimension, the global indices the rank's coordinate holds in increasing
 * order (whole; block-cyclic in blocks of b dealt from coordinate 0, with
 * b = ceil(n/p) for the even split; or split points), and from them the
 * global element (row-major linear index over the global shape) at each
 * position of its local buffer, -1 for padding.
 *
 * Values (all small integers, exact in every type, so that any order of
 * summation gives the same bits):
 *   B of pair q at global linear index j:
 *       re = (37 j + 11 q + 5) mod 201 - 100,   im = (13 j + 7 q + 3) mod 101 - 50;
 *   for a PARTIAL source of P pieces (the partial mesh dimensions'
 *   coordinates, row-major), piece c > 0 holds
 *       re = (j + 5 c + 3 q) mod 7 - 3,         im = (3 j + c + q) mod 5 - 2,
 *   and piece 0 the value above minus the other pieces, so that the pieces
 *   sum to it; replicas of a piece hold the same values;
 *   A of pair q before the replay at global linear index i:
 *       re = (17 i + 3 q + 1) mod 61 - 30,      im = (5 i + q) mod 41 - 20,
 *   or NaN when beta is zero (A must not be read);
 *   padding of A holds PAD_A, which no replay may touch; padding of B holds
 *   NaN, which must never reach A; B must be left as it was.
 * Expected: A[i] = alpha * op(B[j]) + beta * A[i], j[perm[k]] = i[k]
 * (numpy's transpose), op C conjugating complex types; perm NULL is the
 * identity for op N and the reversed axes otherwise.
 *
 * Cases: hand-picked (pencil reshapes, slab transposes, DTensor-shaped
 * moves, replicated destinations, partial sources, disjoint, overlapping
 * and subset groups, 1-D and 8-D arrays, small blocks, empty shards,
 * padding, mixed orders, larger arrays), each in every type with trivial
 * and non-trivial scalars, beta = 0 over NaN and a split-phase replay;
 * random cases with fixed seeds (printed on failure; MPI_ND_CASES and
 * MPI_ND_SEED run others), a fifth of them replayed from the plan encoded
 * and decoded for each rank; batches; bitwise reproducibility of partial
 * sums over replays and equality of replicas; bad input to the planner;
 * a start refused on one rank; plans that differ between ranks; which
 * replica of a source is read (its own, spread, node first).  Every check
 * is collective (mpi_check.h): all ranks agree on each verdict.
 *
 * Forwarding among a destination's replicas (relay_plan_options.replicas):
 * hand-picked cases planned direct and forward (every type and variant, the
 * forward plan also replayed from its file): broadcasts to R = np replicas,
 * R = 3, two replicate mesh dimensions (R,R; R,S0,R), partial sources, the
 * weight-sync shape on disjoint groups, overlapping groups where replicas
 * of A hold replicas of B (with a node map), and batches whose trees pass
 * on in opposite directions and in cycles between the same ranks (which
 * would deadlock were a transfer passed on to wait for more than its own
 * bytes); each case's traffic against a model derived here from the
 * documented rules (each rank's bytes, the MPI messages bound, counted over
 * PMPI, and the plan's statistics; the sources sending once per group; the
 * choice auto makes; the "forward" key of the plan file); partial sums of
 * inexact values bitwise equal forwarded and direct; bad replicas values;
 * and the random cases and batches again with forward forced. */
#include <complex.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include <mpi.h>

#include "mpi_check.h"
#include "relay/exec.h"
#include "relay/nd.h"
#include "relay/plan.h"

enum { MAXD = 8, MAXM = 4, MAXR = 64, MAXPAIRS = 3, RANDOM_CASES = 100 };
#define PAD_A (-31337.25)

static int me, np;

/* ---- a layout described by the test ------------------------------------------- */

typedef struct {
    int ndims;
    int64_t shape[MAXD];
    int mesh_ndims;
    int mesh_shape[MAXM];
    int ranks[MAXR];
    relay_placement_kind kind[MAXM];
    int dim[MAXM];
    int64_t block[MAXM];
    int has_splits[MAXM];
    int64_t splits[MAXM][MAXR + 1];
    relay_order order;
    int has_padded;
    int64_t padded[MAXD];
} lay;

static int mesh_size(const lay *l)
{
    int s = 1;
    for (int m = 0; m < l->mesh_ndims; m++) s *= l->mesh_shape[m];
    return s;
}

/* Starts a layout of shape on a mesh of the ranks given (NULL: 0, 1, ...), every mesh dim replicated. */
static void lay_init(lay *l, int ndims, const int64_t *shape, int mesh_ndims, const int *mesh_shape, const int *ranks,
                     relay_order order)
{
    memset(l, 0, sizeof *l);
    l->ndims = ndims;
    memcpy(l->shape, shape, (size_t)ndims * sizeof *shape);
    l->mesh_ndims = mesh_ndims;
    memcpy(l->mesh_shape, mesh_shape, (size_t)mesh_ndims * sizeof *mesh_shape);
    for (int i = 0; i < mesh_size(l); i++) l->ranks[i] = ranks ? ranks[i] : i;
    for (int m = 0; m < mesh_ndims; m++) l->kind[m] = RELAY_REPLICATE;
    l->order = order;
}
static void lay_shard(lay *l, int m, int dim, int64_t block)
{
    l->kind[m] = RELAY_SHARD, l->dim[m] = dim, l->block[m] = block, l->has_splits[m] = 0;
}
static void lay_split(lay *l, int m, int dim, const int64_t *splits)
{
    lay_shard(l, m, dim, 0);
    l->has_splits[m] = 1;
    memcpy(l->splits[m], splits, (size_t)(l->mesh_shape[m] + 1) * sizeof *splits);
}
static void lay_partial(lay *l, int m) { l->kind[m] = RELAY_PARTIAL; }
static void lay_pad(lay *l, const int64_t *padded)
{
    l->has_padded = 1;
    memcpy(l->padded, padded, (size_t)l->ndims * sizeof *padded);
}

static void lay_desc(const lay *l, relay_nd_desc *d, relay_placement *pl)
{
    for (int m = 0; m < l->mesh_ndims; m++)
        pl[m] = (relay_placement){l->kind[m], l->dim[m], l->block[m], l->has_splits[m] ? l->splits[m] : NULL};
    *d = (relay_nd_desc){l->ndims, l->shape, l->mesh_ndims, l->mesh_shape, l->ranks, pl, l->order,
                         l->has_padded ? l->padded : NULL};
}

static relay_status lay_create(const lay *l, relay_nd_layout **out)
{
    relay_nd_desc d;
    relay_placement pl[MAXM];
    lay_desc(l, &d, pl);
    return relay_nd_layout_create(out, &d);
}

static int lay_describe(const lay *l, char *s, size_t size)
{
    int n = snprintf(s, size, "[");
    for (int k = 0; k < l->ndims; k++) n += snprintf(s + n, size - (size_t)n, "%s%lld", k ? "x" : "", (long long)l->shape[k]);
    n += snprintf(s + n, size - (size_t)n, " mesh ");
    for (int m = 0; m < l->mesh_ndims; m++) n += snprintf(s + n, size - (size_t)n, "%s%d", m ? "x" : "", l->mesh_shape[m]);
    n += snprintf(s + n, size - (size_t)n, "@");
    for (int i = 0; i < mesh_size(l); i++) n += snprintf(s + n, size - (size_t)n, "%s%d", i ? "," : "", l->ranks[i]);
    n += snprintf(s + n, size - (size_t)n, " place ");
    for (int m = 0; m < l->mesh_ndims; m++) {
        if (m) n += snprintf(s + n, size - (size_t)n, ",");
        if (l->kind[m] == RELAY_REPLICATE) n += snprintf(s + n, size - (size_t)n, "R");
        else if (l->kind[m] == RELAY_PARTIAL) n += snprintf(s + n, size - (size_t)n, "P");
        else if (l->has_splits[m]) {
            n += snprintf(s + n, size - (size_t)n, "S%d/splits", l->dim[m]);
            for (int c = 0; c <= l->mesh_shape[m]; c++)
                n += snprintf(s + n, size - (size_t)n, "%s%lld", c ? ":" : "=", (long long)l->splits[m][c]);
        } else
            n += snprintf(s + n, size - (size_t)n, "S%d/b%lld", l->dim[m], (long long)l->block[m]);
    }
    n += snprintf(s + n, size - (size_t)n, " %s", l->order == RELAY_ROW_MAJOR ? "C" : "F");
    if (l->has_padded) {
        n += snprintf(s + n, size - (size_t)n, " pad");
        for (int k = 0; k < l->ndims; k++) n += snprintf(s + n, size - (size_t)n, "%s%lld", k ? "x" : "=", (long long)l->padded[k]);
    }
    n += snprintf(s + n, size - (size_t)n, "]");
    return n;
}

/* ---- the reference --------------------------------------------------------------- */

static int shard_of(const lay *l, int k)
{
    for (int m = 0; m < l->mesh_ndims; m++)
        if (l->kind[m] == RELAY_SHARD && l->dim[m] == k) return m;
    return -1;
}

/* The coordinate (along the mesh dimension sharding k) that holds global index g. */
static int owner_of(const lay *l, int k, int64_t g)
{
    int m = shard_of(l, k);
    if (m < 0) return 0;
    int p = l->mesh_shape[m];
    if (l->has_splits[m]) {
        for (int c = 0; c < p; c++)
            if (l->splits[m][c] <= g && g < l->splits[m][c + 1]) return c;
        return -1;
    }
    int64_t b = l->block[m] ? l->block[m] : (l->shape[k] + p - 1) / p;
    return (int)((g / (b ? b : 1)) % p);
}

static int64_t product(const int64_t *x, int n)
{
    int64_t s = 1;
    for (int k = 0; k < n; k++) s *= x[k];
    return s;
}

/* What one rank stores of a layout. */
typedef struct {
    int on_mesh;
    int piece;          /* its partial piece: row-major over the PARTIAL mesh dims' coordinates */
    int64_t elems;      /* its buffer's elements (0 when it holds nothing) */
    int64_t *map;       /* global row-major linear index at each position, -1 for padding */
} rank_part;

static int partial_pieces(const lay *l)
{
    int p = 1;
    for (int m = 0; m < l->mesh_ndims; m++)
        if (l->kind[m] == RELAY_PARTIAL) p *= l->mesh_shape[m];
    return p;
}

static void rank_part_make(rank_part *r, const lay *l, int rank)
{
    memset(r, 0, sizeof *r);
    int pos = -1, coords[MAXM];
    for (int i = 0; i < mesh_size(l); i++)
        if (l->ranks[i] == rank) pos = i;
    if (pos < 0) return;
    r->on_mesh = 1;
    for (int m = l->mesh_ndims - 1, rest = pos; m >= 0; m--) coords[m] = rest % l->mesh_shape[m], rest /= l->mesh_shape[m];
    for (int m = 0; m < l->mesh_ndims; m++)
        if (l->kind[m] == RELAY_PARTIAL) r->piece = r->piece * l->mesh_shape[m] + coords[m];
    int64_t *held[MAXD], ext[MAXD], stored[MAXD], stride[MAXD];
    int empty = 0;
    for (int k = 0; k < l->ndims; k++) {
        int m = shard_of(l, k), c = m < 0 ? 0 : coords[m];
        held[k] = malloc((size_t)(l->shape[k] + 1) * sizeof(int64_t));
        ext[k] = 0;
        for (int64_t g = 0; g < l->shape[k]; g++)
            if (owner_of(l, k, g) == c) held[k][ext[k]++] = g;
        stored[k] = l->has_padded && l->padded[k] ? l->padded[k] : ext[k];
        empty |= ext[k] == 0;
    }
    int64_t s = 1;
    if (l->order == RELAY_ROW_MAJOR)
        for (int k = l->ndims - 1; k >= 0; k--) stride[k] = s, s *= stored[k];
    else
        for (int k = 0; k < l->ndims; k++) stride[k] = s, s *= stored[k];
    r->elems = empty ? 0 : product(stored, l->ndims);
    r->map = malloc((size_t)(r->elems ? r->elems : 1) * sizeof(int64_t));
    for (int64_t i = 0; i < r->elems; i++) r->map[i] = -1;
    int64_t n_local = empty ? 0 : product(ext, l->ndims);
    for (int64_t t = 0; t < n_local; t++) {
        int64_t rest = t, p = 0, lin = 0, li[MAXD];
        for (int k = l->ndims - 1; k >= 0; k--) li[k] = rest % ext[k], rest /= ext[k];
        for (int k = 0; k < l->ndims; k++) {
            p += li[k] * stride[k];
            lin = lin * l->shape[k] + held[k][li[k]];
        }
        r->map[p] = lin;
    }
    for (int k = 0; k < l->ndims; k++) free(held[k]);
}

static void rank_part_free(rank_part *r) { free(r->map); }

static double complex value_b(int64_t j, int q)
{
    return (double)((37 * j + 11 * q + 5) % 201 - 100) + I * (double)((13 * j + 7 * q + 3) % 101 - 50);
}
static double complex piece_delta(int64_t j, int q, int c)
{
    return (double)((j + 5 * c + 3 * q) % 7 - 3) + I * (double)((3 * j + c + q) % 5 - 2);
}
static double complex value_piece(int64_t j, int q, int c, int pieces)
{
    if (c > 0) return piece_delta(j, q, c);
    double complex v = value_b(j, q);
    for (int d = 1; d < pieces; d++) v -= piece_delta(j, q, d);
    return v;
}
static double complex value_a(int64_t i, int q)
{
    return (double)((17 * i + 3 * q + 1) % 61 - 30) + I * (double)((5 * i + q) % 41 - 20);
}

/* ---- elements of the four types ------------------------------------------------ */

static int is_complex(relay_type t) { return t == RELAY_CFLOAT || t == RELAY_CDOUBLE; }
static size_t tsize(relay_type t) { return t == RELAY_FLOAT ? 4 : t == RELAY_DOUBLE || t == RELAY_CFLOAT ? 8 : 16; }
static const char *tname(relay_type t)
{
    return t == RELAY_FLOAT ? "float" : t == RELAY_DOUBLE ? "double" : t == RELAY_CFLOAT ? "cfloat" : "cdouble";
}

static void put(void *buf, relay_type t, int64_t at, double complex v)
{
    switch (t) {
    case RELAY_FLOAT: ((float *)buf)[at] = (float)creal(v); break;
    case RELAY_DOUBLE: ((double *)buf)[at] = creal(v); break;
    case RELAY_CFLOAT: ((float *)buf)[2 * at] = (float)creal(v), ((float *)buf)[2 * at + 1] = (float)cimag(v); break;
    case RELAY_CDOUBLE: ((double *)buf)[2 * at] = creal(v), ((double *)buf)[2 * at + 1] = cimag(v); break;
    }
}
static double complex get(const void *buf, relay_type t, int64_t at)
{
    switch (t) {
    case RELAY_FLOAT: return ((const float *)buf)[at];
    case RELAY_DOUBLE: return ((const double *)buf)[at];
    case RELAY_CFLOAT: return CMPLX(((const float *)buf)[2 * at], ((const float *)buf)[2 * at + 1]);
    default: return CMPLX(((const double *)buf)[2 * at], ((const double *)buf)[2 * at + 1]);
    }
}
/* Exact equality of what was stored and the expected value rounded to the type. */
static int same(relay_type t, double complex got, double complex want)
{
    if (t == RELAY_FLOAT || t == RELAY_CFLOAT) want = CMPLX((float)creal(want), (float)cimag(want));
    if (!is_complex(t)) return creal(got) == creal(want);
    return creal(got) == creal(want) && cimag(got) == cimag(want);
}

/* ---- a case: one to three pairs of one type ------------------------------------- */

typedef struct {
    int count;
    lay a[MAXPAIRS], b[MAXPAIRS];
    relay_op op[MAXPAIRS];
    int has_perm[MAXPAIRS];
    int perm[MAXPAIRS][MAXD];
    relay_type type;
    int node_map;       /* plan with a node map (rank / 2) */
    int reload;         /* replay the plan encoded and decoded for this rank */
    relay_replicas replicas; /* relay_plan_options.replicas (0: auto, the default) */
    char name[160];
} tcase;

static void effective_perm(const tcase *c, int q, int *perm)
{
    int d = c->a[q].ndims;
    for (int k = 0; k < d; k++)
        perm[k] = c->has_perm[q] ? c->perm[q][k] : c->op[q] == RELAY_OP_N ? k : d - 1 - k;
}

/* B's shape from A's and the permutation: B.shape[perm[k]] = A.shape[k]. */
static void shape_of_b(const int64_t *a_shape, int d, const int *perm, int64_t *b_shape)
{
    for (int k = 0; k < d; k++) b_shape[perm[k]] = a_shape[k];
}

/* The B element (row-major linear) that A's element (row-major linear) reads. */
static int64_t source_of(const lay *a, const lay *b, const int *perm, int64_t lin_a)
{
    int64_t i[MAXD], j[MAXD], rest = lin_a, lin_b = 0;
    for (int k = a->ndims - 1; k >= 0; k--) i[k] = rest % a->shape[k], rest /= a->shape[k];
    for (int k = 0; k < a->ndims; k++) j[perm[k]] = i[k];
    for (int k = 0; k < b->ndims; k++) lin_b = lin_b * b->shape[k] + j[k];
    return lin_b;
}

static void print_case(const tcase *c)
{
    char s[2048];
    for (int q = 0; q < c->count; q++) {
        int perm[MAXD], n = 0;
        effective_perm(c, q, perm);
        n += snprintf(s + n, sizeof s - (size_t)n, "  pair %d: op %s perm ", q, c->op[q] == RELAY_OP_N ? "N" : c->op[q] == RELAY_OP_T ? "T" : "C");
        for (int k = 0; k < c->a[q].ndims; k++) n += snprintf(s + n, sizeof s - (size_t)n, "%s%d", k ? "," : "", perm[k]);
        n += snprintf(s + n, sizeof s - (size_t)n, "%s\n    A ", c->has_perm[q] ? "" : " (NULL)");
        n += lay_describe(&c->a[q], s + n, sizeof s - (size_t)n);
        n += snprintf(s + n, sizeof s - (size_t)n, "\n    B ");
        n += lay_describe(&c->b[q], s + n, sizeof s - (size_t)n);
        printf("%s\n", s);
    }
}

/* The scalars of a variant: 0 alpha, beta NULL (A NaN); 1 both non-trivial;
 * 2 alpha non-trivial, beta an explicit zero (A NaN); 3 alpha NULL, beta
 * non-trivial, replayed split-phase (relay_exec_start, relay_exec_wait). */
enum { VARIANTS = 4 };
static int variant_alpha(int v) { return v == 1 || v == 2; }
static int variant_beta(int v) { return v == 1 || v == 3; }
static double complex alpha_of(relay_type t) { return is_complex(t) ? CMPLX(2, -1) : -2; }
static double complex beta_of(relay_type t) { return is_complex(t) ? CMPLX(-1, 0.5) : 0.5; }

static int reported;

/* Fills, replays (variant v) and checks this rank's buffers of every pair; returns 1 if all is well. */
static int replay_and_check(const tcase *c, relay_exec *ex, rank_part *ap, rank_part *bp, int64_t *a_elems, int64_t *b_elems,
                            int v, const char *tag)
{
    relay_type t = c->type;
    size_t ts = tsize(t);
    void *a[MAXPAIRS], *b[MAXPAIRS], *a_before[MAXPAIRS], *b_before[MAXPAIRS];
    for (int q = 0; q < c->count; q++) {
        a[q] = a_elems[q] ? malloc((size_t)a_elems[q] * ts) : NULL;
        b[q] = b_elems[q] ? malloc((size_t)b_elems[q] * ts) : NULL;
        int pieces = partial_pieces(&c->b[q]);
        for (int64_t p = 0; p < b_elems[q]; p++) {
            int64_t j = p < bp[q].elems ? bp[q].map[p] : -1;
            put(b[q], t, p, j < 0 ? CMPLX(NAN, NAN) : value_piece(j, q, bp[q].piece, pieces));
        }
        for (int64_t p = 0; p < a_elems[q]; p++) {
            int64_t i = p < ap[q].elems ? ap[q].map[p] : -1;
            put(a[q], t, p, i < 0 ? CMPLX(PAD_A, PAD_A) : variant_beta(v) ? value_a(i, q) : CMPLX(NAN, NAN));
        }
        a_before[q] = a_elems[q] ? malloc((size_t)a_elems[q] * ts) : NULL;
        b_before[q] = b_elems[q] ? malloc((size_t)b_elems[q] * ts) : NULL;
        if (a_elems[q]) memcpy(a_before[q], a[q], (size_t)a_elems[q] * ts);
        if (b_elems[q]) memcpy(b_before[q], b[q], (size_t)b_elems[q] * ts);
    }
    unsigned char alpha[16], beta[16];
    double complex al = variant_alpha(v) ? alpha_of(t) : 1, be = variant_beta(v) ? beta_of(t) : 0;
    put(alpha, t, 0, al);
    put(beta, t, 0, be);
    relay_status s;
    if (v == 3) { /* split phase: start, then wait */
        s = relay_exec_start(ex, a, (const void *const *)b, NULL, beta);
        relay_status w = relay_exec_wait(ex);
        if (!s) s = w;
    } else
        s = relay_exec_run(ex, a, (const void *const *)b, variant_alpha(v) ? alpha : NULL,
                           v == 2 ? beta : variant_beta(v) ? beta : NULL);
    int ok = s == RELAY_OK;
    if (!ok) printf("  rank %d: %s: relay_exec_run: %s: %s\n", me, tag, relay_status_str(s), relay_last_error());
    for (int q = 0; ok && q < c->count; q++) {
        int perm[MAXD];
        effective_perm(c, q, perm);
        int bad = 0;
        for (int64_t p = 0; p < a_elems[q]; p++) {
            int64_t i = p < ap[q].elems ? ap[q].map[p] : -1;
            double complex got = get(a[q], t, p), want;
            int good;
            if (i < 0) {
                good = !memcmp((char *)a[q] + p * (int64_t)ts, (char *)a_before[q] + p * (int64_t)ts, ts);
                want = CMPLX(PAD_A, PAD_A);
            } else {
                double complex x = value_b(source_of(&c->a[q], &c->b[q], perm, i), q);
                if (c->op[q] == RELAY_OP_C) x = conj(x);
                want = al * x + (variant_beta(v) ? be * value_a(i, q) : 0);
                good = same(t, got, want);
            }
            if (!good && bad++ < 3 && reported < 12) {
                reported++;
                if (is_complex(t))
                    printf("  rank %d: %s pair %d: A position %lld (%s %lld): got %g%+gi, expected %g%+gi\n", me, tag, q,
                           (long long)p, i < 0 ? "padding" : "global", (long long)i, creal(got), cimag(got), creal(want),
                           cimag(want));
                else
                    printf("  rank %d: %s pair %d: A position %lld (%s %lld): got %g, expected %g\n", me, tag, q,
                           (long long)p, i < 0 ? "padding" : "global", (long long)i, creal(got), creal(want));
            }
        }
        if (b_elems[q] && memcmp(b[q], b_before[q], (size_t)b_elems[q] * ts)) {
            bad++;
            printf("  rank %d: %s pair %d: B changed\n", me, tag, q);
        }
        if (bad) {
            ok = 0;
            printf("  rank %d: %s pair %d: %d of %lld A positions wrong\n", me, tag, q, bad, (long long)a_elems[q]);
        }
    }
    for (int q = 0; q < c->count; q++) free(a[q]), free(b[q]), free(a_before[q]), free(b_before[q]);
    return ok;
}

/* The replicas of a layout: the product of its REPLICATE mesh dimensions. */
static int replica_count(const lay *l)
{
    int r = 1;
    for (int m = 0; m < l->mesh_ndims; m++)
        if (l->kind[m] == RELAY_REPLICATE) r *= l->mesh_shape[m];
    return r;
}

/* Pairs whose destination has replicas (the ones a forwarding plan marks). */
static int replicated_pairs(const tcase *c)
{
    int n = 0;
    for (int q = 0; q < c->count; q++) n += replica_count(&c->a[q]) > 1;
    return n;
}

/* "forward": 1 entries of a plan file (msgpack: fixstr "forward", then positive fixint 1);
 * -1 if a "forward" key holds anything else. */
static int forward_keys(const void *bytes, size_t len)
{
    static const char key[] = "\xa7" "forward";
    const unsigned char *b = bytes;
    int n = 0;
    for (size_t i = 0; i + sizeof key <= len; i++)
        if (!memcmp(b + i, key, sizeof key - 1)) {
            if (b[i + sizeof key - 1] != 1) return -1;
            n++;
        }
    return n;
}

static int all_ranks(int ok)
{
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all;
}

/* Plans, binds and replays case c under each variant in `variants` (a bit set);
 * one collective check per case. */
static void run_case(const tcase *c, unsigned variants)
{
    relay_nd_layout *la[MAXPAIRS] = {0}, *lb[MAXPAIRS] = {0};
    rank_part ap[MAXPAIRS], bp[MAXPAIRS];
    int64_t a_elems[MAXPAIRS], b_elems[MAXPAIRS];
    int ok = 1;
    char tag[200];
    snprintf(tag, sizeof tag, "%s (%s)", c->name, tname(c->type));
    for (int q = 0; q < c->count; q++) {
        relay_status s1 = lay_create(&c->a[q], &la[q]), s2 = lay_create(&c->b[q], &lb[q]);
        if (s1 || s2) {
            ok = 0;
            printf("  rank %d: %s: pair %d: relay_nd_layout_create: %s\n", me, tag, q, relay_last_error());
        }
        rank_part_make(&ap[q], &c->a[q], me);
        rank_part_make(&bp[q], &c->b[q], me);
    }
    relay_plan *plan = NULL;
    if (ok) {
        const relay_nd_layout *dst[MAXPAIRS], *src[MAXPAIRS];
        const int *perms[MAXPAIRS];
        for (int q = 0; q < c->count; q++) dst[q] = la[q], src[q] = lb[q], perms[q] = c->has_perm[q] ? c->perm[q] : NULL;
        relay_plan_options o;
        relay_plan_options_init(&o);
        int nodes[MAXR];
        for (int r = 0; r < np; r++) nodes[r] = r / 2;
        if (c->node_map) o.node_of_rank = nodes;
        o.replicas = c->replicas;
        int given = c->node_map || c->replicas != RELAY_REPLICAS_AUTO;
        relay_status s = c->count == 1 ? relay_plan_nd(&plan, np, la[0], lb[0], c->op[0], perms[0], c->type, given ? &o : NULL)
                                        : relay_plan_nd_batch(&plan, np, c->count, dst, src, c->op, perms, c->type, &o);
        if (s) {
            ok = 0;
            printf("  rank %d: %s: relay_plan_nd: %s: %s\n", me, tag, relay_status_str(s), relay_last_error());
        }
    }
    /* the plan's queries */
    if (ok) {
        if (relay_plan_get_kind(plan) != RELAY_PLAN_ND || relay_plan_count(plan) != c->count || relay_plan_nranks(plan) != np
            || relay_plan_type(plan) != c->type || relay_plan_schedule(plan) != RELAY_SCHED_P2P) {
            ok = 0;
            printf("  rank %d: %s: kind %d count %d nranks %d type %d schedule %d\n", me, tag, (int)relay_plan_get_kind(plan),
                   relay_plan_count(plan), relay_plan_nranks(plan), (int)relay_plan_type(plan), (int)relay_plan_schedule(plan));
        }
        for (int q = 0; q < c->count; q++) {
            int perm[MAXD], got[MAXD];
            effective_perm(c, q, perm);
            memset(got, 0xff, sizeof got);
            const relay_nd_layout *pd = relay_plan_nd_dst(plan, q), *ps = relay_plan_nd_src(plan, q);
            if (relay_plan_nd_perm(plan, q, got) || memcmp(got, perm, (size_t)c->a[q].ndims * sizeof *perm)) {
                ok = 0;
                printf("  rank %d: %s: pair %d: relay_plan_nd_perm differs from the permutation planned\n", me, tag, q);
            }
            if (!pd || !ps || relay_nd_layout_ndims(pd) != c->a[q].ndims || relay_nd_layout_ndims(ps) != c->b[q].ndims) {
                ok = 0;
                printf("  rank %d: %s: pair %d: relay_plan_nd_dst/src missing or of the wrong rank\n", me, tag, q);
            }
            a_elems[q] = relay_plan_buffer_elems(plan, 1, q, me);
            b_elems[q] = relay_plan_buffer_elems(plan, 0, q, me);
            int64_t la_elems = relay_nd_layout_local_elems(la[q], me), lb_elems = relay_nd_layout_local_elems(lb[q], me);
            if (a_elems[q] != ap[q].elems || b_elems[q] != bp[q].elems || la_elems != ap[q].elems || lb_elems != bp[q].elems) {
                ok = 0;
                printf("  rank %d: %s: pair %d: buffer elems A %lld (layout %lld), B %lld (layout %lld); expected %lld, %lld\n",
                       me, tag, q, (long long)a_elems[q], (long long)la_elems, (long long)b_elems[q], (long long)lb_elems,
                       (long long)ap[q].elems, (long long)bp[q].elems);
            }
            if (a_elems[q] < ap[q].elems) a_elems[q] = ap[q].elems;
            if (b_elems[q] < bp[q].elems) b_elems[q] = bp[q].elems;
        }
        if (relay_plan_nd_dst(plan, c->count) || relay_plan_nd_src(plan, -1)) {
            ok = 0;
            printf("  rank %d: %s: relay_plan_nd_dst/src of a bad index not NULL\n", me, tag);
        }
    }
    {
        uint64_t f = plan ? relay_plan_fingerprint(plan) : 0, fmin, fmax;
        MPI_Allreduce(&f, &fmin, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&f, &fmax, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
        if (fmin != fmax) ok = 0, printf("  rank %d: %s: fingerprints differ between ranks\n", me, tag);
    }
    if (!all_ranks(plan != NULL)) ok = 0;
    relay_exec *ex = NULL;
    relay_plan *replayed = plan;
    if (all_ranks(plan != NULL) && c->reload && plan) {
        void *bytes = NULL;
        size_t len = 0;
        replayed = NULL;
        relay_status s = relay_plan_encode(plan, &bytes, &len);
        if (!s) s = relay_plan_decode(&replayed, bytes, len, me);
        /* the replicas' choice travels in the file: a "forward" key per pair that forwards */
        if (!s && c->replicas != RELAY_REPLICAS_AUTO) {
            int keys = forward_keys(bytes, len), want = c->replicas == RELAY_REPLICAS_FORWARD ? replicated_pairs(c) : 0;
            if (keys != want) {
                ok = 0;
                printf("  rank %d: %s: the plan file has %d pairs marked forward, expected %d\n", me, tag, keys, want);
            }
        }
        if (!s && relay_plan_fingerprint(replayed) != relay_plan_fingerprint(plan)) {
            ok = 0;
            printf("  rank %d: %s: the decoded plan's fingerprint differs\n", me, tag);
        }
        free(bytes);
        if (s) {
            ok = 0;
            printf("  rank %d: %s: the plan encoded and decoded for this rank: %s: %s\n", me, tag, relay_status_str(s),
                   relay_last_error());
            replayed = NULL;
        }
    }
    if (all_ranks(replayed != NULL)) {
        relay_status s = relay_exec_create(&ex, replayed, MPI_COMM_WORLD);
        if (s) {
            ok = 0;
            ex = NULL;
            printf("  rank %d: %s: relay_exec_create: %s: %s\n", me, tag, relay_status_str(s), relay_last_error());
        }
    }
    if (replayed != plan) relay_plan_free(replayed);
    if (all_ranks(ex != NULL)) {
        for (int v = 0; v < VARIANTS; v++) {
            if (!(variants >> v & 1)) continue;
            char vtag[240];
            snprintf(vtag, sizeof vtag, "%s variant %d%s", tag, v, c->reload ? " reloaded" : "");
            int vok = replay_and_check(c, ex, ap, bp, a_elems, b_elems, v, vtag);
            ok &= vok;
        }
    } else
        ok = 0;
    if (ex) relay_exec_free(ex);
    relay_plan_free(plan);
    for (int q = 0; q < c->count; q++) {
        relay_nd_layout_free(la[q]);
        relay_nd_layout_free(lb[q]);
        rank_part_free(&ap[q]);
        rank_part_free(&bp[q]);
    }
    int all = all_ranks(ok);
    if (!all && me == 0) print_case(c);
    char what[260];
    snprintf(what, sizeof what, "%s", tag);
    check(ok, what);
}

static void run_all_types(tcase *c, unsigned variants)
{
    static const relay_type types[] = {RELAY_FLOAT, RELAY_DOUBLE, RELAY_CFLOAT, RELAY_CDOUBLE};
    for (int i = 0; i < 4; i++) {
        c->type = types[i];
        run_case(c, variants);
    }
}

/* ---- hand-picked cases --------------------------------------------------------- */

static void single(tcase *c, const char *name, relay_op op, const int *perm)
{
    c->count = 1;
    c->op[0] = op;
    c->has_perm[0] = perm != NULL;
    if (perm) memcpy(c->perm[0], perm, (size_t)c->a[0].ndims * sizeof *perm);
    snprintf(c->name, sizeof c->name, "%s", name);
}

/* A 2-D mesh of np ranks: p0 x p1. */
static void mesh2(int *m)
{
    m[0] = np, m[1] = 1;
    if (np % 2 == 0 && np >= 4) m[0] = np / 2, m[1] = 2;
}

static void hand_picked(void)
{
    const unsigned all = (1u << VARIANTS) - 1;
    tcase c;
    int m2[2], m1[1] = {np};
    mesh2(m2);

    /* 3-D pencils: x-pencils (x whole) -> y-pencils with axes (y, x, z) */
    {
        memset(&c, 0, sizeof c);
        int64_t bs[3] = {6, 5, 4}, as[3] = {5, 6, 4};
        lay_init(&c.b[0], 3, bs, 2, m2, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 1, 0), lay_shard(&c.b[0], 1, 2, 0);
        lay_init(&c.a[0], 3, as, 2, m2, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.a[0], 0, 1, 0), lay_shard(&c.a[0], 1, 2, 0);
        single(&c, "pencils x -> y, perm 1,0,2", RELAY_OP_T, (int[]){1, 0, 2});
        run_all_types(&c, all);
        /* y -> z with axes (y, z, x): B is the y-pencils above */
        c.b[0] = c.a[0];
        int64_t as2[3] = {5, 4, 6};
        lay_init(&c.a[0], 3, as2, 2, m2, NULL, RELAY_COL_MAJOR);
        lay_shard(&c.a[0], 0, 0, 0), lay_shard(&c.a[0], 1, 2, 0);
        single(&c, "pencils y -> z, perm 0,2,1, Fortran A", RELAY_OP_T, (int[]){0, 2, 1});
        run_all_types(&c, all);
        /* x -> z with the axes reversed (perm NULL) and conjugated */
        int64_t bs3[3] = {7, 3, 5}, as3[3] = {5, 3, 7};
        lay_init(&c.b[0], 3, bs3, 2, m2, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 1, 0), lay_shard(&c.b[0], 1, 2, 0);
        lay_init(&c.a[0], 3, as3, 2, m2, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.a[0], 0, 1, 0), lay_shard(&c.a[0], 1, 2, 0);
        single(&c, "pencils x -> z, op C perm NULL", RELAY_OP_C, NULL);
        run_all_types(&c, all);
        /* the same pencil shape, no permutation: a plain reshape x -> y */
        int64_t s4[3] = {4, 6, 5};
        lay_init(&c.b[0], 3, s4, 2, m2, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 1, 0), lay_shard(&c.b[0], 1, 2, 0);
        lay_init(&c.a[0], 3, s4, 2, m2, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.a[0], 0, 0, 0), lay_shard(&c.a[0], 1, 2, 0);
        single(&c, "pencils x -> y, op N", RELAY_OP_N, NULL);
        run_all_types(&c, all);
    }
    /* 2-D slab transpose */
    {
        memset(&c, 0, sizeof c);
        int64_t bs[2] = {9, 7}, as[2] = {7, 9};
        lay_init(&c.b[0], 2, bs, 1, m1, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 0, 0);
        lay_init(&c.a[0], 2, as, 1, m1, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.a[0], 0, 0, 0);
        single(&c, "slab transpose, op T", RELAY_OP_T, NULL);
        run_all_types(&c, all);
        single(&c, "slab transpose, op C, explicit perm 1,0", RELAY_OP_C, (int[]){1, 0});
        run_all_types(&c, all);
    }
    /* DTensor-shaped moves on a 2 x 2 mesh (smaller jobs: as much of it as fits) */
    {
        int dm[2] = {np >= 2 ? 2 : 1, np >= 4 ? 2 : 1};
        int64_t s[2] = {6, 5};
        memset(&c, 0, sizeof c);
        lay_init(&c.b[0], 2, s, 2, dm, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 0, 0);
        lay_init(&c.a[0], 2, s, 2, dm, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.a[0], 1, 1, 0);
        single(&c, "DTensor S0,R -> R,S1", RELAY_OP_N, NULL);
        run_all_types(&c, all);
        lay_init(&c.b[0], 2, s, 2, dm, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 0, 0), lay_shard(&c.b[0], 1, 1, 0);
        lay_init(&c.a[0], 2, s, 2, dm, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.a[0], 0, 1, 0), lay_shard(&c.a[0], 1, 0, 0);
        single(&c, "DTensor S0,S1 -> S1,S0", RELAY_OP_N, NULL);
        run_all_types(&c, all);
        lay_init(&c.b[0], 2, s, 2, dm, NULL, RELAY_ROW_MAJOR);
        lay_partial(&c.b[0], 0);
        lay_init(&c.a[0], 2, s, 2, dm, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.a[0], 0, 0, 0);
        single(&c, "DTensor P,R -> S0,R", RELAY_OP_N, NULL);
        run_all_types(&c, all);
        lay_init(&c.b[0], 2, s, 2, dm, NULL, RELAY_ROW_MAJOR);
        lay_partial(&c.b[0], 0), lay_partial(&c.b[0], 1);
        lay_init(&c.a[0], 2, s, 2, dm, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.a[0], 0, 0, 0), lay_shard(&c.a[0], 1, 1, 0);
        single(&c, "DTensor P,P -> S0,S1", RELAY_OP_N, NULL);
        run_all_types(&c, all);
        lay_init(&c.b[0], 2, s, 2, dm, NULL, RELAY_ROW_MAJOR);
        lay_partial(&c.b[0], 0), lay_shard(&c.b[0], 1, 1, 0);
        int64_t st[2] = {5, 6};
        lay_init(&c.a[0], 2, st, 2, dm, NULL, RELAY_ROW_MAJOR);
        single(&c, "DTensor P,S1 -> R,R transposed", RELAY_OP_T, NULL);
        run_all_types(&c, all);
    }
    /* replicated destinations */
    {
        memset(&c, 0, sizeof c);
        int64_t s[3] = {3, 4, 5}, st[3] = {5, 4, 3};
        lay_init(&c.b[0], 3, s, 2, m2, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 0, 1), lay_shard(&c.b[0], 1, 2, 0);
        lay_init(&c.a[0], 3, st, 1, m1, NULL, RELAY_ROW_MAJOR);
        single(&c, "replicated destination on every rank", RELAY_OP_T, NULL);
        run_all_types(&c, all);
        int rm[2] = {m2[1], m2[0]};
        lay_init(&c.a[0], 3, st, 2, rm, NULL, RELAY_COL_MAJOR);
        lay_shard(&c.a[0], 1, 0, 0);
        single(&c, "destination R,S0", RELAY_OP_T, NULL);
        run_all_types(&c, all);
        /* replicated source and destination */
        lay_init(&c.b[0], 3, s, 1, m1, NULL, RELAY_ROW_MAJOR);
        single(&c, "replicated source to R,S0", RELAY_OP_T, NULL);
        run_all_types(&c, all);
    }
    /* partial sources */
    {
        memset(&c, 0, sizeof c);
        int64_t s[3] = {4, 3, 2}, sa[3] = {2, 4, 3};
        lay_init(&c.b[0], 3, s, 1, m1, NULL, RELAY_ROW_MAJOR);
        lay_partial(&c.b[0], 0);
        lay_init(&c.a[0], 3, sa, 1, m1, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.a[0], 0, 1, 1);
        single(&c, "partial on every rank, op C perm 2,0,1", RELAY_OP_C, (int[]){2, 0, 1});
        run_all_types(&c, all);
        lay_init(&c.b[0], 3, s, 2, m2, NULL, RELAY_COL_MAJOR);
        lay_partial(&c.b[0], 1), lay_shard(&c.b[0], 0, 0, 0);
        lay_init(&c.a[0], 3, sa, 1, m1, NULL, RELAY_ROW_MAJOR);
        single(&c, "S0,P -> replicated", RELAY_OP_T, (int[]){2, 0, 1});
        run_all_types(&c, all);
    }
    /* disjoint groups: sharded 4 ways on 0-3 -> 2 ways replicated twice on 4-7 (at 8 ranks) */
    {
        memset(&c, 0, sizeof c);
        int h = np / 2 > 0 ? np / 2 : 1, rest = np - h > 0 ? np - h : 1;
        int src_ranks[MAXR], dst_ranks[MAXR];
        for (int i = 0; i < h; i++) src_ranks[i] = i;
        for (int i = 0; i < rest; i++) dst_ranks[i] = np > 1 ? h + i : 0;
        int64_t s[2] = {8, 6};
        int bm[1] = {h};
        lay_init(&c.b[0], 2, s, 1, bm, src_ranks, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 0, 0);
        if (rest % 2 == 0) {
            int am[2] = {rest / 2, 2};
            lay_init(&c.a[0], 2, s, 2, am, dst_ranks, RELAY_ROW_MAJOR);
            lay_shard(&c.a[0], 0, 0, 0);
        } else {
            int am[1] = {rest};
            lay_init(&c.a[0], 2, s, 1, am, dst_ranks, RELAY_ROW_MAJOR);
            lay_shard(&c.a[0], 0, 1, 0);
        }
        single(&c, "disjoint groups (weight sync)", RELAY_OP_N, NULL);
        run_all_types(&c, all);
        int64_t st[2] = {6, 8};
        c.a[0].shape[0] = st[0], c.a[0].shape[1] = st[1];
        single(&c, "disjoint groups, transposed", RELAY_OP_T, NULL);
        run_all_types(&c, all);
    }
    /* overlapping groups and a strict subset */
    {
        memset(&c, 0, sizeof c);
        int nb = (2 * np + 2) / 3, first = np / 3, na = np - first;
        int bmr[MAXR], amr[MAXR];
        for (int i = 0; i < nb; i++) bmr[i] = nb - 1 - i;
        for (int i = 0; i < na; i++) amr[i] = first + i;
        int64_t s[3] = {5, 7, 3}, sa[3] = {7, 3, 5};
        lay_init(&c.b[0], 3, s, 1, (int[]){nb}, bmr, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 1, 2);
        lay_init(&c.a[0], 3, sa, 1, (int[]){na}, amr, RELAY_COL_MAJOR);
        lay_shard(&c.a[0], 0, 2, 0);
        single(&c, "overlapping groups", RELAY_OP_T, (int[]){1, 2, 0});
        run_all_types(&c, all);
        int sub[2] = {np - 1, 0}, ns = np > 1 ? 2 : 1;
        int64_t s2[2] = {9, 4};
        lay_init(&c.b[0], 2, s2, 1, m1, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 1, 0);
        lay_init(&c.a[0], 2, s2, 1, (int[]){ns}, sub, RELAY_ROW_MAJOR);
        lay_shard(&c.a[0], 0, 0, 0);
        single(&c, "destination on a strict subset", RELAY_OP_N, NULL);
        run_all_types(&c, all);
        lay_init(&c.b[0], 2, s2, 1, (int[]){ns}, sub, RELAY_ROW_MAJOR);
        lay_partial(&c.b[0], 0);
        lay_init(&c.a[0], 2, s2, 1, m1, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.a[0], 0, 1, 1);
        single(&c, "partial source on a strict subset", RELAY_OP_N, NULL);
        run_all_types(&c, all);
    }
    /* a 1-D array */
    {
        memset(&c, 0, sizeof c);
        int64_t s[1] = {13}, splits[MAXR + 1];
        lay_init(&c.b[0], 1, s, 1, m1, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 0, 2);
        splits[0] = 0;
        for (int i = 1; i <= np; i++) splits[i] = i == np ? 13 : (i * i) % 14 < splits[i - 1] ? splits[i - 1] : (i * i) % 14;
        lay_init(&c.a[0], 1, s, 1, m1, NULL, RELAY_COL_MAJOR);
        lay_split(&c.a[0], 0, 0, splits);
        single(&c, "1-D, block 2 -> splits", RELAY_OP_N, NULL);
        run_all_types(&c, all);
        single(&c, "1-D, op C", RELAY_OP_C, NULL);
        run_all_types(&c, all);
    }
    /* an 8-D array of small extents */
    {
        memset(&c, 0, sizeof c);
        int64_t bs[8] = {2, 1, 2, 3, 1, 2, 2, 1}, as[8];
        int perm[8] = {7, 6, 3, 0, 2, 1, 5, 4};
        for (int k = 0; k < 8; k++) as[k] = bs[perm[k]];
        lay_init(&c.b[0], 8, bs, 2, m2, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 3, 0), lay_shard(&c.b[0], 1, 0, 0);
        lay_init(&c.a[0], 8, as, 2, m2, NULL, RELAY_COL_MAJOR);
        lay_shard(&c.a[0], 0, 6, 1), lay_shard(&c.a[0], 1, 4, 0);
        single(&c, "8-D", RELAY_OP_T, perm);
        run_all_types(&c, all);
    }
    /* block-cyclic with small blocks */
    {
        memset(&c, 0, sizeof c);
        int64_t bs[2] = {7, 9}, as[2] = {9, 7};
        int rm[2] = {m2[1], m2[0]};
        lay_init(&c.b[0], 2, bs, 2, m2, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 0, 1), lay_shard(&c.b[0], 1, 1, 2);
        lay_init(&c.a[0], 2, as, 2, rm, NULL, RELAY_COL_MAJOR);
        lay_shard(&c.a[0], 0, 1, 2), lay_shard(&c.a[0], 1, 0, 1);
        single(&c, "block-cyclic blocks 1 and 2, op T", RELAY_OP_T, NULL);
        run_all_types(&c, all);
    }
    /* uneven splits with empty shards, and even chunks with empty trailing shards */
    {
        memset(&c, 0, sizeof c);
        int64_t s[2] = {10, 3}, splits[MAXR + 1];
        for (int i = 0; i <= np; i++) splits[i] = i < np / 2 ? 0 : i == np ? 10 : i == np / 2 ? 0 : 4;
        lay_init(&c.b[0], 2, s, 1, m1, NULL, RELAY_ROW_MAJOR);
        lay_split(&c.b[0], 0, 0, splits);
        int64_t sa[2] = {3, 10};
        int am[2] = {np >= 2 ? 2 : 1, np >= 4 ? np / 2 : 1};
        lay_init(&c.a[0], 2, sa, 2, am, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.a[0], 0, 0, 0), lay_shard(&c.a[0], 1, 1, 3);
        single(&c, "empty shards", RELAY_OP_T, NULL);
        run_all_types(&c, all);
        int64_t s1[2] = {2, 3};
        lay_init(&c.b[0], 2, s1, 1, m1, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 1, 0);
        lay_init(&c.a[0], 2, s1, 1, m1, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.a[0], 0, 0, 0);
        single(&c, "more ranks than elements", RELAY_OP_N, NULL);
        run_all_types(&c, all);
    }
    /* padding, and Fortran order on one side */
    {
        memset(&c, 0, sizeof c);
        int64_t bs[3] = {5, 4, 3}, as[3] = {3, 5, 4};
        lay_init(&c.b[0], 3, bs, 2, m2, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 0, 0), lay_shard(&c.b[0], 1, 1, 0);
        lay_pad(&c.b[0], (int64_t[]){0, 0, 5});
        lay_init(&c.a[0], 3, as, 2, m2, NULL, RELAY_COL_MAJOR);
        lay_shard(&c.a[0], 0, 1, 0), lay_shard(&c.a[0], 1, 2, 1);
        lay_pad(&c.a[0], (int64_t[]){4, 6, 0});
        single(&c, "padded both, C -> Fortran", RELAY_OP_T, (int[]){2, 0, 1});
        run_all_types(&c, all);
        c.b[0].order = RELAY_COL_MAJOR, c.a[0].order = RELAY_ROW_MAJOR;
        single(&c, "padded both, Fortran -> C", RELAY_OP_T, (int[]){2, 0, 1});
        run_all_types(&c, all);
        c.b[0].has_padded = 0;
        single(&c, "padded destination only, Fortran -> C", RELAY_OP_C, (int[]){2, 0, 1});
        run_all_types(&c, all);
        int64_t s2[2] = {6, 6};
        lay_init(&c.b[0], 2, s2, 1, m1, NULL, RELAY_COL_MAJOR);
        lay_shard(&c.b[0], 0, 1, 0);
        lay_init(&c.a[0], 2, s2, 1, m1, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.a[0], 0, 0, 0);
        single(&c, "Fortran -> C, no permutation", RELAY_OP_N, NULL);
        run_all_types(&c, all);
    }
    /* larger arrays: the kernels' transpose tiles, long runs */
    {
        memset(&c, 0, sizeof c);
        int64_t bs[2] = {131, 77}, as[2] = {77, 131};
        lay_init(&c.b[0], 2, bs, 1, m1, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 0, 5);
        lay_init(&c.a[0], 2, as, 1, m1, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.a[0], 0, 0, 0);
        lay_pad(&c.a[0], (int64_t[]){0, 133});
        single(&c, "large slab transpose 131x77, op C", RELAY_OP_C, NULL);
        run_all_types(&c, all);
        int64_t b3[3] = {20, 33, 18}, a3[3] = {18, 20, 33};
        lay_init(&c.b[0], 3, b3, 2, m2, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 1, 0), lay_shard(&c.b[0], 1, 2, 0);
        lay_init(&c.a[0], 3, a3, 2, m2, NULL, RELAY_COL_MAJOR);
        lay_shard(&c.a[0], 0, 1, 3), lay_shard(&c.a[0], 1, 2, 0);
        single(&c, "large pencils 20x33x18, perm 2,0,1", RELAY_OP_T, (int[]){2, 0, 1});
        run_all_types(&c, all);
        lay_init(&c.b[0], 3, b3, 1, m1, NULL, RELAY_COL_MAJOR);
        lay_partial(&c.b[0], 0);
        single(&c, "large partial 20x33x18 -> pencils, perm 2,0,1", RELAY_OP_T, (int[]){2, 0, 1});
        run_all_types(&c, all);
    }
    /* an empty array */
    {
        memset(&c, 0, sizeof c);
        int64_t s[3] = {3, 0, 2}, sa[3] = {2, 0, 3};
        lay_init(&c.b[0], 3, s, 1, m1, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 0, 0);
        lay_init(&c.a[0], 3, sa, 1, m1, NULL, RELAY_ROW_MAJOR);
        lay_shard(&c.a[0], 0, 2, 0);
        single(&c, "empty array", RELAY_OP_T, NULL);
        run_all_types(&c, 1u << 1);
    }
}

/* ---- random cases ---------------------------------------------------------------- */

static uint64_t rng_state;
static uint64_t rng_next(void)
{
    rng_state += 0x9e3779b97f4a7c15ULL;
    uint64_t z = rng_state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static int64_t rng(int64_t lo, int64_t hi) { return lo + (int64_t)(rng_next() % (uint64_t)(hi - lo + 1)); }
static int chance(int percent) { return rng(1, 100) <= percent; }

static int64_t max_local_extent(const lay *l, int k)
{
    int m = shard_of(l, k);
    int64_t mx = 0;
    for (int c = 0; c < (m < 0 ? 1 : l->mesh_shape[m]); c++) {
        int64_t e = 0;
        for (int64_t g = 0; g < l->shape[k]; g++) e += owner_of(l, k, g) == c;
        mx = e > mx ? e : mx;
    }
    return mx;
}

static void random_layout(lay *l, int ndims, const int64_t *shape, int allow_partial)
{
    int md = (int)rng(1, chance(10) ? 4 : 3), ms[MAXM], size = 1;
    for (int m = 0; m < md; m++) {
        int room = np / size;
        ms[m] = (int)rng(1, room < 4 ? room : 4);
        size *= ms[m];
    }
    int pool[MAXR];
    for (int i = 0; i < np; i++) pool[i] = i;
    for (int i = np - 1; i > 0; i--) {
        int j = (int)rng(0, i), x = pool[i];
        pool[i] = pool[j], pool[j] = x;
    }
    lay_init(l, ndims, shape, md, ms, pool, chance(50) ? RELAY_ROW_MAJOR : RELAY_COL_MAJOR);
    int used[MAXD] = {0};
    for (int m = 0; m < md; m++) {
        int k = (int)rng(0, ndims - 1);
        if (chance(65) && !used[k]) {
            used[k] = 1;
            int how = (int)rng(0, 2);
            if (how < 2) lay_shard(l, m, k, how ? rng(1, shape[k] > 20 && chance(50) ? 9 : 3) : 0);
            else {
                int64_t sp[MAXR + 1];
                int p = ms[m];
                sp[0] = 0, sp[p] = shape[k];
                for (int c = 1; c < p; c++) sp[c] = rng(0, shape[k]);
                for (int a = 2; a < p; a++)
                    for (int b = a; b > 1 && sp[b - 1] > sp[b]; b--) {
                        int64_t x = sp[b];
                        sp[b] = sp[b - 1], sp[b - 1] = x;
                    }
                lay_split(l, m, k, sp);
            }
        } else if (allow_partial && chance(35))
            lay_partial(l, m);
    }
    if (chance(25)) {
        int64_t pad[MAXD];
        for (int k = 0; k < ndims; k++) pad[k] = chance(50) ? 0 : max_local_extent(l, k) + rng(0, 2);
        lay_pad(l, pad);
    }
}

static void random_pair(tcase *c, int q)
{
    int nd = chance(90) ? (int)rng(1, 4) : (int)rng(5, 8), large = nd <= 3 && chance(6);
    int64_t as[MAXD], total = 1;
    for (int k = 0; k < nd; k++) {
        int64_t hi = large ? (nd == 1 ? 3000 : nd == 2 ? 70 : 20) : total >= 120 ? 1 : total >= 30 ? 3 : 7;
        as[k] = rng(1, hi);
        total *= as[k];
    }
    if (chance(3)) as[rng(0, nd - 1)] = 0;
    int r = (int)rng(0, 9);
    c->op[q] = r < 3 ? RELAY_OP_N : r < 7 ? RELAY_OP_T : RELAY_OP_C;
    c->has_perm[q] = c->op[q] != RELAY_OP_N && chance(70);
    if (c->has_perm[q]) {
        for (int k = 0; k < nd; k++) c->perm[q][k] = k;
        for (int k = nd - 1; k > 0; k--) {
            int j = (int)rng(0, k), x = c->perm[q][k];
            c->perm[q][k] = c->perm[q][j], c->perm[q][j] = x;
        }
    }
    int perm[MAXD];
    c->a[q].ndims = nd;
    effective_perm(c, q, perm);
    int64_t bs[MAXD];
    shape_of_b(as, nd, perm, bs);
    random_layout(&c->a[q], nd, as, 0);
    random_layout(&c->b[q], nd, bs, 1);
}

static void check_traffic(const tcase *given, int expect_auto);

static void random_cases(relay_replicas how)
{
    static const relay_type types[] = {RELAY_FLOAT, RELAY_DOUBLE, RELAY_CFLOAT, RELAY_CDOUBLE};
    /* MPI_ND_CASES and MPI_ND_SEED run other cases (hunting); the suite runs the fixed ones */
    const char *env_cases = getenv("MPI_ND_CASES"), *env_seed = getenv("MPI_ND_SEED");
    int cases = env_cases ? atoi(env_cases) : RANDOM_CASES;
    uint64_t base = env_seed ? strtoull(env_seed, NULL, 0) : 0x5eed0000ULL;
    for (int i = 0; i < cases; i++) {
        uint64_t seed = base + (uint64_t)i * 7919 + (uint64_t)np;
        rng_state = seed;
        tcase c;
        memset(&c, 0, sizeof c);
        c.count = 1;
        random_pair(&c, 0);
        c.type = types[rng(0, 3)];
        c.node_map = chance(30);
        c.reload = chance(20);
        unsigned variants = 1u << rng(0, VARIANTS - 1);
        variants |= 1u << rng(0, VARIANTS - 1);
        c.replicas = how;
        snprintf(c.name, sizeof c.name, "random case %d seed %#llx%s", i, (unsigned long long)seed,
                 how == RELAY_REPLICAS_FORWARD ? " [forward]" : "");
        run_case(&c, variants);
        if (how == RELAY_REPLICAS_FORWARD) check_traffic(&c, -1);
    }
}

static void batches(relay_replicas how)
{
    static const relay_type types[] = {RELAY_FLOAT, RELAY_DOUBLE, RELAY_CFLOAT, RELAY_CDOUBLE};
    for (int i = 0; i < 12; i++) {
        uint64_t seed = 0xba7c0000ULL + (uint64_t)i * 104729 + (uint64_t)np;
        rng_state = seed;
        tcase c;
        memset(&c, 0, sizeof c);
        c.count = (int)rng(2, 3);
        for (int q = 0; q < c.count; q++) random_pair(&c, q);
        c.type = types[i % 4];
        c.node_map = chance(30);
        c.replicas = how;
        snprintf(c.name, sizeof c.name, "batch %d of %d pairs seed %#llx%s", i, c.count, (unsigned long long)seed,
                 how == RELAY_REPLICAS_FORWARD ? " [forward]" : "");
        run_case(&c, (1u << 1) | (1u << 2));
        if (how == RELAY_REPLICAS_FORWARD) check_traffic(&c, -1);
    }
    if (how == RELAY_REPLICAS_FORWARD) return;
    /* a hand-picked batch: pencils, a partial source, a replicated destination */
    tcase c;
    memset(&c, 0, sizeof c);
    int m2[2], m1[1] = {np};
    mesh2(m2);
    int64_t bs[3] = {6, 5, 4}, as[3] = {5, 6, 4}, s2[2] = {4, 3}, s2t[2] = {3, 4}, s1[1] = {11};
    lay_init(&c.b[0], 3, bs, 2, m2, NULL, RELAY_ROW_MAJOR);
    lay_shard(&c.b[0], 0, 1, 0), lay_shard(&c.b[0], 1, 2, 0);
    lay_init(&c.a[0], 3, as, 2, m2, NULL, RELAY_ROW_MAJOR);
    lay_shard(&c.a[0], 0, 1, 0), lay_shard(&c.a[0], 1, 2, 0);
    c.op[0] = RELAY_OP_T, c.has_perm[0] = 1, memcpy(c.perm[0], (int[]){1, 0, 2}, 3 * sizeof(int));
    lay_init(&c.b[1], 2, s2, 1, m1, NULL, RELAY_ROW_MAJOR);
    lay_partial(&c.b[1], 0);
    lay_init(&c.a[1], 2, s2t, 1, m1, NULL, RELAY_ROW_MAJOR);
    lay_shard(&c.a[1], 0, 1, 1);
    c.op[1] = RELAY_OP_C;
    lay_init(&c.b[2], 1, s1, 1, m1, NULL, RELAY_ROW_MAJOR);
    lay_shard(&c.b[2], 0, 0, 0);
    lay_init(&c.a[2], 1, s1, 1, m1, NULL, RELAY_COL_MAJOR);
    c.op[2] = RELAY_OP_N;
    c.count = 3;
    snprintf(c.name, sizeof c.name, "batch: pencils, partial, replicated");
    run_all_types(&c, (1u << VARIANTS) - 1);
}

/* ---- partial sums bitwise reproducible; replicas bitwise equal ------------------ */

static double random_double(uint64_t key)
{
    rng_state = key * 0x2545f4914f6cdd1dULL + 17;
    return ((double)(rng_next() >> 11) / 9007199254740992.0) * 2 - 1; /* [-1, 1), 53 random bits */
}

static void reproducible(void)
{
    int m2[2], m1[1] = {np};
    mesh2(m2);
    lay b, a;
    int64_t s[2] = {5, 6}, st[2] = {6, 5};
    for (int which = 0; which < 3; which++) {
        const char *name;
        if (which == 0) {
            lay_init(&b, 2, s, 1, m1, NULL, RELAY_ROW_MAJOR);
            lay_partial(&b, 0);
            lay_init(&a, 2, st, 1, m1, NULL, RELAY_ROW_MAJOR);
            name = "P on every rank -> R on every rank";
        } else if (which == 1) {
            lay_init(&b, 2, s, 2, m2, NULL, RELAY_COL_MAJOR);
            lay_partial(&b, 0), lay_shard(&b, 1, 1, 0);
            int rm[2] = {m2[1], m2[0]};
            lay_init(&a, 2, st, 2, rm, NULL, RELAY_ROW_MAJOR);
            lay_shard(&a, 1, 0, 1);
            name = "P,S1 -> R,S0";
        } else {
            int mm[2] = {m2[0], m2[1]};
            lay_init(&b, 2, s, 2, mm, NULL, RELAY_ROW_MAJOR);
            lay_partial(&b, 0), lay_partial(&b, 1);
            lay_init(&a, 2, st, 1, m1, NULL, RELAY_ROW_MAJOR);
            lay_shard(&a, 0, 1, 0);
            name = "P,P -> S1";
        }
        relay_nd_layout *la = NULL, *lb = NULL;
        relay_plan *plan = NULL;
        relay_exec *ex = NULL;
        int ok = !lay_create(&a, &la) && !lay_create(&b, &lb);
        if (ok && relay_plan_nd(&plan, np, la, lb, RELAY_OP_T, NULL, RELAY_DOUBLE, NULL)) ok = 0;
        if (all_ranks(ok) && relay_exec_create(&ex, plan, MPI_COMM_WORLD)) ok = 0, ex = NULL;
        rank_part ap, bp;
        rank_part_make(&ap, &a, me);
        rank_part_make(&bp, &b, me);
        int pieces = partial_pieces(&b);
        int64_t total = s[0] * s[1];
        double *av = calloc((size_t)ap.elems + 1, sizeof(double)), *bv = calloc((size_t)bp.elems + 1, sizeof(double));
        double *first = calloc((size_t)ap.elems + 1, sizeof(double));
        for (int64_t p = 0; p < bp.elems; p++)
            bv[p] = bp.map[p] < 0 ? NAN : random_double((uint64_t)bp.map[p] * 64 + (uint64_t)bp.piece);
        int order_ok = 1;
        double beta = 0.75, alpha = 1.0 / 3;
        for (int with_beta = 0; with_beta < 2 && all_ranks(ex != NULL); with_beta++) {
            for (int rep = 0; rep < 3; rep++) {
                for (int64_t p = 0; p < ap.elems; p++)
                    av[p] = ap.map[p] < 0 ? PAD_A : with_beta ? random_double(100000 + (uint64_t)ap.map[p]) : NAN;
                if (relay_exec_run(ex, (void *[]){ap.elems ? av : NULL}, (const void *[]){bp.elems ? bv : NULL},
                                   with_beta ? &alpha : NULL, with_beta ? &beta : NULL)) {
                    ok = 0;
                    printf("  rank %d: %s: relay_exec_run: %s\n", me, name, relay_last_error());
                }
                if (rep == 0) memcpy(first, av, (size_t)ap.elems * sizeof(double));
                else if (memcmp(first, av, (size_t)ap.elems * sizeof(double))) {
                    ok = 0;
                    printf("  rank %d: %s: replay %d differs bitwise from the first (beta %s)\n", me, name, rep,
                           with_beta ? "0.75" : "NULL");
                }
            }
            /* close to the sum, and (alpha, beta NULL) the sum in the order of the pieces */
            for (int64_t p = 0; p < ap.elems; p++) {
                int64_t i = ap.map[p];
                if (i < 0) {
                    if (av[p] != PAD_A) ok = 0, printf("  rank %d: %s: padding changed\n", me, name);
                    continue;
                }
                int perm[2] = {1, 0};
                int64_t j = source_of(&a, &b, perm, i);
                double in_order = 0, mag = 0;
                for (int pc = 0; pc < pieces; pc++) {
                    double x = random_double((uint64_t)j * 64 + (uint64_t)pc);
                    in_order = pc ? in_order + x : x;
                    mag += fabs(x);
                }
                double want = with_beta ? alpha * in_order + beta * random_double(100000 + (uint64_t)i) : in_order;
                if (!(fabs(av[p] - want) <= 1e-14 * (mag + 1))) {
                    ok = 0;
                    printf("  rank %d: %s: element %lld = %.17g, expected about %.17g\n", me, name, (long long)i, av[p], want);
                }
                if (!with_beta && memcmp(&av[p], &in_order, sizeof(double))) order_ok = 0;
            }
            /* every replica of every element bitwise equal: gather what each rank holds */
            double *mine = malloc((size_t)total * sizeof(double)), *every = malloc((size_t)total * (size_t)np * sizeof(double));
            uint64_t nanbits = 0x7ff8dead0000beefULL;
            for (int64_t i = 0; i < total; i++) memcpy(&mine[i], &nanbits, sizeof(double));
            for (int64_t p = 0; p < ap.elems; p++)
                if (ap.map[p] >= 0) mine[ap.map[p]] = av[p];
            MPI_Allgather(mine, (int)total, MPI_DOUBLE, every, (int)total, MPI_DOUBLE, MPI_COMM_WORLD);
            int replicas = 0;
            for (int64_t i = 0; i < total; i++) {
                const double *ref = NULL;
                for (int r = 0; r < np; r++) {
                    const double *x = &every[(int64_t)r * total + i];
                    if (!memcmp(x, &nanbits, sizeof(double))) continue;
                    if (!ref) ref = x;
                    else if (memcmp(ref, x, sizeof(double))) ok = 0, replicas++;
                }
            }
            if (replicas) printf("  rank %d: %s: %d replicas differ bitwise from the first\n", me, name, replicas);
            free(mine);
            free(every);
        }
        if (!all_ranks(ex != NULL)) ok = 0;
        if (ex) relay_exec_free(ex);
        relay_plan_free(plan);
        relay_nd_layout_free(la);
        relay_nd_layout_free(lb);
        rank_part_free(&ap);
        rank_part_free(&bp);
        free(av), free(bv), free(first);
        char what[200];
        snprintf(what, sizeof what, "partial sums bitwise reproducible over replays, replicas equal: %s", name);
        check(ok, what);
        snprintf(what, sizeof what, "partial sums added in the order of the pieces' mesh coordinates: %s", name);
        check(order_ok, what);
    }
}

/* ---- bad input to the planner --------------------------------------------------- */

typedef struct {
    int nranks, count;
    const relay_nd_layout *const *dst, *const *src;
    const relay_op *ops;
    const int *const *perms;
    relay_type type;
    const relay_plan_options *opts;
    int batch, null_out;
    relay_status status;
    int out_untouched, message_empty_before;
    char message[512];
} plan_call;

static char sentinel_storage;
#define SENTINEL ((relay_plan *)(void *)&sentinel_storage)

static int run_plan_call(void *arg)
{
    plan_call *c = arg;
    c->message_empty_before = relay_last_error()[0] == '\0';
    relay_plan *out = SENTINEL;
    relay_plan **o = c->null_out ? NULL : &out;
    c->status = c->batch ? relay_plan_nd_batch(o, c->nranks, c->count, c->dst, c->src, c->ops, c->perms, c->type, c->opts)
                         : relay_plan_nd(o, c->nranks, c->dst ? c->dst[0] : NULL, c->src ? c->src[0] : NULL, c->ops[0],
                                         c->perms ? c->perms[0] : NULL, c->type, c->opts);
    c->out_untouched = out == SENTINEL;
    snprintf(c->message, sizeof c->message, "%s", relay_last_error());
    if (c->status == RELAY_OK && out != SENTINEL) relay_plan_free(out);
    return 0;
}

static uint64_t hash_string(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* One bad call, made in a fresh thread on every rank: refused with `expect`
 * (RELAY_OK: any error), a message, *out untouched, alike on every rank. */
static void refused(plan_call c, relay_status expect, const char *what)
{
    thrd_t thread;
    int ok = thrd_create(&thread, run_plan_call, &c) == thrd_success;
    if (ok) thrd_join(thread, NULL);
    ok = ok && c.message_empty_before && c.status != RELAY_OK && (expect == RELAY_OK || c.status == expect)
         && c.out_untouched && c.message[0];
    if (!ok)
        printf("  rank %d: %s: got %s, *out %s, message \"%s\"\n", me, what, relay_status_str(c.status),
               c.out_untouched ? "untouched" : "CHANGED", c.message);
    int st[2] = {(int)c.status, -(int)c.status}, st_red[2];
    MPI_Allreduce(st, st_red, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    uint64_t h = hash_string(c.message), hmin, hmax;
    MPI_Allreduce(&h, &hmin, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&h, &hmax, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (st_red[0] != -st_red[1] || hmin != hmax) {
        ok = 0;
        if (me == 0) printf("  %s: ranks disagree on the status or the message\n", what);
    }
    if (me == 0 && ok && getenv("MPI_ND_VERBOSE")) printf("  %s: %s: %s\n", what, relay_status_str(c.status), c.message);
    char w[200];
    snprintf(w, sizeof w, "bad input refused: %s", what);
    check(ok, w);
}

static void bad_input(void)
{
    lay a, b;
    int m1[1] = {np};
    int64_t s45[2] = {4, 5}, st[2] = {5, 4}, cube[3] = {3, 3, 3};
    relay_nd_layout *la = NULL, *lb = NULL, *lbig = NULL, *lc = NULL, *lc2 = NULL, *lpart = NULL, *l3 = NULL;
    lay_init(&a, 2, st, 1, m1, NULL, RELAY_ROW_MAJOR);
    lay_shard(&a, 0, 0, 0);
    lay_init(&b, 2, s45, 1, m1, NULL, RELAY_ROW_MAJOR);
    lay_shard(&b, 0, 1, 0);
    int ok = !lay_create(&a, &la) && !lay_create(&b, &lb);
    lay big = a;
    big.ranks[mesh_size(&big) - 1] = np; /* one rank outside the communicator */
    ok &= !lay_create(&big, &lbig);
    lay cu;
    lay_init(&cu, 3, cube, 1, m1, NULL, RELAY_ROW_MAJOR);
    lay_shard(&cu, 0, 2, 0);
    ok &= !lay_create(&cu, &lc);
    lay_partial(&cu, 0);
    ok &= !lay_create(&cu, &lpart);
    int64_t sq[2] = {4, 4};
    lay sql;
    lay_init(&sql, 2, sq, 1, m1, NULL, RELAY_ROW_MAJOR);
    lay_shard(&sql, 0, 0, 0);
    ok &= !lay_create(&sql, &lc2);
    int64_t s3[3] = {4, 5, 1};
    lay l3d;
    lay_init(&l3d, 3, s3, 1, m1, NULL, RELAY_ROW_MAJOR);
    ok &= !lay_create(&l3d, &l3);
    check(ok, "bad input: the layouts themselves are valid");
    if (!all_ranks(ok)) return;

    relay_op T = RELAY_OP_T, N = RELAY_OP_N, C = RELAY_OP_C;
    const relay_nd_layout *A[1] = {la}, *B[1] = {lb}, *BIG[1] = {lbig}, *CU[1] = {lc}, *SQ[1] = {lc2}, *PART[1] = {lpart},
                          *L3[1] = {l3};
    const int dup[3] = {0, 0, 2}, out_of_range[3] = {0, 1, 3}, negative[3] = {-1, 0, 1}, swap[2] = {1, 0},
              rot3[3] = {1, 2, 0};
    const int *P_dup[1] = {dup}, *P_oor[1] = {out_of_range}, *P_neg[1] = {negative}, *P_swap[1] = {swap},
              *P_rot[1] = {rot3};
    relay_plan_options greedy, optimal, cap;
    relay_plan_options_init(&greedy), relay_plan_options_init(&optimal), relay_plan_options_init(&cap);
    greedy.relabel = RELAY_RELABEL_GREEDY, optimal.relabel = RELAY_RELABEL_OPTIMAL, cap.max_buffer_bytes = 4096;
    plan_call good = {.nranks = np, .count = 1, .dst = A, .src = B, .ops = &T, .type = RELAY_DOUBLE};

    /* the good call is accepted (so that the refusals below are for the one change each makes) */
    {
        relay_plan *p = NULL;
        relay_status s = relay_plan_nd(&p, np, la, lb, RELAY_OP_T, NULL, RELAY_DOUBLE, NULL);
        check(s == RELAY_OK, "bad input: the unchanged call is planned");
        relay_plan_free(p);
        s = relay_plan_nd(&p, np, lc, lc, RELAY_OP_N, NULL, RELAY_DOUBLE, NULL);
        check(s == RELAY_OK, "bad input: a cube with op N is planned");
        relay_plan_free(p);
    }
    plan_call c;
    c = good, c.dst = BIG;
    refused(c, RELAY_ERR_ARG, "a destination mesh rank >= nranks");
    {
        /* source with a rank outside: B of 4 x 5 on ranks 0..np-2, np */
        lay bb = b;
        bb.ranks[mesh_size(&bb) - 1] = np + 3;
        relay_nd_layout *lbb = NULL;
        if (!lay_create(&bb, &lbb)) {
            const relay_nd_layout *BB[1] = {lbb};
            c = good, c.src = BB;
            refused(c, RELAY_ERR_ARG, "a source mesh rank >= nranks");
        } else
            check(0, "bad input: a layout with rank np + 3 is valid");
        relay_nd_layout_free(lbb);
    }
    c = good, c.nranks = np - 1 > 0 ? np - 1 : 0;
    refused(c, RELAY_ERR_ARG, "nranks below the meshes' ranks");
    c = good, c.nranks = 0;
    refused(c, RELAY_ERR_ARG, "nranks 0");
    c = good, c.ops = &N;
    refused(c, RELAY_ERR_ARG, "shapes that do not match (op N, 5x4 from 4x5)");
    c = good, c.src = A;
    refused(c, RELAY_ERR_ARG, "shapes that do not match after the permutation (T, 5x4 from 5x4)");
    c = good, c.dst = L3;
    refused(c, RELAY_ERR_ARG, "layouts of different ndims");
    c = good, c.dst = CU, c.src = CU, c.perms = P_dup;
    refused(c, RELAY_ERR_ARG, "perm 0,0,2 is not a permutation");
    c = good, c.dst = CU, c.src = CU, c.perms = P_oor;
    refused(c, RELAY_ERR_ARG, "perm 0,1,3 is out of range");
    c = good, c.dst = CU, c.src = CU, c.perms = P_neg;
    refused(c, RELAY_ERR_ARG, "perm -1,0,1 is out of range");
    c = good, c.dst = SQ, c.src = SQ, c.ops = &N, c.perms = P_swap;
    refused(c, RELAY_ERR_ARG, "op N with perm 1,0");
    c = good, c.dst = CU, c.src = CU, c.ops = &N, c.perms = P_rot;
    refused(c, RELAY_ERR_ARG, "op N with perm 1,2,0");
    c = good, c.dst = PART, c.src = CU, c.ops = &N;
    refused(c, RELAY_OK, "a partial destination");
    c = good, c.opts = &greedy;
    refused(c, RELAY_ERR_UNSUPPORTED, "greedy relabeling");
    c = good, c.opts = &optimal;
    refused(c, RELAY_ERR_UNSUPPORTED, "optimal relabeling");
    c = good, c.opts = &cap;
    refused(c, RELAY_OK, "a memory cap");
    /* relay_plan_options.replicas outside the enum */
    relay_plan_options rep3, repm1, repbig;
    relay_plan_options_init(&rep3), relay_plan_options_init(&repm1), relay_plan_options_init(&repbig);
    rep3.replicas = (relay_replicas)3, repm1.replicas = (relay_replicas)-1, repbig.replicas = (relay_replicas)0x7fffffff;
    c = good, c.opts = &rep3;
    refused(c, RELAY_ERR_ARG, "replicas mode 3");
    c = good, c.opts = &repm1;
    refused(c, RELAY_ERR_ARG, "replicas mode -1");
    c = good, c.opts = &repbig;
    refused(c, RELAY_ERR_ARG, "replicas mode INT_MAX");
    {
        const relay_nd_layout *A2r[2] = {la, la}, *B2r[2] = {lb, lb};
        relay_op ops2r[2] = {T, T};
        c = good, c.batch = 1, c.count = 2, c.dst = A2r, c.src = B2r, c.ops = ops2r, c.opts = &rep3;
        refused(c, RELAY_ERR_ARG, "batch with replicas mode 3");
        c.opts = &repm1;
        refused(c, RELAY_ERR_ARG, "batch with replicas mode -1");
    }
    c = good, c.type = (relay_type)7;
    refused(c, RELAY_ERR_ARG, "type 7");
    c = good, c.ops = (relay_op[]){(relay_op)5};
    refused(c, RELAY_ERR_ARG, "op 5");
    c = good, c.null_out = 1;
    refused(c, RELAY_ERR_ARG, "out NULL");
    c = good, c.dst = (const relay_nd_layout *[]){NULL};
    refused(c, RELAY_ERR_ARG, "dst NULL");
    c = good, c.src = (const relay_nd_layout *[]){NULL};
    refused(c, RELAY_ERR_ARG, "src NULL");
    /* batches: one bad pair spoils the batch */
    const relay_nd_layout *A2[2] = {la, la}, *B2[2] = {lb, la}, *B2good[2] = {lb, lb};
    relay_op ops2[2] = {T, T}, opsC[2] = {C, N};
    c = good, c.batch = 1, c.count = 2, c.dst = A2, c.src = B2, c.ops = ops2;
    refused(c, RELAY_ERR_ARG, "batch whose second pair's shapes do not match");
    c = good, c.batch = 1, c.count = 2, c.dst = A2, c.src = B2good, c.ops = opsC;
    refused(c, RELAY_ERR_ARG, "batch whose second pair is op N of a 5x4 from a 4x5");
    c = good, c.batch = 1, c.count = 0, c.dst = A2, c.src = B2good, c.ops = ops2;
    refused(c, RELAY_ERR_ARG, "batch of 0 pairs");
    c = good, c.batch = 1, c.count = -1, c.dst = A2, c.src = B2good, c.ops = ops2;
    refused(c, RELAY_ERR_ARG, "batch of -1 pairs");
    c = good, c.batch = 1, c.count = 2, c.dst = A2, c.src = B2good, c.ops = NULL;
    refused(c, RELAY_ERR_ARG, "batch without ops");

    /* a plan of np + 1 ranks bound to np: RELAY_ERR_MISMATCH on every rank */
    {
        relay_plan *p = NULL;
        relay_exec *ex = NULL;
        relay_status s = relay_plan_nd(&p, np + 1, la, lb, RELAY_OP_T, NULL, RELAY_DOUBLE, NULL);
        check(s == RELAY_OK, "a plan of np + 1 ranks");
        if (all_ranks(s == RELAY_OK)) {
            s = relay_exec_create(&ex, p, MPI_COMM_WORLD);
            check(s == RELAY_ERR_MISMATCH && relay_last_error()[0], "a plan of np + 1 ranks bound to np ranks: RELAY_ERR_MISMATCH");
            if (s == RELAY_OK) relay_exec_free(ex);
        }
        relay_plan_free(p);
    }
    relay_nd_layout_free(la), relay_nd_layout_free(lb), relay_nd_layout_free(lbig), relay_nd_layout_free(lc);
    relay_nd_layout_free(lc2), relay_nd_layout_free(lpart), relay_nd_layout_free(l3);
}

/* ---- a start refused on one rank; plans that differ between ranks ---------------- */

/* Rank 0 passes no B although it holds some: it alone is refused (RELAY_ERR_ARG, its A
 * untouched), the others complete with NaN where rank 0's elements belong and the right
 * values elsewhere (design.md, "A start refused on one rank"); the executor then replays
 * as usual. */
static void refused_start(void)
{
    if (np < 2) return;
    int m1[1] = {np};
    int64_t s[2] = {6, 5};
    lay a, b;
    lay_init(&b, 2, s, 1, m1, NULL, RELAY_ROW_MAJOR);
    lay_shard(&b, 0, 0, 0);
    lay_init(&a, 2, s, 1, m1, NULL, RELAY_ROW_MAJOR);
    lay_shard(&a, 0, 1, 0);
    relay_nd_layout *la = NULL, *lb = NULL;
    relay_plan *plan = NULL;
    relay_exec *ex = NULL;
    int ok = !lay_create(&a, &la) && !lay_create(&b, &lb) && !relay_plan_nd(&plan, np, la, lb, RELAY_OP_N, NULL, RELAY_DOUBLE, NULL);
    if (all_ranks(ok) && relay_exec_create(&ex, plan, MPI_COMM_WORLD)) ok = 0, ex = NULL;
    rank_part ap, bp;
    rank_part_make(&ap, &a, me);
    rank_part_make(&bp, &b, me);
    double *av = calloc((size_t)ap.elems + 1, sizeof(double)), *bv = calloc((size_t)bp.elems + 1, sizeof(double));
    for (int64_t p = 0; p < bp.elems; p++) bv[p] = creal(value_b(bp.map[p], 0));
    int64_t rows0 = (6 + np - 1) / np; /* B's rows on rank 0 */
    for (int round = 0; round < 2 && all_ranks(ex != NULL); round++) {
        for (int64_t p = 0; p < ap.elems; p++) av[p] = 1000 + (double)p;
        const void *src = round == 0 && me == 0 ? NULL : bv;
        relay_status st = relay_exec_run(ex, (void *[]){ap.elems ? av : NULL}, (const void *[]){bp.elems ? src : NULL}, NULL, NULL);
        int want = round == 0 && me == 0 ? RELAY_ERR_ARG : RELAY_OK;
        if ((int)st != want || (st && !relay_last_error()[0])) {
            ok = 0;
            printf("  rank %d: refused start, replay %d: %s (%s), expected %s\n", me, round, relay_status_str(st),
                   relay_last_error(), relay_status_str((relay_status)want));
        }
        for (int64_t p = 0; p < ap.elems; p++) {
            int64_t i = ap.map[p];
            int from_rank0 = i >= 0 && i / 5 < rows0;
            double expect = round == 0 && me == 0 ? 1000 + (double)p : i < 0 ? 1000 + (double)p : creal(value_b(i, 0));
            int good = round == 0 && me != 0 && from_rank0 ? isnan(av[p]) : av[p] == expect;
            if (!good) {
                ok = 0;
                printf("  rank %d: refused start, replay %d: A position %lld (global %lld) = %g\n", me, round, (long long)p,
                       (long long)i, av[p]);
                break;
            }
        }
    }
    if (!all_ranks(ex != NULL)) ok = 0;
    if (ex) relay_exec_free(ex);
    relay_plan_free(plan);
    relay_nd_layout_free(la), relay_nd_layout_free(lb);
    rank_part_free(&ap), rank_part_free(&bp);
    free(av), free(bv);
    check(ok, "a start refused on rank 0 alone: it gets RELAY_ERR_ARG, the others NaN from it, then replays as usual");
}

/* Rank 0 plans with one field of a layout changed: binding fails with RELAY_ERR_MISMATCH on every rank. */
static void different_plans(void)
{
    if (np < 2) return;
    int m1[1] = {np};
    int64_t s[3] = {4, 3, 5}, st[3] = {5, 3, 4};
    for (int change = 0; change < 5; change++) {
        lay a, b;
        lay_init(&b, 3, s, 1, m1, NULL, RELAY_ROW_MAJOR);
        lay_shard(&b, 0, 0, 0);
        lay_init(&a, 3, st, 1, m1, NULL, RELAY_ROW_MAJOR);
        lay_shard(&a, 0, 0, 1);
        relay_op op = RELAY_OP_T;
        const char *what = "";
        if (me == 0) {
            if (change == 0) a.order = RELAY_COL_MAJOR, what = "A's order";
            if (change == 1) lay_pad(&a, (int64_t[]){0, 4, 0}), what = "A's padding";
            if (change == 2) a.block[0] = 2, what = "A's block";
            if (change == 3) op = RELAY_OP_C, what = "op C for T";
            if (change == 4) lay_partial(&b, 0), what = "B partial";
        }
        relay_nd_layout *la = NULL, *lb = NULL;
        relay_plan *plan = NULL;
        relay_exec *ex = NULL;
        int ok = !lay_create(&a, &la) && !lay_create(&b, &lb) && !relay_plan_nd(&plan, np, la, lb, op, NULL, RELAY_CDOUBLE, NULL);
        relay_status status = RELAY_OK;
        if (all_ranks(ok)) {
            status = relay_exec_create(&ex, plan, MPI_COMM_WORLD);
            if (status != RELAY_ERR_MISMATCH) ok = 0;
            if (!status) relay_exec_free(ex);
        }
        static const char *const names[] = {"A's order", "A's padding", "A's block", "the op", "B's placement"};
        char w[160];
        snprintf(w, sizeof w, "plans that differ on rank 0 in %s: RELAY_ERR_MISMATCH on every rank", names[change]);
        if (!ok) printf("  rank %d: %s%s%s\n", me, relay_status_str(status), me == 0 ? ", changed " : "", what);
        check(ok, w);
        relay_plan_free(plan);
        relay_nd_layout_free(la), relay_nd_layout_free(lb);
    }
}

/* ---- which replica a source element is read from (nd.h) ------------------------ */

/* The bytes this rank sends and receives per replay of B -> A (double, op N), from
 * relay_exec_get_memory, or -1; the plan is planned with node_of_rank when given. */
static int64_t remote_bytes_of(const lay *a, const lay *b, const int *node_of_rank)
{
    relay_nd_layout *la = NULL, *lb = NULL;
    relay_plan *plan = NULL;
    relay_exec *ex = NULL;
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.node_of_rank = node_of_rank;
    int ok = !lay_create(a, &la) && !lay_create(b, &lb) && !relay_plan_nd(&plan, np, la, lb, RELAY_OP_N, NULL, RELAY_DOUBLE, &o);
    if (all_ranks(ok) && relay_exec_create(&ex, plan, MPI_COMM_WORLD)) ok = 0, ex = NULL;
    relay_exec_memory m = {-1, -1};
    if (ex && relay_exec_get_memory(ex, &m)) m.remote_bytes = -1;
    all_ranks(ex != NULL);
    if (ex) relay_exec_free(ex);
    relay_plan_free(plan);
    relay_nd_layout_free(la), relay_nd_layout_free(lb);
    return ok ? m.remote_bytes : -1;
}

static void replica_choice(void)
{
    int m1[1] = {np};
    int64_t s[2] = {2 * (int64_t)np, 3};
    lay a, b;
    char w[200];
    /* B replicated on every rank: each rank reads its own, nothing crosses ranks */
    lay_init(&b, 2, s, 1, m1, NULL, RELAY_ROW_MAJOR);
    lay_init(&a, 2, s, 1, m1, NULL, RELAY_COL_MAJOR);
    lay_shard(&a, 0, 0, 1);
    int64_t r = remote_bytes_of(&a, &b, NULL);
    if (r != 0) printf("  rank %d: replicated B on every rank: %lld bytes cross ranks\n", me, (long long)r);
    check(r == 0, "a rank that holds a replica of B reads its own (no bytes cross ranks)");
    if (np < 2) return;
    /* B replicated on ranks 0..h-1, A in equal shares on h..np-1: every replica sends
     * within one receiver's share of the others */
    int h = np / 2, rcv = np - h, src_ranks[MAXR], dst_ranks[MAXR];
    for (int i = 0; i < h; i++) src_ranks[i] = i;
    for (int i = 0; i < rcv; i++) dst_ranks[i] = h + i;
    int64_t rows = 2 * (int64_t)rcv, share = 2 * 3 * (int64_t)sizeof(double);
    int64_t s2[2] = {rows, 3};
    lay_init(&b, 2, s2, 1, (int[]){h}, src_ranks, RELAY_ROW_MAJOR);
    lay_init(&a, 2, s2, 1, (int[]){rcv}, dst_ranks, RELAY_ROW_MAJOR);
    lay_shard(&a, 0, 0, 0);
    r = remote_bytes_of(&a, &b, NULL);
    int64_t sent = me < h ? r : 0, lo, hi;
    int64_t lo_in = me < h ? sent : INT64_MAX;
    MPI_Allreduce(&lo_in, &lo, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&sent, &hi, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    snprintf(w, sizeof w, "replicas of B share the sending: %d replicas send %lld to %lld bytes (one share: %lld)", h,
             (long long)lo, (long long)hi, (long long)share);
    check(r >= 0 && hi - lo <= share, w);
    /* node first: B replicated on the even ranks, A on the odd ones in reverse order with
     * uneven shares; nodes are pairs (2k, 2k+1), so each replica serves its node-mate */
    if (np < 4) return;
    int pairs = np / 2, evens[MAXR], odds[MAXR], nodes[MAXR];
    int64_t splits[MAXR + 1];
    splits[0] = 0;
    for (int i = 0; i < pairs; i++) evens[i] = 2 * i, odds[i] = 2 * (pairs - 1 - i) + 1, splits[i + 1] = splits[i] + i + 1;
    for (int i = 0; i < np; i++) nodes[i] = i / 2;
    int64_t s3[2] = {splits[pairs], 2};
    lay_init(&b, 2, s3, 1, (int[]){pairs}, evens, RELAY_ROW_MAJOR);
    lay_init(&a, 2, s3, 1, (int[]){pairs}, odds, RELAY_ROW_MAJOR);
    lay_split(&a, 0, 0, splits);
    r = remote_bytes_of(&a, &b, nodes);
    /* rank 2k's node-mate 2k+1 sits at position pairs-1-k of A's mesh: it holds pairs-k rows */
    int64_t want = me % 2 == 0 && me < 2 * pairs ? (int64_t)(pairs - me / 2) * 2 * (int64_t)sizeof(double)
                 : me < 2 * pairs ? (int64_t)(pairs - (me - 1) / 2) * 2 * (int64_t)sizeof(double) : 0;
    if (r != want) printf("  rank %d: node-first replicas: %lld bytes cross ranks, expected %lld\n", me, (long long)r, (long long)want);
    check(r == want, "with a node map, each receiver reads the replica on its node");
}

/* ---- forwarding among a destination's replicas (relay_plan_options.replicas) --- */

/* The binomial tree over a group's R replicas, counted from its entry (plan.h):
 * replica rel > 0 receives from rel without its highest bit, and passes the same
 * elements on to rel + 2^j for every 2^j > rel below R. */
static int64_t tree_parent(int64_t rel)
{
    int64_t high = 1;
    while (high * 2 <= rel) high *= 2;
    return rel - high;
}

/* A rank's group (its non-replicate mesh coordinates, row-major) and its
 * index among the group's replicas (its replicate coordinates, row-major in mesh order). */
static void lay_group(const lay *l, int pos, int *group, int *index)
{
    int coords[MAXM];
    for (int m = l->mesh_ndims - 1, rest = pos; m >= 0; m--) coords[m] = rest % l->mesh_shape[m], rest /= l->mesh_shape[m];
    *group = 0, *index = 0;
    for (int m = 0; m < l->mesh_ndims; m++) {
        if (l->kind[m] == RELAY_REPLICATE) *index = *index * l->mesh_shape[m] + coords[m];
        else *group = *group * l->mesh_shape[m] + coords[m];
    }
}

/* A layout's groups: the ranks of each (by the non-replicate coordinates, row-major) in
 * replica order, and the mesh position of each rank and of each group's first replica. */
typedef struct {
    int R, groups;
    int members[MAXR][MAXR]; /* [group][replica index] */
    int group_of[MAXR];      /* per rank, -1 off the mesh */
    int pos_of[MAXR];        /* per rank, -1 off the mesh */
    int first_pos[MAXR];     /* per group: its replica 0's mesh position */
} groups_of;

static void groups_make(const lay *l, groups_of *g)
{
    g->R = replica_count(l);
    g->groups = mesh_size(l) / g->R;
    for (int r = 0; r < MAXR; r++) g->group_of[r] = g->pos_of[r] = -1;
    for (int pos = 0; pos < mesh_size(l); pos++) {
        int gr, k;
        lay_group(l, pos, &gr, &k);
        g->members[gr][k] = l->ranks[pos];
        g->group_of[l->ranks[pos]] = gr, g->pos_of[l->ranks[pos]] = pos;
        if (k == 0) g->first_pos[gr] = pos;
    }
}

/* The replica of source group S that receiver d (at position d_pos of A's mesh) reads
 * (nd.h, design.md section 8): d itself when it holds one; else the replica at index
 * (d_pos + the group's position) mod R, counted among those on d's node when there is a
 * node map and one is there. */
static int source_replica(const groups_of *b, int S, int d, int d_pos, const int *nodes)
{
    if (b->group_of[d] == S) return d;
    int turn = d_pos + b->first_pos[S], on_node = 0;
    for (int i = 0; nodes && i < b->R; i++) on_node += nodes[b->members[S][i]] == nodes[d];
    if (!on_node) return b->members[S][turn % b->R];
    for (int i = 0, seen = 0;; i++)
        if (nodes[b->members[S][i]] == nodes[d] && seen++ == turn % on_node) return b->members[S][i];
}

/* The traffic of a case, derived here from the rules of nd.h, plan.h and design.md
 * section 8, in elements per replay:
 *   direct:  every replica d of A receives each (element, piece) from the source replica
 *            the rule above picks for it (nothing when that is d);
 *   forward: for each destination group g and source group S, the entry is the first
 *            replica of g that holds a replica of S, else the one at (S's position + g's)
 *            mod R; the source replica the rule picks for the entry (the entry itself when
 *            it holds one) sends it the elements once, and the entry passes them down the
 *            binomial tree from it; a replica that holds S reads its own and passes on
 *            what it read.  Each hop is a message of its own unless its sender read it from
 *            B (then it joins that sender's one message to that receiver). */
typedef struct {
    int64_t recv_d[MAXR], sent_d[MAXR], recv_f[MAXR], sent_f[MAXR];
    int64_t packed_d, packed_f;   /* sent as read from B (forwarded hops are sent from where they landed) */
    int64_t total;                /* elements replicas get, local copies included */
    int64_t msgs_d, msgs_f;
} model;

static void model_make(const tcase *c, model *md)
{
    static unsigned char from_b_d[MAXR][MAXR], from_b_f[MAXR][MAXR];
    static groups_of ga, gb;
    memset(md, 0, sizeof *md);
    memset(from_b_d, 0, sizeof from_b_d), memset(from_b_f, 0, sizeof from_b_f);
    int nodes[MAXR];
    for (int r = 0; r < np; r++) nodes[r] = r / 2;
    const int *node_map = c->node_map ? nodes : NULL;
    int64_t hops = 0;
    for (int q = 0; q < c->count; q++) {
        const lay *a = &c->a[q], *b = &c->b[q];
        int perm[MAXD], pieces = partial_pieces(b);
        effective_perm(c, q, perm);
        groups_make(a, &ga);
        groups_make(b, &gb);
        /* which source group holds each (element, piece) of B */
        int64_t nb = product(b->shape, b->ndims);
        int *holder = malloc((size_t)(nb * pieces + 1) * sizeof *holder);
        for (int S = 0; S < gb.groups; S++) {
            rank_part bp;
            rank_part_make(&bp, b, gb.members[S][0]);
            for (int64_t p = 0; p < bp.elems; p++)
                if (bp.map[p] >= 0) holder[bp.map[p] * pieces + bp.piece] = S;
            rank_part_free(&bp);
        }
        int64_t *n = calloc((size_t)ga.groups * (size_t)gb.groups, sizeof *n); /* n[g, S]: elements g gets from S */
        for (int g = 0; g < ga.groups; g++) {
            rank_part ap;
            rank_part_make(&ap, a, ga.members[g][0]);
            for (int64_t p = 0; p < ap.elems; p++) {
                if (ap.map[p] < 0) continue;
                int64_t j = source_of(a, b, perm, ap.map[p]);
                for (int pc = 0; pc < pieces; pc++) {
                    int S = holder[j * pieces + pc];
                    n[g * gb.groups + S]++;
                    md->total += ga.R;
                    for (int k = 0; k < ga.R; k++) {
                        int d = ga.members[g][k], s = source_replica(&gb, S, d, ga.pos_of[d], node_map);
                        if (s != d) md->recv_d[d]++, md->sent_d[s]++, md->packed_d++, from_b_d[s][d] = 1;
                    }
                }
            }
            rank_part_free(&ap);
        }
        for (int g = 0; g < ga.groups; g++)
            for (int S = 0; S < gb.groups; S++) {
                int64_t cnt = n[g * gb.groups + S];
                if (!cnt) continue;
                int R = ga.R, e = -1;
                for (int k = 0; k < R && e < 0; k++)
                    if (gb.group_of[ga.members[g][k]] == S) e = k;
                if (e < 0) e = (gb.first_pos[S] + ga.first_pos[g]) % R;
                int entry = ga.members[g][e], origin = source_replica(&gb, S, entry, ga.pos_of[entry], node_map);
                for (int rel = 0; rel < R; rel++) {
                    int to = ga.members[g][(e + rel) % R];
                    if (gb.group_of[to] == S) continue; /* a replica that holds S reads its own */
                    /* what `to` gets was read from B by its nearest ancestor that holds S, else by
                     * the entry's origin; it comes from its parent (the entry: from that origin) */
                    int from = rel ? ga.members[g][(e + tree_parent(rel)) % R] : origin, reader = origin;
                    for (int up = rel; up > 0 && reader == origin;) {
                        up = (int)tree_parent(up);
                        if (gb.group_of[ga.members[g][(e + up) % R]] == S) reader = ga.members[g][(e + up) % R];
                    }
                    md->sent_f[from] += cnt, md->recv_f[to] += cnt;
                    if (from == reader) md->packed_f += cnt, from_b_f[from][to] = 1;
                    else hops++; /* passed on: a message of its own */
                }
            }
        free(n);
        free(holder);
    }
    for (int s = 0; s < np; s++)
        for (int d = 0; d < np; d++) md->msgs_d += from_b_d[s][d], md->msgs_f += from_b_f[s][d];
    md->msgs_f += hops;
}

/* The persistent sends relay creates as it binds, counted over PMPI (tests/CMakeLists.txt:
 * a test may watch relay's MPI calls): one per message of a replay. */
static long send_inits;
int MPI_Send_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    send_inits++;
    return PMPI_Send_init(buf, count, type, dest, tag, comm, request);
}

/* What one way of receiving costs, measured. */
typedef struct {
    int64_t remote;      /* this rank's bytes sent and received per replay (relay_exec_get_memory) */
    uint64_t fingerprint;
    relay_plan_stats stats;
    int keys;            /* pairs marked "forward" in the plan file */
    int64_t messages;    /* MPI messages this rank sends per replay (persistent sends bound) */
} traffic;

/* Plans c with `how`, binds it and (bind_decoded) the plan encoded and decoded for this
 * rank, which must agree with it (fingerprint, statistics, bytes); returns whether all went
 * well on this rank. */
static int traffic_of(const tcase *c, relay_replicas how, int bind_decoded, traffic *t, const char *name)
{
    relay_nd_layout *la[MAXPAIRS] = {0}, *lb[MAXPAIRS] = {0};
    int ok = 1;
    for (int q = 0; q < c->count; q++) ok &= !lay_create(&c->a[q], &la[q]) && !lay_create(&c->b[q], &lb[q]);
    const int *perms[MAXPAIRS];
    for (int q = 0; q < c->count; q++) perms[q] = c->has_perm[q] ? c->perm[q] : NULL;
    relay_plan_options o;
    relay_plan_options_init(&o);
    int nodes[MAXR];
    for (int r = 0; r < np; r++) nodes[r] = r / 2;
    if (c->node_map) o.node_of_rank = nodes;
    o.replicas = how;
    relay_plan *plan = NULL, *back = NULL;
    relay_exec *ex = NULL, *ex2 = NULL;
    memset(t, 0, sizeof *t);
    t->remote = -1;
    if (ok && relay_plan_nd_batch(&plan, np, c->count, (const relay_nd_layout *const *)la, (const relay_nd_layout *const *)lb,
                                  c->op, perms, c->type, &o))
        ok = 0, plan = NULL;
    if (ok) {
        t->fingerprint = relay_plan_fingerprint(plan);
        relay_plan_get_stats(plan, &t->stats);
        void *bytes = NULL;
        size_t len = 0;
        if (relay_plan_encode(plan, &bytes, &len) || relay_plan_decode(&back, bytes, len, me)) ok = 0, back = NULL;
        else t->keys = forward_keys(bytes, len);
        free(bytes);
        relay_plan_stats s2;
        if (back && (relay_plan_fingerprint(back) != t->fingerprint || relay_plan_get_stats(back, &s2)
                     || memcmp(&s2, &t->stats, sizeof s2))) {
            ok = 0;
            printf("  rank %d: %s: the decoded plan's fingerprint or statistics differ\n", me, name);
        }
    }
    long before = send_inits;
    int all = all_ranks(ok);
    if (all && relay_exec_create(&ex, plan, MPI_COMM_WORLD)) ok = 0;
    t->messages = send_inits - before;
    if (all && bind_decoded && relay_exec_create(&ex2, back, MPI_COMM_WORLD)) ok = 0;
    relay_exec_memory m1 = {-1, -1}, m2 = {-1, -1};
    if (ex && !relay_exec_get_memory(ex, &m1) && (!bind_decoded || (ex2 && !relay_exec_get_memory(ex2, &m2)))) {
        if (!bind_decoded) m2 = m1;
        t->remote = m1.remote_bytes;
        if (m1.remote_bytes != m2.remote_bytes) {
            ok = 0;
            printf("  rank %d: %s: %lld bytes cross ranks, %lld with the plan decoded\n", me, name, (long long)m1.remote_bytes,
                   (long long)m2.remote_bytes);
        }
    } else
        ok = 0;
    if (!ok) printf("  rank %d: %s: planning or binding: %s\n", me, name, relay_last_error());
    if (ex) relay_exec_free(ex);
    if (ex2) relay_exec_free(ex2);
    relay_plan_free(plan), relay_plan_free(back);
    for (int q = 0; q < c->count; q++) relay_nd_layout_free(la[q]), relay_nd_layout_free(lb[q]);
    return ok;
}

/* Verdicts reached on every rank, agreed in one reduction (each counts as one check of
 * mpi_check.h): many checks per case without a collective each. */
typedef struct {
    int n, ok[24];
    char what[24][300];
} verdicts;

static void verdict(verdicts *v, int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->what[v->n], sizeof v->what[v->n], fmt, ap);
    va_end(ap);
    v->ok[v->n++] = ok;
}

static void verdicts_agree(verdicts *v)
{
    int all[24];
    MPI_Allreduce(v->ok, all, v->n, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    for (int i = 0; i < v->n; i++) {
        if (all[i]) checks_passed++;
        else {
            checks_failed++;
            if (me == 0) printf("FAILED: %s\n", v->what[i]);
        }
    }
    v->n = 0;
}

/* Direct, forward and auto compared with the model, in doubles.  expect_auto: 1 forward,
 * 0 direct (derived by hand in the caller), -1 as the model finds. */
static void check_traffic(const tcase *given, int expect_auto)
{
    tcase c = *given;
    c.type = RELAY_DOUBLE;
    const int64_t esz = 8;
    traffic d, f, au;
    verdicts v = {0};
    int ok = traffic_of(&c, RELAY_REPLICAS_DIRECT, 1, &d, c.name);
    ok &= traffic_of(&c, RELAY_REPLICAS_FORWARD, 1, &f, c.name);
    ok &= traffic_of(&c, RELAY_REPLICAS_AUTO, 0, &au, c.name);
    int64_t msgs[2] = {d.messages, f.messages}, all_msgs[2];
    MPI_Allreduce(msgs, all_msgs, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    d.messages = all_msgs[0], f.messages = all_msgs[1];
    verdict(&v, ok, "%s: planned, bound and decoded direct, forward and auto", c.name);
    int rp = replicated_pairs(&c);
    verdict(&v, d.keys == 0 && f.keys == rp && (au.keys == 0 || au.keys == rp),
            "%s: the plan file marks %d pairs forward (forward), none (direct), one of those (auto)", c.name, rp);
    int auto_forward = rp > 0 && au.fingerprint == f.fingerprint && au.keys == rp;
    verdict(&v,
            (au.fingerprint == d.fingerprint && au.remote == d.remote)
                || (au.fingerprint == f.fingerprint && au.remote == f.remote),
            "%s: auto plans what direct or forward plans (fingerprint, bytes)", c.name);
    if (rp == 0)
        verdict(&v, f.fingerprint == d.fingerprint && f.remote == d.remote, "%s: without replicas forward is direct", c.name);
    verdict(&v, d.stats.bytes_total == f.stats.bytes_total && au.stats.bytes_total == d.stats.bytes_total,
            "%s: every replica gets every element either way (bytes_total %lld, %lld)", c.name, (long long)d.stats.bytes_total,
            (long long)f.stats.bytes_total);
    model md;
    model_make(&c, &md);
    verdict(&v, d.stats.bytes_total == md.total * esz, "%s: bytes_total as derived (%lld)", c.name, (long long)(md.total * esz));
    int64_t want_d = (md.recv_d[me] + md.sent_d[me]) * esz, want_f = (md.recv_f[me] + md.sent_f[me]) * esz;
    if (d.remote != want_d || f.remote != want_f)
        printf("  rank %d: %s: %lld bytes sent and received direct, %lld forwarded; derived %lld, %lld\n", me, c.name,
               (long long)d.remote, (long long)f.remote, (long long)want_d, (long long)want_f);
    verdict(&v, d.remote == want_d, "%s: each rank's bytes sent and received as derived, direct", c.name);
    verdict(&v, f.remote == want_f, "%s: each rank's bytes sent and received as derived, forwarded", c.name);
    int64_t recv_d = 0, recv_f = 0;
    for (int r = 0; r < np; r++) recv_d += md.recv_d[r], recv_f += md.recv_f[r];
    verdict(&v, d.stats.bytes_remote == recv_d * esz && f.stats.bytes_remote == recv_f * esz && recv_f >= recv_d,
            "%s: bytes_remote %lld (direct), %lld (forward), derived %lld, %lld", c.name, (long long)d.stats.bytes_remote,
            (long long)f.stats.bytes_remote, (long long)(recv_d * esz), (long long)(recv_f * esz));
    verdict(&v, d.messages == md.msgs_d && f.messages == md.msgs_f,
            "%s: MPI messages per replay %lld (direct), %lld (forward), derived %lld, %lld", c.name, (long long)d.messages,
            (long long)f.messages, (long long)md.msgs_d, (long long)md.msgs_f);
    verdict(&v, d.stats.messages == md.msgs_d && f.stats.messages == md.msgs_f,
            "%s: stats.messages %lld (direct), %lld (forward), derived %lld, %lld", c.name, (long long)d.stats.messages,
            (long long)f.stats.messages, (long long)md.msgs_d, (long long)md.msgs_f);
    /* the ranks that only send (on no destination mesh) send less forwarded: once per group */
    int on_dst = 0, fewer = 1;
    for (int q = 0; q < c.count; q++)
        for (int i = 0; i < mesh_size(&c.a[q]); i++) on_dst |= c.a[q].ranks[i] == me;
    if (!on_dst && md.sent_d[me] > md.sent_f[me] && !(f.remote < d.remote)) fewer = 0;
    if (!on_dst && md.sent_d[me] < md.sent_f[me]) fewer = 0;
    if (!fewer)
        printf("  rank %d: %s: a source sends %lld bytes forwarded, %lld direct\n", me, c.name, (long long)f.remote,
               (long long)d.remote);
    verdict(&v, fewer, "%s: sources send once per destination group forwarded, not once per replica", c.name);
    /* auto (plan.h): the fewer bytes the busiest rank sends or receives, then the fewer bytes
     * packed, then direct */
    int64_t busy_d = 0, busy_f = 0;
    for (int r = 0; r < np; r++) {
        int64_t x[4] = {md.sent_d[r], md.recv_d[r], md.sent_f[r], md.recv_f[r]};
        busy_d = x[0] > busy_d ? x[0] : busy_d, busy_d = x[1] > busy_d ? x[1] : busy_d;
        busy_f = x[2] > busy_f ? x[2] : busy_f, busy_f = x[3] > busy_f ? x[3] : busy_f;
    }
    int predicted = rp > 0 && (busy_f < busy_d || (busy_f == busy_d && md.packed_f < md.packed_d));
    verdict(&v, auto_forward == predicted && (expect_auto < 0 || expect_auto == predicted),
            "%s: auto chooses %s (busiest rank %lld elements direct, %lld forward; packed %lld, %lld)", c.name,
            predicted ? "forward" : "direct", (long long)busy_d, (long long)busy_f, (long long)md.packed_d,
            (long long)md.packed_f);
    verdicts_agree(&v);
}

/* The case under direct and under forward (every type, every variant, the forward runs
 * also replayed from the plan file), then its traffic. */
static void run_forward_case(tcase *c, int expect_auto)
{
    const unsigned all = (1u << VARIANTS) - 1;
    char base[160];
    snprintf(base, sizeof base, "%s", c->name);
    for (int how = RELAY_REPLICAS_DIRECT; how <= RELAY_REPLICAS_FORWARD; how++) {
        c->replicas = (relay_replicas)how;
        snprintf(c->name, sizeof c->name, "%.140s [%s]", base, how == RELAY_REPLICAS_FORWARD ? "forward" : "direct");
        c->reload = 0;
        run_all_types(c, all);
        c->reload = 1;
        c->type = RELAY_CFLOAT;
        run_case(c, 1u << 1);
    }
    c->replicas = RELAY_REPLICAS_AUTO, c->reload = 0;
    snprintf(c->name, sizeof c->name, "%s", base);
    check_traffic(c, expect_auto);
}

static void pair_of(tcase *c, int q, relay_op op, const int *perm)
{
    c->op[q] = op;
    c->has_perm[q] = perm != NULL;
    if (perm) memcpy(c->perm[q], perm, (size_t)c->a[q].ndims * sizeof *perm);
}

static void forwarding(void)
{
    tcase c;
    int all_ranks_list[MAXR], reversed[MAXR];
    for (int i = 0; i < np; i++) all_ranks_list[i] = i, reversed[i] = np - 1 - i;
    int one[1] = {1};

    /* a broadcast: B whole on one rank, A replicated on all np (R = np).  Forwarded, the
     * holder is the entry: a binomial tree from it; direct, it sends np - 1 copies.  The
     * busiest rank: np - 1 copies direct, ceil(log2 np) forwarded: forward from np = 4 on
     * (np 2 and 3 tie, and so do the bytes packed: direct) */
    {
        memset(&c, 0, sizeof c);
        int64_t bs[2] = {5, 7}, as[2] = {7, 5};
        lay_init(&c.b[0], 2, bs, 1, one, (int[]){0}, RELAY_ROW_MAJOR);
        lay_init(&c.a[0], 2, as, 1, (int[]){np}, all_ranks_list, RELAY_ROW_MAJOR);
        single(&c, "forward: broadcast from rank 0 to R = np replicas", RELAY_OP_T, NULL);
        run_forward_case(&c, np >= 4);
        /* the replicas in reverse order, the holder in the middle: the tree wraps around */
        int64_t bs3[3] = {3, 4, 5}, as3[3] = {4, 5, 3};
        lay_init(&c.b[0], 3, bs3, 1, one, (int[]){np / 2}, RELAY_COL_MAJOR);
        lay_init(&c.a[0], 3, as3, 1, (int[]){np}, reversed, RELAY_ROW_MAJOR);
        lay_pad(&c.a[0], (int64_t[]){0, 6, 0});
        single(&c, "forward: broadcast from rank np/2 to R = np replicas in reverse order, padded", RELAY_OP_T,
               (int[]){1, 2, 0});
        run_forward_case(&c, np >= 4);
    }
    /* every rank a partial piece, every rank a replica: np trees, one from each holder,
     * passing on in opposite directions between the same ranks within one pair */
    if (np >= 2) {
        memset(&c, 0, sizeof c);
        int64_t s[2] = {6, 5}, st[2] = {5, 6};
        lay_init(&c.b[0], 2, s, 1, (int[]){np}, all_ranks_list, RELAY_ROW_MAJOR);
        lay_partial(&c.b[0], 0);
        lay_init(&c.a[0], 2, st, 1, (int[]){np}, reversed, RELAY_COL_MAJOR);
        single(&c, "forward: P on every rank -> R on every rank", RELAY_OP_C, NULL);
        run_forward_case(&c, -1);
    }
    /* three replicas: on ranks np-1, 0, 1, from B sharded on every rank (some holders in
     * the group, some outside); at 6 ranks and more, two groups of three (R, S1) from P, S0 */
    if (np >= 3) {
        memset(&c, 0, sizeof c);
        int64_t s[2] = {7, 4};
        lay_init(&c.b[0], 2, s, 1, (int[]){np}, all_ranks_list, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 0, 1);
        lay_init(&c.a[0], 2, s, 1, (int[]){3}, (int[]){np - 1, 0, 1}, RELAY_ROW_MAJOR);
        single(&c, "forward: R = 3 on ranks np-1,0,1 from S0 block 1", RELAY_OP_N, NULL);
        run_forward_case(&c, -1);
        if (np >= 6) {
            int64_t s3[3] = {4, 6, 5}, a3[3] = {5, 4, 6};
            int bm[2] = {np / 2, 2};
            lay_init(&c.b[0], 3, s3, 2, bm, all_ranks_list, RELAY_ROW_MAJOR);
            lay_shard(&c.b[0], 0, 0, 2), lay_partial(&c.b[0], 1);
            lay_init(&c.a[0], 3, a3, 2, (int[]){3, 2}, reversed, RELAY_COL_MAJOR);
            lay_shard(&c.a[0], 1, 1, 0);
            single(&c, "forward: R,S1 with R = 3 from S0,P", RELAY_OP_T, (int[]){2, 0, 1});
            run_forward_case(&c, -1);
        }
    }
    /* two replicate mesh dimensions: R,R (R = 4 at 4 ranks, 6 at 6, 8 at 8) from S1 block 1
     * on every rank (every holder in the one group) and from P,S0; at 8 ranks R,S0,R
     * (two groups of four) from S1,P */
    if (np >= 4 && np % 2 == 0) {
        memset(&c, 0, sizeof c);
        int perm_ranks[MAXR];
        for (int i = 0; i < np; i++) perm_ranks[i] = i ^ 1; /* neighbours swapped */
        int64_t s[2] = {5, 9}, st[2] = {9, 5};
        lay_init(&c.b[0], 2, s, 1, (int[]){np}, all_ranks_list, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 1, 1);
        lay_init(&c.a[0], 2, st, 2, (int[]){2, np / 2}, perm_ranks, RELAY_ROW_MAJOR);
        single(&c, "forward: R,R (R = np) from S1 block 1", RELAY_OP_T, NULL);
        run_forward_case(&c, 1);
        lay_init(&c.b[0], 2, s, 2, (int[]){2, np / 2}, reversed, RELAY_COL_MAJOR);
        lay_partial(&c.b[0], 0), lay_shard(&c.b[0], 1, 0, 0);
        single(&c, "forward: R,R (R = np) from P,S0", RELAY_OP_T, NULL);
        run_forward_case(&c, -1);
        if (np == 8) {
            int64_t s3[3] = {4, 5, 6}, a3[3] = {6, 4, 5};
            lay_init(&c.b[0], 3, s3, 2, (int[]){4, 2}, (int[]){6, 1, 4, 3, 0, 7, 2, 5}, RELAY_ROW_MAJOR);
            lay_shard(&c.b[0], 0, 1, 1), lay_partial(&c.b[0], 1);
            lay_init(&c.a[0], 3, a3, 3, (int[]){2, 2, 2}, all_ranks_list, RELAY_ROW_MAJOR);
            lay_shard(&c.a[0], 1, 0, 0);
            single(&c, "forward: R,S0,R (two groups of 4) from S1,P", RELAY_OP_T, (int[]){2, 0, 1});
            run_forward_case(&c, -1);
        }
    }
    /* weight sync: sharded 4 ways on ranks 0-3 -> sharded 2 ways and replicated twice on
     * 4-7 (at 8 ranks; the first half to the second elsewhere).  Direct, each source sends
     * its rows twice; forwarded once, and each replica passes on what it received.  At 8
     * ranks the busiest rank handles 24 elements either way (a replica receives its 4 rows
     * of 6), and forwarded the sources pack 48 instead of 96: auto forwards */
    if (np >= 3) {
        memset(&c, 0, sizeof c);
        int h = np / 2, rest = np - h, src_ranks[MAXR], dst_ranks[MAXR];
        for (int i = 0; i < h; i++) src_ranks[i] = i;
        for (int i = 0; i < rest; i++) dst_ranks[i] = h + i;
        int64_t s[2] = {8, 6}, st[2] = {6, 8};
        lay_init(&c.b[0], 2, s, 1, (int[]){h}, src_ranks, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 0, 0);
        lay_init(&c.a[0], 2, s, 2, (int[]){rest / 2, 2}, dst_ranks, RELAY_ROW_MAJOR);
        lay_shard(&c.a[0], 0, 0, 0);
        single(&c, "forward: weight sync, S0 on the first half -> S0,R on the second", RELAY_OP_N, NULL);
        run_forward_case(&c, np == 8 ? 1 : -1);
        c.a[0].shape[0] = st[0], c.a[0].shape[1] = st[1];
        single(&c, "forward: weight sync, transposed", RELAY_OP_T, NULL);
        run_forward_case(&c, np == 8 ? 1 : -1);
    }
    /* overlapping groups where replicas of A hold replicas of B: a replica that holds one
     * reads its own, direct or forwarded (forwarded, the others get it down the tree, from
     * the nearest holder above them); with a node map (nodes of two ranks), which picks
     * the replica read */
    if (np >= 4 && np % 2 == 0) {
        memset(&c, 0, sizeof c);
        int p1[MAXR], p2[MAXR];
        for (int i = 0; i < np; i++) p1[i] = (i + 1) % np, p2[i] = (np - 1 - i + 2) % np;
        int64_t s[2] = {6, 7}, st[2] = {7, 6};
        lay_init(&c.b[0], 2, s, 2, (int[]){2, np / 2}, p1, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 1, 0, 0);
        lay_init(&c.a[0], 2, st, 2, (int[]){np / 2, 2}, p2, RELAY_COL_MAJOR);
        lay_shard(&c.a[0], 1, 1, 1);
        c.node_map = 1;
        single(&c, "forward: R,S0 -> R,S1 on overlapping orders, node map", RELAY_OP_T, NULL);
        run_forward_case(&c, -1);
        c.node_map = 0;
        if (np == 8) {
            int64_t s3[3] = {4, 3, 5}, a3[3] = {5, 4, 3};
            lay_init(&c.b[0], 3, s3, 3, (int[]){2, 2, 2}, p1, RELAY_ROW_MAJOR);
            lay_partial(&c.b[0], 0), lay_shard(&c.b[0], 2, 2, 2);
            lay_init(&c.a[0], 3, a3, 3, (int[]){2, 2, 2}, p2, RELAY_ROW_MAJOR);
            lay_shard(&c.a[0], 1, 1, 0);
            single(&c, "forward: P,R,S2 -> R,S1,R", RELAY_OP_T, (int[]){2, 0, 1});
            run_forward_case(&c, -1);
        }
    }
    /* batches whose trees pass on in opposite directions between the same ranks: were the
     * transfers passed on merged into one message per peer, or with what a rank reads from
     * B, each rank would wait for the other.  R = 4 and the holder in each group, so the
     * trees are fixed: pair 0 from rank 2 over [2,0,3,1] passes 0 -> 1, pair 1 from rank 3
     * over [3,1,2,0] passes 1 -> 0; pair 2 moves rows between the same four ranks directly */
    if (np >= 4) {
        memset(&c, 0, sizeof c);
        int64_t s0[2] = {3, 5}, s0t[2] = {5, 3}, s1[3] = {2, 3, 4}, s2[2] = {8, 4};
        lay_init(&c.b[0], 2, s0, 1, one, (int[]){2}, RELAY_ROW_MAJOR);
        lay_init(&c.a[0], 2, s0t, 1, (int[]){4}, (int[]){2, 0, 3, 1}, RELAY_ROW_MAJOR);
        pair_of(&c, 0, RELAY_OP_T, NULL);
        lay_init(&c.b[1], 3, s1, 1, one, (int[]){3}, RELAY_COL_MAJOR);
        lay_init(&c.a[1], 3, s1, 1, (int[]){4}, (int[]){3, 1, 2, 0}, RELAY_ROW_MAJOR);
        pair_of(&c, 1, RELAY_OP_N, NULL);
        lay_init(&c.b[2], 2, s2, 1, (int[]){4}, (int[]){0, 1, 2, 3}, RELAY_ROW_MAJOR);
        lay_shard(&c.b[2], 0, 0, 1);
        lay_init(&c.a[2], 2, s2, 1, (int[]){4}, (int[]){1, 0, 3, 2}, RELAY_ROW_MAJOR);
        lay_shard(&c.a[2], 0, 0, 0);
        pair_of(&c, 2, RELAY_OP_N, NULL);
        c.count = 3;
        snprintf(c.name, sizeof c.name, "forward: batch passing on 0 -> 1 and 1 -> 0");
        run_forward_case(&c, -1);
        /* a cycle: 0 -> 1, 1 -> 2, 2 -> 0, all from rank 3 */
        memset(&c, 0, sizeof c);
        int64_t t0[2] = {4, 3}, t1[1] = {10}, t2[3] = {2, 2, 3};
        lay_init(&c.b[0], 2, t0, 1, one, (int[]){3}, RELAY_ROW_MAJOR);
        lay_init(&c.a[0], 2, t0, 1, (int[]){4}, (int[]){3, 0, 2, 1}, RELAY_ROW_MAJOR);
        pair_of(&c, 0, RELAY_OP_C, (int[]){0, 1});
        lay_init(&c.b[1], 1, t1, 1, one, (int[]){3}, RELAY_ROW_MAJOR);
        lay_init(&c.a[1], 1, t1, 1, (int[]){4}, (int[]){3, 1, 0, 2}, RELAY_ROW_MAJOR);
        pair_of(&c, 1, RELAY_OP_N, NULL);
        lay_init(&c.b[2], 3, t2, 1, one, (int[]){3}, RELAY_ROW_MAJOR);
        lay_init(&c.a[2], 3, t2, 1, (int[]){4}, (int[]){3, 2, 1, 0}, RELAY_COL_MAJOR);
        pair_of(&c, 2, RELAY_OP_N, NULL);
        c.count = 3;
        snprintf(c.name, sizeof c.name, "forward: batch passing on in a cycle 0 -> 1 -> 2 -> 0");
        run_forward_case(&c, -1);
    }
    /* deep trees both ways: R = 8 over 0..7 from rank 0 and over 7..0 from rank 7 (2 -> 6
     * and 6 -> 2, 1 -> 5 and 5 -> 1 passed on) */
    if (np == 8) {
        memset(&c, 0, sizeof c);
        int64_t s0[2] = {4, 6}, s1[2] = {6, 4};
        lay_init(&c.b[0], 2, s0, 1, one, (int[]){0}, RELAY_ROW_MAJOR);
        lay_init(&c.a[0], 2, s1, 1, (int[]){8}, all_ranks_list, RELAY_ROW_MAJOR);
        pair_of(&c, 0, RELAY_OP_T, NULL);
        lay_init(&c.b[1], 2, s0, 1, one, (int[]){7}, RELAY_COL_MAJOR);
        lay_init(&c.a[1], 2, s1, 1, (int[]){8}, reversed, RELAY_ROW_MAJOR);
        pair_of(&c, 1, RELAY_OP_C, NULL);
        c.count = 2;
        snprintf(c.name, sizeof c.name, "forward: batch of R = 8 trees from rank 0 and from rank 7");
        run_forward_case(&c, 1);
        /* chains of two hops passed on, in a cycle: the replica at rel 3 passes on to rel 7
         * what rel 1 passed on to it; pair k's rel 1, 3, 7 are ranks 1, 2, 3 rotated by k,
         * so that 1 -> 2 carries pair 0's first hop and pair 2's second, and so on around */
        memset(&c, 0, sizeof c);
        int64_t t0[2] = {3, 4}, t1[1] = {9}, t2[3] = {2, 3, 2};
        lay_init(&c.b[0], 2, t0, 1, one, (int[]){0}, RELAY_ROW_MAJOR);
        lay_init(&c.a[0], 2, t0, 1, (int[]){8}, (int[]){0, 1, 4, 2, 5, 6, 7, 3}, RELAY_ROW_MAJOR);
        pair_of(&c, 0, RELAY_OP_N, NULL);
        lay_init(&c.b[1], 1, t1, 1, one, (int[]){0}, RELAY_ROW_MAJOR);
        lay_init(&c.a[1], 1, t1, 1, (int[]){8}, (int[]){0, 2, 4, 3, 5, 6, 7, 1}, RELAY_COL_MAJOR);
        pair_of(&c, 1, RELAY_OP_C, NULL);
        lay_init(&c.b[2], 3, t2, 1, one, (int[]){0}, RELAY_COL_MAJOR);
        lay_init(&c.a[2], 3, t2, 1, (int[]){8}, (int[]){0, 3, 4, 1, 5, 6, 7, 2}, RELAY_ROW_MAJOR);
        pair_of(&c, 2, RELAY_OP_T, (int[]){0, 1, 2});
        c.count = 3;
        snprintf(c.name, sizeof c.name, "forward: batch of R = 8 trees whose two-hop chains form a cycle");
        run_forward_case(&c, 1);
    }
    /* two replicas in either order, the source outside: the entry is at (source group's
     * position + destination group's) mod 2 = 0, rank 0 for [0,1] and rank 1 for [1,0], so
     * 0 -> 1 and 1 -> 0 are passed on; with a direct pair between the same two ranks */
    if (np >= 3) {
        memset(&c, 0, sizeof c);
        int64_t s0[2] = {3, 4}, s1[1] = {7}, s2[2] = {6, 2};
        lay_init(&c.b[0], 2, s0, 1, one, (int[]){np - 1}, RELAY_ROW_MAJOR);
        lay_init(&c.a[0], 2, s0, 1, (int[]){2}, (int[]){0, 1}, RELAY_ROW_MAJOR);
        pair_of(&c, 0, RELAY_OP_N, NULL);
        lay_init(&c.b[1], 1, s1, 1, one, (int[]){np - 1}, RELAY_ROW_MAJOR);
        lay_init(&c.a[1], 1, s1, 1, (int[]){2}, (int[]){1, 0}, RELAY_ROW_MAJOR);
        pair_of(&c, 1, RELAY_OP_C, NULL);
        lay_init(&c.b[2], 2, s2, 1, (int[]){2}, (int[]){0, 1}, RELAY_ROW_MAJOR);
        lay_shard(&c.b[2], 0, 1, 1);
        lay_init(&c.a[2], 2, s2, 1, (int[]){2}, (int[]){1, 0}, RELAY_ROW_MAJOR);
        lay_shard(&c.a[2], 0, 1, 0);
        pair_of(&c, 2, RELAY_OP_N, NULL);
        c.count = 3;
        snprintf(c.name, sizeof c.name, "forward: batch of R = 2 over [0,1] and [1,0] from rank np-1");
        run_forward_case(&c, -1);
    }
    /* direct and forward on a destination without replicas: accepted, alike, nothing marked */
    {
        memset(&c, 0, sizeof c);
        int64_t s[2] = {5, 4}, st[2] = {4, 5};
        lay_init(&c.b[0], 2, s, 1, (int[]){np}, all_ranks_list, RELAY_ROW_MAJOR);
        lay_shard(&c.b[0], 0, 0, 0);
        lay_init(&c.a[0], 2, st, 1, (int[]){np}, reversed, RELAY_ROW_MAJOR);
        lay_shard(&c.a[0], 0, 1, 1);
        single(&c, "forward: a destination without replicas", RELAY_OP_T, NULL);
        run_forward_case(&c, 0);
    }
}

/* Partial sums of inexact values: forwarded and direct give the same bits (both add the
 * pieces in the order of their mesh coordinates), replay after replay, on every replica. */
static int sums_run(const lay *a, const lay *b, relay_replicas how, double *out[2], const char *name)
{
    relay_nd_layout *la = NULL, *lb = NULL;
    relay_plan *plan = NULL;
    relay_exec *ex = NULL;
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.replicas = how;
    int ok = !lay_create(a, &la) && !lay_create(b, &lb) && !relay_plan_nd(&plan, np, la, lb, RELAY_OP_T, NULL, RELAY_DOUBLE, &o);
    if (all_ranks(ok) && relay_exec_create(&ex, plan, MPI_COMM_WORLD)) ok = 0, ex = NULL;
    rank_part ap, bp;
    rank_part_make(&ap, a, me);
    rank_part_make(&bp, b, me);
    double *bv = calloc((size_t)bp.elems + 1, sizeof(double)), *av = calloc((size_t)ap.elems + 1, sizeof(double));
    for (int64_t p = 0; p < bp.elems; p++)
        bv[p] = bp.map[p] < 0 ? NAN : random_double((uint64_t)bp.map[p] * 64 + (uint64_t)bp.piece);
    double beta = 0.75, alpha = 1.0 / 3;
    for (int with_beta = 0; with_beta < 2 && all_ranks(ex != NULL); with_beta++)
        for (int rep = 0; rep < 2; rep++) {
            for (int64_t p = 0; p < ap.elems; p++)
                av[p] = ap.map[p] < 0 ? PAD_A : with_beta ? random_double(100000 + (uint64_t)ap.map[p]) : NAN;
            if (relay_exec_run(ex, (void *[]){ap.elems ? av : NULL}, (const void *[]){bp.elems ? bv : NULL},
                               with_beta ? &alpha : NULL, with_beta ? &beta : NULL)) {
                ok = 0;
                printf("  rank %d: %s: relay_exec_run: %s\n", me, name, relay_last_error());
            }
            if (rep == 0) memcpy(out[with_beta], av, (size_t)ap.elems * sizeof(double));
            else if (memcmp(out[with_beta], av, (size_t)ap.elems * sizeof(double))) {
                ok = 0;
                printf("  rank %d: %s: a replay differs bitwise from the first\n", me, name);
            }
        }
    if (!all_ranks(ex != NULL)) ok = 0;
    if (ex) relay_exec_free(ex);
    relay_plan_free(plan);
    relay_nd_layout_free(la), relay_nd_layout_free(lb);
    rank_part_free(&ap), rank_part_free(&bp);
    free(av), free(bv);
    return ok;
}

static void forward_sums(void)
{
    int all[MAXR], rev[MAXR], swapped[MAXR];
    for (int i = 0; i < np; i++) all[i] = i, rev[i] = np - 1 - i, swapped[i] = i ^ 1;
    for (int which = 0; which < 3; which++) {
        lay a, b;
        const char *name;
        int64_t s[3] = {5, 6, 3}, st[3] = {3, 6, 5};
        if (which == 0) {
            lay_init(&b, 2, s, 1, (int[]){np}, all, RELAY_ROW_MAJOR);
            lay_partial(&b, 0);
            lay_init(&a, 2, (int64_t[]){6, 5}, 1, (int[]){np}, rev, RELAY_ROW_MAJOR);
            name = "forwarded sums: P on every rank -> R on every rank (reversed)";
        } else if (which == 1 && np >= 4 && np % 2 == 0) {
            lay_init(&b, 2, s, 2, (int[]){2, np / 2}, all, RELAY_COL_MAJOR);
            lay_partial(&b, 0), lay_shard(&b, 1, 1, 1);
            lay_init(&a, 2, (int64_t[]){6, 5}, 2, (int[]){2, np / 2}, swapped, RELAY_ROW_MAJOR);
            name = "forwarded sums: P,S1 -> R,R";
        } else if (which == 2 && np == 8) {
            lay_init(&b, 3, s, 3, (int[]){2, 2, 2}, (int[]){3, 6, 1, 4, 7, 2, 5, 0}, RELAY_ROW_MAJOR);
            lay_partial(&b, 0), lay_partial(&b, 1), lay_shard(&b, 2, 0, 0);
            lay_init(&a, 3, st, 3, (int[]){2, 2, 2}, all, RELAY_ROW_MAJOR);
            lay_shard(&a, 1, 1, 1);
            name = "forwarded sums: P,P,S0 -> R,S1,R";
        } else
            continue;
        rank_part ap, bp;
        rank_part_make(&ap, &a, me);
        rank_part_make(&bp, &b, me);
        size_t n = (size_t)ap.elems + 1;
        double *dir[2] = {calloc(n, sizeof(double)), calloc(n, sizeof(double))};
        double *fwd[2] = {calloc(n, sizeof(double)), calloc(n, sizeof(double))};
        int ok = sums_run(&a, &b, RELAY_REPLICAS_DIRECT, dir, name);
        ok &= sums_run(&a, &b, RELAY_REPLICAS_FORWARD, fwd, name);
        int same_bits = !memcmp(dir[0], fwd[0], (size_t)ap.elems * sizeof(double))
                        && !memcmp(dir[1], fwd[1], (size_t)ap.elems * sizeof(double));
        /* beta NULL: the sum in the order of the pieces, bitwise */
        int pieces = partial_pieces(&b), in_order_ok = 1;
        int64_t total = product(a.shape, a.ndims);
        int d = a.ndims, perm[MAXD];
        for (int k = 0; k < d; k++) perm[k] = d - 1 - k;
        for (int64_t p = 0; p < ap.elems; p++) {
            if (ap.map[p] < 0) continue;
            int64_t j = source_of(&a, &b, perm, ap.map[p]);
            double in_order = 0;
            for (int pc = 0; pc < pieces; pc++) {
                double x = random_double((uint64_t)j * 64 + (uint64_t)pc);
                in_order = pc ? in_order + x : x;
            }
            if (memcmp(&fwd[0][p], &in_order, sizeof(double))) in_order_ok = 0;
        }
        /* every replica bitwise equal (forwarded, with beta) */
        double *mine = malloc((size_t)total * sizeof(double)), *every = malloc((size_t)total * (size_t)np * sizeof(double));
        uint64_t nanbits = 0x7ff8dead0000beefULL;
        for (int64_t i = 0; i < total; i++) memcpy(&mine[i], &nanbits, sizeof(double));
        for (int64_t p = 0; p < ap.elems; p++)
            if (ap.map[p] >= 0) mine[ap.map[p]] = fwd[1][p];
        MPI_Allgather(mine, (int)total, MPI_DOUBLE, every, (int)total, MPI_DOUBLE, MPI_COMM_WORLD);
        int64_t holders = 0, differ = 0;
        for (int64_t i = 0; i < total; i++) {
            const double *ref = NULL;
            for (int r = 0; r < np; r++) {
                const double *x = &every[(int64_t)r * total + i];
                if (!memcmp(x, &nanbits, sizeof(double))) continue;
                holders++;
                if (!ref) ref = x;
                else differ += memcmp(ref, x, sizeof(double)) != 0;
            }
        }
        char w[240];
        snprintf(w, sizeof w, "%s: replayed bitwise alike", name);
        check(ok, w);
        if (!same_bits) printf("  rank %d: %s: forwarded and direct differ bitwise\n", me, name);
        snprintf(w, sizeof w, "%s: forwarded and direct bitwise equal", name);
        check(same_bits, w);
        snprintf(w, sizeof w, "%s: forwarded sums added in the order of the pieces", name);
        check(in_order_ok, w);
        snprintf(w, sizeof w, "%s: every replica bitwise equal (%lld values held, %lld differ)", name, (long long)holders,
                 (long long)differ);
        check(differ == 0 && holders == total * replica_count(&a), w);
        free(mine), free(every);
        free(dir[0]), free(dir[1]), free(fwd[0]), free(fwd[1]);
        rank_part_free(&ap), rank_part_free(&bp);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np > MAXR) {
        if (me == 0) printf("mpi_nd: at most %d ranks\n", MAXR);
        MPI_Finalize();
        return 1;
    }
    double t0 = MPI_Wtime();
    bad_input();
    hand_picked();
    double t1 = MPI_Wtime();
    random_cases(RELAY_REPLICAS_AUTO);
    double t2 = MPI_Wtime();
    batches(RELAY_REPLICAS_AUTO);
    reproducible();
    double t3 = MPI_Wtime();
    forwarding();
    double tf1 = MPI_Wtime();
    forward_sums();
    double tf2 = MPI_Wtime();
    random_cases(RELAY_REPLICAS_FORWARD);
    double tf3 = MPI_Wtime();
    batches(RELAY_REPLICAS_FORWARD);
    double t4 = MPI_Wtime();
    if (me == 0 && getenv("MPI_ND_VERBOSE"))
        printf("forwarding: hand %.2f s, sums %.2f s, random %.2f s, batches %.2f s\n", tf1 - t3, tf2 - tf1, tf3 - tf2, t4 - tf3);
    refused_start();
    different_plans();
    replica_choice();
    double t5 = MPI_Wtime();
    if (me == 0)
        printf("mpi_nd at %d ranks: bad input and hand-picked %.2f s, random %.2f s, batches and reproducibility %.2f s, "
               "forwarding %.2f s\n",
               np, t1 - t0, t2 - t1, (t3 - t2) + (t5 - t4), t4 - t3);
    int rc = check_summary("mpi_nd");
    MPI_Finalize();
    return rc;
}
