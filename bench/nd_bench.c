/* nd_bench.c — N-D plans against the routines they replace, in
 * one job.
 *
 *   slab2d   an n x n double matrix in row slabs to its transpose in row
 *            slabs: relay (op T) against FFTW-MPI's fftw_mpi_plan_many_transpose;
 *   slab3d   an n^3 complex double array in x slabs to y slabs, axes
 *            reordered (1,0,2): relay against FFTW-MPI's transpose of
 *            n x n blocks of n complex numbers (howmany = 2n);
 *   pencil   an n^3 complex double array from x pencils (z, y, x) to y
 *            pencils (z, x, y) and from there to z pencils (y, x, z), each
 *            pencil stored with its own axis fastest, on a q0 x q1 mesh:
 *            relay against the straightforward reshape heFFTe's alltoallv
 *            backend does (pack boxes, MPI_Alltoallv, unpack transposing);
 *   dtensor  DTensor's moves of an n x n double matrix on a 2 x 2 mesh
 *            (4 ranks): [S0,R] -> [R,S1] against MPI_Allgather over the
 *            mesh's columns and a local slice; [S0,S1] -> [S1,S0] against
 *            MPI_Allgather of the whole matrix and a local slice (shard ->
 *            replicate -> shard, DTensor's path); [P,S1] -> [S0,S1]
 *            against MPI_Reduce_scatter_block over the mesh's columns;
 *   weightsync 8 tensors of n x n floats sharded 4 ways on ranks 0-3 to 2
 *            ways, replicated twice, on ranks 4-7 (8 ranks): relay
 *            forwarding among the replicas, and as the plan chooses (auto),
 *            against relay sending each replica its part directly.
 * Every replay of relay and of its baseline are interleaved, each timed
 * from a barrier as the slowest rank's time; printed, a markdown row per
 * case: the medians and relay / baseline (below 1: relay is faster;
 * bench/record.py keeps the table).  relay's output is
 * compared with the baseline's, byte for byte, before timing.
 *
 *   mpiexec -n P nd_bench [replays] [case]     (case: slab2d, slab3d, pencil, dtensor, weightsync; default all) */
#define _POSIX_C_SOURCE 200809L
#include <complex.h>
#include <fftw3-mpi.h>
#include <stdio.h>
#include <string.h>

#include "relay_case.h"
#include "relay/relay.h"

static int rank, nranks, replays = 9;

static void die(const char *what)
{
    fprintf(stderr, "nd_bench: %s: %s\n", what, relay_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* ---- relay's side --------------------------------------------------------- */

static relay_nd_layout *layout(int ndims, const int64_t *shape, int mesh_ndims, const int *mesh, const relay_placement *place)
{
    return relay_case_layout(nranks, ndims, shape, mesh_ndims, mesh, place);
}

static void relay_setup(relay_case *c, relay_nd_layout *dst, relay_nd_layout *src, const int *perm, relay_type t)
{
    const char *failed = relay_case_setup(c, rank, nranks, dst, src, perm, t);
    if (failed) die(failed);
}

static void relay_replay(void *ctx)
{
    if (relay_case_replay(ctx)) die("replay");
}

static void relay_done(relay_case *c) { relay_case_done(c); }

/* ---- timing ------------------------------------------------------------------ */

static double timed(void (*run)(void *), void *ctx)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t = now();
    run(ctx);
    t = now() - t, MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
}

/* Two warm-ups each, then `replays` interleaved pairs; prints medians. */
static void race(const char *name, void (*a)(void *), void *actx, const char *bname, void (*b)(void *), void *bctx)
{
    double *ta = malloc((size_t)replays * sizeof *ta), *tb = malloc((size_t)replays * sizeof *tb);
    for (int w = 0; w < 2; w++) timed(a, actx), timed(b, bctx);
    for (int i = 0; i < replays; i++) {
        ta[i] = timed(a, actx);
        tb[i] = timed(b, bctx);
    }
    double ma = median_of(ta, replays), mb = median_of(tb, replays);
    if (rank == 0)
        printf("| %s | %d | %.3f | %s | %.3f | %.2f |\n", name, nranks, ma * 1e3, bname, mb * 1e3, ma / mb);
    free(ta);
    free(tb);
}

/* Whether every rank's relay output equals the baseline's. */
static void same_output(const char *name, const void *x, const void *y, size_t bytes)
{
    int bad = bytes && memcmp(x, y, bytes) != 0;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad) {
        if (rank == 0) fprintf(stderr, "nd_bench: %s: relay and the baseline disagree\n", name);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* ---- FFTW-MPI's transpose --------------------------------------------------------- */

typedef struct {
    fftw_plan plan;
    double *in, *out;
} fftw_case;

/* n0 x n1 blocks of `howmany` doubles, in rows slabs, to n1 x n0. */
static void fftw_setup(fftw_case *f, ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t howmany, const relay_case *c)
{
    ptrdiff_t ln0, s0, ln1, s1, n[2] = {n0, n1};
    ptrdiff_t alloc = fftw_mpi_local_size_many_transposed(2, n, howmany, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, MPI_COMM_WORLD,
                                                          &ln0, &s0, &ln1, &s1);
    f->in = fftw_alloc_real((size_t)alloc + 1);
    f->out = fftw_alloc_real((size_t)alloc + 1);
    f->plan = fftw_mpi_plan_many_transpose(n0, n1, howmany, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, f->in, f->out, MPI_COMM_WORLD,
                                           FFTW_MEASURE);
    if (!f->plan) die("FFTW-MPI transpose plan");
    memcpy(f->in, c->b, (size_t)(ln0 * n1 * howmany) * sizeof(double)); /* after planning: FFTW_MEASURE overwrites */
}

static void fftw_replay(void *ctx) { fftw_execute(((fftw_case *)ctx)->plan); }

static void fftw_done(fftw_case *f)
{
    fftw_destroy_plan(f->plan);
    fftw_free(f->in);
    fftw_free(f->out);
}

static void against_fftw(const char *name, relay_case *c, ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t howmany)
{
    fftw_case f;
    fftw_setup(&f, n0, n1, howmany, c);
    relay_replay(c);
    fftw_replay(&f);
    same_output(name, c->a, f.out, (size_t)c->a_elems * relay_type_size(relay_plan_type(c->plan)));
    race(name, relay_replay, c, "FFTW-MPI transpose", fftw_replay, &f);
    fftw_done(&f);
}

static void slab2d(int64_t n)
{
    int64_t shape[2] = {n, n};
    int mesh[1] = {nranks}, perm[2] = {1, 0};
    relay_placement rows = {RELAY_SHARD, 0, 0, NULL};
    relay_case c;
    relay_setup(&c, layout(2, shape, 1, mesh, &rows), layout(2, shape, 1, mesh, &rows), perm, RELAY_DOUBLE);
    char name[64];
    snprintf(name, sizeof name, "slab2d %lld^2 doubles", (long long)n);
    against_fftw(name, &c, n, n, 1);
    relay_done(&c);
}

static void slab3d(int64_t n)
{
    int64_t shape[3] = {n, n, n};
    int mesh[1] = {nranks}, perm[3] = {1, 0, 2};
    relay_placement slabs = {RELAY_SHARD, 0, 0, NULL};
    relay_case c;
    relay_setup(&c, layout(3, shape, 1, mesh, &slabs), layout(3, shape, 1, mesh, &slabs), perm, RELAY_CDOUBLE);
    char name[64];
    snprintf(name, sizeof name, "slab3d %lld^3 complex x->y", (long long)n);
    against_fftw(name, &c, n, n, 2 * n);
    relay_done(&c);
}

/* ---- the straightforward reshape: boxes, MPI_Alltoallv, transposing unpack ---------------- */

/* A rank's box of a 3-D array: [lo, hi) per dimension, stored in C order. */
typedef struct {
    int64_t lo[3], hi[3];
} box3;

typedef struct {
    int perm[3];             /* out's dimension k is in's perm[k] */
    box3 *in, *out;          /* every rank's, in in's and out's coordinates */
    int *scount, *sdispl, *rcount, *rdispl;
    double complex *sendbuf, *recvbuf, *src, *dst;
} a2a_case;

/* Even chunks (ceil) of n over p at coordinate c. */
static void chunk(int64_t n, int p, int c, int64_t *lo, int64_t *hi)
{
    int64_t b = (n + p - 1) / p;
    *lo = c * b < n ? c * b : n;
    *hi = (c + 1) * b < n ? (c + 1) * b : n;
}

/* Box b of `in` coordinates as `out` coordinates sees it, and back. */
static box3 out_to_in(const box3 *o, const int *perm)
{
    box3 r;
    for (int k = 0; k < 3; k++) r.lo[perm[k]] = o->lo[k], r.hi[perm[k]] = o->hi[k];
    return r;
}

static int64_t intersect(const box3 *x, const box3 *y, box3 *r)
{
    int64_t n = 1;
    for (int k = 0; k < 3; k++) {
        r->lo[k] = x->lo[k] > y->lo[k] ? x->lo[k] : y->lo[k];
        r->hi[k] = x->hi[k] < y->hi[k] ? x->hi[k] : y->hi[k];
        n *= r->hi[k] > r->lo[k] ? r->hi[k] - r->lo[k] : 0;
    }
    return n;
}

static int64_t box_elems(const box3 *b) { return (b->hi[0] - b->lo[0]) * (b->hi[1] - b->lo[1]) * (b->hi[2] - b->lo[2]); }

/* Packs the part of my input that rank s receives, in in's C order. */
static void a2a_pack(a2a_case *x)
{
    const box3 *me = &x->in[rank];
    int64_t e1 = me->hi[2] - me->lo[2], e0 = (me->hi[1] - me->lo[1]) * e1;
    for (int s = 0; s < nranks; s++) {
        box3 want = out_to_in(&x->out[s], x->perm), r;
        if (!intersect(me, &want, &r)) continue;
        double complex *to = x->sendbuf + x->sdispl[s];
        int64_t len = r.hi[2] - r.lo[2];
        for (int64_t i = r.lo[0]; i < r.hi[0]; i++)
            for (int64_t j = r.lo[1]; j < r.hi[1]; j++, to += len)
                memcpy(to, x->src + (i - me->lo[0]) * e0 + (j - me->lo[1]) * e1 + (r.lo[2] - me->lo[2]), (size_t)len * sizeof *to);
    }
}

/* Unpacks what rank s sent (in's C order) into my output box. */
static void a2a_unpack(a2a_case *x)
{
    const box3 *mo = &x->out[rank];
    box3 me = out_to_in(mo, x->perm);
    int64_t ostride[3] = {(mo->hi[1] - mo->lo[1]) * (mo->hi[2] - mo->lo[2]), mo->hi[2] - mo->lo[2], 1}, istride[3];
    for (int k = 0; k < 3; k++) istride[x->perm[k]] = ostride[k]; /* out's stride of in's dimension */
    for (int s = 0; s < nranks; s++) {
        box3 r;
        if (!intersect(&x->in[s], &me, &r)) continue;
        const double complex *from = x->recvbuf + x->rdispl[s];
        for (int64_t i = r.lo[0]; i < r.hi[0]; i++)
            for (int64_t j = r.lo[1]; j < r.hi[1]; j++) {
                double complex *to = x->dst + (i - me.lo[0]) * istride[0] + (j - me.lo[1]) * istride[1] + (r.lo[2] - me.lo[2]) * istride[2];
                for (int64_t k = r.lo[2]; k < r.hi[2]; k++) to[(k - r.lo[2]) * istride[2]] = *from++;
            }
    }
}

static void a2a_replay(void *ctx)
{
    a2a_case *x = ctx;
    a2a_pack(x);
    MPI_Alltoallv(x->sendbuf, x->scount, x->sdispl, MPI_C_DOUBLE_COMPLEX, x->recvbuf, x->rcount, x->rdispl, MPI_C_DOUBLE_COMPLEX,
                  MPI_COMM_WORLD);
    a2a_unpack(x);
}

static void a2a_counts(a2a_case *x)
{
    box3 r;
    for (int s = 0; s < nranks; s++) {
        box3 want = out_to_in(&x->out[s], x->perm), have = out_to_in(&x->out[rank], x->perm);
        x->scount[s] = (int)intersect(&x->in[rank], &want, &r);
        x->rcount[s] = (int)intersect(&x->in[s], &have, &r);
        x->sdispl[s] = s ? x->sdispl[s - 1] + x->scount[s - 1] : 0;
        x->rdispl[s] = s ? x->rdispl[s - 1] + x->rcount[s - 1] : 0;
    }
}

/* One pencil reshape: `from` and `to` give each array dimension's mesh
 * dimension (-1: whole); perm as relay's. */
static void pencil(int64_t n, const int *q, const int *from, const int *to, const int *perm, const char *what)
{
    int64_t shape[3] = {n, n, n};
    relay_placement pin[2], pout[2];
    a2a_case x = {.perm = {perm[0], perm[1], perm[2]}};
    x.in = calloc((size_t)nranks, sizeof *x.in);
    x.out = calloc((size_t)nranks, sizeof *x.out);
    for (int k = 0; k < 3; k++) {
        if (from[k] >= 0) pin[from[k]] = (relay_placement){RELAY_SHARD, k, 0, NULL};
        if (to[k] >= 0) pout[to[k]] = (relay_placement){RELAY_SHARD, k, 0, NULL};
    }
    for (int r = 0; r < nranks; r++) {
        int c[2] = {r / q[1], r % q[1]};
        for (int k = 0; k < 3; k++) {
            if (from[k] >= 0) chunk(n, q[from[k]], c[from[k]], &x.in[r].lo[k], &x.in[r].hi[k]);
            else x.in[r].lo[k] = 0, x.in[r].hi[k] = n;
            if (to[k] >= 0) chunk(n, q[to[k]], c[to[k]], &x.out[r].lo[k], &x.out[r].hi[k]);
            else x.out[r].lo[k] = 0, x.out[r].hi[k] = n;
        }
    }
    relay_case c;
    relay_setup(&c, layout(3, shape, 2, q, pout), layout(3, shape, 2, q, pin), perm, RELAY_CDOUBLE);
    x.scount = calloc((size_t)nranks, sizeof(int)), x.sdispl = calloc((size_t)nranks, sizeof(int));
    x.rcount = calloc((size_t)nranks, sizeof(int)), x.rdispl = calloc((size_t)nranks, sizeof(int));
    a2a_counts(&x);
    x.sendbuf = malloc(((size_t)box_elems(&x.in[rank]) + 1) * sizeof *x.sendbuf);
    x.recvbuf = malloc(((size_t)box_elems(&x.out[rank]) + 1) * sizeof *x.recvbuf);
    x.dst = calloc((size_t)box_elems(&x.out[rank]) + 1, sizeof *x.dst);
    x.src = c.b;
    relay_replay(&c);
    a2a_replay(&x);
    char name[64];
    snprintf(name, sizeof name, "pencil %lld^3 complex %s", (long long)n, what);
    same_output(name, c.a, x.dst, (size_t)c.a_elems * sizeof(double complex));
    race(name, relay_replay, &c, "alltoallv reshape", a2a_replay, &x);
    relay_done(&c);
    free(x.in), free(x.out), free(x.scount), free(x.sdispl), free(x.rcount), free(x.rdispl);
    free(x.sendbuf), free(x.recvbuf), free(x.dst);
}

static void pencils(int64_t n)
{
    int q[2] = {1, nranks};
    for (int a = 1; a * a <= nranks; a++)
        if (nranks % a == 0) q[0] = a, q[1] = nranks / a;
    /* x pencils (z, y, x): z on mesh 0, y on mesh 1; y pencils (z, x, y): z, x; z pencils (y, x, z): y, x. */
    int x_from[3] = {0, 1, -1}, y_to[3] = {0, 1, -1}, xy[3] = {0, 2, 1};
    int y_from[3] = {0, 1, -1}, z_to[3] = {0, 1, -1}, yz[3] = {2, 1, 0};
    pencil(n, q, x_from, y_to, xy, "x->y");
    pencil(n, q, y_from, z_to, yz, "y->z");
}

/* ---- DTensor's moves on a 2 x 2 mesh ------------------------------------------------- */

typedef struct {
    int64_t n;
    MPI_Comm column;         /* the ranks that share mesh dimension 1's coordinate */
    double *mine, *gathered, *out;
    int kind;                /* 0: [S0,R]->[R,S1]; 1: [S0,S1]->[S1,S0]; 2: [P,S1]->[S0,S1] */
} dt_case;

/* Columns [c0, c0 + w) of an r x n row-major block into out (r x w). */
static void slice_columns(double *out, const double *in, int64_t r, int64_t n, int64_t c0, int64_t w)
{
    for (int64_t i = 0; i < r; i++) memcpy(out + i * w, in + i * n + c0, (size_t)w * sizeof *out);
}

static void dt_replay(void *ctx)
{
    dt_case *x = ctx;
    int64_t n = x->n, h = n / 2;
    int c0 = rank / 2, c1 = rank % 2;
    if (x->kind == 0) { /* gather the row halves along mesh dim 0, keep my column half */
        MPI_Allgather(x->mine, (int)(h * n), MPI_DOUBLE, x->gathered, (int)(h * n), MPI_DOUBLE, x->column);
        slice_columns(x->out, x->gathered, n, n, c1 * h, h);
    } else if (x->kind == 1) { /* shard -> replicate -> shard: the whole matrix, then my block of the transposed placement */
        MPI_Allgather(x->mine, (int)(h * h), MPI_DOUBLE, x->gathered, (int)(h * h), MPI_DOUBLE, MPI_COMM_WORLD);
        for (int64_t i = 0; i < h; i++) /* [S1,S0]: mesh dim 0 holds columns c0, mesh dim 1 rows c1 */
            memcpy(x->out + i * h, x->gathered + ((int64_t)(c1 * 2 + c0) * h + i) * h, (size_t)h * sizeof(double));
    } else {
        MPI_Reduce_scatter_block(x->mine, x->out, (int)(h * h), MPI_DOUBLE, MPI_SUM, x->column);
    }
}

static void dtensor_move(int kind, int64_t n, const relay_placement *from, const relay_placement *to, const char *what)
{
    int64_t shape[2] = {n, n}, h = n / 2;
    int mesh[2] = {2, 2};
    relay_case c;
    relay_setup(&c, layout(2, shape, 2, mesh, to), layout(2, shape, 2, mesh, from), NULL, RELAY_DOUBLE);
    dt_case x = {n, MPI_COMM_NULL, c.b, malloc((size_t)(n * n) * sizeof(double)), calloc((size_t)(n * h), sizeof(double)), kind};
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank / 2, &x.column);
    relay_replay(&c);
    dt_replay(&x);
    same_output(what, c.a, x.out, (size_t)c.a_elems * sizeof(double));
    race(what, relay_replay, &c, kind == 2 ? "MPI_Reduce_scatter" : "MPI_Allgather + slice", dt_replay, &x);
    relay_done(&c);
    MPI_Comm_free(&x.column);
    free(x.gathered);
    free(x.out);
}

static void dtensor(int64_t n)
{
    if (nranks != 4) {
        if (rank == 0) printf("  dtensor: needs 4 ranks (a 2 x 2 mesh); skipped\n");
        return;
    }
    relay_placement S0 = {RELAY_SHARD, 0, 0, NULL}, S1 = {RELAY_SHARD, 1, 0, NULL}, R = {RELAY_REPLICATE, 0, 0, NULL},
                    P = {RELAY_PARTIAL, 0, 0, NULL};
    char what[64];
    snprintf(what, sizeof what, "dtensor %lld^2 [S0,R]->[R,S1]", (long long)n);
    dtensor_move(0, n, (relay_placement[]){S0, R}, (relay_placement[]){R, S1}, what);
    snprintf(what, sizeof what, "dtensor %lld^2 [S0,S1]->[S1,S0]", (long long)n);
    dtensor_move(1, n, (relay_placement[]){S0, S1}, (relay_placement[]){S1, S0}, what);
    snprintf(what, sizeof what, "dtensor %lld^2 [P,S1]->[S0,S1]", (long long)n);
    dtensor_move(2, n, (relay_placement[]){P, S1}, (relay_placement[]){S0, S1}, what);
}

/* ---- weight sync: ranks 0-3 to ranks 4-7, replicated twice ----------------------- */

enum { TENSORS = 8 };

typedef struct {
    relay_plan *plan;
    relay_exec *exec;
    void *a[TENSORS];
    const void *b[TENSORS];
} batch_case;

static void batch_replay(void *ctx)
{
    batch_case *c = ctx;
    if (relay_exec_run(c->exec, c->a, c->b, NULL, NULL)) die("replay");
}

/* TENSORS n x n tensors sharded 4 ways (dimension 0) on ranks 0-3, to 2
 * ways, replicated twice, on ranks 4-7, one batch, replicas as `how`. */
static void weight_sync_plan(batch_case *c, int64_t n, relay_replicas how)
{
    int64_t shape[2] = {n, n};
    int train[4] = {0, 1, 2, 3}, infer[4] = {4, 5, 6, 7}, four[1] = {4}, two_by_two[2] = {2, 2};
    relay_placement s0 = {RELAY_SHARD, 0, 0, NULL}, sr[2] = {{RELAY_SHARD, 0, 0, NULL}, {RELAY_REPLICATE, 0, 0, NULL}};
    relay_nd_desc from = {2, shape, 1, four, train, &s0, RELAY_ROW_MAJOR, NULL}, to = {2, shape, 2, two_by_two, infer, sr, RELAY_ROW_MAJOR, NULL};
    relay_nd_layout *src, *dst;
    if (relay_nd_layout_create(&src, &from) || relay_nd_layout_create(&dst, &to)) die("weight-sync layouts");
    const relay_nd_layout *dsts[TENSORS], *srcs[TENSORS];
    relay_op ops[TENSORS];
    for (int k = 0; k < TENSORS; k++) dsts[k] = dst, srcs[k] = src, ops[k] = RELAY_OP_N;
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.replicas = how;
    if (relay_plan_nd_batch(&c->plan, nranks, TENSORS, dsts, srcs, ops, NULL, RELAY_FLOAT, &o)) die("weight-sync plan");
    if (relay_exec_create(&c->exec, c->plan, MPI_COMM_WORLD)) die("weight-sync exec");
    for (int k = 0; k < TENSORS; k++) {
        int64_t na = relay_plan_buffer_elems(c->plan, 1, k, rank), nb = relay_plan_buffer_elems(c->plan, 0, k, rank);
        c->a[k] = calloc((size_t)na + 1, sizeof(float));
        float *b = malloc(((size_t)nb + 1) * sizeof(float));
        for (int64_t i = 0; i < nb; i++) b[i] = (float)(i % 1000);
        c->b[k] = b;
    }
    relay_nd_layout_free(src);
    relay_nd_layout_free(dst);
}

static void weight_sync_done(batch_case *c)
{
    relay_exec_free(c->exec);
    relay_plan_free(c->plan);
    for (int k = 0; k < TENSORS; k++) free(c->a[k]), free((void *)c->b[k]);
}

static void weight_sync(int64_t n)
{
    if (nranks != 8) {
        if (rank == 0) printf("  weight sync: needs 8 ranks (0-3 to 4-7); skipped\n");
        return;
    }
    batch_case direct, forward, chosen;
    weight_sync_plan(&direct, n, RELAY_REPLICAS_DIRECT);
    weight_sync_plan(&forward, n, RELAY_REPLICAS_FORWARD);
    weight_sync_plan(&chosen, n, RELAY_REPLICAS_AUTO);
    batch_replay(&direct), batch_replay(&forward);
    for (int k = 0; k < TENSORS; k++)
        same_output("weight sync", direct.a[k], forward.a[k], (size_t)relay_plan_buffer_elems(direct.plan, 1, k, rank) * sizeof(float));
    char name[80];
    snprintf(name, sizeof name, "weight sync %dx %lld^2 floats, forward", TENSORS, (long long)n);
    race(name, batch_replay, &forward, "relay, direct", batch_replay, &direct);
    snprintf(name, sizeof name, "weight sync %dx %lld^2 floats, auto", TENSORS, (long long)n);
    race(name, batch_replay, &chosen, "relay, direct", batch_replay, &direct);
    weight_sync_done(&direct), weight_sync_done(&forward), weight_sync_done(&chosen);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    fftw_mpi_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc > 1) replays = atoi(argv[1]) > 0 ? atoi(argv[1]) : replays;
    const char *only = argc > 2 ? argv[2] : "";
    if (nranks > 64) die("at most 64 ranks");
    if (rank == 0)
        printf("nd_bench: %d ranks, median of %d replays each\n\n| case | ranks | relay ms | baseline | baseline ms "
               "| relay / baseline |\n|---|---|---|---|---|---|\n", nranks, replays);
    if (!*only || !strcmp(only, "slab2d")) slab2d(4000), slab2d(6000);
    if (!*only || !strcmp(only, "slab3d")) slab3d(256), slab3d(384);
    if (!*only || !strcmp(only, "pencil")) pencils(256), pencils(384);
    if (!*only || !strcmp(only, "dtensor")) dtensor(4096);
    if (!*only || !strcmp(only, "weightsync")) weight_sync(2048);
    fftw_mpi_cleanup();
    MPI_Finalize();
    return 0;
}
