/* relay/layout.h — how a global m x n matrix is cut into blocks and stored on ranks.
 *
 * A layout is a grid: row_splits[0..nbr] and col_splits[0..nbc] cut the
 * matrix into nbr x nbc blocks; block (i, j) is held by rank owners[i*nbc+j]
 * at element `offset` of that rank's local buffer, with leading dimension
 * `ld`, in the layout's element order (column-major: element (r, c) of the
 * block at offset + r + c*ld; row-major: offset + r*ld + c).
 * Layouts are immutable once built and may be shared between plans. */
#ifndef RELAY_LAYOUT_H
#define RELAY_LAYOUT_H

#include "relay/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct relay_layout relay_layout;

/* A ScaLAPACK 2-D block-cyclic layout of an m x n matrix with mb x nb blocks
 * on an nprow x npcol process grid.  grid_order RELAY_ROW_MAJOR numbers the
 * process (pr, pc) as pr*npcol + pc (BLACS 'R', ScaLAPACK's default),
 * RELAY_COL_MAJOR as pc*nprow + pr.  (rsrc, csrc) holds global block (0, 0).
 * Local storage is ScaLAPACK's: global row i lives in local row
 * indxg2l(i) = (i/(mb*nprow))*mb + i%mb of process row indxg2p(i), likewise
 * for columns.  lld is the local leading dimension shared by all ranks
 * (at least the largest local row count, or column count for row-major
 * elem_order); 0 means the smallest legal one on each rank, max(1, numroc),
 * which is what ScaLAPACK's descinit is usually given.  A descriptor whose
 * LLD differs between processes is relay_layout_block_cyclic_lds's.
 * The layout has nprow*npcol ranks. */
RELAY_API relay_status relay_layout_block_cyclic(relay_layout **out, int64_t m, int64_t n,
        int64_t mb, int64_t nb, int nprow, int npcol, relay_order grid_order,
        int rsrc, int csrc, int64_t lld, relay_order elem_order);

/* The same layout with each rank's own leading dimension, as ScaLAPACK
 * descriptors carry it: lds[r] (nprow*npcol entries, by rank as grid_order
 * numbers them) is at least 1 and, where rank r holds elements, at least
 * its local row count (column count for row-major elem_order).  Every rank
 * must pass the same array (gather the descriptors' LLDs, e.g. with
 * MPI_Allgather), or the ranks hold different plans, which
 * relay_exec_create refuses.  Where the lds are each rank's smallest, or
 * all one legal shared lld, this is relay_layout_block_cyclic's layout;
 * otherwise its plans cannot be saved in plan files. */
RELAY_API relay_status relay_layout_block_cyclic_lds(relay_layout **out, int64_t m, int64_t n,
        int64_t mb, int64_t nb, int nprow, int npcol, relay_order grid_order,
        int rsrc, int csrc, const int64_t *lds, relay_order elem_order);

/* An arbitrary grid layout over nranks ranks.  row_splits has nbr+1 strictly
 * increasing entries from 0 to m, col_splits nbc+1 from 0 to n, owners
 * nbr*nbc ranks in [0, nranks) (row-major over blocks).  offsets and lds
 * (nbr*nbc entries each) are optional: pass NULL for both and each rank's
 * blocks are packed tightly in increasing block index.  Blocks of one rank
 * must not overlap in its buffer.  All arrays are copied. */
RELAY_API relay_status relay_layout_grid(relay_layout **out, int nranks, int64_t m, int64_t n,
        int nbr, const int64_t *row_splits, int nbc, const int64_t *col_splits,
        const int *owners, const int64_t *offsets, const int64_t *lds,
        relay_order elem_order);

/* Elements rank's local buffer must hold for this layout (0 if it owns
 * nothing or rank is out of range). */
RELAY_API int64_t relay_layout_local_elems(const relay_layout *l, int rank);

/* The local matrix rank stores for a block-cyclic layout, as ScaLAPACK's
 * local array: *rows x *cols elements (numroc's counts) at leading
 * dimension *ld, in the layout's element order.  Column-major: an
 * ld x cols array whose first `rows` rows are the layout's; row-major: a
 * rows x ld array whose first `cols` columns are.  A rank that holds no
 * element, or lies past the layout's ranks, gets 0 x 0 (its buffer may be
 * empty).  RELAY_ERR_UNSUPPORTED for grid layouts, whose blocks sit at
 * offsets of their own in a flat buffer; RELAY_ERR_ARG for a negative rank. */
RELAY_API relay_status relay_layout_local_shape(const relay_layout *l, int rank, int64_t *rows, int64_t *cols,
        int64_t *ld);

/* Read-only facts about a layout. */
RELAY_API int relay_layout_nranks(const relay_layout *l);
RELAY_API int64_t relay_layout_rows(const relay_layout *l);
RELAY_API int64_t relay_layout_cols(const relay_layout *l);

/* Where global element (i, j) lives: its owner rank and its index in the
 * owner's local buffer.  RELAY_ERR_ARG if (i, j) is outside the matrix. */
RELAY_API relay_status relay_layout_locate(const relay_layout *l, int64_t i, int64_t j,
        int *rank, int64_t *index);

RELAY_API void relay_layout_free(relay_layout *l);

#ifdef __cplusplus
}
#endif
#endif
