/* nd_walk_order.h — the order an N-D transfer is walked in, and how many
 * moves that walk makes (nd_walk_order.c).  Plan data alone: the executor
 * walks transfers in this order (their boxes, executor/nd/nd_lower.c), and the
 * prediction charges each of its moves a piece's cost
 * (predict/simulate_nd.c), so both count the same moves.
 *
 * A walk visits a transfer in one order of A's dimensions, the same at
 * both ends (the message's order): B's fastest-varying dimension
 * innermost, so that packing reads B in runs; A's fastest next to it, so
 * that the two innermost dimensions form rectangles that can be moved in
 * cache tiles when the permutation transposes them; the others outermost
 * in B's storage order.  One move is one rectangle: a pair of runs of the
 * two innermost dimensions, at one index of every outer dimension. */
#ifndef RELAY_ND_WALK_ORDER_H
#define RELAY_ND_WALK_ORDER_H

#include "nd_transfers.h"

/* The walk order of one pair: order[0] outermost .. order[ndims-1]
 * innermost (A's dimensions). */
typedef struct {
    int ndims;
    int order[RELAY_ND_MAX_DIMS];
} rl_nd_order;

void rl_nd_walk_order(rl_nd_order *o, const rl_nd_pair *pair);

/* The moves (rectangles) a walk in order o makes over transfer t: each
 * outer dimension's elements, times the runs of the two innermost (of the
 * one, in 1-D); none for a transfer of no elements.  At most t->elems. */
int64_t rl_nd_walk_moves(const rl_nd_order *o, const rl_nd_transfer *t);

#endif
