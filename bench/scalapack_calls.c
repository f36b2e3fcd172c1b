/* scalapack_calls.c — relay's ScaLAPACK-compatible calls against
 * ScaLAPACK's own, call by call, in one mpiexec job ("the cold
 * call"): a drop-in is judged by its worst call, not by its replays.
 *
 * Four sequences of calls:
 *   gemr2d misses  CALLS calls of p?gemr2d whose arguments are all new, in
 *                  the spirit of ScaLAPACK's REDIST test file GEMR2D.dat:
 *                  sizes 10..2000 (log-uniform), row and column block
 *                  sizes 1..64, submatrix origins, source processes, and A
 *                  and B on grids drawn apart among every grid shape of P
 *                  or P-1 processes (1xP, Px1, 2x2, 1x3, 3x1, ...);
 *   tran misses    CALLS calls of pdtran, C := A^T with A and C on one
 *                  grid, drawn the same way;
 *   gemr2d hits,   one shape each (n = HIT_N, 32 x 32 blocks to 128 x 128
 *   tran hits      on the squarest grid of P processes: an
 *                  iterative solver's move) called REPS times after a first,
 *                  untimed call that plans;
 *   grid lifetimes REPS times, a grid made (the shapes of P processes in
 *                  turn), p?gemr2d called twice on it (n = 200, the same
 *                  blocks), the grid freed, as CP2K makes and frees grids:
 *                  relay's lifetime pays its communicator for
 *                  the grid, a miss, a hit that binds, and freeing them.
 * Each call runs through relay (relay_pdgemr2d, relay_pdtran) and through
 * ScaLAPACK (pdgemr2d_, pdtran_) on the same arguments, the order
 * alternating from call to call so that machine noise hits both; a call's
 * time is the slowest rank's (MPI_Wtime after a barrier).  relay's result
 * must equal ScaLAPACK's bit for bit, the whole local arrays included, and
 * relay's cache statistics must count the calls as misses or hits.  One
 * warm-up call of each library on a tiny shape comes first (MPI's lazy
 * connections, BLACS' and relay's first use of the context).
 *
 *   mpiexec -n P scalapack_calls [CALLS] [REPS] [HIT_N] [SEED] [each]
 * prints a markdown table (totals, medians, ratios relay/ScaLAPACK); with
 * "each", also every call's times. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay/relay.h"

/* BLACS and ScaLAPACK (Fortran interfaces; Debian ships no C header). */
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
void pdgemr2d_(const int *m, const int *n, const double *a, const int *ia, const int *ja, const int *desca, double *b,
               const int *ib, const int *jb, const int *descb, const int *ictxt);
void pdtran_(const int *m, const int *n, const double *alpha, const double *a, const int *ia, const int *ja,
             const int *desca, const double *beta, double *c, const int *ic, const int *jc, const int *descc);

enum { MAX_GRIDS = 8, MIN_SIZE = 10, MAX_SIZE = 2000, MAX_BLOCK = 64, HIT_FROM_BLOCK = 32, HIT_TO_BLOCK = 128 };

static int rank, nprocs, world_ctxt;

/* ---- drawing arguments ------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t next_random(void) /* splitmix64: the same sequence on every rank */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int uniform(int lo, int hi) { return lo + (int)(next_random() % (uint64_t)(hi - lo + 1)); }

static int log_uniform(int lo, int hi)
{
    double u = (double)(next_random() >> 11) / 9007199254740992.0;
    return (int)lround(exp(log(lo) + u * (log(hi) - log(lo))));
}

/* ---- grids ------------------------------------------------------------------ */

typedef struct {
    int ctxt, nprow, npcol, myrow, mycol;
} grid;

static grid grids[MAX_GRIDS];
static int ngrids;

static void add_grid(int pr, int pc)
{
    if (pr * pc < 1 || ngrids == MAX_GRIDS) return;
    grid *g = &grids[ngrids++];
    *g = (grid){-1, pr, pc, -1, -1};
    Cblacs_get(-1, 0, &g->ctxt);
    Cblacs_gridinit(&g->ctxt, "R", pr, pc);
    if (g->ctxt >= 0) Cblacs_gridinfo(g->ctxt, &g->nprow, &g->npcol, &g->myrow, &g->mycol);
    if (g->myrow < 0 || g->myrow >= pr || g->mycol < 0 || g->mycol >= pc) g->myrow = g->mycol = -1;
    g->nprow = pr;
    g->npcol = pc;
}

/* Every shape of P and of P-1 processes, as REDIST's file has at 4
 * (1x4, 4x1, 2x2, 1x3, 3x1); grids[0] is the squarest of P. */
static void make_grids(void)
{
    int sq = 1;
    for (int d = 1; d * d <= nprocs; d++)
        if (nprocs % d == 0) sq = d;
    add_grid(sq, nprocs / sq);
    for (int size = nprocs; size >= nprocs - 1 && size >= 1; size--)
        for (int pr = 1; pr <= size; pr++)
            if (size % pr == 0 && !(size == nprocs && pr == sq)) add_grid(pr, size / pr);
}

/* ---- matrices --------------------------------------------------------------- */

typedef struct {
    const grid *g;
    int desc[9];
    int i, j;           /* 1-based submatrix origin */
    size_t elems;       /* local array length */
} matrix;

/* A matrix on grid g holding a rows x cols submatrix; origin 0 puts it at
 * (1, 1) in a matrix of exactly that size, else somewhere inside a larger. */
static matrix make_matrix(const grid *g, int rows, int cols, int mb, int nb, int origin)
{
    matrix a = {g, {0}, 1, 1, 1};
    int M = rows, N = cols, rsrc = 0, csrc = 0;
    if (origin) {
        a.i = uniform(1, 1 + rows / 4);
        a.j = uniform(1, 1 + cols / 4);
        M = a.i - 1 + rows + uniform(0, 8);
        N = a.j - 1 + cols + uniform(0, 8);
        rsrc = uniform(0, g->nprow - 1);
        csrc = uniform(0, g->npcol - 1);
    }
    int lld = 1;
    if (g->myrow >= 0) {
        int lrows = numroc_(&M, &mb, &g->myrow, &rsrc, &g->nprow), lcols = numroc_(&N, &nb, &g->mycol, &csrc, &g->npcol);
        lld = lrows > 1 ? lrows : 1;
        a.elems = (size_t)lld * (size_t)(lcols > 1 ? lcols : 1);
    }
    int d[9] = {1, g->myrow >= 0 ? g->ctxt : -1, M, N, mb, nb, rsrc, csrc, lld};
    memcpy(a.desc, d, sizeof d);
    return a;
}

static matrix random_matrix(const grid *g, int rows, int cols)
{
    return make_matrix(g, rows, cols, uniform(1, MAX_BLOCK), uniform(1, MAX_BLOCK), 1);
}

static double *filled(const matrix *a, double base)
{
    double *v = malloc(a->elems * sizeof *v);
    for (size_t k = 0; k < a->elems; k++) v[k] = base + (double)(k % 100003) + 1e-3 * rank;
    return v;
}

/* ---- one call, both libraries ----------------------------------------------- */

typedef struct {
    int tran;           /* pdtran (C := A^T) or pdgemr2d (B := A) */
    int m, n;           /* the result's size */
    matrix a, b;
} call;

static void run_relay(const call *c, const double *a, double *b)
{
    relay_status st = c->tran ? relay_pdtran(c->m, c->n, 1.0, a, c->a.i, c->a.j, c->a.desc, 0.0, b, c->b.i, c->b.j, c->b.desc)
                              : relay_pdgemr2d(c->m, c->n, a, c->a.i, c->a.j, c->a.desc, b, c->b.i, c->b.j, c->b.desc, world_ctxt);
    if (st) {
        fprintf(stderr, "scalapack_calls: rank %d: %s\n", rank, relay_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void run_scalapack(const call *c, const double *a, double *b)
{
    double one = 1.0, zero = 0.0;
    if (c->tran && c->a.g->myrow < 0) return; /* PBLAS: only the grid's processes call */
    if (c->tran) pdtran_(&c->m, &c->n, &one, a, &c->a.i, &c->a.j, c->a.desc, &zero, b, &c->b.i, &c->b.j, c->b.desc);
    else pdgemr2d_(&c->m, &c->n, a, &c->a.i, &c->a.j, c->a.desc, b, &c->b.i, &c->b.j, c->b.desc, &world_ctxt);
}

/* The slowest rank's time of one call of either library. */
static double timed(int use_relay, const call *c, const double *a, double *b)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (use_relay) run_relay(c, a, b);
    else run_scalapack(c, a, b);
    double dt = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return dt;
}

/* Runs c through both libraries (relay first when relay_first) into
 * identical destinations; times[0] is relay's, times[1] ScaLAPACK's;
 * returns whether the results agree on every rank. */
static int both(const call *c, int relay_first, double times[2])
{
    double *a = filled(&c->a, 1.0), *b_relay = filled(&c->b, -1e6), *b_ref = filled(&c->b, -1e6);
    for (int k = 0; k < 2; k++) {
        int use_relay = k == !relay_first;
        times[!use_relay] = timed(use_relay, c, a, use_relay ? b_relay : b_ref);
    }
    int ok = memcmp(b_relay, b_ref, c->b.elems * sizeof(double)) == 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    free(a);
    free(b_relay);
    free(b_ref);
    return ok;
}

/* A call with new arguments: pdgemr2d between two grids drawn apart, or
 * pdtran on one grid. */
static call random_call(int tran)
{
    call c = {.tran = tran, .m = log_uniform(MIN_SIZE, MAX_SIZE)};
    c.n = tran || uniform(0, 1) ? log_uniform(MIN_SIZE, MAX_SIZE) : c.m;
    const grid *ga = &grids[uniform(0, ngrids - 1)], *gb = tran ? ga : &grids[uniform(0, ngrids - 1)];
    c.a = tran ? random_matrix(ga, c.n, c.m) : random_matrix(ga, c.m, c.n);
    c.b = random_matrix(gb, c.m, c.n);
    return c;
}

/* An iterative solver's move: n x n, 32 x 32 blocks to 128 x 128 on
 * the squarest grid. */
static call hit_call(int tran, int n)
{
    call c = {.tran = tran, .m = n, .n = n};
    c.a = make_matrix(&grids[0], n, n, HIT_FROM_BLOCK, HIT_FROM_BLOCK, 0);
    c.b = make_matrix(&grids[0], n, n, HIT_TO_BLOCK, HIT_TO_BLOCK, 0);
    return c;
}

/* ---- sequences -------------------------------------------------------------- */

typedef struct {
    const char *name;
    int calls, ok;
    long long misses, hits;   /* relay's cache statistics over the sequence */
    double *t[2];             /* per call: relay, ScaLAPACK */
} sequence;

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(const double *t, int n)
{
    double *s = malloc((size_t)n * sizeof *s);
    memcpy(s, t, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    free(s);
    return m;
}

static double total(const double *t, int n)
{
    double s = 0;
    for (int k = 0; k < n; k++) s += t[k];
    return s;
}

static void print_row(const sequence *s)
{
    if (rank) return;
    double tr = total(s->t[0], s->calls), ts = total(s->t[1], s->calls);
    double mr = median(s->t[0], s->calls), ms = median(s->t[1], s->calls);
    double worst = 0;
    for (int k = 0; k < s->calls; k++) worst = fmax(worst, s->t[0][k] / s->t[1][k]);
    printf("| %d | %s | %d | %lld / %lld | %.3f | %.3f | %.2f | %.3f | %.3f | %.2f | %.2f | %s |\n", nprocs, s->name,
           s->calls, s->misses, s->hits, tr, ts, tr / ts, 1e3 * mr, 1e3 * ms, mr / ms, worst, s->ok ? "yes" : "NO");
    fflush(stdout);
}

static void print_call(const sequence *s, int k, const call *c)
{
    if (rank) return;
    printf("  %s %d: %dx%d  A %dx%d on %dx%d blocks %dx%d at (%d,%d)  B %dx%d on %dx%d blocks %dx%d at (%d,%d)  "
           "relay %.3f ms  ScaLAPACK %.3f ms\n", s->name, k, c->m, c->n, c->a.desc[2], c->a.desc[3], c->a.g->nprow,
           c->a.g->npcol, c->a.desc[4], c->a.desc[5], c->a.i, c->a.j, c->b.desc[2], c->b.desc[3], c->b.g->nprow,
           c->b.g->npcol, c->b.desc[4], c->b.desc[5], c->b.i, c->b.j, 1e3 * s->t[0][k], 1e3 * s->t[1][k]);
}

/* Runs `calls` calls, call k made by next(k); the first `untimed` only
 * warm the cache. */
static void run_sequence(sequence *s, int tran, int calls, int untimed, int hit_n, int each)
{
    s->calls = calls;
    s->ok = 1;
    s->t[0] = malloc((size_t)calls * sizeof(double));
    s->t[1] = malloc((size_t)calls * sizeof(double));
    relay_scalapack_cache_stats before, after;
    for (int k = -untimed; k < calls; k++) {
        call c = hit_n ? hit_call(tran, hit_n) : random_call(tran);
        double t[2];
        if (k == 0) relay_scalapack_cache_get_stats(&before);
        s->ok &= both(&c, k % 2 == 0, t);
        if (k < 0) continue;
        s->t[0][k] = t[0];
        s->t[1][k] = t[1];
        if (each) print_call(s, k, &c);
    }
    relay_scalapack_cache_get_stats(&after);
    s->misses = after.misses - before.misses;
    s->hits = after.hits - before.hits;
}

/* ---- grid lifetimes ---------------------------------------------------------- */

enum { LIFETIME_N = 200 };

/* The slowest rank's time of one lifetime of a pr x pc grid by either
 * library: made, B := A twice, freed; b gets the result. */
static double timed_lifetime(int use_relay, int pr, int pc, double *b)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    grid g = {-1, pr, pc, -1, -1};
    Cblacs_get(-1, 0, &g.ctxt);
    Cblacs_gridinit(&g.ctxt, "R", pr, pc);
    Cblacs_gridinfo(g.ctxt, &g.nprow, &g.npcol, &g.myrow, &g.mycol);
    matrix ma = make_matrix(&g, LIFETIME_N, LIFETIME_N, HIT_FROM_BLOCK, HIT_FROM_BLOCK, 0);
    matrix mb = make_matrix(&g, LIFETIME_N, LIFETIME_N, HIT_TO_BLOCK, HIT_TO_BLOCK, 0);
    double *a = filled(&ma, 1.0);
    int n = LIFETIME_N, one = 1;
    for (int k = 0; k < 2; k++) {
        if (!use_relay) pdgemr2d_(&n, &n, a, &one, &one, ma.desc, b, &one, &one, mb.desc, &g.ctxt);
        else if (relay_pdgemr2d(n, n, a, 1, 1, ma.desc, b, 1, 1, mb.desc, g.ctxt)) {
            fprintf(stderr, "scalapack_calls: rank %d: %s\n", rank, relay_last_error());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    Cblacs_gridexit(g.ctxt);
    double dt = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    free(a);
    return dt;
}

/* `lifetimes` grid lifetimes by each library, the order alternating; the
 * grids take every shape of P processes in turn.  Each lifetime's B must
 * be ScaLAPACK's bit for bit. */
static void run_lifetimes(sequence *s, int lifetimes)
{
    s->calls = lifetimes;
    s->ok = 1;
    s->t[0] = malloc((size_t)lifetimes * sizeof(double));
    s->t[1] = malloc((size_t)lifetimes * sizeof(double));
    size_t elems = (size_t)LIFETIME_N * LIFETIME_N; /* more than any process's part */
    double *b[2] = {calloc(elems, sizeof(double)), calloc(elems, sizeof(double))};
    relay_scalapack_cache_stats before, after;
    relay_scalapack_cache_get_stats(&before);
    for (int k = 0; k < lifetimes; k++) {
        int pr = 1 + k % nprocs;
        while (nprocs % pr) pr = 1 + pr % nprocs;
        for (int i = 0; i < 2; i++) {
            int use_relay = i == k % 2;
            s->t[!use_relay][k] = timed_lifetime(use_relay, pr, nprocs / pr, b[!use_relay]);
        }
        int ok = memcmp(b[0], b[1], elems * sizeof(double)) == 0;
        MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        s->ok &= ok;
    }
    relay_scalapack_cache_get_stats(&after);
    s->misses = after.misses - before.misses;
    s->hits = after.hits - before.hits;
    s->ok &= after.contexts == before.contexts; /* each grid's context freed with it */
    free(b[0]);
    free(b[1]);
}

static void warm_up(void)
{
    double t[2];
    call c = hit_call(0, 64);
    both(&c, 1, t);
    c = hit_call(1, 64);
    both(&c, 0, t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int calls = argc > 1 ? atoi(argv[1]) : 120, reps = argc > 2 ? atoi(argv[2]) : 20;
    int hit_n = argc > 3 ? atoi(argv[3]) : 2000, each = argc > 5 && !strcmp(argv[5], "each");
    rng_state = argc > 4 ? strtoull(argv[4], NULL, 10) : 16;
    if (calls < 1 || reps < 1 || hit_n < 1) {
        if (!rank) fprintf(stderr, "usage: mpiexec -n P scalapack_calls [CALLS] [REPS] [HIT_N] [SEED] [each]\n");
        MPI_Finalize();
        return 2;
    }
    Cblacs_get(-1, 0, &world_ctxt);
    Cblacs_gridinit(&world_ctxt, "R", 1, nprocs); /* as REDIST's driver: the call's context is 1 x P */
    make_grids();
    warm_up();
    if (!rank)
        printf("| ranks | sequence | calls | relay misses / hits | relay s | ScaLAPACK s | total ratio | relay median ms | "
               "ScaLAPACK median ms | median ratio | worst call ratio | same result |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    sequence seq[5] = {{.name = "gemr2d misses"}, {.name = "tran misses"}, {.name = "gemr2d hits"}, {.name = "tran hits"},
                       {.name = "grid lifetimes"}};
    run_sequence(&seq[0], 0, calls, 0, 0, each);
    print_row(&seq[0]);
    run_sequence(&seq[1], 1, calls, 0, 0, each);
    print_row(&seq[1]);
    run_sequence(&seq[2], 0, reps, 1, hit_n, each);
    print_row(&seq[2]);
    run_sequence(&seq[3], 1, reps, 1, hit_n, each);
    print_row(&seq[3]);
    run_lifetimes(&seq[4], reps);
    print_row(&seq[4]);
    for (int k = 0; k < 5; k++) {
        free(seq[k].t[0]);
        free(seq[k].t[1]);
    }
    relay_scalapack_cache_clear();
    for (int k = 0; k < ngrids; k++)
        if (grids[k].myrow >= 0) Cblacs_gridexit(grids[k].ctxt);
    Cblacs_gridexit(world_ctxt);
    MPI_Finalize();
    return 0;
}
