/* nd_walk_order.c — an N-D transfer's walk order and the moves its walk
 * makes (nd_walk_order.h). */
#include "nd_walk_order.h"

/* A dimension's storage rank in layout l: 0 for its fastest-varying. */
static int storage_rank(const relay_nd_layout *l, int dim)
{
    return l->order == RELAY_ROW_MAJOR ? l->ndims - 1 - dim : dim;
}

void rl_nd_walk_order(rl_nd_order *o, const rl_nd_pair *pair)
{
    int d = pair->dst->ndims, inner = 0, next = -1, placed[RELAY_ND_MAX_DIMS] = {0}, n = d;
    for (int k = 0; k < d; k++)
        if (storage_rank(pair->src, pair->perm[k]) == 0) inner = k;
    for (int k = 0; k < d; k++)
        if (storage_rank(pair->dst, k) == 0 && k != inner) next = k;
    o->ndims = d;
    o->order[--n] = inner;
    placed[inner] = 1;
    if (next >= 0) {
        o->order[--n] = next;
        placed[next] = 1;
    }
    for (int rank = 1; rank < d; rank++) /* the rest: B's faster dimensions further in */
        for (int k = 0; k < d; k++)
            if (!placed[k] && storage_rank(pair->src, pair->perm[k]) == rank) {
                o->order[--n] = k;
                placed[k] = 1;
            }
}

int64_t rl_nd_walk_moves(const rl_nd_order *o, const rl_nd_transfer *t)
{
    if (t->elems == 0) return 0;
    int d = o->ndims;
    int64_t moves = rl_nd_transfer_runs(t, o->order[d - 1]);
    if (d > 1) moves *= rl_nd_transfer_runs(t, o->order[d - 2]);
    for (int level = 0; level < d - 2; level++) moves *= rl_nd_transfer_extent(t, o->order[level]);
    return moves;
}
