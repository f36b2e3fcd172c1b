/* mpi_grids.c — relay_scalapack over BLACS grids that an application makes
 * and frees, as CP2K and ScaLAPACK's own eigensolvers do.
 *
 * BLACS gives a new grid the lowest free context number, and malloc often
 * gives its communicator a freed grid's address, so anything keyed on
 * those matches a dead grid on some processes and not on others.  Every
 * part below calls Cpdgemr2d (served by the drop-in, linked ahead of
 * ScaLAPACK) and relay_pdgemr2d directly, checks each result element by
 * element against the global index it must hold, and checks that after
 * each blacs_gridexit the process holds exactly the communicators it held
 * before the grid was made: relay's are freed with the grid.  Communicators
 * are counted by PMPI wrappers below, which see BLACS's and relay's alike.
 *   - the case that once hung: 12 grids made and freed in turn,
 *     with and without one process holding an extra communicator from the
 *     third grid on (its handles then stop following the others');
 *   - RELAY_TEST_GRID_LIFETIMES (10,000 unless set) grids of changing
 *     shapes made, used twice (a miss, then a hit) and freed, the relay
 *     cache left holding no grid and no plan after each;
 *   - three live grids freed in a different order on even and odd ranks,
 *     then three new ones made and used;
 *   - a grid freed and made again with another shape under the same
 *     context number;
 *   - a per-process cap of one to three plans that differs between
 *     processes, over two live grids: processes prune alone, and the next
 *     call on a grid must still hit or miss alike everywhere.
 * Rank 0 prints "mpi_grids: N passed, M failed". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blacs.h"
#include "mpi_check.h"
#include "relay/relay.h"
#include "relay/scalapack.h"

void Cpdgemr2d(int m, int n, double *a, int ia, int ja, int *desca, double *b, int ib, int jb, int *descb, int ictxt);

static int rank, nprocs;

/* ---- communicators alive on this process, counted over PMPI ---------------- */

static long live_comms;

static int created(int rc, const MPI_Comm *c)
{
    if (rc == MPI_SUCCESS && *c != MPI_COMM_NULL) live_comms++;
    return rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out) { return created(PMPI_Comm_dup(comm, out), out); }
int MPI_Comm_create(MPI_Comm comm, MPI_Group g, MPI_Comm *out) { return created(PMPI_Comm_create(comm, g, out), out); }
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group g, int tag, MPI_Comm *out)
{
    return created(PMPI_Comm_create_group(comm, g, tag, out), out);
}
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out)
{
    return created(PMPI_Comm_split(comm, color, key, out), out);
}
int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out)
{
    return created(PMPI_Comm_split_type(comm, type, key, info, out), out);
}
int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[], const int sourceweights[],
                                   int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm *out)
{
    return created(PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree, destinations,
                                                   destweights, info, reorder, out),
                   out);
}
int MPI_Comm_free(MPI_Comm *comm)
{
    int rc = PMPI_Comm_free(comm);
    if (rc == MPI_SUCCESS) live_comms--;
    return rc;
}

/* ---- one redistribution on a grid, checked --------------------------------- */

enum { M = 64, N = 48 };

static double value_at(int64_t i, int64_t j) { return (double)(i * 1000 + j) + 0.25; }

/* A matrix's local part on this process of the grid: blocks mb x nb, first
 * block on process (0, 0). */
typedef struct {
    int desc[9];
    int rows, cols, myrow, mycol, nprow, npcol;
    double *data;
} local_matrix;

static int numroc(int n, int nb, int iproc, int nprocs_dim)
{
    int blocks = n / nb, count = blocks / nprocs_dim * nb, extra = blocks % nprocs_dim;
    if (iproc < extra) count += nb;
    else if (iproc == extra) count += n % nb;
    return count;
}

static int64_t global_index(int local, int nb, int iproc, int nprocs_dim)
{
    return (int64_t)(local / nb * nprocs_dim + iproc) * nb + local % nb;
}

static local_matrix matrix_on(int ctxt, int mb, int nb)
{
    local_matrix a = {.data = NULL};
    Cblacs_gridinfo(ctxt, &a.nprow, &a.npcol, &a.myrow, &a.mycol);
    if (a.myrow >= 0) {
        a.rows = numroc(M, mb, a.myrow, a.nprow);
        a.cols = numroc(N, nb, a.mycol, a.npcol);
    }
    int lld = a.rows > 1 ? a.rows : 1;
    int desc[9] = {1, a.myrow >= 0 ? ctxt : -1, M, N, mb, nb, 0, 0, lld};
    memcpy(a.desc, desc, sizeof desc);
    a.data = calloc((size_t)lld * (size_t)(a.cols > 0 ? a.cols : 1), sizeof *a.data);
    return a;
}

static void fill(local_matrix *a, double (*f)(int64_t, int64_t))
{
    for (int lj = 0; lj < a->cols; lj++)
        for (int li = 0; li < a->rows; li++)
            a->data[li + (size_t)lj * (size_t)a->desc[8]] =
                f(global_index(li, a->desc[4], a->myrow, a->nprow), global_index(lj, a->desc[5], a->mycol, a->npcol));
}

static int holds_values(const local_matrix *a)
{
    for (int lj = 0; lj < a->cols; lj++)
        for (int li = 0; li < a->rows; li++)
            if (a->data[li + (size_t)lj * (size_t)a->desc[8]] !=
                value_at(global_index(li, a->desc[4], a->myrow, a->nprow), global_index(lj, a->desc[5], a->mycol, a->npcol)))
                return 0;
    return 1;
}

static double minus_one(int64_t i, int64_t j) { return (void)i, (void)j, -1.0; }

/* B := A on ctxt's grid, 4 x 4 blocks to 16 x 16 (ScaLAPACK's name when
 * by_dropin, relay_pdgemr2d's otherwise); 1 if B is right on this process. */
static int redistribute(int ctxt, int by_dropin)
{
    local_matrix a = matrix_on(ctxt, 4, 4), b = matrix_on(ctxt, 16, 16);
    fill(&a, value_at);
    fill(&b, minus_one);
    int ok = 1;
    if (by_dropin) Cpdgemr2d(M, N, a.data, 1, 1, a.desc, b.data, 1, 1, b.desc, ctxt);
    else ok = relay_pdgemr2d(M, N, a.data, 1, 1, a.desc, b.data, 1, 1, b.desc, ctxt) == RELAY_OK;
    ok = ok && holds_values(&b);
    free(a.data);
    free(b.data);
    return ok;
}

/* ---- grids ------------------------------------------------------------------ */

static int world_handle(void) { return Csys2blacs_handle(MPI_COMM_WORLD); }

static int grid(const char *order, int nprow, int npcol)
{
    int ctxt = world_handle();
    Cblacs_gridinit(&ctxt, order, nprow, npcol);
    return ctxt;
}

/* The processes in reverse order, as one column. */
static int reversed_grid(void)
{
    int ctxt = world_handle(), *map = malloc((size_t)nprocs * sizeof *map);
    for (int p = 0; p < nprocs; p++) map[p] = nprocs - 1 - p;
    Cblacs_gridmap(&ctxt, map, nprocs, nprocs, 1);
    free(map);
    return ctxt;
}

/* The factor of nprocs closest to its square root: a 2-D grid where one exists. */
static int rows_of_squarest(void)
{
    int r = 1;
    for (int d = 1; d * d <= nprocs; d++)
        if (nprocs % d == 0) r = d;
    return r;
}

static relay_scalapack_cache_stats cache_now(void)
{
    relay_scalapack_cache_stats s = {0};
    relay_scalapack_cache_get_stats(&s);
    return s;
}

/* ---- the parts -------------------------------------------------------------- */

static void reproduction(int skewed)
{
    MPI_Comm extra = MPI_COMM_NULL;
    int ok = 1, comms_kept = 1;
    for (int it = 0; it < 12; it++) {
        if (skewed && it == 2 && rank == nprocs - 1) MPI_Comm_dup(MPI_COMM_SELF, &extra);
        long before = live_comms;
        int ctxt = grid("Row", 1, nprocs);
        ok &= redistribute(ctxt, it % 2 == 0);
        Cblacs_gridexit(ctxt);
        comms_kept &= live_comms == before;
    }
    if (extra != MPI_COMM_NULL) MPI_Comm_free(&extra);
    char what[160];
    snprintf(what, sizeof what, "reproduction%s: 12 grids made, used and freed give the right B", skewed ? " (skewed)" : "");
    check(ok, what);
    snprintf(what, sizeof what, "reproduction%s: each grid's communicators, BLACS's and relay's, freed with it",
             skewed ? " (skewed)" : "");
    check(comms_kept, what);
}

static void lifetimes(long n)
{
    static const char *const orders[2] = {"Row", "Col"};
    int r = rows_of_squarest(), shapes[3][2] = {{1, nprocs}, {nprocs, 1}, {r, nprocs / r}};
    relay_scalapack_cache_stats start = cache_now();
    long before = live_comms, most_kept = 0;
    int ok = 1, emptied = 1;
    for (long it = 0; it < n; it++) {
        const int *shape = shapes[it % 3];
        int ctxt = grid(orders[(it / 3) % 2], shape[0], shape[1]);
        ok &= redistribute(ctxt, it % 2 == 0);  /* a miss */
        ok &= redistribute(ctxt, it % 2 == 1);  /* a hit: binds the plan's own requests and communicator */
        Cblacs_gridexit(ctxt);
        relay_scalapack_cache_stats s = cache_now();
        emptied &= s.contexts == 0 && s.entries == 0;
        if (labs(live_comms - before) > most_kept) most_kept = labs(live_comms - before);
    }
    relay_scalapack_cache_stats end = cache_now();
    char what[160];
    snprintf(what, sizeof what, "%ld grid lifetimes give the right B", n);
    check(ok, what);
    snprintf(what, sizeof what, "%ld grid lifetimes: after each, relay holds no grid and no plan", n);
    check(emptied, what);
    snprintf(what, sizeof what, "%ld grid lifetimes: communicators held constant (%ld more or fewer at most after a grid "
             "was freed)", n, most_kept);
    check(most_kept == 0, what);
    check(end.misses - start.misses == n && end.hits - start.hits == n, "grid lifetimes: one miss and one hit per grid");
}

static void freed_in_other_orders(void)
{
    int r = rows_of_squarest();
    long before = live_comms;
    int g[3] = {grid("Row", 1, nprocs), grid("Col", r, nprocs / r), reversed_grid()}, ok = 1;
    for (int k = 0; k < 3; k++) ok &= redistribute(g[k], 1) && redistribute(g[k], 0);
    check(cache_now().contexts == 3, "three live grids: three contexts held");
    for (int k = 0; k < 3; k++) Cblacs_gridexit(g[rank % 2 ? 2 - k : k]);
    check(live_comms == before && cache_now().contexts == 0,
          "three grids freed in other orders on even and odd ranks: every communicator freed");
    int h[3] = {reversed_grid(), grid("Row", nprocs / r, r), grid("Col", 1, nprocs)};
    for (int k = 0; k < 3; k++) ok &= redistribute(h[k], 0) && redistribute(h[k], 1);
    for (int k = 0; k < 3; k++) Cblacs_gridexit(h[rank % 2 ? k : 2 - k]);
    check(ok, "grids made again after frees in other orders give the right B");
    check(live_comms == before, "and their communicators are freed with them");
}

static void reshaped_under_same_number(void)
{
    MPI_Comm extra = MPI_COMM_NULL;
    long before = live_comms;
    int first = grid("Row", 1, nprocs), ok = redistribute(first, 1) && redistribute(first, 1);
    Cblacs_gridexit(first);
    if (rank == 0) MPI_Comm_dup(MPI_COMM_SELF, &extra); /* rank 0's handles no longer follow the others' */
    int again = grid("Col", nprocs, 1);
    check(again == first, "BLACS gives the new grid the freed grid's context number (the case under test)");
    ok &= redistribute(again, 1) && redistribute(again, 0);
    int nprow, npcol, myrow, mycol;
    Cblacs_gridinfo(again, &nprow, &npcol, &myrow, &mycol);
    Cblacs_gridexit(again);
    if (extra != MPI_COMM_NULL) MPI_Comm_free(&extra);
    check(ok && nprow == nprocs && npcol == 1, "a grid of another shape under a freed grid's number gives the right B");
    check(live_comms == before, "both grids' communicators freed with them");
}

/* Process p keeps at most 1 + p % 3 plans: two grids used in turn with
 * three shapes of call each push plans out on some processes only. */
static void per_process_cap(void)
{
    check(relay_scalapack_cache_set_limit(0) == RELAY_ERR_ARG, "a limit of 0 plans refused");
    check(relay_scalapack_cache_set_limit(1 + rank % 3) == RELAY_OK, "a limit of 1 to 3 plans, differing by process");
    int r = rows_of_squarest(), g[2] = {grid("Row", 1, nprocs), grid("Col", r, nprocs / r)}, ok = 1, within = 1;
    for (int it = 0; it < 60; it++) {
        int ctxt = g[it % 2], mb = 1 + (it / 4) % 3;
        local_matrix a = matrix_on(ctxt, mb, mb), b = matrix_on(ctxt, 8, 8);
        fill(&a, value_at);
        fill(&b, minus_one);
        Cpdgemr2d(M, N, a.data, 1, 1, a.desc, b.data, 1, 1, b.desc, ctxt);
        ok &= holds_values(&b);
        within &= cache_now().entries <= 1 + rank % 3;
        free(a.data);
        free(b.data);
    }
    Cblacs_gridexit(g[0]);
    Cblacs_gridexit(g[1]);
    check(ok, "calls over two grids under per-process caps that differ give the right B");
    check(within, "no process holds more plans than its limit");
    relay_scalapack_cache_set_limit(64);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    const char *n = getenv("RELAY_TEST_GRID_LIFETIMES");
    reproduction(0);
    reproduction(1);
    freed_in_other_orders();
    reshaped_under_same_number();
    per_process_cap();
    lifetimes(n ? atol(n) : 10000);
    relay_scalapack_cache_clear();
    int status = check_summary("mpi_grids");
    MPI_Finalize();
    return status;
}
