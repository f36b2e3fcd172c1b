/* bc_lattice.h — the pieces of a transform between two block-cyclic layouts
 * as 2-D lattices, computed from the 1-D run progressions of bc_runs.h
 * without enumerating a single piece (docs/design.md, section 2b).
 *
 * For A := op(B), op N pairs A's rows with B's rows and A's columns with
 * B's columns; op T/C pairs A's rows with B's columns and A's columns with
 * B's rows.  A row progression R and a column progression C of those pairs
 * give R.count x C.count equal pieces whose places in both local buffers
 * are affine in the two counters: one lattice.  Every piece (one block of
 * B cut with one block of A, a dimension on one process being one block)
 * is in exactly one lattice. */
#ifndef RELAY_BC_LATTICE_H
#define RELAY_BC_LATTICE_H

#include "bc_runs.h"
#include "lattice_side.h"

/* Whether both layouts of the pair are block-cyclic. */
int rl_pair_is_block_cyclic(const rl_pair *pair);

/* A block-cyclic pair's two 1-D overlays (one period of each dimension),
 * made once and shared by every rank's side.  Keeps pointers to the pair's
 * layouts, which must outlive it. */
typedef struct {
    const relay_layout *a, *b;   /* A as relabeled (receivers), B (senders) */
    int transposed;
    rl_run_lattice *rows, *cols; /* A's rows and A's columns, from B's processes to A's */
    int64_t nrows, ncols;
} rl_bc_pair_overlay;

/* RELAY_ERR_ARG for a pair that is not block-cyclic on both sides. */
relay_status rl_bc_pair_overlay_init(rl_bc_pair_overlay *ov, const rl_pair *pair, int64_t k);
void rl_bc_pair_overlay_free(rl_bc_pair_overlay *ov);

/* Appends to out every lattice of pair k that rank sends (send_side = 1;
 * its local lattices included) or receives (0; local ones too), with the
 * ranks at both ends.  Time and memory follow the products of the rank's
 * progressions, never the pieces. */
relay_status rl_bc_side_lattices(const rl_bc_pair_overlay *ov, const rl_pair *pair, int64_t k, int rank, int send_side,
                                 rl_lattice_list *out);

#endif
