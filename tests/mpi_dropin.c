/* mpi_dropin.c — the drop-in library (librelay_scalapack_dropin) called from
 * C, as a C program calls ScaLAPACK, against ScaLAPACK's own routines in
 * the same run (dropin_reference.c finds them).
 *
 * Checked, each time on identical local arrays, whole arrays compared bit
 * for bit (padding and untouched parts included):
 *   - Cp{s,d,c,z}gemr2d on random cases from fixed seeds: A and B on grids
 *     of different shapes (row- and column-major, scrambled process maps,
 *     a grid that leaves a process out), submatrix origins, block sizes,
 *     source processes, padded lld; some descriptors with DTYPE left
 *     unset and LLD = 0 where a process holds no rows, as ScaLAPACK's
 *     p?gemr2d accepts.  Each case runs twice on fresh data: the first
 *     call plans or hits, the second is a cache hit;
 *   - pdtran_ (PBLAS's C callers use the Fortran spelling: ScaLAPACK has
 *     no Cpdtran) with LLD = 1 on a process that holds rows but no
 *     columns, as PBLAS accepts: relay serves it;
 *   - pdtran_ with an 11-integer descriptor of type 2: relay refuses on
 *     every process (else this would hang), ScaLAPACK runs it, and the
 *     process at (0, 0) says so on stderr once;
 *   - pdtran_ with alpha = 0: ScaLAPACK's answer (C := beta C);
 *   - relay_pdgemr2d / relay_pdtran refuse, with RELAY_ERR_ARG on every
 *     process, an lld below the local rows, and DTYPE 7 for a transpose.
 * With RELAY_SCALAPACK=off every call must be ScaLAPACK's: same results,
 * the cache untouched, nothing said.
 * Rank 0 prints "mpi_dropin: N passed, M failed". */
#define _POSIX_C_SOURCE 200809L /* dup, dup2, fileno, strcasecmp */
#include <complex.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "blacs.h"
#include "dropin_reference.h"
#include "reference.h"
#include "relay/relay.h"

/* ScaLAPACK's names, which the drop-in defines. */
void Cpsgemr2d(int m, int n, float *a, int ia, int ja, int *desca, float *b, int ib, int jb, int *descb, int ictxt);
void Cpdgemr2d(int m, int n, double *a, int ia, int ja, int *desca, double *b, int ib, int jb, int *descb, int ictxt);
void Cpcgemr2d(int m, int n, void *a, int ia, int ja, int *desca, void *b, int ib, int jb, int *descb, int ictxt);
void Cpzgemr2d(int m, int n, void *a, int ia, int ja, int *desca, void *b, int ib, int jb, int *descb, int ictxt);
void pdtran_(const int *m, const int *n, const double *alpha, const double *a, const int *ia, const int *ja,
             const int *desca, const double *beta, double *c, const int *ic, const int *jc, const int *descc);

typedef void gemr2d_fn(int m, int n, void *a, int ia, int ja, int *desca, void *b, int ib, int jb, int *descb, int ictxt);
typedef void tran_fn(const int *m, const int *n, const double *alpha, const double *a, const int *ia, const int *ja,
                     const int *desca, const double *beta, double *c, const int *ic, const int *jc, const int *descc);

enum { CASES = 120, MAX_GRIDS = 12, DESC_MAX = 11 };

static int rank, nprocs, all_ctxt, dropin_off, passed, failed;
static ref_rng rng;
static int uniform(int lo, int hi) { return (int)ref_rng_range(&rng, lo, hi); }

/* ---- checking ------------------------------------------------------------ */

/* A check passes when it passes on every process. */
static void check(int ok, const char *what)
{
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (ok) passed++;
    else if (failed++ < 10 && rank == 0) printf("FAIL: %s\n", what);
}

static relay_scalapack_cache_stats cache_now(void)
{
    relay_scalapack_cache_stats s;
    relay_scalapack_cache_get_stats(&s);
    return s;
}

/* Whether the cache counted `hits` hits and `misses` misses since before;
 * with the drop-in off, whether it counted nothing. */
static int cache_moved(relay_scalapack_cache_stats before, int hits, int misses)
{
    relay_scalapack_cache_stats now = cache_now();
    if (dropin_off) hits = misses = 0;
    return now.hits - before.hits == hits && now.misses - before.misses == misses;
}

static int served_by_relay(relay_scalapack_cache_stats before)
{
    relay_scalapack_cache_stats now = cache_now();
    return dropin_off ? now.hits == before.hits && now.misses == before.misses
                      : now.hits + now.misses == before.hits + before.misses + 1;
}

/* ---- grids ------------------------------------------------------------------ */

typedef struct {
    int ctxt, nprow, npcol, myrow, mycol;
    char name[32];
} grid;

static grid grids[MAX_GRIDS];
static int ngrids;
static const grid *row_grid, *column_grid, *two_row_grid; /* 1 x P, P x 1, 2 x P/2 (1 x 1 at P = 1) */

/* A pr x pc grid, BLACS-ordered by order, or over a shuffled process map;
 * NULL if it does not fit. */
static const grid *add_grid(const char *order, int pr, int pc, int shuffled)
{
    if (pr * pc > nprocs || ngrids == MAX_GRIDS) return NULL;
    grid *g = &grids[ngrids++];
    *g = (grid){-1, pr, pc, -1, -1, ""};
    snprintf(g->name, sizeof g->name, "%dx%d %s", pr, pc, shuffled ? "shuffled" : order);
    Cblacs_get(-1, 0, &g->ctxt);
    if (shuffled) {
        int map[64], perm[64];
        for (int k = 0; k < nprocs; k++) perm[k] = k;
        ref_rng_shuffle(&rng, perm, nprocs); /* the same shuffle on every process */
        for (int k = 0; k < pr * pc; k++) map[k] = perm[k];
        Cblacs_gridmap(&g->ctxt, map, pr, pr, pc);
    } else {
        Cblacs_gridinit(&g->ctxt, order, pr, pc);
    }
    if (g->ctxt >= 0) Cblacs_gridinfo(g->ctxt, &g->nprow, &g->npcol, &g->myrow, &g->mycol);
    g->nprow = pr;
    g->npcol = pc;
    return g;
}

static void make_grids(void)
{
    int half = nprocs / 2 > 0 ? nprocs / 2 : 1;
    ref_rng_seed(&rng, 16);
    const grid *one = add_grid("R", 1, 1, 0), *two_rows = add_grid("R", 2, half, 0);
    row_grid = add_grid("R", 1, nprocs, 0);
    column_grid = add_grid("C", nprocs, 1, 0);
    two_row_grid = two_rows ? two_rows : one;
    add_grid("C", half, 2, 0);
    add_grid("R", 1, 2, 0);
    add_grid("R", nprocs > 1 ? nprocs - 1 : 1, 1, 0); /* leaves the last process out */
    add_grid("", 1, nprocs, 1);
    add_grid("", 2, half, 1);
}

/* ---- matrices -------------------------------------------------------------- */

typedef struct {
    const grid *g;
    relay_type t;
    int desc[DESC_MAX];
    int i, j;          /* 1-based submatrix origin */
    int lrows, lcols;  /* this process's share of the whole matrix */
    size_t elems;      /* local array length (elements) */
} matrix;

/* A random matrix on g holding a rows x cols submatrix.  Sometimes with
 * what ScaLAPACK's p?gemr2d does not read or check (gemr2d_liberties):
 * DTYPE left unset, LLD = 0 where the process holds no rows.  Outside the
 * grid the descriptor is garbage but for CTXT = -1. */
static matrix random_matrix(const grid *g, relay_type t, int rows, int cols, int gemr2d_liberties)
{
    matrix a = {g, t, {0}, uniform(1, 4), uniform(1, 4), 0, 0, 1};
    int M = a.i - 1 + rows + uniform(0, 3), N = a.j - 1 + cols + uniform(0, 3);
    int mb = uniform(1, 8), nb = uniform(1, 8), rsrc = uniform(0, g->nprow - 1), csrc = uniform(0, g->npcol - 1);
    int pad = uniform(0, 2), dtype = gemr2d_liberties && uniform(0, 3) == 0 ? uniform(0, 9) : 1;
    int lld_zero = gemr2d_liberties && uniform(0, 1);
    if (g->myrow < 0) {
        int garbage[DESC_MAX] = {-5, -1, -5, -5, -5, -5, -5, -5, -5, -5, -5};
        memcpy(a.desc, garbage, sizeof garbage);
        return a;
    }
    a.lrows = (int)ref_numroc(M, mb, g->myrow, rsrc, g->nprow);
    a.lcols = (int)ref_numroc(N, nb, g->mycol, csrc, g->npcol);
    int lld = a.lrows == 0 && lld_zero ? 0 : (a.lrows > 1 ? a.lrows : 1) + pad;
    int d[9] = {dtype, g->ctxt, M, N, mb, nb, rsrc, csrc, lld};
    memcpy(a.desc, d, sizeof d);
    a.elems = (size_t)(lld > 1 ? lld : 1) * (size_t)(a.lcols > 0 ? a.lcols : 1);
    return a;
}

static double uniform_real(ref_rng *r) { return (double)(ref_rng_next(r) >> 11) * 0x1p-52 - 1.0; }

/* The local array of a, filled with values of full precision, from a seed
 * of this process's own (every process makes the same calls, so the
 * seeds stay apart) and not from rng, which must stay the same everywhere. */
static void *filled(const matrix *a)
{
    static uint64_t fills;
    ref_rng own;
    ref_rng_seed(&own, ++fills * 4099 + (uint64_t)rank);
    void *v = malloc(a->elems * ref_type_size(a->t));
    for (size_t k = 0; k < a->elems; k++) ref_store(a->t, v, (int64_t)k, uniform_real(&own) + uniform_real(&own) * I);
    return v;
}

static void *copy_of(const matrix *a, const void *v)
{
    void *c = malloc(a->elems * ref_type_size(a->t));
    memcpy(c, v, a->elems * ref_type_size(a->t));
    return c;
}

static int same(const matrix *a, const void *x, const void *y) { return !memcmp(x, y, a->elems * ref_type_size(a->t)); }

/* ---- p?gemr2d --------------------------------------------------------------- */

static gemr2d_fn *const dropin_gemr2d[4] = {(gemr2d_fn *)Cpsgemr2d, (gemr2d_fn *)Cpdgemr2d, (gemr2d_fn *)Cpcgemr2d,
                                             (gemr2d_fn *)Cpzgemr2d};
static gemr2d_fn *scalapack_gemr2d[4];

/* B(B.i.., B.j..) := A(A.i.., A.j..), m x n, by the drop-in and by
 * ScaLAPACK on identical arrays, twice on fresh data; the second call must
 * be a cache hit. */
static void gemr2d_case(const char *what, int m, int n, matrix *A, matrix *B)
{
    for (int round = 0; round < 2; round++) {
        void *a = filled(A), *b1 = filled(B), *b2 = copy_of(B, b1);
        relay_scalapack_cache_stats before = cache_now();
        dropin_gemr2d[A->t](m, n, a, A->i, A->j, A->desc, b1, B->i, B->j, B->desc, all_ctxt);
        int counted = round ? cache_moved(before, 1, 0) : served_by_relay(before);
        scalapack_gemr2d[A->t](m, n, a, A->i, A->j, A->desc, b2, B->i, B->j, B->desc, all_ctxt);
        char line[200];
        snprintf(line, sizeof line, "%s, round %d: %s", what, round, counted ? "results differ" : "cache counts");
        check(counted && same(B, b1, b2), line);
        free(a);
        free(b1);
        free(b2);
    }
}

static void random_gemr2d_cases(void)
{
    for (int c = 0; c < CASES; c++) {
        ref_rng_seed(&rng, 1600 + (uint64_t)c);
        relay_type t = (relay_type)uniform(0, 3);
        const grid *ga = &grids[uniform(0, ngrids - 1)], *gb = &grids[uniform(0, ngrids - 1)];
        int m = uniform(1, 50), n = uniform(1, 50);
        matrix A = random_matrix(ga, t, m, n, 1), B = random_matrix(gb, t, m, n, 1);
        char what[160];
        snprintf(what, sizeof what, "case %d: Cp%cgemr2d %dx%d from %s (%d, %d) to %s (%d, %d)", c, "sdcz"[t], m, n,
                 ga->name, A.i, A.j, gb->name, B.i, B.j);
        gemr2d_case(what, m, n, &A, &B);
    }
}

/* What ScaLAPACK's p?gemr2d accepts and relay once refused: DTYPE unset on
 * one process, LLD = 0 on the processes that hold no rows (one row of
 * blocks over a column of processes). */
static void gemr2d_acceptance_cases(void)
{
    ref_rng_seed(&rng, 1616);
    matrix A = random_matrix(column_grid, RELAY_DOUBLE, 3, 20, 0), B = random_matrix(row_grid, RELAY_DOUBLE, 3, 20, 0);
    A.desc[0] = rank == nprocs - 1 ? 0 : 1;
    if (A.lrows == 0) A.desc[8] = 0;
    gemr2d_case("Cpdgemr2d with DTYPE 0 on a process and LLD = 0 where no rows", 3, 20, &A, &B);
}

/* ---- p?tran ----------------------------------------------------------------- */

static tran_fn *scalapack_pdtran;

/* C := beta C + alpha A' by pdtran_ (the drop-in) and ScaLAPACK on the
 * processes of C's grid; served says whether relay should serve it. */
static void pdtran_case(const char *what, int m, int n, double alpha, double beta, matrix *A, matrix *C, int served)
{
    void *a = filled(A), *c1 = filled(C), *c2 = copy_of(C, c1);
    relay_scalapack_cache_stats before = cache_now();
    if (C->g->myrow >= 0) pdtran_(&m, &n, &alpha, a, &A->i, &A->j, A->desc, &beta, c1, &C->i, &C->j, C->desc);
    int counted = served && C->g->myrow >= 0 ? served_by_relay(before) : cache_moved(before, 0, 0);
    if (C->g->myrow >= 0) scalapack_pdtran(&m, &n, &alpha, a, &A->i, &A->j, A->desc, &beta, c2, &C->i, &C->j, C->desc);
    char line[200];
    snprintf(line, sizeof line, "%s: %s", what, counted ? "results differ" : "cache counts");
    check(counted && same(C, c1, c2), line);
    free(a);
    free(c1);
    free(c2);
}

/* PBLAS accepts LLD = 1 on a process that holds rows but no columns. */
static void tran_acceptance_case(void)
{
    ref_rng_seed(&rng, 1617);
    matrix A = random_matrix(two_row_grid, RELAY_DOUBLE, 9, 1, 0), C = random_matrix(two_row_grid, RELAY_DOUBLE, 1, 9, 0);
    if (two_row_grid->myrow >= 0 && A.lcols == 0) A.desc[8] = 1;
    pdtran_case("pdtran_ with LLD = 1 where no columns", 1, 9, 1.5, 0.25, &A, &C, 1);
}

/* Runs call with this process's stderr caught; returns what it said. */
static char *stderr_of(void (*call)(void))
{
    static char said[4096];
    FILE *caught = tmpfile();
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(caught), 2);
    call();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(caught);
    size_t len = fread(said, 1, sizeof said - 1, caught);
    said[len] = '\0';
    fclose(caught);
    return said;
}

/* Twice pdtran_ with A's descriptor of type 2 (PBLAS's 11 integers, IMB
 * and INB the first block's size: here MB and NB, so that the local arrays
 * are those of type 1). */
static void refused_tran_calls(void)
{
    for (int round = 0; round < 2; round++) {
        ref_rng_seed(&rng, 1618);
        matrix A = random_matrix(row_grid, RELAY_DOUBLE, 13, 7, 0), C = random_matrix(row_grid, RELAY_DOUBLE, 7, 13, 0);
        const int *d = A.desc;
        int type2[DESC_MAX] = {2, d[1], d[2], d[3], d[4], d[5], d[4], d[5], d[6], d[7], d[8]};
        memcpy(A.desc, type2, sizeof type2);
        pdtran_case("pdtran_ with a descriptor of type 2", 7, 13, -0.75, 2.0, &A, &C, 0);
    }
}

static int count_of(const char *text, const char *word)
{
    int k = 0;
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) k++;
    return k;
}

static void fallback_case(void)
{
    const char *said = stderr_of(refused_tran_calls);
    int expected = !dropin_off && rank == 0; /* rank 0 is (0, 0) of the 1 x nprocs grid */
    check(count_of(said, "relay drop-in: pdtran: relay refused a call") == expected &&
              (!expected || strstr(said, "of type 2;")),
          "the fallback is said once, on (0, 0), with relay's reason");
}

static void alpha_zero_case(void)
{
    ref_rng_seed(&rng, 1619);
    matrix A = random_matrix(two_row_grid, RELAY_DOUBLE, 11, 6, 0), C = random_matrix(two_row_grid, RELAY_DOUBLE, 6, 11, 0);
    pdtran_case("pdtran_ with alpha = 0", 6, 11, 0.0, -3.0, &A, &C, 0);
}

/* ---- relay_p* refusals -------------------------------------------------------- */

static void refusal_cases(void)
{
    ref_rng_seed(&rng, 1620);
    matrix A = random_matrix(row_grid, RELAY_DOUBLE, 6, 6, 0), C = random_matrix(row_grid, RELAY_DOUBLE, 6, 6, 0);
    double *a = filled(&A), *c = filled(&C);
    int lld = A.desc[8];
    A.desc[8] = rank == 0 ? A.lrows - 1 : lld; /* 1 x P: every process holds all six rows */
    relay_status st = relay_pdgemr2d(6, 6, a, A.i, A.j, A.desc, c, C.i, C.j, C.desc, all_ctxt);
    check(st == RELAY_ERR_ARG && strstr(relay_last_error(), "lld"), "relay_pdgemr2d refuses an lld below the local rows");
    A.desc[8] = lld;
    A.desc[0] = rank == nprocs - 1 ? 7 : 1;
    st = relay_pdtran(6, 6, 1.0, a, A.i, A.j, A.desc, 0.0, c, C.i, C.j, C.desc);
    check(st == RELAY_ERR_ARG && strstr(relay_last_error(), "of type 7"), "relay_pdtran refuses DTYPE 7 on every process");
    free(a);
    free(c);
}

/* ---- the run ------------------------------------------------------------------- */

static int find_references(void)
{
    const char *names[4] = {"Cpsgemr2d", "Cpdgemr2d", "Cpcgemr2d", "Cpzgemr2d"};
    int ok = 1;
    for (int t = 0; t < 4; t++) ok = ok && (scalapack_gemr2d[t] = (gemr2d_fn *)dropin_reference(names[t]));
    return ok && (scalapack_pdtran = (tran_fn *)dropin_reference("pdtran_"));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    Cblacs_pinfo(&rank, &nprocs);
    const char *sw = getenv("RELAY_SCALAPACK");
    dropin_off = sw && (!strcasecmp(sw, "off") || !strcmp(sw, "0") || !strcasecmp(sw, "no") || !strcasecmp(sw, "false"));
    Cblacs_get(-1, 0, &all_ctxt);
    Cblacs_gridinit(&all_ctxt, "R", 1, nprocs);
    make_grids();

    check(find_references(), "ScaLAPACK's own routines found after the drop-in");
    if (!failed) {
        random_gemr2d_cases();
        gemr2d_acceptance_cases();
        tran_acceptance_case();
        fallback_case();
        alpha_zero_case();
        refusal_cases();
    }

    if (rank == 0) printf("mpi_dropin (drop-in %s): %d passed, %d failed\n", dropin_off ? "off" : "on", passed, failed);
    for (int k = 0; k < ngrids; k++)
        if (grids[k].ctxt >= 0) Cblacs_gridexit(grids[k].ctxt);
    Cblacs_gridexit(all_ctxt);
    MPI_Finalize();
    return failed ? 1 : 0;
}
