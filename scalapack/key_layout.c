/* key_layout.c — step 4 of a call (scalapack_internal.h): the layout one
 * matrix's part of a key describes, block-cyclic wherever it can be.
 *
 * A ScaLAPACK submatrix is a block-cyclic layout that starts inside the
 * distributed matrix (relay_internal_layout_submatrix): planning it costs
 * its lattices, a few per pair of processes, where an explicit grid layout
 * costs every block (1 x 1 blocks of a 1000 x 1000 matrix: 10^6 of them)
 * and every rank's blocks again in the volumes.  That takes the grid's
 * processes to be the context ranks 0 .. nprow*npcol-1 in row- or
 * column-major order, as Cblacs_gridinit numbers a grid of the first
 * processes; another process map (Cblacs_gridmap) falls back to the
 * explicit grid layout (descriptors.c). */
#include "error.h"
#include "layout_internal.h"
#include "scalapack_internal.h"

/* Whether some grid order makes grid position g = row*npcol + col context
 * rank owner[g] for every g, and which. */
static int numbering(const int32_t *owner, int nprow, int npcol, relay_order *order)
{
    int row_major = 1, col_major = 1;
    for (int r = 0; r < nprow; r++)
        for (int c = 0; c < npcol; c++) {
            row_major &= owner[r * npcol + c] == r * npcol + c;
            col_major &= owner[r * npcol + c] == c * nprow + r;
        }
    *order = row_major ? RELAY_ROW_MAJOR : RELAY_COL_MAJOR;
    return row_major || col_major;
}

relay_status rl_scalapack_matrix_layout(relay_layout **out, const int32_t *k, int nprocs)
{
    int nprow = k[K_NPROW], npcol = k[K_NPCOL];
    const int32_t *owner = k + K_FIXED, *lld = owner + nprow * npcol;
    relay_order order;
    if (!numbering(owner, nprow, npcol, &order)) return rl_scalapack_key_layout(out, k, nprocs);
    int64_t *lds = rl_malloc_array((size_t)nprow * (size_t)npcol, sizeof *lds);
    if (!lds) return RL_NOMEM();
    for (int g = 0; g < nprow * npcol; g++) lds[owner[g]] = lld[g]; /* by rank, as the layout numbers them */
    relay_status st = relay_internal_layout_submatrix(out, k[K_M], k[K_N], k[K_I] - 1, k[K_J] - 1, k[K_MB], k[K_NB], nprow,
                                                      npcol, order, k[K_RSRC], k[K_CSRC], lds);
    free(lds);
    return st;
}
