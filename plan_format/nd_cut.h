/* nd_cut.h — one of A's dimensions of an N-D pair, cut for one rank: where
 * its coordinate of one layout's 1-D cut meets each coordinate of the
 * other's, as a few progressions of runs computed from the two cuts'
 * periodic structure (nd_cut.c), never one run per block.
 *
 * A run is consecutive global indices in one block of each side
 * (rl_nd_blocks_of), so contiguous in both local arrays; the runs of two
 * coordinates are the maximal intervals of the indices both hold.  Both
 * ends of a transfer get the same progressions in the same order: the
 * list of a pair of coordinates is a function of the two coordinates'
 * blocks alone, whichever end computes it. */
#ifndef RELAY_ND_CUT_H
#define RELAY_ND_CUT_H

#include "plan_internal.h"
#include "nd_layout.h"

/* count runs of len indices: run i starts at A's local index a_lo + i *
 * a_step and at B's (along B's matching dimension) b_lo + i * b_step.
 * Steps are 0 when count is 1. */
typedef struct {
    int64_t len, count;
    int64_t a_lo, a_step, b_lo, b_step;
} rl_nd_runs;

typedef struct {
    rl_nd_runs *v;
    int64_t n, cap;
} rl_nd_run_list;

/* Appends to out the runs of [0, n) where A's blocks a meet B's blocks b.
 * Time O(the progressions appended + the fewest of a's blocks, b's blocks
 * and one period's pairs of blocks), each step counted into *work. */
relay_status rl_nd_overlap(rl_nd_run_list *out, const rl_nd_blocks *a, const rl_nd_blocks *b, int64_t n, int64_t *work);

/* One rank's cut of A's dimension k in one pair: the other side's
 * coordinates along k whose indices meet the rank's, in increasing order,
 * coordinate coords[i] with runs[first[i] .. first[i+1]) and extent[i]
 * indices in all. */
typedef struct {
    int64_t ncoords;
    int64_t *coords, *first, *extent;
    rl_nd_run_list runs;
} rl_nd_dim_cut;

/* The cut of A's dimension k for the rank at coordinate my_coord along it
 * of its own side (A's layout when receiving, B's when sending).  Time
 * O(the runs' progressions + the rank's blocks along k + the other side's
 * coordinates along k), counted into *work. */
relay_status rl_nd_cut_dimension(rl_nd_dim_cut *c, const rl_nd_pair *pair, int k, int receiving, int my_coord, int64_t *work);
void rl_nd_dim_cut_free(rl_nd_dim_cut *c);

/* The runs and the indices of n progressions. */
int64_t rl_nd_runs_count(const rl_nd_runs *r, int64_t n);
int64_t rl_nd_runs_extent(const rl_nd_runs *r, int64_t n);

#endif
