/* redist_bench.c — relay against its baselines in one mpiexec job
 * (COSTA's reference case, its section 7.1).  Two modes:
 *   PRxPC  an n x n double matrix moves from nb x nb blocks (32 unless
 *          given) to 128 x 128 blocks on a PR x PC grid, as a copy (op N;
 *          ScaLAPACK pdgemr2d) and as a transpose (op T; ScaLAPACK pdtran);
 *   rows   the case FFTW-MPI's transpose expresses: an n x n row-major
 *          matrix in 1-D row blocks of ceil(n/P) rows over P ranks (FFTW's
 *          default block) becomes its transpose in the same distribution.
 *          relay sees a P x 1 grid with row-major local storage; ScaLAPACK
 *          sees the same bytes column-major, as B^T in column blocks on a
 *          1 x P grid, so pdtran on that grid is the same transpose.
 * Contestants (a "-" in the table where one is absent):
 *   relay      plan once (timed apart), then replays of the bound plan;
 *              with RELAY_BENCH_TUNE=K, the plan is tuned first
 *              (relay_exec_tune, K timed replays of each way to replay,
 *              timed apart like FFTW-MPI's FFTW_MEASURE planning) and
 *              replays its fastest choice, which the table names, with
 *              the tuning's p2p through the shared-memory window over
 *              p2p through MPI ("window / p2p");
 *   relay_p*   relay's ScaLAPACK-compatible call (relay_pdgemr2d or
 *              relay_pdtran): a plan-cache hit and a replay per call;
 *   scalapack  Debian's pdgemr2d / pdtran on the same buffers;
 *   alltoallv  a straightforward MPI_Alltoallv: every call walks the local
 *              elements, packs them by destination, exchanges, unpacks;
 *   memcpy     one memcpy of each rank's local bytes (the floor);
 *   FFTW-MPI   rows mode only, where built with FFTW-MPI (RELAY_BENCH_FFTW):
 *              fftw_mpi_plan_many_transpose, out of place, planned once
 *              (FFTW_MEASURE) outside the timing;
 *   COSTA      only where built with COSTA (RELAY_BENCH_COSTA):
 *              costa_pdgemr2d / costa_pdtran on ScaLAPACK's descriptors.
 * Rounds: every round calls each contestant once, in an order that changes
 * from round to round so that each contestant follows each other one
 * equally often (rl_balanced_order, executor/balanced_order.h) and drift of the machine, and
 * what one call leaves behind for the next, fall on all alike.  The first
 * W rounds are warm-ups, the next R are timed.  A call's time is the
 * slowest rank's (a barrier before, the maximum over ranks after); each
 * contestant's time is the median over the R timed rounds.  After the
 * rounds relay runs once more into a zeroed A and every other contestant
 * that computes A runs once more into its zeroed output, compared with
 * relay's bit for bit ("same result").  Also reported: the executor's
 * extra memory over the bytes its rank sends and receives (maximum over
 * ranks).
 *
 *   mpiexec -n P redist_bench PRxPC N[,N...] [R] [W] [NB]     (P = PR*PC)
 *   mpiexec -n P redist_bench rows N[,N...] [R] [W]
 * RELAY_BENCH_SKIP=Alltoallv (names as the table gives them, comma-
 * separated) leaves those contestants out of the job. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef RELAY_BENCH_FFTW
#include <fftw3-mpi.h>
#endif
#include "measure.h"
#include "relay/relay.h"

/* BLACS and ScaLAPACK (Fortran interfaces; Debian ships no C header).
 * pdtran_ is declared with COSTA's types (alpha not const: the Fortran
 * routine reads it only), so that both fit one pointer type below. */
void Cblacs_pinfo(int *me, int *np);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridexit(int ctxt);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb, const int *irsrc,
               const int *icsrc, const int *ictxt, const int *lld, int *info);
typedef void gemr2d_fn(const int *m, const int *n, const double *a, const int *ia, const int *ja, const int *desca,
                       double *b, const int *ib, const int *jb, const int *descb, const int *ictxt);
typedef void tran_fn(const int *m, const int *n, double *alpha, const double *a, const int *ia, const int *ja,
                     const int *desca, const double *beta, double *c, const int *ic, const int *jc, const int *descc);
gemr2d_fn pdgemr2d_;
tran_fn pdtran_;
#ifdef RELAY_BENCH_COSTA
/* COSTA's prefixed ScaLAPACK layer (libcosta_prefixed_scalapack; its C
 * header is not installed). */
gemr2d_fn costa_pdgemr2d;
tran_fn costa_pdtran;
#endif

typedef struct {
    int pr, pc, rank, myrow, mycol, ctxt; /* ScaLAPACK's grid (1 x P in rows mode) */
    int rows;                             /* rows mode */
    int reps, warmup, nb;                 /* nb: B's blocks in grid mode */
} job;

/* One case, in ScaLAPACK's view: B (mb_b blocks) to A (mb_a blocks). */
typedef struct {
    int n, transpose, mb_b, mb_a;
    int desc_b[9], desc_a[9];
    double *b, *a, *out; /* B; relay's A kept as the reference; the A every contestant but FFTW-MPI writes (and memcpy's target) */
    int64_t nb_elems, na_elems;
} bench_case;

typedef void (*call_fn)(const job *j, bench_case *c, void *ctx);
typedef struct {
    const char *name;
    call_fn call;   /* NULL: not in this case */
    void *ctx;
    double *result; /* where a call leaves A; NULL: it computes none (memcpy) */
    double median;  /* seconds */
} contestant;
enum { RELAY, WRAPPER, SCALAPACK, ALLTOALLV, MEMCPY, FFTW, COSTA, NCONTESTANTS };

/* Contestants named in RELAY_BENCH_SKIP (comma-separated, as the table
 * names them, e.g. "Alltoallv") sit this job out: a shorter job where a
 * slow baseline is not the question.  relay itself is never skipped:
 * every ratio is relay's. */
static void skip_named(contestant *cs)
{
    const char *skip = getenv("RELAY_BENCH_SKIP");
    if (!skip) return;
    for (int i = RELAY + 1; i < NCONTESTANTS; i++) {
        size_t len = strlen(cs[i].name);
        for (const char *at = strstr(skip, cs[i].name); at; at = strstr(at + 1, cs[i].name))
            if ((at == skip || at[-1] == ',') && (at[len] == ',' || at[len] == 0)) cs[i].call = NULL;
    }
}

/* ---- the round-robin driver ------------------------------------------------ */

/* The slowest rank's time of one call. */
static double time_call(const job *j, bench_case *c, const contestant *k)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    k->call(j, c, k->ctx);
    double dt = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return dt;
}

/* W warm-up and R timed rounds over the contestants present, in the
 * balanced order of rl_balanced_order (executor/balanced_order.h); sets each one's median. */
static void time_rounds(const job *j, bench_case *c, contestant *cs)
{
    int present[NCONTESTANTS], m = 0, reps = j->reps;
    for (int i = 0; i < NCONTESTANTS; i++)
        if (cs[i].call) present[m++] = i;
    double *t = malloc((size_t)m * (size_t)reps * sizeof *t);
    for (int k = 0; k < j->warmup + reps; k++)
        for (int s = 0; s < m; s++) {
            int i = rl_balanced_order(k, s, m);
            double dt = time_call(j, c, &cs[present[i]]);
            if (k >= j->warmup) t[(size_t)i * (size_t)reps + (size_t)(k - j->warmup)] = dt;
        }
    for (int i = 0; i < m; i++) cs[present[i]].median = median_of(t + (size_t)i * (size_t)reps, reps);
    free(t);
}

/* Relay once more into a zeroed output, kept in A as the reference, then
 * each contestant that computes A once more into its zeroed output,
 * compared with relay's bit for bit.  Names on stderr those that differ;
 * whether all agree. */
static int agree(const job *j, bench_case *c, contestant *cs)
{
    size_t bytes = (size_t)c->na_elems * sizeof(double);
    int all = 1;
    for (int i = 0; i < NCONTESTANTS; i++) {
        if (!cs[i].call || !cs[i].result) continue;
        memset(cs[i].result, 0, bytes);
        cs[i].call(j, c, cs[i].ctx);
        if (i == RELAY) memcpy(c->a, cs[i].result, bytes);
        int same = i == RELAY || memcmp(cs[i].result, c->a, bytes) == 0;
        MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        if (!same && j->rank == 0) fprintf(stderr, "redist_bench: n %d: %s differs from relay\n", c->n, cs[i].name);
        all &= same;
    }
    return all;
}

/* ---- the contestants --------------------------------------------------------- */

static void run_relay(const job *j, bench_case *c, void *ctx)
{
    double one = 1.0;
    relay_exec_run(ctx, (void *const[]){c->out}, (const void *const[]){c->b}, &one, NULL);
}

static void run_wrapper(const job *j, bench_case *c, void *ctx)
{
    if (c->transpose) relay_pdtran(c->n, c->n, 1.0, c->b, 1, 1, c->desc_b, 0.0, c->out, 1, 1, c->desc_a);
    else relay_pdgemr2d(c->n, c->n, c->b, 1, 1, c->desc_b, c->out, 1, 1, c->desc_a, j->ctxt);
}

/* A ScaLAPACK-like library: ScaLAPACK's own, or COSTA's. */
typedef struct {
    gemr2d_fn *gemr2d;
    tran_fn *tran;
} pxapi;

static void run_pxapi(const job *j, bench_case *c, void *ctx)
{
    const pxapi *api = ctx;
    int one = 1;
    double alpha = 1.0, beta = 0.0;
    if (c->transpose) api->tran(&c->n, &c->n, &alpha, c->b, &one, &one, c->desc_b, &beta, c->out, &one, &one, c->desc_a);
    else api->gemr2d(&c->n, &c->n, c->b, &one, &one, c->desc_b, c->out, &one, &one, c->desc_a, &j->ctxt);
}

static pxapi scalapack_api = {pdgemr2d_, pdtran_};
#ifdef RELAY_BENCH_COSTA
static pxapi costa_api = {costa_pdgemr2d, costa_pdtran};
#endif

static void run_memcpy(const job *j, bench_case *c, void *ctx)
{
    memcpy(c->out, c->b, (size_t)c->nb_elems * sizeof(double));
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
            if ((int)((j / c->mb_b) % jb->pc) != jb->mycol) continue;
            for (int64_t i = 0; i < n; i++) {
                if ((int)((i / c->mb_b) % jb->pr) != jb->myrow) continue;
                int dest = c->transpose ? owner_of(j, i, c->mb_a, jb) : owner_of(i, j, c->mb_a, jb);
                if (pass) s->sbuf[s->cursor[dest]++] = c->b[local_index(i, j, c->mb_b, lldb, jb)];
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
                if (owner_of(ia, ja, c->mb_a, jb) != jb->rank) continue;
                int src = owner_of(ib, jb_, c->mb_b, jb);
                if (pass) c->out[local_index(ia, ja, c->mb_a, llda, jb)] = s->rbuf[s->cursor[src]++];
                else s->rcount[src]++;
            }
    }
}

static void a2a_init(a2a_state *s, int P, const bench_case *c)
{
    s->P = P;
    s->scount = malloc((size_t)P * sizeof(int));
    s->sdispl = malloc((size_t)P * sizeof(int));
    s->rcount = malloc((size_t)P * sizeof(int));
    s->rdispl = malloc((size_t)P * sizeof(int));
    s->cursor = malloc((size_t)P * sizeof(int));
    s->sbuf = malloc(((size_t)c->nb_elems + 1) * sizeof(double));
    s->rbuf = malloc(((size_t)c->na_elems + 1) * sizeof(double));
}

static void a2a_free(a2a_state *s)
{
    free(s->scount); free(s->sdispl); free(s->rcount); free(s->rdispl); free(s->cursor); free(s->sbuf); free(s->rbuf);
}

#ifdef RELAY_BENCH_FFTW
/* FFTW-MPI's transpose of the rows case: B's local rows (local_n0 x n,
 * row-major) to A's, out of place, in its own buffers (FFTW_MEASURE
 * overwrites them while planning: B is copied in afterwards). */
typedef struct {
    fftw_plan plan;
    double *in, *out;
} fftw_state;

static void fftw_init(fftw_state *f, const bench_case *c)
{
    ptrdiff_t n = c->n, ln0, s0, ln1, s1;
    ptrdiff_t alloc = fftw_mpi_local_size_many_transposed(2, (ptrdiff_t[]){n, n}, 1, c->mb_b, c->mb_a, MPI_COMM_WORLD,
                                                          &ln0, &s0, &ln1, &s1);
    if (ln0 * n != c->nb_elems || ln1 * n != c->na_elems) {
        fprintf(stderr, "redist_bench: FFTW-MPI's distribution of %td rows is not relay's\n", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    f->in = fftw_alloc_real((size_t)alloc + 1);
    f->out = fftw_alloc_real((size_t)alloc + 1);
    f->plan = fftw_mpi_plan_many_transpose(n, n, 1, c->mb_b, c->mb_a, f->in, f->out, MPI_COMM_WORLD, FFTW_MEASURE);
    if (!f->plan) {
        fprintf(stderr, "redist_bench: no FFTW-MPI transpose plan\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memcpy(f->in, c->b, (size_t)c->nb_elems * sizeof(double));
}

static void run_fftw(const job *j, bench_case *c, void *ctx) { fftw_execute(((fftw_state *)ctx)->plan); }

static void fftw_done(fftw_state *f)
{
    fftw_destroy_plan(f->plan);
    fftw_free(f->in);
    fftw_free(f->out);
}
#endif

/* ---- set-up ---------------------------------------------------------------- */

static void describe(const job *j, int *desc, int n, int mb, int64_t *elems)
{
    int zero = 0, info;
    int locr = numroc_(&n, &mb, &j->myrow, &zero, &j->pr), locc = numroc_(&n, &mb, &j->mycol, &zero, &j->pc);
    int lld = locr > 1 ? locr : 1;
    descinit_(desc, &n, &n, &mb, &mb, &zero, &zero, &j->ctxt, &lld, &info);
    *elems = (int64_t)lld * locc;
}

/* B(i, j) = i + j n in ScaLAPACK's view: every element distinct. */
static void fill(const job *j, bench_case *c)
{
    int64_t lld = c->desc_b[8];
    for (int64_t jj = 0; jj < c->n; jj++)
        for (int64_t ii = 0; ii < c->n; ii++)
            if (owner_of(ii, jj, c->mb_b, j) == j->rank)
                c->b[local_index(ii, jj, c->mb_b, lld, j)] = (double)(ii + jj * (int64_t)c->n);
}

static void case_init(const job *j, bench_case *c, int n, int transpose)
{
    int P = j->pr * j->pc;
    *c = (bench_case){.n = n, .transpose = transpose};
    c->mb_b = j->rows ? (n + P - 1) / P : j->nb;
    c->mb_a = j->rows ? c->mb_b : 128;
    describe(j, c->desc_b, n, c->mb_b, &c->nb_elems);
    describe(j, c->desc_a, n, c->mb_a, &c->na_elems);
    size_t nbb = (size_t)c->nb_elems + 1, nab = (size_t)c->na_elems + 1;
    c->b = malloc(nbb * sizeof(double));
    c->a = calloc(nab, sizeof(double));
    c->out = calloc(nab > nbb ? nab : nbb, sizeof(double));
    fill(j, c);
}

static void case_free(bench_case *c)
{
    free(c->b); free(c->a); free(c->out);
}

/* relay's layout of the case's matrix with mb-blocks: ScaLAPACK's on the
 * PR x PC grid, or in rows mode row blocks on P x 1, row-major locally. */
static relay_layout *layout_of(const job *j, int n, int mb)
{
    relay_layout *l = NULL;
    int P = j->pr * j->pc;
    relay_status st = j->rows ? relay_layout_block_cyclic(&l, n, n, mb, mb, P, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_ROW_MAJOR)
                              : relay_layout_block_cyclic(&l, n, n, mb, mb, j->pr, j->pc, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR);
    if (st) {
        fprintf(stderr, "redist_bench: %s\n", relay_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return l;
}

typedef struct {
    relay_plan *plan;
    relay_exec *ex;
    double plan_s, tune_s, bind_s; /* slowest rank's */
    char choice[32];               /* how it replays: the plan's schedule or its tuning's choice */
    double window_ratio;           /* the tuning's p2p window over p2p; 0 where either is untimed */
} relay_side;

/* The tuning's seconds for p2p unpacked, through the window or not; 0 if untimed. */
static double p2p_seconds(const relay_tuning *t, int window)
{
    for (int i = 0; i < t->ntimed; i++)
        if (t->choices[i].schedule == RELAY_SCHED_P2P && !t->choices[i].packed && t->choices[i].window == window)
            return t->choices[i].seconds;
    return 0;
}

/* RELAY_BENCH_TUNE=K: timed replays of each choice relay_exec_tune makes
 * (0: the plan replays its own schedule, untuned). */
static int tune_replays(void)
{
    const char *v = getenv("RELAY_BENCH_TUNE");
    int k = v ? atoi(v) : 0;
    return k > 0 && k <= RELAY_TUNE_MAX_REPLAYS ? k : 0;
}

/* Tunes the plan where asked and names how it will replay. */
static relay_status relay_tune(relay_side *r)
{
    int k = tune_replays();
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    relay_status st = k ? relay_exec_tune(r->plan, MPI_COMM_WORLD, k) : RELAY_OK;
    r->tune_s = MPI_Wtime() - t0;
    relay_tuning t = {0};
    if (!st) st = relay_plan_tuning(r->plan, &t);
    const relay_tuning_choice *c = t.ntimed ? &t.choices[t.best] : NULL;
    double through_mpi = p2p_seconds(&t, 0), through_window = p2p_seconds(&t, 1);
    r->window_ratio = through_mpi > 0 && through_window > 0 ? through_window / through_mpi : 0;
    static const char *const names[] = {"auto", "p2p", "rounds", "alltoallv", "neighbor"};
    snprintf(r->choice, sizeof r->choice, "%s%s", names[c ? c->schedule : relay_plan_schedule(r->plan)],
             c && c->packed ? " packed" : c && c->window ? " window" : "");
    return st;
}

static void relay_bind(const job *j, const bench_case *c, relay_side *r)
{
    relay_layout *la = layout_of(j, c->n, c->mb_a), *lb = layout_of(j, c->n, c->mb_b);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    relay_status st = relay_plan_transform(&r->plan, j->pr * j->pc, la, lb, c->transpose ? RELAY_OP_T : RELAY_OP_N,
                                           RELAY_DOUBLE, NULL);
    r->plan_s = MPI_Wtime() - t0;
    if (!st) st = relay_tune(r);
    t0 = MPI_Wtime();
    if (!st) st = relay_exec_create(&r->ex, r->plan, MPI_COMM_WORLD);
    r->bind_s = MPI_Wtime() - t0;
    if (st) {
        fprintf(stderr, "redist_bench: %s\n", relay_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Allreduce(MPI_IN_PLACE, &r->plan_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &r->bind_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &r->tune_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    relay_layout_free(la);
    relay_layout_free(lb);
}

/* The executor's extra memory over its remote bytes, maximum over ranks. */
static double extra_memory(const relay_side *r)
{
    relay_exec_memory mem;
    relay_exec_get_memory(r->ex, &mem);
    double ratio = mem.remote_bytes ? (double)mem.extra_bytes / (double)mem.remote_bytes : 0.0;
    MPI_Allreduce(MPI_IN_PLACE, &ratio, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return ratio;
}

/* ---- the table ------------------------------------------------------------------ */

static void print_header(void)
{
    printf("| n | src nb | op | grid | relay plan ms | relay tune ms | relay replays | window / p2p | relay bind ms | relay ms | relay_p* ms | ScaLAPACK ms | Alltoallv ms | "
           "memcpy ms | relay/ScaLAPACK | relay/Alltoallv | relay/memcpy | FFTW-MPI ms | relay/FFTW-MPI | COSTA ms | "
           "relay/COSTA | extra mem/remote | same result |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
}

static void print_ms(const contestant *k)
{
    if (k->call) printf(" %.2f |", 1e3 * k->median);
    else printf(" - |");
}

/* relay's median over contestant i's, with `digits` decimals. */
static void print_ratio(const contestant *cs, int i, int digits)
{
    if (cs[i].call) printf(" %.*f |", digits, cs[RELAY].median / cs[i].median);
    else printf(" - |");
}

static void print_row(const job *j, const bench_case *c, const relay_side *r, const contestant *cs, double mem, int ok)
{
    char grid[32];
    if (j->rows) snprintf(grid, sizeof grid, "%dx1 rows", j->pc);
    else snprintf(grid, sizeof grid, "%dx%d", j->pr, j->pc);
    char window[16] = "-";
    if (r->window_ratio > 0) snprintf(window, sizeof window, "%.2f", r->window_ratio);
    printf("| %d | %d | %s | %s | %.2f | %.0f | %s | %s | %.2f |", c->n, c->mb_b, c->transpose ? "T" : "N", grid,
           1e3 * r->plan_s, 1e3 * r->tune_s, r->choice, window, 1e3 * r->bind_s);
    for (int i = RELAY; i <= MEMCPY; i++) print_ms(&cs[i]);
    for (int i = SCALAPACK; i <= MEMCPY; i++) print_ratio(cs, i, i == MEMCPY ? 2 : 3);
    for (int i = FFTW; i <= COSTA; i++) print_ms(&cs[i]), print_ratio(cs, i, 3);
    printf(" %.3f | %s |\n", mem, ok ? "yes" : "NO");
    fflush(stdout);
}

/* ---- one case --------------------------------------------------------------- */

static void run_case(const job *j, int n, int transpose)
{
    bench_case c;
    case_init(j, &c, n, transpose);
    relay_side r;
    relay_bind(j, &c, &r);
    a2a_state s;
    a2a_init(&s, j->pr * j->pc, &c);
    contestant cs[NCONTESTANTS] = {
        [RELAY] = {"relay", run_relay, r.ex, c.out}, /* the output every ScaLAPACK-like contestant writes */
        [WRAPPER] = {"relay_p*", run_wrapper, NULL, c.out},
        [SCALAPACK] = {"ScaLAPACK", run_pxapi, &scalapack_api, c.out},
        [ALLTOALLV] = {"Alltoallv", run_alltoallv, &s, c.out},
        [MEMCPY] = {"memcpy", run_memcpy, NULL, NULL},
        [FFTW] = {"FFTW-MPI", NULL},
#ifdef RELAY_BENCH_COSTA
        [COSTA] = {"COSTA", run_pxapi, &costa_api, c.out},
#else
        [COSTA] = {"COSTA", NULL},
#endif
    };
#ifdef RELAY_BENCH_FFTW
    fftw_state f;
    if (j->rows) {
        fftw_init(&f, &c);
        cs[FFTW] = (contestant){.name = "FFTW-MPI", .call = run_fftw, .ctx = &f, .result = f.out};
    }
#endif
    skip_named(cs);
    time_rounds(j, &c, cs);
    int ok = agree(j, &c, cs);
    double mem = extra_memory(&r);
    if (j->rank == 0) print_row(j, &c, &r, cs, mem, ok);
#ifdef RELAY_BENCH_FFTW
    if (j->rows) fftw_done(&f);
#endif
    relay_exec_free(r.ex);
    relay_plan_free(r.plan);
    a2a_free(&s);
    case_free(&c);
}

/* ---- main ------------------------------------------------------------------------ */

/* The mode and ScaLAPACK's grid from argv[1]; 0 if it does not fit P. */
static int parse_grid(job *j, const char *arg, int P)
{
    if (strcmp(arg, "rows") == 0) {
        j->rows = 1, j->pr = 1, j->pc = P;
        return 1;
    }
    return sscanf(arg, "%dx%d", &j->pr, &j->pc) == 2 && j->pr > 0 && j->pc > 0 && j->pr * j->pc == P;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
#ifdef RELAY_BENCH_FFTW
    fftw_mpi_init();
#endif
    job j = {0};
    int P;
    MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 3 || !parse_grid(&j, argv[1], P)) {
        if (j.rank == 0)
            fprintf(stderr, "usage: mpiexec -n P redist_bench PRxPC N[,N...] [R] [W] [NB]  (P = PR*PC)\n"
                            "       mpiexec -n P redist_bench rows N[,N...] [R] [W]\n");
        MPI_Finalize();
        return 2;
    }
    j.reps = argc > 3 ? atoi(argv[3]) : 7;
    j.warmup = argc > 4 ? atoi(argv[4]) : 2;
    j.nb = argc > 5 ? atoi(argv[5]) : 32;
    if (j.reps < 1) j.reps = 1;
    if (j.warmup < 0) j.warmup = 0;
    int me, np;
    Cblacs_pinfo(&me, &np);
    Cblacs_get(-1, 0, &j.ctxt);
    Cblacs_gridinit(&j.ctxt, "R", j.pr, j.pc);
    j.myrow = j.rank / j.pc;
    j.mycol = j.rank % j.pc;
    if (j.rank == 0) print_header();
    char *sizes = strdup(argv[2]);
    for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ","))
        for (int t = j.rows; t <= 1; t++) run_case(&j, atoi(tok), t);
    free(sizes);
    relay_scalapack_cache_clear();
    Cblacs_gridexit(j.ctxt);
#ifdef RELAY_BENCH_FFTW
    fftw_mpi_cleanup();
#endif
    MPI_Finalize();
    return 0;
}
