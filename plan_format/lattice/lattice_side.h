/* lattice_side.h — the planner's unit of work, a lattice of pieces seen
 * from both ends, and one rank's side of a section made of them.
 *
 * Block-cyclic pairs produce lattices from their run progressions
 * (bc_lattice.c); custom grid layouts from progressions found in their
 * piece lists (grid_lattice.c).  Either way a lattice knows the A
 * coordinates of its first piece, its steps in A, and its place in both
 * buffers, so that both ends of a message order and describe it alike;
 * the section keeps one end's half (rl_span, plan_internal.h). */
#ifndef RELAY_LATTICE_SIDE_H
#define RELAY_LATTICE_SIDE_H

#include "plan_internal.h"

/* count_r x count_c pieces of rows x cols elements of A (A's coordinates,
 * as rl_span).  Piece (i, j), 0 <= i < count_r, 0 <= j < count_c:
 *   covers A rows [r0 + i*grs, + rows) and columns [c0 + j*gcs, + cols);
 *   sits in the sender's B buffer at src_off + i*src_di + j*src_dj with
 *     leading dimension src_ld, as rl_place_in_block places A element
 *     (r0 + i*grs, c0 + j*gcs) (so op T/C and B's element order are in the
 *     coefficients);
 *   sits in the receiver's A buffer at dst_off + i*dst_di + j*dst_dj with
 *     leading dimension dst_ld.
 * Strides along a counter of 1 are 0.  All fields are 64-bit. */
typedef struct {
    int64_t pair;                 /* transform pair k of the batch */
    int64_t rows, cols;
    int64_t count_r, count_c;
    int64_t r0, c0, grs, gcs;
    int64_t src_off, src_di, src_dj, src_ld;
    int64_t dst_off, dst_di, dst_dj, dst_ld;
} rl_lattice;

/* A lattice with the ranks at its two ends, and a growing list of them. */
typedef struct {
    int64_t sender, receiver;
    rl_lattice l;
} rl_ended_lattice;

typedef struct {
    rl_ended_lattice *v;
    int64_t n, cap;
} rl_lattice_list;

/* Appends e; 0 when out of memory. */
int rl_lattice_list_push(rl_lattice_list *list, rl_ended_lattice e);

/* One side of a rank's section as lattices.  msgs[k] (increasing peer)
 * owns lattices [first, first + count) and its elems; lattices are sorted
 * by (peer, pair, c0, r0), the canonical order of their first pieces.
 * local: the lattices a rank copies to itself (send side only; the
 * receive side leaves them out). */
typedef struct {
    int32_t nmsg;
    rl_message *msgs;
    int64_t nlattices;
    rl_lattice *lattices;
    int64_t nlocal;
    rl_lattice *local;
} rl_lattice_side;

/* Sorts the list's lattices (every one with `rank` at the side's end) into
 * the side's canonical order and splits them into messages and local
 * lattices.  *out is filled on success; free it with rl_lattice_side_free. */
relay_status rl_lattice_side_build(rl_lattice_list *list, int rank, int send_side, rl_lattice_side *out);
void rl_lattice_side_free(rl_lattice_side *s);

/* Canonical order of lattices within a message: pair, first column, first row. */
int rl_lattice_cmp_place(const rl_lattice *x, const rl_lattice *y);

/* Pieces in a lattice: count_r * count_c. */
static inline int64_t rl_lattice_npieces(const rl_lattice *l) { return l->count_r * l->count_c; }

/* One end's half of a lattice of pair (the sender's B side or the
 * receiver's A side) of elements of esz bytes, fused where its pieces touch
 * in both buffers or stack (short and near on both sides: lattice_side.c),
 * and the local copy that holds both sides. */
rl_span rl_lattice_half(const rl_lattice *l, const rl_pair *pair, int64_t esz, int receiving);
rl_local_span rl_lattice_local(const rl_lattice *l);

#endif
