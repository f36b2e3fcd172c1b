/* context.c — the BLACS grids relay_scalapack serves, each for exactly as
 * long as the application keeps it.
 *
 * A grid's processes get an MPI communicator of their own (ordered by BLACS
 * process number), created collectively the first time relay serves a call
 * on the grid, and a plan cache (plan_cache.c).  Both hang on the grid's
 * own communicator, the one BLACS creates in blacs_gridinit/gridmap and
 * frees in blacs_gridexit (blacs_get's "what = 10"), as an MPI attribute:
 * finding a grid is reading the attribute, which is there on every process
 * of the grid or on none, and freeing the grid deletes the attribute, whose
 * callback frees relay's communicator and plans with it.  Nothing is keyed
 * on the context number, the communicator's handle or the process map,
 * which BLACS and malloc reuse for the next grid (keyed on those, some
 * processes matched a dead grid's entry, others did not, and the job
 * hung).
 *
 * relay_scalapack_cache_clear and, for what the application left,
 * MPI_Finalize delete the attributes of the grids still alive. */
#include <string.h>

#include "error.h"
#include "mpi_error.h"
#include "scalapack_internal.h"

enum { BLACS_GRID_COMMUNICATOR = 10, CONTEXT_TAG = 0x5ca1 };

static rl_blacs_context *contexts;  /* the grids alive, in creation order */
static long long ncontexts;
static int grid_keyval = MPI_KEYVAL_INVALID;

/* The communicator BLACS made for ictxt's grid (its point-to-point scope),
 * through BLACS's Fortran interface: the C one would register the handle
 * in a table of BLACS's that grows by one slot per grid and never shrinks. */
static MPI_Comm grid_communicator(int ictxt)
{
    int what = BLACS_GRID_COMMUNICATOR, fcomm = 0;
    blacs_get_(&ictxt, &what, &fcomm);
    return MPI_Comm_f2c((MPI_Fint)fcomm);
}

static void unlink_context(rl_blacs_context *cx)
{
    for (rl_blacs_context **at = &contexts; *at; at = &(*at)->next)
        if (*at == cx) {
            *at = cx->next;
            ncontexts--;
            return;
        }
}

/* Frees a context and its plans: collective over the grid's processes, as
 * the MPI_Comm_free of the grid that calls it. */
static void free_context(rl_blacs_context *cx)
{
    rl_scalapack_drop_entries(cx);
    if (cx->comm != MPI_COMM_NULL) MPI_Comm_free(&cx->comm);
    free(cx);
}

/* The attribute's delete callback: the grid is being freed (blacs_gridexit,
 * blacs_exit), or relay drops it (cache_clear, MPI_Finalize). */
static int grid_freed(MPI_Comm grid, int keyval, void *value, void *extra)
{
    (void)grid, (void)keyval, (void)extra;
    unlink_context(value);
    free_context(value);
    return MPI_SUCCESS;
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still
 * works: that is where whatever the user did not clear is freed. */
static int clear_at_finalize(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    relay_scalapack_cache_clear();
    return MPI_SUCCESS;
}

/* The attribute key for grids, and the finalize hook, made once. */
static relay_status make_keyvals(void)
{
    int finalize_keyval, rc = MPI_SUCCESS;
    if (grid_keyval != MPI_KEYVAL_INVALID) return RELAY_OK;
    rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, grid_freed, &grid_keyval, NULL);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, clear_at_finalize, &finalize_keyval, NULL);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, NULL);
    if (rc == MPI_SUCCESS) return RELAY_OK;
    if (grid_keyval != MPI_KEYVAL_INVALID) MPI_Comm_free_keyval(&grid_keyval);
    return rl_mpi_fail(rc, "creating the attribute keys of BLACS grids");
}

/* relay's communicator over the grid's processes, numbered as BLACS numbers
 * them (the grid communicator's ranks): its own, so that relay's messages
 * never meet BLACS's. */
static relay_status create_context_comm(rl_blacs_context *cx, MPI_Comm grid)
{
    MPI_Group group;
    int rc = MPI_Comm_group(grid, &group);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Comm_create_group(grid, group, CONTEXT_TAG, &cx->comm);
        MPI_Group_free(&group);
    }
    if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(cx->comm, MPI_ERRORS_RETURN); /* one-off replays run on it */
    if (rc == MPI_SUCCESS) rc = MPI_Comm_size(cx->comm, &cx->nprocs);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "creating the communicator of a BLACS grid");
}

/* A new context for the grid (collective over its processes), attached to
 * the grid's communicator. */
static relay_status new_context(MPI_Comm grid, rl_blacs_context **out)
{
    rl_blacs_context *cx = calloc(1, sizeof *cx);
    if (!cx) return RL_NOMEM();
    cx->comm = MPI_COMM_NULL;
    relay_status st = create_context_comm(cx, grid);
    int rc = st ? MPI_SUCCESS : MPI_Comm_set_attr(grid, grid_keyval, cx);
    if (!st && rc != MPI_SUCCESS) st = rl_mpi_fail(rc, "attaching relay's cache to a BLACS grid");
    if (st) {
        free_context(cx);
        return st;
    }
    rl_blacs_context **tail = &contexts;
    while (*tail) tail = &(*tail)->next;
    *tail = cx;
    ncontexts++;
    cx->grid = grid;
    *out = cx;
    return RELAY_OK;
}

relay_status rl_scalapack_find_context(int ictxt, rl_blacs_context **out)
{
    relay_status st = make_keyvals();
    if (st) return st;
    MPI_Comm grid = grid_communicator(ictxt);
    if (grid == MPI_COMM_NULL) return rl_fail(RELAY_ERR_ARG, "BLACS context %d has no communicator", ictxt);
    void *value = NULL;
    int found = 0, rc = MPI_Comm_get_attr(grid, grid_keyval, &value, &found);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "reading a BLACS grid's attribute");
    if (found) {
        *out = value;
        return RELAY_OK;
    }
    return new_context(grid, out);
}

relay_status relay_scalapack_cache_get_stats(relay_scalapack_cache_stats *s)
{
    if (!s) return rl_fail(RELAY_ERR_ARG, "relay_scalapack_cache_get_stats: NULL argument");
    rl_scalapack_plan_stats(s);
    s->contexts = ncontexts;
    return RELAY_OK;
}

/* Deleting the attribute runs grid_freed, which unlinks the context. */
relay_status relay_scalapack_cache_clear(void)
{
    while (contexts) {
        rl_blacs_context *cx = contexts;
        if (MPI_Comm_delete_attr(cx->grid, grid_keyval) != MPI_SUCCESS)
            unlink_context(cx); /* a live grid's attribute always goes; never loop on one that would not */
    }
    return RELAY_OK;
}
