/* mpi_scalapack.c — relay's ScaLAPACK-compatible wrappers against Debian's
 * ScaLAPACK on the same inputs.
 *
 * Each case draws (from a seed that depends only on the case number) an
 * element type, two process grids among contexts of every shape that fits
 * (row- and column-major, and scrambled process maps made with
 * Cblacs_gridmap, some over only part of the processes), a global matrix
 * per grid with its own block sizes, source process and padded lld, and a
 * submatrix origin in each.  Both libraries then run on identical local
 * arrays:
 *   p?gemr2d  B(ib.., jb..) := A(ia.., ja..): the whole local arrays of B,
 *             padding and untouched parts included, must be bit for bit
 *             ScaLAPACK's;
 *   p?tran*   C := beta*C + alpha*op(A) on one grid: equal within a few
 *             ulps (bit for bit when alpha = 1 and beta = 0).
 * Every case runs twice with fresh arrays: the second call must replay the
 * cached plan (the cache's hit count says so) and still be right.  Also
 * checked: 2x2 -> 1x4 and 4x1 -> 1x4 explicitly, three keys replayed in
 * turns over one shared landing area, a bad descriptor refused
 * on every process without a hang, and the cache emptied by
 * relay_scalapack_cache_clear.
 * Rank 0 prints "mpi_scalapack: N passed, M failed". */
#include <complex.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blacs.h"
#include "reference.h"
#include "relay/relay.h"

int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
#define GEMR2D(x) void p##x##gemr2d_(const int *m, const int *n, const void *a, const int *ia, const int *ja, \
    const int *desca, void *b, const int *ib, const int *jb, const int *descb, const int *ictxt);
GEMR2D(s) GEMR2D(d) GEMR2D(c) GEMR2D(z)
#define TRAN(name) void name(const int *m, const int *n, const void *alpha, const void *a, const int *ia, const int *ja, \
    const int *desca, const void *beta, void *c, const int *ic, const int *jc, const int *descc);
TRAN(pstran_) TRAN(pdtran_) TRAN(pctranu_) TRAN(pztranu_) TRAN(pctranc_) TRAN(pztranc_)

enum { CASES = 160, MAX_GRIDS = 16 };

/* ---- grids ------------------------------------------------------------------ */

typedef struct {
    int ctxt, nprow, npcol, myrow, mycol;
    char name[48];
} grid;

static grid grids[MAX_GRIDS];
static int ngrids, rank, nprocs, all_ctxt;

static ref_rng rng;
static int uniform(int lo, int hi) { return (int)ref_rng_range(&rng, lo, hi); }

static void add_grid(const char *order, int pr, int pc, int scrambled)
{
    if (pr * pc > nprocs || ngrids == MAX_GRIDS) return;
    grid *g = &grids[ngrids++];
    Cblacs_get(-1, 0, &g->ctxt);
    if (!scrambled) {
        Cblacs_gridinit(&g->ctxt, order, pr, pc);
        snprintf(g->name, sizeof g->name, "%dx%d %s", pr, pc, order);
    } else {
        int map[64], perm[64];
        for (int i = 0; i < nprocs; i++) perm[i] = i;
        ref_rng_shuffle(&rng, perm, nprocs); /* the same shuffle on every process */
        for (int r = 0; r < pr; r++)
            for (int c = 0; c < pc; c++) map[r + c * pr] = perm[r * pc + c];
        Cblacs_gridmap(&g->ctxt, map, pr, pr, pc);
        snprintf(g->name, sizeof g->name, "%dx%d scrambled", pr, pc);
    }
    g->nprow = pr;
    g->npcol = pc;
    g->myrow = g->mycol = -1;
    if (g->ctxt >= 0) Cblacs_gridinfo(g->ctxt, &g->nprow, &g->npcol, &g->myrow, &g->mycol);
    g->nprow = pr;
    g->npcol = pc;
}

static void make_grids(void)
{
    ref_rng_seed(&rng, 77);
    add_grid("R", 1, 1, 0);
    add_grid("R", 1, nprocs, 0);
    add_grid("C", nprocs, 1, 0);
    add_grid("R", 2, 2, 0);
    add_grid("R", 1, 4, 0);
    add_grid("R", 4, 1, 0);
    add_grid("C", 2, nprocs / 2 > 0 ? nprocs / 2 : 1, 0);
    add_grid("R", nprocs / 2 > 0 ? nprocs / 2 : 1, 2, 0);
    add_grid("R", 3, 1, 0);
    add_grid("R", 2, 3, 0);
    add_grid("", nprocs, 1, 1);
    add_grid("", 2, nprocs / 2 > 0 ? nprocs / 2 : 1, 1);
    add_grid("", nprocs > 1 ? nprocs - 1 : 1, 1, 1);
}

/* ---- matrices ------------------------------------------------------------------ */

typedef struct {
    const grid *g;
    int desc[9];
    int i, j;              /* 1-based submatrix origin */
    size_t elems;          /* local array length (elements) */
} matrix;

static size_t esz_of(relay_type t) { return t == RELAY_FLOAT ? 4 : t == RELAY_DOUBLE || t == RELAY_CFLOAT ? 8 : 16; }

/* A random matrix on grid g holding an rows x cols submatrix. */
static matrix random_matrix(const grid *g, int rows, int cols)
{
    matrix a = {g, {0}, uniform(1, 5), uniform(1, 5), 0};
    int M = a.i - 1 + rows + uniform(0, 4), N = a.j - 1 + cols + uniform(0, 4);
    int mb = uniform(1, 9), nb = uniform(1, 9), rsrc = uniform(0, g->nprow - 1), csrc = uniform(0, g->npcol - 1);
    int lld = 1, lcols = 0, pad = uniform(0, 2);
    if (g->myrow >= 0) {
        int lrows = numroc_(&M, &mb, &g->myrow, &rsrc, &g->nprow);
        lcols = numroc_(&N, &nb, &g->mycol, &csrc, &g->npcol);
        lld = (lrows > 1 ? lrows : 1) + pad;
    }
    int d[9] = {1, g->myrow >= 0 ? g->ctxt : -1, M, N, mb, nb, rsrc, csrc, lld};
    memcpy(a.desc, d, sizeof d);
    a.elems = (size_t)lld * (size_t)(lcols > 0 ? lcols : 1);
    return a;
}

static void *filled(const matrix *a, relay_type t, uint64_t seed)
{
    size_t n = a->elems * esz_of(t) / 4;
    uint32_t *v = malloc(n * sizeof *v);
    uint64_t s = seed * 1000003u + (uint64_t)rank;
    for (size_t k = 0; k < n; k++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        v[k] = (uint32_t)(s >> 40); /* small non-negative patterns: valid floats */
    }
    if (t == RELAY_DOUBLE || t == RELAY_CDOUBLE)
        for (size_t k = 0; k < n / 2; k++) ((double *)v)[k] = (double)v[2 * k] / 4096.0 - 1000.0;
    else
        for (size_t k = 0; k < n; k++) ((float *)v)[k] = (float)v[k] / 4096.0f - 1000.0f;
    return v;
}

/* ---- the two libraries -------------------------------------------------------- */

static void scalapack_gemr2d(relay_type t, int m, int n, const void *a, const matrix *A, void *b, const matrix *B)
{
    void (*f[4])(const int *, const int *, const void *, const int *, const int *, const int *, void *, const int *,
                 const int *, const int *, const int *) = {psgemr2d_, pdgemr2d_, pcgemr2d_, pzgemr2d_};
    f[t](&m, &n, a, &A->i, &A->j, A->desc, b, &B->i, &B->j, B->desc, &all_ctxt);
}

static relay_status relay_gemr2d(relay_type t, int m, int n, const void *a, const matrix *A, void *b, const matrix *B)
{
    switch (t) {
    case RELAY_FLOAT: return relay_psgemr2d(m, n, a, A->i, A->j, A->desc, b, B->i, B->j, B->desc, all_ctxt);
    case RELAY_DOUBLE: return relay_pdgemr2d(m, n, a, A->i, A->j, A->desc, b, B->i, B->j, B->desc, all_ctxt);
    case RELAY_CFLOAT: return relay_pcgemr2d(m, n, a, A->i, A->j, A->desc, b, B->i, B->j, B->desc, all_ctxt);
    default: return relay_pzgemr2d(m, n, a, A->i, A->j, A->desc, b, B->i, B->j, B->desc, all_ctxt);
    }
}

typedef struct {
    double re, im;
} scalar;

static void scalapack_tran(relay_type t, int conj, int m, int n, scalar al, const void *a, const matrix *A, scalar be, void *c,
                           const matrix *C)
{
    float fa[2] = {(float)al.re, (float)al.im}, fb[2] = {(float)be.re, (float)be.im};
    double da[2] = {al.re, al.im}, db[2] = {be.re, be.im};
    const void *pa = t == RELAY_FLOAT || t == RELAY_CFLOAT ? (const void *)fa : (const void *)da;
    const void *pb = t == RELAY_FLOAT || t == RELAY_CFLOAT ? (const void *)fb : (const void *)db;
    void (*f)(const int *, const int *, const void *, const void *, const int *, const int *, const int *, const void *, void *,
              const int *, const int *, const int *) =
        t == RELAY_FLOAT ? pstran_ : t == RELAY_DOUBLE ? pdtran_ : t == RELAY_CFLOAT ? (conj ? pctranc_ : pctranu_)
                                                                                   : (conj ? pztranc_ : pztranu_);
    f(&m, &n, pa, a, &A->i, &A->j, A->desc, pb, c, &C->i, &C->j, C->desc);
}

static relay_status relay_tran(relay_type t, int conj, int m, int n, scalar al, const void *a, const matrix *A, scalar be,
                               void *c, const matrix *C)
{
    float complex fa = (float)al.re + (float)al.im * I, fb = (float)be.re + (float)be.im * I;
    double complex da = al.re + al.im * I, db = be.re + be.im * I;
    switch (t) {
    case RELAY_FLOAT: return relay_pstran(m, n, (float)al.re, a, A->i, A->j, A->desc, (float)be.re, c, C->i, C->j, C->desc);
    case RELAY_DOUBLE: return relay_pdtran(m, n, al.re, a, A->i, A->j, A->desc, be.re, c, C->i, C->j, C->desc);
    case RELAY_CFLOAT:
        return (conj ? relay_pctranc : relay_pctranu)(m, n, &fa, a, A->i, A->j, A->desc, &fb, c, C->i, C->j, C->desc);
    default: return (conj ? relay_pztranc : relay_pztranu)(m, n, &da, a, A->i, A->j, A->desc, &db, c, C->i, C->j, C->desc);
    }
}

/* ---- comparing ----------------------------------------------------------------- */

static int all_ok(int ok)
{
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return ok;
}

/* Element-wise comparison within tol (relative); tol = 0: bit for bit. */
static int same(relay_type t, const void *x, const void *y, size_t elems, double tol)
{
    if (tol == 0) return memcmp(x, y, elems * esz_of(t)) == 0;
    size_t n = elems * (t == RELAY_CFLOAT || t == RELAY_CDOUBLE ? 2 : 1);
    for (size_t k = 0; k < n; k++) {
        double a = t == RELAY_FLOAT || t == RELAY_CFLOAT ? ((const float *)x)[k] : ((const double *)x)[k];
        double b = t == RELAY_FLOAT || t == RELAY_CFLOAT ? ((const float *)y)[k] : ((const double *)y)[k];
        if (fabs(a - b) > tol * (1.0 + fabs(a))) return 0;
    }
    return 1;
}

static int passed, failed;

static void report(int ok, int number, const char *what)
{
    if (all_ok(ok)) {
        passed++;
        return;
    }
    failed++;
    if (rank == 0 && failed <= 10) printf("FAIL case %d: %s\n", number, what);
}

/* One gemr2d case, twice (the second time a cache hit on fresh arrays). */
static void gemr2d_case(int number, relay_type t, const grid *ga, const grid *gb, int m, int n)
{
    matrix A = random_matrix(ga, m, n), B = random_matrix(gb, m, n);
    char what[160];
    snprintf(what, sizeof what, "%c gemr2d %dx%d from %s (%d, %d) to %s (%d, %d)", "sdcz"[t], m, n, ga->name, A.i, A.j,
             gb->name, B.i, B.j);
    for (int round = 0; round < 2; round++) {
        relay_scalapack_cache_stats before, after;
        relay_scalapack_cache_get_stats(&before);
        void *a = filled(&A, t, (uint64_t)number * 4 + (uint64_t)round), *b1 = filled(&B, t, (uint64_t)number * 4 + 2);
        void *b2 = malloc(B.elems * esz_of(t));
        memcpy(b2, b1, B.elems * esz_of(t));
        scalapack_gemr2d(t, m, n, a, &A, b1, &B);
        relay_status st = relay_gemr2d(t, m, n, a, &A, b2, &B);
        relay_scalapack_cache_get_stats(&after);
        int ok = st == RELAY_OK && same(t, b1, b2, B.elems, 0);
        if (round == 1) ok = ok && after.hits == before.hits + 1 && after.misses == before.misses;
        if (st != RELAY_OK && rank == 0) printf("  %s: %s\n", relay_status_str(st), relay_last_error());
        report(ok, number, what);
        free(a);
        free(b1);
        free(b2);
    }
}

static void tran_case(int number, relay_type t, int conj, const grid *g, int m, int n)
{
    matrix A = random_matrix(g, n, m), C = random_matrix(g, m, n);
    scalar al = {1, 0}, be = {0, 0};
    if (uniform(0, 1)) {
        al = (scalar){uniform(-8, 8) / 4.0, uniform(-8, 8) / 4.0};
        be = (scalar){uniform(-8, 8) / 4.0, uniform(-8, 8) / 4.0};
    }
    if (t == RELAY_FLOAT || t == RELAY_DOUBLE) al.im = be.im = 0;
    int exact = al.re == 1 && al.im == 0 && be.re == 0 && be.im == 0;
    double tol = exact ? 0 : t == RELAY_FLOAT || t == RELAY_CFLOAT ? 1e-5 : 1e-12;
    char what[160];
    snprintf(what, sizeof what, "%c tran%s %dx%d on %s, alpha %g%+gi beta %g%+gi", "sdcz"[t], conj ? "c" : "u", m, n, g->name,
             al.re, al.im, be.re, be.im);
    for (int round = 0; round < 2; round++) {
        void *a = filled(&A, t, (uint64_t)number * 4 + (uint64_t)round), *c1 = filled(&C, t, (uint64_t)number * 4 + 2);
        void *c2 = malloc(C.elems * esz_of(t));
        memcpy(c2, c1, C.elems * esz_of(t));
        if (g->myrow >= 0) scalapack_tran(t, conj, m, n, al, a, &A, be, c1, &C);
        relay_status st = relay_tran(t, conj, m, n, al, a, &A, be, c2, &C); /* outside the grid: a no-op */
        if (st != RELAY_OK && rank == 0) printf("  %s: %s\n", relay_status_str(st), relay_last_error());
        report(st == RELAY_OK && same(t, c1, c2, C.elems, tol), number, what);
        free(a);
        free(c1);
        free(c2);
    }
}

/* With RELAY_SHM=on (the mpi_scalapack.shm_on runs), the drop-in's
 * executors over one context's processes borrow one landing area, which
 * outlives them (executor/shm/shm_landing.c).  Three keys are
 * replayed in turns, back to back (ScaLAPACK's calls, which would hold
 * the processes together, come before each turn): the executors take
 * turns in one window, and a sender may pack for a rank that is still
 * unpacking another sender's message of the call before.  The third key,
 * larger, joins later, so that the landing grows a window of its own while
 * the others' executors stay bound to the old one. */
static void shared_landing_case(int number, const grid *ga, const grid *gb)
{
    enum { KEYS = 3, TURNS = 6 };
    static const int side[KEYS] = {300, 240, 520};
    matrix A[KEYS], B[KEYS];
    void *a[KEYS], *want[KEYS], *got[KEYS];
    for (int k = 0; k < KEYS; k++) {
        A[k] = random_matrix(k % 2 ? gb : ga, side[k], side[k]);
        B[k] = random_matrix(k % 2 ? ga : gb, side[k], side[k]);
    }
    int ok = 1;
    for (int turn = 0; turn < TURNS; turn++) {
        int keys = turn < 2 ? KEYS - 1 : KEYS;
        for (int k = 0; k < keys; k++) {
            uint64_t seed = (uint64_t)number * 64 + (uint64_t)(turn * KEYS + k);
            a[k] = filled(&A[k], RELAY_DOUBLE, seed);
            want[k] = filled(&B[k], RELAY_DOUBLE, seed + 32);
            got[k] = malloc(B[k].elems * sizeof(double));
            memcpy(got[k], want[k], B[k].elems * sizeof(double));
            scalapack_gemr2d(RELAY_DOUBLE, side[k], side[k], a[k], &A[k], want[k], &B[k]);
        }
        for (int k = 0; k < keys; k++)
            ok = ok && relay_gemr2d(RELAY_DOUBLE, side[k], side[k], a[k], &A[k], got[k], &B[k]) == RELAY_OK;
        for (int k = 0; k < keys; k++) {
            ok = ok && same(RELAY_DOUBLE, want[k], got[k], B[k].elems, 0);
            free(a[k]);
            free(want[k]);
            free(got[k]);
        }
    }
    report(ok, number, "three keys in turns over one shared landing area");
}

static const grid *find_grid(int pr, int pc)
{
    for (int k = 0; k < ngrids; k++)
        if (grids[k].nprow == pr && grids[k].npcol == pc && strstr(grids[k].name, "scrambled") == NULL) return &grids[k];
    return NULL;
}

/* A descriptor with block size 0 is refused on every process of the context. */
static void bad_descriptor_case(int number)
{
    matrix A = random_matrix(&grids[1], 5, 5), B = random_matrix(&grids[1], 5, 5);
    A.desc[4] = 0;
    double *a = calloc(A.elems, sizeof *a), *b = calloc(B.elems, sizeof *b);
    relay_status st = relay_pdgemr2d(5, 5, a, A.i, A.j, A.desc, b, B.i, B.j, B.desc, all_ctxt);
    report(st == RELAY_ERR_ARG && strstr(relay_last_error(), "descriptor") != NULL, number, "bad descriptor refused");
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    Cblacs_pinfo(&rank, &nprocs);
    Cblacs_get(-1, 0, &all_ctxt);
    Cblacs_gridinit(&all_ctxt, "R", 1, nprocs);
    make_grids();

    int number = 0;
    const grid *g22 = find_grid(2, 2), *g14 = find_grid(1, 4), *g41 = find_grid(4, 1);
    if (g22 && g14 && g41) {
        ref_rng_seed(&rng, 1);
        gemr2d_case(number++, RELAY_DOUBLE, g22, g14, 37, 29);
        gemr2d_case(number++, RELAY_DOUBLE, g41, g14, 40, 33);
        gemr2d_case(number++, RELAY_CDOUBLE, g14, g22, 17, 45);
        shared_landing_case(number++, g22, g14);
    }
    for (int c = 0; c < CASES; c++, number++) {
        ref_rng_seed(&rng, 1000 + (uint64_t)c);
        relay_type t = (relay_type)uniform(0, 3);
        const grid *ga = &grids[uniform(0, ngrids - 1)], *gb = &grids[uniform(0, ngrids - 1)];
        int m = uniform(1, 60), n = uniform(1, 60);
        if (c % 3 == 2) tran_case(number, t, uniform(0, 1), gb, m, n);
        else gemr2d_case(number, t, ga, gb, m, n);
    }
    bad_descriptor_case(number++);

    relay_scalapack_cache_stats s;
    relay_scalapack_cache_clear();
    relay_scalapack_cache_get_stats(&s);
    report(s.entries == 0, number++, "cache cleared");

    if (rank == 0) printf("mpi_scalapack: %d passed, %d failed\n", passed, failed);
    for (int k = 0; k < ngrids; k++)
        if (grids[k].ctxt >= 0) Cblacs_gridexit(grids[k].ctxt);
    Cblacs_gridexit(all_ctxt);
    MPI_Finalize();
    return failed ? 1 : 0;
}
