/* descriptors.c — steps 2 and 3 of a call (scalapack_internal.h): each
 * process's view of the two matrices, and the key all processes build from
 * everyone's views — the matrices' descriptors checked for agreement and
 * validity, identically everywhere, so that errors are collective — and
 * the relay grid layout a key describes (any submatrix origin, any process
 * map, per-process lld).
 *
 * The checks accept what ScaLAPACK accepts, and its two halves differ:
 *   p?gemr2d (REDIST, pgemraux.c's paramcheck) never reads DTYPE and wants
 *     LLD >= the process's local rows of the whole matrix, so LLD = 0 is
 *     right on a process that holds no rows;
 *   p?tran* (PBLAS, PB_Cchkmat) wants DTYPE 1 or 2 and LLD >= 1, and
 *     LLD >= the local rows only where the process holds columns too;
 *     relay reads type 1 (9 integers) only and refuses type 2 (11). */
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "layout_internal.h"
#include "scalapack_internal.h"

/* ---- 2. this process's view ---------------------------------------------- */

rl_matrix_view rl_scalapack_view_of(const int *desc, int i, int j)
{
    rl_matrix_view v = {-1, -1, 0, 0, {0}, i, j};
    if (!desc) return v;
    for (int k = 0; k < DLEN_; k++) v.desc[k] = desc[k];
    if (desc[CTXT_] >= 0) Cblacs_gridinfo(desc[CTXT_], &v.nprow, &v.npcol, &v.row, &v.col);
    if (v.row < 0 || v.col < 0) v.row = v.col = -1;
    return v;
}

/* ---- 3. the key: one matrix's layout, checked ---------------------------- */

/* Whether a process at grid row `row`, column `col` may store its part of
 * the matrix d with leading dimension lld (the rules above; pblas: p?tran's). */
static int lld_accepted(const int32_t *d, int row, int col, int nprow, int npcol, int pblas)
{
    int32_t lld = d[LLD_];
    int64_t rows = rl_numroc(d[M_], d[MB_], row, d[RSRC_], nprow);
    if (!pblas) return lld >= rows;
    return lld >= 1 && (lld >= rows || rl_numroc(d[N_], d[NB_], col, d[CSRC_], npcol) == 0);
}

/* p?tran's descriptors must be of type 1 on every process of the grid: the
 * type says how to read the rest. */
static relay_status check_types(const rl_process_view *all, int nprocs, int is_dst, const char *what)
{
    for (int p = 0; p < nprocs; p++) {
        const rl_matrix_view *v = is_dst ? &all[p].dst : &all[p].src;
        if (v->row >= 0 && v->desc[DTYPE_] != 1)
            return rl_fail(RELAY_ERR_ARG, "%s: process (%d, %d) passes a descriptor of type %d; relay reads type 1 only",
                           what, v->row, v->col, v->desc[DTYPE_]);
    }
    return RELAY_OK;
}

/* Fills key[0 .. K_FIXED + 2*nprow*npcol) for a matrix of rows x cols
 * (its submatrix's extent) from all processes' views; pblas selects
 * p?tran's rules (DTYPE, LLD) over p?gemr2d's; what names the argument in
 * error messages. */
static relay_status matrix_key(int32_t *key, const rl_process_view *all, int nprocs, int is_dst, int pblas, int64_t rows,
                               int64_t cols, const char *what)
{
    const rl_matrix_view *first = NULL;
    for (int p = 0; p < nprocs && !first; p++) {
        const rl_matrix_view *v = is_dst ? &all[p].dst : &all[p].src;
        if (v->row >= 0) first = v;
    }
    if (!first) return rl_fail(RELAY_ERR_ARG, "%s: no process of the context is in the matrix's grid", what);
    relay_status st = pblas ? check_types(all, nprocs, is_dst, what) : RELAY_OK;
    if (st) return st;
    const int32_t *d = first->desc;
    if (d[M_] < 0 || d[N_] < 0 || d[MB_] < 1 || d[NB_] < 1 || d[RSRC_] < 0 || d[RSRC_] >= first->nprow || d[CSRC_] < 0 ||
        d[CSRC_] >= first->npcol)
        return rl_fail(RELAY_ERR_ARG, "%s: the descriptor is not a valid block-cyclic descriptor (%d x %d, "
                       "blocks %d x %d, source %d,%d on a %d x %d grid)", what, d[M_], d[N_], d[MB_], d[NB_],
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
        const rl_matrix_view *v = is_dst ? &all[p].dst : &all[p].src;
        if (v->row < 0) continue;
        int g = v->row * first->npcol + v->col;
        if (v->nprow != first->nprow || v->npcol != first->npcol || owner[g] >= 0 ||
            memcmp(v->desc + M_, d + M_, (LLD_ - M_) * sizeof *d) || v->i != first->i || v->j != first->j)
            return rl_fail(RELAY_ERR_ARG, "%s: processes disagree on the descriptor, the origin or the grid", what);
        if (!lld_accepted(v->desc, v->row, v->col, first->nprow, first->npcol, pblas))
            return rl_fail(RELAY_ERR_ARG, "%s: process (%d, %d) has lld %d below its %lld local rows%s", what, v->row, v->col,
                           v->desc[LLD_], (long long)rl_numroc(d[M_], d[MB_], v->row, d[RSRC_], first->nprow),
                           pblas ? " (p?tran: or below 1)" : "");
        owner[g] = p;
        lld[g] = v->desc[LLD_];
    }
    for (int g = 0; g < first->nprow * first->npcol; g++)
        if (owner[g] < 0) return rl_fail(RELAY_ERR_ARG, "%s: grid position %d has no process in the call's context", what, g);
    return RELAY_OK;
}

static size_t matrix_key_len(const rl_process_view *all, int nprocs, int is_dst)
{
    for (int p = 0; p < nprocs; p++) {
        const rl_matrix_view *v = is_dst ? &all[p].dst : &all[p].src;
        if (v->row >= 0) return K_FIXED + 2 * (size_t)v->nprow * (size_t)v->npcol;
    }
    return K_FIXED;
}

relay_status rl_scalapack_build_key(int32_t **out, size_t *len, const rl_process_view *all, int nprocs, relay_type type,
                                    relay_op op, int64_t m, int64_t n, const char *fn)
{
    size_t ls = matrix_key_len(all, nprocs, 0), ld = matrix_key_len(all, nprocs, 1);
    int32_t *key = rl_malloc_array(RL_KEY_HEAD + ls + ld, sizeof *key);
    if (!key) return RL_NOMEM();
    key[RL_KEY_TYPE] = type;
    key[RL_KEY_OP] = op;
    key[RL_KEY_SRC_LEN] = (int32_t)ls;
    int t = op != RELAY_OP_N; /* p?tran: PBLAS's rules too */
    char what[96];
    snprintf(what, sizeof what, "%s, source matrix", fn);
    relay_status st = matrix_key(key + RL_KEY_HEAD, all, nprocs, 0, t, t ? n : m, t ? m : n, what);
    snprintf(what, sizeof what, "%s, destination matrix", fn);
    if (!st) st = matrix_key(key + RL_KEY_HEAD + ls, all, nprocs, 1, t, m, n, what);
    if (st) {
        free(key);
        return st;
    }
    *out = key;
    *len = RL_KEY_HEAD + ls + ld;
    return RELAY_OK;
}

/* ---- the layout a key describes ------------------------------------------ */

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

relay_status rl_scalapack_key_layout(relay_layout **out, const int32_t *k, int nprocs)
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
