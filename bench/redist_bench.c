/* redist_bench.c — relay against its baselines in one mpiexec job (SPEC
 * section 6): an n x n double matrix moves from nb x nb blocks (32 unless
 * given) to 128 x 128 blocks
 * on a PR x PC grid, as a copy (op N; ScaLAPACK pdgemr2d) or a transpose
 * (op T; ScaLAPACK pdtran), timed for
 *   relay      plan once (timed apart), then replays of the bound plan;
 *   relay_p*   relay's ScaLAPACK-compatible call (relay_pdgemr2d or
 *              relay_pdtran): a plan-cache hit and a replay per call;
 *   scalapack  Debian's pdgemr2d / pdtran on the same buffers;
 *   alltoallv  a straightforward MPI_Alltoallv: every call walks the local
 *              elements, packs them by destination, exchanges, unpacks;
 *   memcpy     one memcpy of each rank's local bytes (the floor).
 * Each time is the maximum over ranks of one call, the median of R calls
 * after W warm-ups.  relay's result is checked against ScaLAPACK's.  Also
 * reported: the executor's extra memory over the bytes its rank sends and
 * receives (maximum over ranks).
 *
 *   mpiexec -n P redist_bench PRxPC N[,N...] [R] [W] [NB]     (P = PR*PC) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay/relay.h"

/* BLACS and ScaLAPACK (Fortran interfaces; Debian ships no C header). */
void Cblacs_pinfo(int *me, int *np);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridexit(int ctxt);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb, const int *irsrc,
               const int *icsrc, const int *ictxt, const int *lld, int *info);
void pdgemr2d_(const int *m, const int *n, const double *a, const int *ia, const int *ja, const int *desca,
               double *b, const int *ib, const int *jb, const int *descb, const int *ictxt);
void pdtran_(const int *m, const int *n, const double *alpha, const double *a, const int *ia, const int *ja,
             const int *desca, const double *beta, double *c, const int *ic, const int *jc, const int *descc);

typedef struct {
    int pr, pc, rank, myrow, mycol, ctxt;
    int reps, warmup, nb;      /* nb: B's blocks are nb x nb */
} job;

typedef struct {
    int n, transpose;
    int desc_b[9], desc_a[9];
    double *b, *a, *a_ref, *scratch;
    int64_t nb_elems, na_elems;
} bench_case;

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Median over reps of the slowest rank's time of fn. */
typedef void (*timed_fn)(const job *j, bench_case *c, void *ctx);
static double median_time(const job *j, bench_case *c, timed_fn fn, void *ctx)
{
    double *t = malloc((size_t)j->reps * sizeof *t);
    for (int r = -j->warmup; r < j->reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        fn(j, c, ctx);
        double dt = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (r >= 0) t[r] = dt;
    }
    qsort(t, (size_t)j->reps, sizeof *t, cmp_double);
    double m = j->reps % 2 ? t[j->reps / 2] : 0.5 * (t[j->reps / 2 - 1] + t[j->reps / 2]);
    free(t);
    return m;
}

/* ---- the four contestants ------------------------------------------------- */

static void run_relay(const job *j, bench_case *c, void *ctx)
{
    double one = 1.0;
    relay_exec_run(ctx, (void *const[]){c->a}, (const void *const[]){c->b}, &one, NULL);
}

static void run_wrapper(const job *j, bench_case *c, void *ctx)
{
    if (c->transpose) relay_pdtran(c->n, c->n, 1.0, c->b, 1, 1, c->desc_b, 0.0, c->a, 1, 1, c->desc_a);
    else relay_pdgemr2d(c->n, c->n, c->b, 1, 1, c->desc_b, c->a, 1, 1, c->desc_a, j->ctxt);
}

static void run_scalapack(const job *j, bench_case *c, void *ctx)
{
    int one = 1;
    double alpha = 1.0, beta = 0.0;
    if (c->transpose) pdtran_(&c->n, &c->n, &alpha, c->b, &one, &one, c->desc_b, &beta, c->a_ref, &one, &one, c->desc_a);
    else pdgemr2d_(&c->n, &c->n, c->b, &one, &one, c->desc_b, c->a_ref, &one, &one, c->desc_a, &j->ctxt);
}

static void run_memcpy(const job *j, bench_case *c, void *ctx)
{
    memcpy(c->scratch, c->b, (size_t)c->nb_elems * sizeof(double));
}

/* The straightforward Alltoallv: no plan, the mapping is recomputed on
 * every call element by element.  Senders pack in B's global column-major
 * order, receivers unpack in the same order, so no indices travel. */
typedef struct {
    int P;
    int *scount, *sdispl, *rcount, *rdispl, *cursor;
    double *sbuf, *rbuf;
} a2a_state;

static int owner_of(int64_t i, int64_t j, int64_t mb, const job *jb)
{
    return (int)((i / mb) % jb->pr) * jb->pc + (int)((j / mb) % jb->pc);
}

static int64_t local_index(int64_t i, int64_t j, int64_t mb, int64_t lld, const job *jb)
{
    int64_t li = (i / (mb * jb->pr)) * mb + i % mb, lj = (j / (mb * jb->pc)) * mb + j % mb;
    return li + lj * lld;
}

static void run_alltoallv(const job *jb, bench_case *c, void *vctx)
{
    a2a_state *s = vctx;
    int64_t n = c->n, lldb = c->desc_b[8], llda = c->desc_a[8];
    memset(s->scount, 0, (size_t)s->P * sizeof(int));
    memset(s->rcount, 0, (size_t)s->P * sizeof(int));
    /* Count and pack: B(i, j) lands at A(i, j), or A(j, i) for the transpose. */
    for (int pass = 0; pass < 2; pass++) {
        if (pass) {
            s->sdispl[0] = 0;
            for (int p = 1; p < s->P; p++) s->sdispl[p] = s->sdispl[p - 1] + s->scount[p - 1];
            memcpy(s->cursor, s->sdispl, (size_t)s->P * sizeof(int));
        }
        for (int64_t j = 0; j < n; j++) {
            if ((int)((j / jb->nb) % jb->pc) != jb->mycol) continue;
            for (int64_t i = 0; i < n; i++) {
                if ((int)((i / jb->nb) % jb->pr) != jb->myrow) continue;
                int dest = c->transpose ? owner_of(j, i, 128, jb) : owner_of(i, j, 128, jb);
                if (pass) s->sbuf[s->cursor[dest]++] = c->b[local_index(i, j, jb->nb, lldb, jb)];
                else s->scount[dest]++;
            }
        }
    }
    /* Receivers walk A's elements in B's global order and count per source. */
    for (int pass = 0; pass < 2; pass++) {
        if (pass) {
            s->rdispl[0] = 0;
            for (int p = 1; p < s->P; p++) s->rdispl[p] = s->rdispl[p - 1] + s->rcount[p - 1];
            MPI_Alltoallv(s->sbuf, s->scount, s->sdispl, MPI_DOUBLE, s->rbuf, s->rcount, s->rdispl, MPI_DOUBLE,
                          MPI_COMM_WORLD);
            memcpy(s->cursor, s->rdispl, (size_t)s->P * sizeof(int));
        }
        for (int64_t jb_ = 0; jb_ < n; jb_++)      /* B's column */
            for (int64_t ib = 0; ib < n; ib++) {   /* B's row */
                int64_t ia = c->transpose ? jb_ : ib, ja = c->transpose ? ib : jb_;
                if (owner_of(ia, ja, 128, jb) != jb->rank) continue;
                int src = owner_of(ib, jb_, jb->nb, jb);
                if (pass) c->scratch[local_index(ia, ja, 128, llda, jb)] = s->rbuf[s->cursor[src]++];
                else s->rcount[src]++;
            }
    }
}

/* ---- set-up ---------------------------------------------------------------- */

static void describe(const job *j, int *desc, int n, int mb, int64_t *elems)
{
    int zero = 0, info;
    int locr = numroc_(&n, &mb, &j->myrow, &zero, &j->pr), locc = numroc_(&n, &mb, &j->mycol, &zero, &j->pc);
    int lld = locr > 1 ? locr : 1;
    descinit_(desc, &n, &n, &mb, &mb, &zero, &zero, &j->ctxt, &lld, &info);
    *elems = (int64_t)lld * locc;
}

static void fill(const job *j, bench_case *c)
{
    int64_t lld = c->desc_b[8];
    for (int64_t jj = 0; jj < c->n; jj++)
        for (int64_t ii = 0; ii < c->n; ii++)
            if (owner_of(ii, jj, j->nb, j) == j->rank) c->b[local_index(ii, jj, j->nb, lld, j)] = (double)(ii * 7 + jj * 13 % 1021);
}

static int same(const bench_case *c)
{
    int ok = memcmp(c->a, c->a_ref, (size_t)c->na_elems * sizeof(double)) == 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return ok;
}

static void run_case(const job *j, int n, int transpose)
{
    bench_case c = {.n = n, .transpose = transpose};
    describe(j, c.desc_b, n, j->nb, &c.nb_elems);
    describe(j, c.desc_a, n, 128, &c.na_elems);
    size_t nbb = (size_t)(c.nb_elems ? c.nb_elems : 1), nab = (size_t)(c.na_elems ? c.na_elems : 1);
    c.b = malloc(nbb * sizeof(double));
    c.a = calloc(nab, sizeof(double));
    c.a_ref = calloc(nab, sizeof(double));
    c.scratch = malloc((nab > nbb ? nab : nbb) * sizeof(double));
    fill(j, &c);

    relay_layout *la, *lb;
    relay_plan *plan;
    relay_exec *ex;
    relay_layout_block_cyclic(&lb, n, n, j->nb, j->nb, j->pr, j->pc, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR);
    relay_layout_block_cyclic(&la, n, n, 128, 128, j->pr, j->pc, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    relay_plan_transform(&plan, j->pr * j->pc, la, lb, transpose ? RELAY_OP_T : RELAY_OP_N, RELAY_DOUBLE, NULL);
    double plan_s = MPI_Wtime() - t0;
    t0 = MPI_Wtime();
    relay_status st = relay_exec_create(&ex, plan, MPI_COMM_WORLD);
    double create_s = MPI_Wtime() - t0;
    if (st) {
        fprintf(stderr, "redist_bench: %s\n", relay_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Allreduce(MPI_IN_PLACE, &plan_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &create_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    a2a_state s = {.P = j->pr * j->pc};
    s.scount = malloc((size_t)s.P * sizeof(int));
    s.sdispl = malloc((size_t)s.P * sizeof(int));
    s.rcount = malloc((size_t)s.P * sizeof(int));
    s.rdispl = malloc((size_t)s.P * sizeof(int));
    s.cursor = malloc((size_t)s.P * sizeof(int));
    s.sbuf = malloc(nbb * sizeof(double));
    s.rbuf = malloc(nab * sizeof(double));

    double t_wrap = median_time(j, &c, run_wrapper, NULL);
    double t_relay = median_time(j, &c, run_relay, ex);
    double t_scal = median_time(j, &c, run_scalapack, NULL);
    double t_a2a = median_time(j, &c, run_alltoallv, &s);
    double t_copy = median_time(j, &c, run_memcpy, NULL);
    int ok = same(&c);
    relay_exec_memory mem;
    relay_exec_get_memory(ex, &mem);
    double mem_ratio = mem.remote_bytes ? (double)mem.extra_bytes / (double)mem.remote_bytes : 0.0;
    MPI_Allreduce(MPI_IN_PLACE, &mem_ratio, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (j->rank == 0)
        printf("| %d | %d | %s | %dx%d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.3f | %.3f | %.2f | %.3f | %s |\n", n,
               j->nb, transpose ? "T" : "N", j->pr, j->pc, 1e3 * plan_s, 1e3 * create_s, 1e3 * t_relay, 1e3 * t_wrap,
               1e3 * t_scal, 1e3 * t_a2a, 1e3 * t_copy, t_relay / t_scal, t_relay / t_a2a, t_relay / t_copy, mem_ratio,
               ok ? "yes" : "NO");
    fflush(stdout);
    relay_exec_free(ex);
    relay_plan_free(plan);
    relay_layout_free(la);
    relay_layout_free(lb);
    free(s.scount); free(s.sdispl); free(s.rcount); free(s.rdispl); free(s.cursor); free(s.sbuf); free(s.rbuf);
    free(c.b); free(c.a); free(c.a_ref); free(c.scratch);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    job j = {0};
    int P;
    MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 3 || sscanf(argv[1], "%dx%d", &j.pr, &j.pc) != 2 || j.pr * j.pc != P) {
        if (j.rank == 0) fprintf(stderr, "usage: mpiexec -n P redist_bench PRxPC N[,N...] [R] [W] [NB]  (P = PR*PC)\n");
        MPI_Finalize();
        return 2;
    }
    j.reps = argc > 3 ? atoi(argv[3]) : 7;
    j.warmup = argc > 4 ? atoi(argv[4]) : 2;
    j.nb = argc > 5 ? atoi(argv[5]) : 32;
    int me, np;
    Cblacs_pinfo(&me, &np);
    Cblacs_get(-1, 0, &j.ctxt);
    Cblacs_gridinit(&j.ctxt, "R", j.pr, j.pc);
    j.myrow = j.rank / j.pc;
    j.mycol = j.rank % j.pc;
    if (j.rank == 0)
        printf("| n | src nb | op | grid | relay plan ms | relay bind ms | relay ms | relay_p* ms | ScaLAPACK ms | Alltoallv ms | "
               "memcpy ms | relay/ScaLAPACK | relay/Alltoallv | relay/memcpy | extra mem/remote | same result |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    char *sizes = strdup(argv[2]);
    for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ","))
        for (int t = 0; t <= 1; t++) run_case(&j, atoi(tok), t);
    free(sizes);
    relay_scalapack_cache_clear();
    Cblacs_gridexit(j.ctxt);
    MPI_Finalize();
    return 0;
}
