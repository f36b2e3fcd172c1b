/* nd_walk_order.h — the order an N-D transfer is walked in
 * (nd_walk_order.c).  Plan data alone: the executor walks transfers in
 * this order (executor/nd/nd_walk.h).
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

#endif
