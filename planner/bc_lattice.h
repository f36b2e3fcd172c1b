/* bc_lattice.h — the pieces of a transform between two block-cyclic layouts
 * as 2-D lattices, computed from the 1-D run progressions of bc_runs.h
 * without enumerating a single piece (issue 15, structured plans).
 *
 * For A := op(B), op N pairs A's rows with B's rows and A's columns with
 * B's columns; op T/C pairs A's rows with B's columns and A's columns with
 * B's rows.  A row progression R and a column progression C of those pairs
 * give R.count x C.count equal pieces whose places in both local buffers
 * are affine in the two counters: one lattice.  Every piece of every
 * message is in exactly one lattice, and is the very rectangle, offset and
 * leading dimension transform.c emits for it (before merge_runs joins
 * contiguous neighbours). */
#ifndef RELAY_BC_LATTICE_H
#define RELAY_BC_LATTICE_H

#include "plan_internal.h"

/* count_r x count_c pieces of rows x cols elements of A (A's coordinates,
 * as rl_piece).  Piece (i, j), 0 <= i < count_r, 0 <= j < count_c:
 *   covers A rows [r0 + i*grs, + rows) and columns [c0 + j*gcs, + cols);
 *   sits in the sender's B buffer at src_off + i*src_di + j*src_dj with
 *     leading dimension src_ld, as rl_place_in_block places A element
 *     (r0 + i*grs, c0 + j*gcs) (so op T/C and B's element order are in the
 *     coefficients);
 *   sits in the receiver's A buffer at dst_off + i*dst_di + j*dst_dj with
 *     leading dimension dst_ld.
 * A sender's rl_piece is (pair, rows, cols, src offset, src_ld), a
 * receiver's (pair, rows, cols, dst offset, dst_ld), a local piece carries
 * both (rl_lattice_piece).  Strides along a counter of 1 are 0.  All fields
 * are 64-bit, like the plan's records. */
typedef struct {
    int64_t pair;                 /* transform pair k of the batch */
    int64_t rows, cols;
    int64_t count_r, count_c;
    int64_t r0, c0, grs, gcs;
    int64_t src_off, src_di, src_dj, src_ld;
    int64_t dst_off, dst_di, dst_dj, dst_ld;
} rl_lattice;

/* One side of a rank's section as lattices.  msgs[k] (increasing peer)
 * owns lattices [first, first + count) and its elems; lattices are sorted
 * by (peer, pair, c0, r0), the planner's canonical order of their first
 * pieces.  local: the lattices a rank copies to itself (send side only,
 * as in transform.c; the receive side leaves them out). */
typedef struct {
    int32_t nmsg;
    rl_message *msgs;
    int64_t nlattices;
    rl_lattice *lattices;
    int64_t nlocal;
    rl_lattice *local;
} rl_lattice_side;

/* Whether both layouts of the pair are block-cyclic. */
int rl_pair_is_block_cyclic(const rl_pair *pair);

/* The lattices of pair k that rank y sends rank x (y's local lattices when
 * y == x), in (c0, r0) order; *out malloc'ed (NULL when none).
 * RELAY_ERR_ARG for a pair that is not block-cyclic or ranks out of range. */
relay_status rl_bc_lattices(const rl_pair *pair, int64_t k, int y, int x, rl_lattice **out, int64_t *nout);

/* A rank's whole send side (send_side = 1: messages and local lattices) or
 * receive side (0) over the count pairs of a batch, all block-cyclic.
 * Time and memory follow the run progressions of each pair (one period of
 * each dimension), never the pieces.  *out is filled on success; free it
 * with rl_lattice_side_free. */
relay_status rl_bc_section_lattices(const rl_pair *pairs, int count, int rank, int send_side, rl_lattice_side *out);

/* The same for many ranks of one batch: the two 1-D overlays of each pair
 * are made once (rl_bc_overlay_create, one period of each dimension), and
 * each rank's side then costs only its own products.  The overlay keeps a
 * pointer to pairs, which must outlive it. */
typedef struct rl_bc_overlay rl_bc_overlay;
relay_status rl_bc_overlay_create(rl_bc_overlay **out, const rl_pair *pairs, int count);
relay_status rl_bc_overlay_side(const rl_bc_overlay *ov, int rank, int send_side, rl_lattice_side *out);
void rl_bc_overlay_free(rl_bc_overlay *ov);
void rl_lattice_side_free(rl_lattice_side *s);

/* Pieces in a lattice: count_r * count_c. */
int64_t rl_lattice_npieces(const rl_lattice *l);

/* Piece (i, j) as a local piece (both buffers), and as one side's half. */
rl_local_piece rl_lattice_piece(const rl_lattice *l, int64_t i, int64_t j);
rl_piece rl_lattice_half(const rl_lattice *l, int64_t i, int64_t j, int receiving);

/* All pieces of l in canonical order (column counter outer, row counter
 * inner, i.e. by (c0, r0)): rl_lattice_npieces(l) records into out. */
void rl_lattice_expand(const rl_lattice *l, int receiving, rl_piece *out);
void rl_lattice_expand_local(const rl_lattice *l, rl_local_piece *out);

#endif
