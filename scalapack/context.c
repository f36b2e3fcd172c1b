/* context.c — the BLACS contexts relay_scalapack has seen: each one's
 * processes as an MPI communicator of their own (ordered by BLACS process
 * number), created collectively the first time a context is used, and its
 * plan cache; freed together by relay_scalapack_cache_clear or, for what
 * the user left, at MPI_Finalize. */
#include <string.h>

#include "error.h"
#include "mpi_error.h"
#include "scalapack_internal.h"

enum { BLACS_SYSTEM_CONTEXT = 10, CONTEXT_TAG = 0x5ca1 };

static rl_blacs_context *contexts;

static int cmp_int(const void *x, const void *y) { return (*(const int *)x > *(const int *)y) - (*(const int *)x < *(const int *)y); }


/* The processes of a BLACS context, by their rank in its system communicator. */
static int *context_processes(int ictxt, int nprow, int npcol)
{
    int *pnum = rl_malloc_array((size_t)nprow * (size_t)npcol, sizeof *pnum);
    if (!pnum) return NULL;
    for (int r = 0; r < nprow; r++)
        for (int c = 0; c < npcol; c++) pnum[r * npcol + c] = Cblacs_pnum(ictxt, r, c);
    return pnum;
}

static relay_status create_context_comm(rl_blacs_context *cx)
{
    int *sorted = rl_malloc_array((size_t)cx->nprocs, sizeof *sorted);
    if (!sorted) return RL_NOMEM();
    memcpy(sorted, cx->pnum, (size_t)cx->nprocs * sizeof *sorted);
    qsort(sorted, (size_t)cx->nprocs, sizeof *sorted, cmp_int);
    MPI_Group all, mine;
    int rc = MPI_Comm_group(cx->sys, &all);
    if (rc == MPI_SUCCESS) rc = MPI_Group_incl(all, cx->nprocs, sorted, &mine);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Comm_create_group(cx->sys, mine, CONTEXT_TAG, &cx->comm);
        MPI_Group_free(&mine);
    }
    if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(cx->comm, MPI_ERRORS_RETURN); /* one-off replays run on it */
    if (rc == MPI_SUCCESS) MPI_Group_free(&all);
    free(sorted);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "creating the communicator of a BLACS context");
}

static void free_context(rl_blacs_context *cx)
{
    rl_scalapack_drop_entries(cx);
    if (cx->comm != MPI_COMM_NULL) MPI_Comm_free(&cx->comm);
    free(cx->pnum);
    free(cx);
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still
 * works: that is where whatever the user did not clear is freed. */
static int clear_at_finalize(MPI_Comm comm, int keyval, void *value, void *extra)
{
    relay_scalapack_cache_clear();
    return MPI_SUCCESS;
}

static void register_finalize_hook(void)
{
    static int registered;
    int keyval;
    if (registered) return;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, clear_at_finalize, &keyval, NULL) == MPI_SUCCESS &&
        MPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL) == MPI_SUCCESS)
        registered = 1;
}

relay_status rl_scalapack_find_context(int ictxt, int nprow, int npcol, rl_blacs_context **out)
{
    int n = nprow * npcol, sysctxt;
    int *pnum = context_processes(ictxt, nprow, npcol);
    if (!pnum) return RL_NOMEM();
    Cblacs_get(ictxt, BLACS_SYSTEM_CONTEXT, &sysctxt);
    MPI_Comm sys = Cblacs2sys_handle(sysctxt);
    for (rl_blacs_context *cx = contexts; cx; cx = cx->next)
        if (cx->ictxt == ictxt && cx->sys == sys && cx->nprocs == n && !memcmp(cx->pnum, pnum, (size_t)n * sizeof *pnum)) {
            free(pnum);
            *out = cx;
            return RELAY_OK;
        }
    rl_blacs_context *cx = calloc(1, sizeof *cx);
    if (!cx) {
        free(pnum);
        return RL_NOMEM();
    }
    *cx = (rl_blacs_context){NULL, ictxt, sys, n, pnum, MPI_COMM_NULL, NULL, 0};
    relay_status st = create_context_comm(cx);
    if (st) {
        free_context(cx);
        return st;
    }
    rl_blacs_context **tail = &contexts;
    while (*tail) tail = &(*tail)->next;
    *tail = cx;
    register_finalize_hook();
    *out = cx;
    return RELAY_OK;
}

relay_status relay_scalapack_cache_clear(void)
{
    while (contexts) {
        rl_blacs_context *cx = contexts;
        contexts = cx->next;
        free_context(cx);
    }
    return RELAY_OK;
}
