/* hsumma_exec.c — replaying SUMMA and HSUMMA (the HSUMMA paper, Algorithm 1).
 *
 * Rank (x, y)(i, j) — group (x, y), position (i, j) inside it — takes part
 * in four communicators, split once at bind:
 *   OUTER_ROW  same grid row, same in-group column j, one rank per group column
 *   OUTER_COL  same grid column, same in-group row i, one rank per group row
 *   INNER_ROW  same group, same grid row
 *   INNER_COL  same group, same grid column
 * Per outer step (k indices [k0, k1) that one grid column of A and one grid
 * row of B hold), the owners copy their panel into the outer buffer (A's
 * columns are contiguous; B's rows are packed row-major so that each inner
 * piece is contiguous too) and broadcast it over OUTER_ROW / OUTER_COL to
 * the ranks in the same in-group position of the other groups.  Per inner
 * step, those ranks broadcast a b-wide piece over INNER_ROW / INNER_COL, and
 * every rank adds A_piece * B_piece to its C with one CBLAS gemm.
 *
 * Every member of a communicator walks the same steps in the same order, so
 * the blocking broadcasts cannot deadlock; a broadcast of zero elements (a
 * grid row or column that holds no rows or columns) is skipped by all of
 * its members alike, and all ranks agree at bind whether broadcasts are
 * persistent.  Where the MPI library offers persistent collectives
 * (MPI-4's MPI_Bcast_init, or Open MPI 4's MPIX_Bcast_init extension) each
 * broadcast is a persistent request created at bind over the executor's
 * fixed panel buffers; otherwise it is a plain MPI_Bcast.
 *
 * The executor's facade (exec.c) drives this file through its kind table,
 * rl_exec_hsumma (exec_kind.h); the autotuner (hsumma_tune.c) drives it
 * directly, a few outer steps at a time. */
#include <cblas.h>
#include <complex.h>
#include <string.h>

#include <mpi.h>
#if MPI_VERSION >= 4
#define RL_BCAST_INIT MPI_Bcast_init
#else
#ifdef OPEN_MPI
#include <mpi-ext.h>
#endif
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define RL_BCAST_INIT MPIX_Bcast_init
#endif
#endif

#include "agree.h"
#include "error.h"
#include "exec_kind.h"
#include "hsumma_dist.h"
#include "hsumma_exec.h"
#include "kernels.h"
#include "mpi_error.h"
#include "stand_in.h"
#include "relay/exec.h"

enum { OUTER_ROW, OUTER_COL, INNER_ROW, INNER_COL, NCOMMS };

/* Persistent broadcasts beyond this many per rank are not worth their
 * memory: the replay falls back to plain MPI_Bcast. */
enum { MAX_PERSISTENT = 1 << 16 };

struct rl_hsumma_exec {
    relay_hsumma_params p;       /* groups as replayed (settled at bind) */
    int rank;
    rl_hsumma_dims d;
    rl_hsumma_place pl;
    size_t esz;
    MPI_Datatype dtype;
    int64_t mloc, nloc, ka, kb;  /* A is mloc x ka, B kb x nloc, C mloc x nloc */
    char *a_out, *a_in;          /* A panels: outer (mloc x widest step) and inner (mloc x b), column-major */
    char *b_out, *b_in;          /* B panels: outer (widest step x nloc) and inner (b x nloc), row-major */
    MPI_Comm comm[NCOMMS];
    MPI_Request *bcasts;         /* persistent broadcasts, in walk order (or NULL: plain MPI_Bcast) */
    int64_t nbcasts;
    relay_hsumma_network measured;
    double comm_seconds, compute_seconds;
    /* The replay in flight. */
    const char *a, *b;
    char *c;
    rl_scalars sc;
};

static MPI_Datatype mpi_type(relay_type t)
{
    return t == RELAY_FLOAT ? MPI_FLOAT : t == RELAY_DOUBLE ? MPI_DOUBLE : t == RELAY_CFLOAT ? MPI_C_FLOAT_COMPLEX
                                                                                           : MPI_C_DOUBLE_COMPLEX;
}

relay_status rl_hsumma_exec_create(rl_hsumma_exec **out, const rl_hsumma *h, int rank)
{
    rl_hsumma_exec *x = *out = calloc(1, sizeof *x);
    if (!x) return RL_NOMEM();
    for (int c = 0; c < NCOMMS; c++) x->comm[c] = MPI_COMM_NULL;
    x->p = h->params;
    x->rank = rank;
    x->esz = relay_type_size(x->p.type);
    x->dtype = mpi_type(x->p.type);
    rl_hsumma_dims_of(&x->p, &x->d);
    x->mloc = rl_dim_local_len(&x->d.m, rank / x->p.grid_cols);
    x->nloc = rl_dim_local_len(&x->d.n, rank % x->p.grid_cols);
    x->ka = rl_dim_local_len(&x->d.ka, rank % x->p.grid_cols);
    x->kb = rl_dim_local_len(&x->d.kb, rank / x->p.grid_cols);
    int64_t outer = rl_hsumma_max_width(&x->p), inner = rl_min64(x->p.inner_block, outer);
    x->a_out = rl_malloc_array((size_t)(x->mloc * outer), x->esz);
    x->a_in = rl_malloc_array((size_t)(x->mloc * inner), x->esz);
    x->b_out = rl_malloc_array((size_t)(x->nloc * outer), x->esz);
    x->b_in = rl_malloc_array((size_t)(x->nloc * inner), x->esz);
    return x->a_out && x->a_in && x->b_out && x->b_in ? RELAY_OK : RL_NOMEM();
}

/* ---- the walk: one code path counts, creates and replays the broadcasts ---- */

typedef enum { WALK_COUNT, WALK_CREATE, WALK_RUN } walk_mode;

typedef struct {
    walk_mode mode;
    int64_t slot;        /* next broadcast in walk order */
} walker;

/* One broadcast of count elements at buf from root over communicator c. */
static int bcast(rl_hsumma_exec *x, walker *w, int c, void *buf, int64_t count, int root)
{
    int size;
    MPI_Comm_size(x->comm[c], &size);
    if (count == 0 || size == 1) return MPI_SUCCESS;
    int64_t slot = w->slot++;
    int rc = MPI_SUCCESS;
#ifdef RL_BCAST_INIT
    if (w->mode == WALK_CREATE && x->bcasts)
        return RL_BCAST_INIT(buf, (int)count, x->dtype, root, x->comm[c], MPI_INFO_NULL, &x->bcasts[slot]);
#endif
    if (w->mode != WALK_RUN) return MPI_SUCCESS;
    double t0 = MPI_Wtime();
    if (x->bcasts) {
        rc = MPI_Start(&x->bcasts[slot]);
        if (rc == MPI_SUCCESS) rc = MPI_Wait(&x->bcasts[slot], MPI_STATUS_IGNORE);
    } else
        rc = MPI_Bcast(buf, (int)count, x->dtype, root, x->comm[c]);
    x->comm_seconds += MPI_Wtime() - t0;
    return rc;
}

/* The owners' copies into the outer buffers: A's columns [a_local, +w)
 * are one contiguous run; B's rows [b_local, +w) are transposed into a
 * row-major w x nloc panel. */
static void copy_outer_panels(rl_hsumma_exec *x, const rl_outer_step *s)
{
    int64_t w = s->k1 - s->k0;
    if (x->pl.col == s->a_col && x->mloc)
        memcpy(x->a_out, x->a + (size_t)(s->a_local * x->mloc) * x->esz, (size_t)(w * x->mloc) * x->esz);
    if (x->pl.row == s->b_row && x->nloc) {
        rl_side dst = rl_side_at(x->b_out, x->nloc, RELAY_ROW_MAJOR, 0);
        rl_side src = rl_side_at((void *)(x->b + (size_t)s->b_local * x->esz), x->kb, RELAY_COL_MAJOR, 0);
        rl_copy(x->p.type, dst, src, w, x->nloc);
    }
}

static int outer_step(rl_hsumma_exec *x, walker *w, const rl_outer_step *s)
{
    const rl_hsumma_place *pl = &x->pl;
    int64_t width = s->k1 - s->k0;
    if (w->mode == WALK_RUN) {
        double t0 = MPI_Wtime();
        copy_outer_panels(x, s);
        x->compute_seconds += MPI_Wtime() - t0;
    }
    int rc = MPI_SUCCESS;
    if (pl->j == s->a_col % pl->in_cols) rc = bcast(x, w, OUTER_ROW, x->a_out, x->mloc * width, s->a_col / pl->in_cols);
    if (rc == MPI_SUCCESS && pl->i == s->b_row % pl->in_rows)
        rc = bcast(x, w, OUTER_COL, x->b_out, x->nloc * width, s->b_row / pl->in_rows);
    return rc;
}

/* C += alpha * A_piece * B_piece: A_piece is mloc x w column-major, B_piece
 * w x nloc row-major, i.e. the transpose of an nloc x w column-major one. */
static void gemm(rl_hsumma_exec *x, const void *a, const void *b, int64_t w)
{
    if (!x->mloc || !x->nloc) return;
    int m = (int)x->mloc, n = (int)x->nloc, k = (int)w;
    const rl_scalars *sc = &x->sc;
    static const float complex cf_one = 1.0f;
    static const double complex cd_one = 1.0;
    switch (x->p.type) {
    case RELAY_FLOAT:
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, sc->alpha.f, a, m, b, n, 1.0f, (float *)x->c, m);
        break;
    case RELAY_DOUBLE:
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, sc->alpha.d, a, m, b, n, 1.0, (double *)x->c, m);
        break;
    case RELAY_CFLOAT:
        cblas_cgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, &sc->alpha.cf, a, m, b, n, &cf_one, x->c, m);
        break;
    case RELAY_CDOUBLE:
        cblas_zgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, &sc->alpha.cd, a, m, b, n, &cd_one, x->c, m);
        break;
    }
}

static int inner_step(rl_hsumma_exec *x, walker *w, const rl_outer_step *s, int64_t i0, int64_t i1)
{
    const rl_hsumma_place *pl = &x->pl;
    int64_t width = i1 - i0, off = i0 - s->k0;
    int a_root = s->a_col % pl->in_cols, b_root = s->b_row % pl->in_rows;
    char *a = pl->j == a_root ? x->a_out + (size_t)(off * x->mloc) * x->esz : x->a_in;
    char *b = pl->i == b_root ? x->b_out + (size_t)(off * x->nloc) * x->esz : x->b_in;
    int rc = bcast(x, w, INNER_ROW, a, x->mloc * width, a_root);
    if (rc == MPI_SUCCESS) rc = bcast(x, w, INNER_COL, b, x->nloc * width, b_root);
    if (rc == MPI_SUCCESS && w->mode == WALK_RUN) {
        double t0 = MPI_Wtime();
        gemm(x, a, b, width);
        x->compute_seconds += MPI_Wtime() - t0;
    }
    return rc;
}

/* Walks the first max_outer outer steps (all: -1). */
static int walk(rl_hsumma_exec *x, walker *w, int64_t max_outer)
{
    rl_outer_step s;
    int rc = MPI_SUCCESS;
    for (int64_t k0 = 0, q = 0; k0 < x->p.k && q != max_outer && rc == MPI_SUCCESS; k0 = s.k1, q++) {
        rl_hsumma_outer_step(&x->p, &x->d, k0, &s);
        rc = outer_step(x, w, &s);
        for (int64_t i0 = s.k0; i0 < s.k1 && rc == MPI_SUCCESS; i0 = rl_hsumma_inner_end(&x->p, &s, i0))
            rc = inner_step(x, w, &s, i0, rl_hsumma_inner_end(&x->p, &s, i0));
    }
    return rc;
}

/* ---- binding ---------------------------------------------------------------- */

/* Groups left to bind time: the model with the network measured now
 * (network.c).  All ranks get rank 0's measurement, so they choose alike. */
static relay_status settle_groups(rl_hsumma_exec *x, MPI_Comm comm)
{
    if (x->p.group_rows) return RELAY_OK;
    relay_status st = relay_hsumma_measure_network(comm, &x->measured);
    x->measured.bcast = x->p.network.bcast;
    if (!st) st = relay_hsumma_best_groups(&x->p, &x->measured, &x->p.group_rows, &x->p.group_cols);
    return st;
}

static relay_status split_comms(rl_hsumma_exec *x, MPI_Comm comm)
{
    const rl_hsumma_place *pl = &x->pl;
    int color[NCOMMS] = {pl->row * pl->in_cols + pl->j, pl->col * pl->in_rows + pl->i, pl->row * pl->group_cols + pl->y,
                         pl->col * pl->group_rows + pl->x};
    int key[NCOMMS] = {pl->y, pl->x, pl->j, pl->i};
    for (int c = 0; c < NCOMMS; c++) {
        int rc = MPI_Comm_split(comm, color[c], key[c], &x->comm[c]);
        if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "MPI_Comm_split for the HSUMMA groups");
        MPI_Comm_set_errhandler(x->comm[c], MPI_ERRORS_RETURN);
    }
    return RELAY_OK;
}

/* The broadcasts this rank takes part in per replay (walk order). */
static int64_t count_bcasts(rl_hsumma_exec *x)
{
    walker count = {WALK_COUNT, 0};
    walk(x, &count, -1);
    return count.slot;
}

/* One persistent broadcast per walk step where the library has them,
 * unless some rank (most: the largest count) would need too many. */
static relay_status create_bcasts(rl_hsumma_exec *x, int64_t most)
{
#ifdef RL_BCAST_INIT
    int64_t mine = count_bcasts(x);
    if (most > MAX_PERSISTENT || mine == 0) return RELAY_OK;
    x->bcasts = rl_malloc_array((size_t)mine, sizeof *x->bcasts);
    if (!x->bcasts) return RL_NOMEM();
    for (int64_t i = 0; i < mine; i++) x->bcasts[i] = MPI_REQUEST_NULL;
    x->nbcasts = mine;
    walker create = {WALK_CREATE, 0};
    int rc = walk(x, &create, -1);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "creating the persistent broadcasts");
#else
    (void)x;
    (void)most;
    return RELAY_OK;
#endif
}

relay_status rl_hsumma_exec_bind(rl_hsumma_exec *x, MPI_Comm comm)
{
    relay_status st = settle_groups(x, comm);
    if (st) return st; /* collective failures: every rank sees them */
    rl_hsumma_place_of(&x->p, x->p.group_rows, x->p.group_cols, x->rank, &x->pl);
    st = split_comms(x, comm);
    /* One rank that failed alone must not leave the others waiting in a
     * broadcast, and a persistent broadcast must never meet a plain one:
     * every rank learns the largest count of broadcasts. */
    uint64_t most = st ? 0 : (uint64_t)count_bcasts(x);
    st = rl_agree_values(comm, st, &most, 1, "splitting the HSUMMA communicators");
    if (!st) st = rl_agree(comm, create_bcasts(x, (int64_t)most), "creating the HSUMMA broadcasts");
    return st;
}

/* ---- replay ---------------------------------------------------------------------- */

relay_status rl_hsumma_exec_start(rl_hsumma_exec *x, void *c, const void *a, const void *b, const void *alpha,
                                  const void *beta)
{
    const char *miss = x->mloc > 0 && x->ka > 0 && !a   ? "A (src[0])"
                       : x->kb > 0 && x->nloc > 0 && !b  ? "B (src[1])"
                       : x->mloc > 0 && x->nloc > 0 && !c ? "C (dst[0])"
                                                           : NULL;
    if (miss) return rl_fail(RELAY_ERR_ARG, "relay_exec_start: %s is NULL but rank %d holds part of it", miss, x->rank);
    x->a = a;
    x->b = b;
    x->c = c;
    rl_scalars_set(&x->sc, x->p.type, alpha, beta);
    return RELAY_OK;
}

/* C := beta C before the updates (beta 0: C is never read). */
static void scale_c(rl_hsumma_exec *x)
{
    int64_t n = x->mloc * x->nloc;
    const rl_scalars *sc = &x->sc;
    if (sc->beta_zero) {
        if (n) memset(x->c, 0, (size_t)n * x->esz);
        return;
    }
    switch (x->p.type) {
    case RELAY_FLOAT: for (int64_t i = 0; i < n; i++) ((float *)x->c)[i] *= sc->beta.f; break;
    case RELAY_DOUBLE: for (int64_t i = 0; i < n; i++) ((double *)x->c)[i] *= sc->beta.d; break;
    case RELAY_CFLOAT: for (int64_t i = 0; i < n; i++) ((float complex *)x->c)[i] *= sc->beta.cf; break;
    case RELAY_CDOUBLE: for (int64_t i = 0; i < n; i++) ((double complex *)x->c)[i] *= sc->beta.cd; break;
    }
}

relay_status rl_hsumma_exec_run_outer(rl_hsumma_exec *x, int64_t max_outer)
{
    x->comm_seconds = x->compute_seconds = 0;
    double t0 = MPI_Wtime();
    scale_c(x);
    x->compute_seconds += MPI_Wtime() - t0;
    walker w = {WALK_RUN, 0};
    int rc = walk(x, &w, max_outer);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "an HSUMMA broadcast");
}


void rl_hsumma_exec_free(rl_hsumma_exec *x)
{
    if (!x) return;
    for (int64_t i = 0; i < x->nbcasts; i++)
        if (x->bcasts[i] != MPI_REQUEST_NULL) MPI_Request_free(&x->bcasts[i]);
    for (int c = 0; c < NCOMMS; c++)
        if (x->comm[c] != MPI_COMM_NULL) MPI_Comm_free(&x->comm[c]);
    free(x->bcasts);
    free(x->a_out);
    free(x->a_in);
    free(x->b_out);
    free(x->b_in);
    free(x);
}

/* ---- the executor's HSUMMA kind (exec_kind.h) ------------------------------------- */

/* No section: the plan's parameters give every rank its part. */
static relay_status hsumma_prepare(void **state, const relay_plan *p, const rl_exec_setup *setup)
{
    int rank = setup->rank;
    relay_status st = p->hsumma ? rl_hsumma_check(&p->hsumma->params, RELAY_ERR_FORMAT)
                                : rl_fail(RELAY_ERR_FORMAT, "HSUMMA plan without its parameters");
    if (st || rank >= p->nranks) return st;
    rl_hsumma_exec *x = NULL;
    st = rl_hsumma_exec_create(&x, p->hsumma, rank);
    *state = x;
    return st;
}

static relay_status hsumma_bind(void *state, MPI_Comm comm, relay_internal_scratch *lent) { return rl_hsumma_exec_bind(state, comm); }

/* C in dst[0], A and B in src[0] and src[1]. */
static relay_status hsumma_start(void *state, void *const *dst, const void *const *src, const void *alpha, const void *beta)
{
    return rl_hsumma_exec_start(state, dst[0], src[0], src[1], alpha, beta);
}

/* The whole product runs here: the broadcasts are blocking, as in the paper. */
static relay_status hsumma_wait(void *state) { return rl_hsumma_exec_run_outer(state, -1); }

static void hsumma_memory(const void *state, relay_exec_memory *m)
{
    const rl_hsumma_exec *x = state;
    int64_t outer = rl_hsumma_max_width(&x->p), inner = rl_min64(x->p.inner_block, outer);
    rl_hsumma_traffic t;
    rl_hsumma_rank_traffic(&x->p, x->rank, &t);
    m->extra_bytes = (x->mloc + x->nloc) * (outer + inner) * (int64_t)x->esz + x->nbcasts * (int64_t)sizeof(MPI_Request);
    m->remote_bytes = t.send_bytes + t.recv_bytes;
}

static void hsumma_report(const void *state, relay_hsumma_report *r)
{
    const rl_hsumma_exec *x = state;
    *r = (relay_hsumma_report){x->p.group_rows, x->p.group_cols, x->measured, x->comm_seconds, x->compute_seconds};
}

static void hsumma_free(void *state) { rl_hsumma_exec_free(state); }

/* C (dst[0]), then A and B (src[0], src[1]). */
static relay_status hsumma_stand_in(void *state)
{
    rl_hsumma_exec *x = state;
    int64_t c = x->mloc * x->nloc, ab[2] = {x->mloc * x->ka, x->kb * x->nloc};
    return rl_stand_in_replay(&rl_exec_hsumma, x, NULL, 1, &c, 2, ab, x->esz);
}

const rl_exec_kind rl_exec_hsumma = {
    .needs_section = 0,
    .prepare = hsumma_prepare,
    .check_peers = NULL,
    .bind = hsumma_bind,
    .bind_replays = NULL,
    .start = hsumma_start,
    .stand_in = hsumma_stand_in,
    .wait = hsumma_wait,
    .memory = hsumma_memory,
    .hsumma_report = hsumma_report,
    .free = hsumma_free,
};
