/* nd_walk.h — moving the elements of one N-D transfer between two sides:
 * B's local array, A's local array (or a scratch sum laid out as A's), and
 * a packed message.
 *
 * A transfer is a product of per-dimension run lists (nd_transfers.h),
 * walked in its pair's order (plan_format/nd_walk_order.h): the two
 * innermost dimensions form rectangles that kernels.c moves in cache
 * tiles when the permutation transposes them, one rl_move each, at every
 * index of the outer dimensions.  The whole walk reads and writes each
 * element once. */
#ifndef RELAY_ND_WALK_H
#define RELAY_ND_WALK_H

#include "kernels.h"
#include "nd_walk_order.h"

/* How one side stores A's dimension k: element stride[k] apart, and the
 * first element of run i of a progression r (nd_cut.h) at ... (by kind):
 *   RL_ND_SIDE_B        (r.b_lo + i * r.b_step) * stride[k] (stride: B's along perm[k])
 *   RL_ND_SIDE_A        (r.a_lo + i * r.a_step) * stride[k]
 *   RL_ND_SIDE_MESSAGE  (the run's first position in its dimension's list) * stride[k] */
typedef enum { RL_ND_SIDE_B, RL_ND_SIDE_A, RL_ND_SIDE_MESSAGE } rl_nd_side_kind;

typedef struct {
    rl_nd_side_kind kind;
    char *base;
    int64_t stride[RELAY_ND_MAX_DIMS];
} rl_nd_side;

/* The strides of a rank's local array of layout l (A's dims: k, or B's
 * dims seen from A's: perm[k]) at mesh coordinates coords. */
void rl_nd_side_strides(rl_nd_side *side, const relay_nd_layout *l, const int *coords, const int32_t *perm);
/* The strides of transfer t's packed form in walk order o. */
void rl_nd_message_strides(rl_nd_side *side, const rl_nd_transfer *t, const rl_nd_order *o);

/* dst := alpha * op(src) + beta * dst over transfer t (conj: op C), in
 * the rl_nd_walk_moves(o, t) moves that nd_walk_order.h counts.
 * s->large_dst, the caller's: whether dst's whole buffer is large enough
 * to be written past the caches (each rectangle is only a plane of it). */
void rl_nd_move(const rl_scalars *s, int conj, const rl_nd_order *o, const rl_nd_transfer *t, const rl_nd_side *dst,
                const rl_nd_side *src);

#endif
