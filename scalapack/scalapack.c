/* scalapack.c — relay behind ScaLAPACK's p?gemr2d and PBLAS's p?tran
 * (relay/scalapack.h): the entry points, and the call they share, which
 * runs the four steps of scalapack_internal.h — find the context, gather
 * every process's view, build and check the key, look up (or plan and
 * bind) its executor — and replays it over the caller's arrays. */
#include "error.h"
#include "mpi_error.h"
#include "scalapack_internal.h"

/* ---- one call ------------------------------------------------------------ */

/* A call's arguments: gemr2d's with op N and no scalars, tran's. */
typedef struct {
    const char *fn;
    relay_type type;
    relay_op op;
    int m, n, ictxt;
    const void *src;
    int si, sj;
    const int *sdesc;
    void *dst;
    int di, dj;
    const int *ddesc;
    const void *alpha, *beta;
} call;

/* Where some process of the context dropped one of its plans alone (the
 * per-process cap), the context's caches differ: every process drops the
 * context's plans, so that the lookup hits or misses alike everywhere. */
static void settle_pruned(rl_blacs_context *cx, const rl_process_view *all)
{
    for (int p = 0; p < cx->nprocs; p++)
        if (all[p].pruned) {
            rl_scalapack_drop_entries(cx);
            return;
        }
}

/* Steps 2 and 3: every process's view, gathered over the context, as the
 * call's key. */
static relay_status gather_key(rl_blacs_context *cx, const rl_process_view *mine, const call *c, int32_t **key,
                               size_t *len)
{
    rl_process_view *all = rl_malloc_array((size_t)cx->nprocs, sizeof *all);
    if (!all) return RL_NOMEM(); /* a few bytes per process: if even these are missing, the peers wait in vain */
    int rc = MPI_Allgather(mine, sizeof *mine, MPI_BYTE, all, sizeof *mine, MPI_BYTE, cx->comm);
    if (rc == MPI_SUCCESS) settle_pruned(cx, all);
    relay_status st = rc == MPI_SUCCESS ? rl_scalapack_build_key(key, len, all, cx->nprocs, c->type, c->op, c->m, c->n, c->fn)
                                        : rl_mpi_fail(rc, "gathering the descriptors");
    free(all);
    return st;
}

static relay_status run_call(const call *c)
{
    int nprow, npcol, myrow, mycol;
    if (c->m < 0 || c->n < 0) return rl_fail(RELAY_ERR_ARG, "%s: negative size %d x %d", c->fn, c->m, c->n);
    Cblacs_gridinfo(c->ictxt, &nprow, &npcol, &myrow, &mycol);
    if (myrow < 0 || mycol < 0) return RELAY_OK; /* not a process of the context: nothing to do, as in ScaLAPACK */
    if (c->m == 0 || c->n == 0) return RELAY_OK;
    rl_blacs_context *cx = NULL;
    relay_status st = rl_scalapack_find_context(c->ictxt, &cx);
    if (st) return st;
    rl_process_view mine = {rl_scalapack_view_of(c->sdesc, c->si, c->sj), rl_scalapack_view_of(c->ddesc, c->di, c->dj),
                            cx->pruned};
    int32_t *key = NULL;
    size_t len = 0;
    relay_exec *exec = NULL;
    st = gather_key(cx, &mine, c, &key, &len);
    if (!st) st = rl_scalapack_lookup(cx, key, len, &exec);
    if (!st) st = relay_exec_run(exec, (void *const[]){mine.dst.row >= 0 ? c->dst : NULL},
                                 (const void *const[]){mine.src.row >= 0 ? c->src : NULL}, c->alpha, c->beta);
    return st;
}

/* ---- the entry points ---------------------------------------------------- */

static relay_status gemr2d(const char *fn, relay_type t, int m, int n, const void *a, int ia, int ja, const int *desca, void *b,
                           int ib, int jb, const int *descb, int ictxt)
{
    call c = {fn, t, RELAY_OP_N, m, n, ictxt, a, ia, ja, desca, b, ib, jb, descb, NULL, NULL};
    return run_call(&c);
}

relay_status relay_psgemr2d(int m, int n, const float *a, int ia, int ja, const int *desca, float *b, int ib, int jb,
                            const int *descb, int ictxt)
{
    return gemr2d("relay_psgemr2d", RELAY_FLOAT, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

relay_status relay_pdgemr2d(int m, int n, const double *a, int ia, int ja, const int *desca, double *b, int ib, int jb,
                            const int *descb, int ictxt)
{
    return gemr2d("relay_pdgemr2d", RELAY_DOUBLE, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

relay_status relay_pcgemr2d(int m, int n, const void *a, int ia, int ja, const int *desca, void *b, int ib, int jb,
                            const int *descb, int ictxt)
{
    return gemr2d("relay_pcgemr2d", RELAY_CFLOAT, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

relay_status relay_pzgemr2d(int m, int n, const void *a, int ia, int ja, const int *desca, void *b, int ib, int jb,
                            const int *descb, int ictxt)
{
    return gemr2d("relay_pzgemr2d", RELAY_CDOUBLE, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

/* PBLAS runs p?tran on the context of C's descriptor (A's must share it). */
static relay_status tran(const char *fn, relay_type t, relay_op op, int m, int n, const void *alpha, const void *a, int ia,
                         int ja, const int *desca, const void *beta, void *c, int ic, int jc, const int *descc)
{
    if (!desca || !descc) return rl_fail(RELAY_ERR_ARG, "%s: a descriptor is NULL", fn);
    call cl = {fn, t, op, m, n, descc[CTXT_], a, ia, ja, desca, c, ic, jc, descc, alpha, beta};
    return run_call(&cl);
}

relay_status relay_pstran(int m, int n, float alpha, const float *a, int ia, int ja, const int *desca, float beta, float *c,
                          int ic, int jc, const int *descc)
{
    return tran("relay_pstran", RELAY_FLOAT, RELAY_OP_T, m, n, &alpha, a, ia, ja, desca, &beta, c, ic, jc, descc);
}

relay_status relay_pdtran(int m, int n, double alpha, const double *a, int ia, int ja, const int *desca, double beta,
                          double *c, int ic, int jc, const int *descc)
{
    return tran("relay_pdtran", RELAY_DOUBLE, RELAY_OP_T, m, n, &alpha, a, ia, ja, desca, &beta, c, ic, jc, descc);
}

relay_status relay_pctranu(int m, int n, const void *alpha, const void *a, int ia, int ja, const int *desca, const void *beta,
                           void *c, int ic, int jc, const int *descc)
{
    return tran("relay_pctranu", RELAY_CFLOAT, RELAY_OP_T, m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);
}

relay_status relay_pztranu(int m, int n, const void *alpha, const void *a, int ia, int ja, const int *desca, const void *beta,
                           void *c, int ic, int jc, const int *descc)
{
    return tran("relay_pztranu", RELAY_CDOUBLE, RELAY_OP_T, m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);
}

relay_status relay_pctranc(int m, int n, const void *alpha, const void *a, int ia, int ja, const int *desca, const void *beta,
                           void *c, int ic, int jc, const int *descc)
{
    return tran("relay_pctranc", RELAY_CFLOAT, RELAY_OP_C, m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);
}

relay_status relay_pztranc(int m, int n, const void *alpha, const void *a, int ia, int ja, const int *desca, const void *beta,
                           void *c, int ic, int jc, const int *descc)
{
    return tran("relay_pztranc", RELAY_CDOUBLE, RELAY_OP_C, m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);
}
