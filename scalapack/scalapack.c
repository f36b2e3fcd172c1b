/* scalapack.c — relay behind ScaLAPACK's p?gemr2d and p?tran.
 *
 * One call runs four steps:
 *   1. context: the BLACS context's processes, as a communicator of their
 *      own (created once per context, ordered by BLACS process number);
 *   2. gather: every process contributes what only it knows (its place in
 *      each matrix's grid, its descriptors and local leading dimensions),
 *      so that all hold the same global view, even those outside a grid;
 *   3. key: the view, flattened, identifies the data movement; it is
 *      checked (identically on every process, so errors are collective)
 *      and looked up in the context's plan cache;
 *   4. replay: on a miss the matrices' layouts are rebuilt as relay grid
 *      layouts (any submatrix origin, any process map, per-process lld),
 *      planned and bound; then the executor replays over the arrays.
 * Caches are per context, so evicting (a collective free) involves exactly
 * the processes that share the context and make the same calls. */
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "error.h"
#include "mpi_error.h"
#include "relay/relay.h"
#include "relay/scalapack.h"

/* BLACS (Debian ships no C header for it). */
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
int Cblacs_pnum(int ctxt, int prow, int pcol);
void Cblacs_get(int ctxt, int what, int *val);
MPI_Comm Cblacs2sys_handle(int sysctxt);

enum { DTYPE_, CTXT_, M_, N_, MB_, NB_, RSRC_, CSRC_, LLD_, DLEN_ };
enum { BLACS_SYSTEM_CONTEXT = 10, CONTEXT_TAG = 0x5ca1 };

/* ---- 1. contexts ---------------------------------------------------------- */

typedef struct cache_entry {
    struct cache_entry *next;     /* most recently used first */
    uint64_t hash;
    size_t key_len;
    int32_t *key;
    relay_exec *exec;
} cache_entry;

typedef struct context {
    struct context *next;         /* creation order */
    int ictxt;
    MPI_Comm sys;                 /* the system communicator the context lives in */
    int nprocs;
    int *pnum;                    /* its processes' ranks in sys, grid row-major */
    MPI_Comm comm;                /* those processes, in increasing pnum order */
    cache_entry *entries;
    int nentries;
} context;

static context *contexts;
static relay_scalapack_cache_stats stats;

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

static relay_status create_context_comm(context *cx)
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
    if (rc == MPI_SUCCESS) MPI_Group_free(&all);
    free(sorted);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "creating the communicator of a BLACS context");
}

static void free_context(context *cx)
{
    for (cache_entry *e = cx->entries, *next; e; e = next) {
        next = e->next;
        relay_exec_free(e->exec);
        free(e->key);
        free(e);
    }
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

/* The context of ictxt, created (collectively over its processes) when new
 * or when the handle now names another process set. */
static relay_status find_context(int ictxt, int nprow, int npcol, context **out)
{
    int n = nprow * npcol, sysctxt;
    int *pnum = context_processes(ictxt, nprow, npcol);
    if (!pnum) return RL_NOMEM();
    Cblacs_get(ictxt, BLACS_SYSTEM_CONTEXT, &sysctxt);
    MPI_Comm sys = Cblacs2sys_handle(sysctxt);
    for (context *cx = contexts; cx; cx = cx->next)
        if (cx->ictxt == ictxt && cx->sys == sys && cx->nprocs == n && !memcmp(cx->pnum, pnum, (size_t)n * sizeof *pnum)) {
            free(pnum);
            *out = cx;
            return RELAY_OK;
        }
    context *cx = calloc(1, sizeof *cx);
    if (!cx) {
        free(pnum);
        return RL_NOMEM();
    }
    *cx = (context){NULL, ictxt, sys, n, pnum, MPI_COMM_NULL, NULL, 0};
    relay_status st = create_context_comm(cx);
    if (st) {
        free_context(cx);
        return st;
    }
    context **tail = &contexts;
    while (*tail) tail = &(*tail)->next;
    *tail = cx;
    register_finalize_hook();
    *out = cx;
    return RELAY_OK;
}

/* ---- 2. gathering the global view ------------------------------------------- */

/* What one process knows about one matrix of the call. */
typedef struct {
    int32_t row, col;            /* its place in the matrix's grid, -1 outside */
    int32_t nprow, npcol;
    int32_t desc[DLEN_];
    int32_t i, j;                /* 1-based origin of the submatrix */
} matrix_view;

typedef struct {
    matrix_view src, dst;
} process_view;

static matrix_view view_of(const int *desc, int i, int j)
{
    matrix_view v = {-1, -1, 0, 0, {0}, i, j};
    if (!desc) return v;
    for (int k = 0; k < DLEN_; k++) v.desc[k] = desc[k];
    if (desc[CTXT_] >= 0) Cblacs_gridinfo(desc[CTXT_], &v.nprow, &v.npcol, &v.row, &v.col);
    if (v.row < 0 || v.col < 0) v.row = v.col = -1;
    return v;
}

/* ---- 3. the key: one matrix's layout, checked -------------------------------- */

/* A matrix's layout as the key stores it: m, n, i, j, mb, nb, rsrc, csrc,
 * nprow, npcol, then per grid position the owner's rank in the context
 * communicator and that owner's lld. */
enum { K_M, K_N, K_I, K_J, K_MB, K_NB, K_RSRC, K_CSRC, K_NPROW, K_NPCOL, K_FIXED };

static int64_t numroc(int64_t n, int64_t nb, int64_t iproc, int64_t isrc, int64_t nprocs)
{
    int64_t dist = (iproc - isrc + nprocs) % nprocs, nblocks = n / nb;
    int64_t rows = nblocks / nprocs * nb, extra = nblocks % nprocs;
    if (dist < extra) rows += nb;
    else if (dist == extra) rows += n % nb;
    return rows;
}

/* Fills key[0 .. K_FIXED + 2*nprow*npcol) for a matrix of rows x cols
 * (its submatrix's extent) from all processes' views; what names the
 * argument in error messages. */
static relay_status matrix_key(int32_t *key, const process_view *all, int nprocs, int is_dst, int64_t rows, int64_t cols,
                               const char *what)
{
    const matrix_view *first = NULL;
    for (int p = 0; p < nprocs && !first; p++) {
        const matrix_view *v = is_dst ? &all[p].dst : &all[p].src;
        if (v->row >= 0) first = v;
    }
    if (!first) return rl_fail(RELAY_ERR_ARG, "%s: no process of the context is in the matrix's grid", what);
    const int32_t *d = first->desc;
    if (d[DTYPE_] != 1 || d[M_] < 0 || d[N_] < 0 || d[MB_] < 1 || d[NB_] < 1 || d[RSRC_] < 0 || d[RSRC_] >= first->nprow ||
        d[CSRC_] < 0 || d[CSRC_] >= first->npcol)
        return rl_fail(RELAY_ERR_ARG, "%s: the descriptor is not a valid block-cyclic descriptor (dtype %d, %d x %d, "
                       "blocks %d x %d, source %d,%d on a %d x %d grid)", what, d[DTYPE_], d[M_], d[N_], d[MB_], d[NB_],
                       d[RSRC_], d[CSRC_], first->nprow, first->npcol);
    if (first->i < 1 || first->j < 1 || first->i - 1 + rows > d[M_] || first->j - 1 + cols > d[N_])
        return rl_fail(RELAY_ERR_ARG, "%s: the %lld x %lld submatrix at (%d, %d) leaves the %d x %d matrix", what,
                       (long long)rows, (long long)cols, first->i, first->j, d[M_], d[N_]);
    int32_t fixed[K_FIXED] = {(int32_t)rows, (int32_t)cols, first->i, first->j, d[MB_], d[NB_], d[RSRC_], d[CSRC_],
                              first->nprow, first->npcol};
    memcpy(key, fixed, sizeof fixed);
    int32_t *owner = key + K_FIXED, *lld = owner + first->nprow * first->npcol;
    for (int g = 0; g < first->nprow * first->npcol; g++) owner[g] = -1;
    for (int p = 0; p < nprocs; p++) {
        const matrix_view *v = is_dst ? &all[p].dst : &all[p].src;
        if (v->row < 0) continue;
        int g = v->row * first->npcol + v->col;
        if (v->nprow != first->nprow || v->npcol != first->npcol || owner[g] >= 0 ||
            memcmp(v->desc + M_, d + M_, (LLD_ - M_) * sizeof *d) || v->i != first->i || v->j != first->j)
            return rl_fail(RELAY_ERR_ARG, "%s: processes disagree on the descriptor, the origin or the grid", what);
        int64_t need = numroc(d[M_], d[MB_], v->row, d[RSRC_], first->nprow);
        if (v->desc[LLD_] < (need > 1 ? need : 1))
            return rl_fail(RELAY_ERR_ARG, "%s: process (%d, %d) has lld %d below its %lld local rows", what, v->row, v->col,
                           v->desc[LLD_], (long long)need);
        owner[g] = p;
        lld[g] = v->desc[LLD_];
    }
    for (int g = 0; g < first->nprow * first->npcol; g++)
        if (owner[g] < 0) return rl_fail(RELAY_ERR_ARG, "%s: grid position %d has no process in the call's context", what, g);
    return RELAY_OK;
}

static size_t matrix_key_len(const process_view *all, int nprocs, int is_dst)
{
    for (int p = 0; p < nprocs; p++) {
        const matrix_view *v = is_dst ? &all[p].dst : &all[p].src;
        if (v->row >= 0) return K_FIXED + 2 * (size_t)v->nprow * (size_t)v->npcol;
    }
    return K_FIXED;
}

/* ---- 4. layouts, plans and the cache ------------------------------------------- */

/* Splits of a submatrix extent starting at global index origin (0-based)
 * at the block boundaries of block size nb; returns the block count. */
static int64_t submatrix_splits(int64_t origin, int64_t extent, int64_t nb, int64_t *splits)
{
    int64_t k = 0, at = 0;
    splits[k++] = 0;
    while (at < extent) {
        int64_t next = at + nb - (origin + at) % nb;
        at = next < extent ? next : extent;
        splits[k++] = at;
    }
    return k - 1;
}

/* ScaLAPACK's indxg2p and indxg2l for global index g (0-based). */
static int64_t process_of(int64_t g, int64_t nb, int64_t src, int64_t nprocs) { return (src + g / nb) % nprocs; }
static int64_t local_of(int64_t g, int64_t nb, int64_t nprocs) { return g / (nb * nprocs) * nb + g % nb; }

/* The layout of one matrix's submatrix over the context's processes. */
static relay_status key_layout(relay_layout **out, const int32_t *k, int nprocs)
{
    int64_t rows = k[K_M], cols = k[K_N], r0 = k[K_I] - 1, c0 = k[K_J] - 1;
    int64_t nprow = k[K_NPROW], npcol = k[K_NPCOL];
    const int32_t *owner = k + K_FIXED, *lld = owner + nprow * npcol;
    int64_t *rs = rl_malloc_array((size_t)(rows / k[K_MB] + 3), sizeof *rs);
    int64_t *cs = rl_malloc_array((size_t)(cols / k[K_NB] + 3), sizeof *cs);
    relay_status st = !rs || !cs ? RL_NOMEM() : RELAY_OK;
    int64_t nbr = st ? 0 : submatrix_splits(r0, rows, k[K_MB], rs), nbc = st ? 0 : submatrix_splits(c0, cols, k[K_NB], cs);
    size_t nblocks = (size_t)nbr * (size_t)nbc;
    int *owners = st ? NULL : rl_malloc_array(nblocks, sizeof *owners);
    int64_t *offsets = st ? NULL : rl_malloc_array(nblocks, sizeof *offsets), *lds = st ? NULL : rl_malloc_array(nblocks, sizeof *lds);
    if (!st && (!owners || !offsets || !lds)) st = RL_NOMEM();
    for (int64_t bi = 0; !st && bi < nbr; bi++)
        for (int64_t bj = 0; bj < nbc; bj++) {
            int64_t gi = r0 + rs[bi], gj = c0 + cs[bj];
            int64_t g = process_of(gi, k[K_MB], k[K_RSRC], nprow) * npcol + process_of(gj, k[K_NB], k[K_CSRC], npcol);
            size_t b = (size_t)(bi * nbc + bj);
            owners[b] = owner[g];
            lds[b] = lld[g];
            offsets[b] = local_of(gi, k[K_MB], nprow) + local_of(gj, k[K_NB], npcol) * lld[g];
        }
    if (!st) st = relay_layout_grid(out, nprocs, rows, cols, (int)nbr, rs, (int)nbc, cs, owners, offsets, lds, RELAY_COL_MAJOR);
    free(rs);
    free(cs);
    free(owners);
    free(offsets);
    free(lds);
    return st;
}

/* The key: type, op, then the source's and the destination's layout. */
enum { KEY_TYPE, KEY_OP, KEY_SRC_LEN, KEY_HEAD };

static relay_status build_key(int32_t **out, size_t *len, const process_view *all, int nprocs, relay_type type, relay_op op,
                              int64_t m, int64_t n, const char *fn)
{
    size_t ls = matrix_key_len(all, nprocs, 0), ld = matrix_key_len(all, nprocs, 1);
    int32_t *key = rl_malloc_array(KEY_HEAD + ls + ld, sizeof *key);
    if (!key) return RL_NOMEM();
    key[KEY_TYPE] = type;
    key[KEY_OP] = op;
    key[KEY_SRC_LEN] = (int32_t)ls;
    int t = op != RELAY_OP_N;
    char what[96];
    snprintf(what, sizeof what, "%s, source matrix", fn);
    relay_status st = matrix_key(key + KEY_HEAD, all, nprocs, 0, t ? n : m, t ? m : n, what);
    snprintf(what, sizeof what, "%s, destination matrix", fn);
    if (!st) st = matrix_key(key + KEY_HEAD + ls, all, nprocs, 1, m, n, what);
    if (st) {
        free(key);
        return st;
    }
    *out = key;
    *len = KEY_HEAD + ls + ld;
    return RELAY_OK;
}

static relay_status plan_entry(cache_entry *e, const context *cx)
{
    const int32_t *k = e->key;
    relay_layout *src = NULL, *dst = NULL;
    relay_plan *plan = NULL;
    relay_status st = key_layout(&src, k + KEY_HEAD, cx->nprocs);
    if (!st) st = key_layout(&dst, k + KEY_HEAD + k[KEY_SRC_LEN], cx->nprocs);
    if (!st) st = relay_plan_transform(&plan, cx->nprocs, dst, src, (relay_op)k[KEY_OP], (relay_type)k[KEY_TYPE], NULL);
    if (!st) st = relay_exec_create(&e->exec, plan, cx->comm);
    relay_plan_free(plan);
    relay_layout_free(src);
    relay_layout_free(dst);
    return st;
}

/* Drops the least recently used entry of a full cache (collective over the
 * context: every process holds the same list). */
static void evict_if_full(context *cx)
{
    if (cx->nentries < RELAY_SCALAPACK_CACHE_SIZE) return;
    cache_entry **last = &cx->entries;
    while ((*last)->next) last = &(*last)->next;
    relay_exec_free((*last)->exec);
    free((*last)->key);
    free(*last);
    *last = NULL;
    cx->nentries--;
    stats.entries--;
}

/* The executor for a key: moved to the front when cached, planned if not. */
static relay_status lookup(context *cx, int32_t *key, size_t len, relay_exec **exec)
{
    uint64_t h = XXH3_64bits(key, len * sizeof *key);
    for (cache_entry **at = &cx->entries; *at; at = &(*at)->next) {
        cache_entry *e = *at;
        if (e->hash != h || e->key_len != len || memcmp(e->key, key, len * sizeof *key)) continue;
        *at = e->next;
        e->next = cx->entries;
        cx->entries = e;
        free(key);
        stats.hits++;
        *exec = e->exec;
        return RELAY_OK;
    }
    cache_entry *e = calloc(1, sizeof *e);
    if (!e) {
        free(key);
        return RL_NOMEM();
    }
    *e = (cache_entry){NULL, h, len, key, NULL};
    relay_status st = plan_entry(e, cx);
    if (st) {
        free(key);
        free(e);
        return st;
    }
    evict_if_full(cx);
    e->next = cx->entries;
    cx->entries = e;
    cx->nentries++;
    stats.entries++;
    stats.misses++;
    *exec = e->exec;
    return RELAY_OK;
}

/* ---- the calls ------------------------------------------------------------------ */

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

static relay_status run_call(const call *c)
{
    int nprow, npcol, myrow, mycol;
    if (c->m < 0 || c->n < 0) return rl_fail(RELAY_ERR_ARG, "%s: negative size %d x %d", c->fn, c->m, c->n);
    Cblacs_gridinfo(c->ictxt, &nprow, &npcol, &myrow, &mycol);
    if (myrow < 0 || mycol < 0) return RELAY_OK; /* not a process of the context: nothing to do, as in ScaLAPACK */
    if (c->m == 0 || c->n == 0) return RELAY_OK;
    context *cx = NULL;
    relay_status st = find_context(c->ictxt, nprow, npcol, &cx);
    if (st) return st;
    process_view mine = {view_of(c->sdesc, c->si, c->sj), view_of(c->ddesc, c->di, c->dj)};
    process_view *all = rl_malloc_array((size_t)cx->nprocs, sizeof *all);
    if (!all) return RL_NOMEM(); /* a few bytes per process: if even these are missing, the peers wait in vain */
    int rc = MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, cx->comm);
    int32_t *key = NULL;
    size_t len = 0;
    st = rc == MPI_SUCCESS ? build_key(&key, &len, all, cx->nprocs, c->type, c->op, c->m, c->n, c->fn)
                           : rl_mpi_fail(rc, "gathering the descriptors");
    free(all);
    relay_exec *exec = NULL;
    if (!st) st = lookup(cx, key, len, &exec);
    if (!st) st = relay_exec_run(exec, (void *const[]){mine.dst.row >= 0 ? c->dst : NULL},
                                 (const void *const[]){mine.src.row >= 0 ? c->src : NULL}, c->alpha, c->beta);
    return st;
}

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

relay_status relay_scalapack_cache_get_stats(relay_scalapack_cache_stats *s)
{
    if (!s) return rl_fail(RELAY_ERR_ARG, "relay_scalapack_cache_get_stats: NULL argument");
    *s = stats;
    return RELAY_OK;
}

relay_status relay_scalapack_cache_clear(void)
{
    while (contexts) {
        context *cx = contexts;
        contexts = cx->next;
        free_context(cx);
    }
    stats.entries = 0;
    return RELAY_OK;
}
