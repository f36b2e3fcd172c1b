/* box_walk.h — moving the elements of one box of a message set
 * (message_set.h) between two buffers (box_walk.c): the box's two inner
 * dimensions as rectangles that kernels.c moves in cache tiles when they
 * transpose, one rl_move per pair of runs, at every index of its outer
 * dimensions.  The kinds that do not compile their boxes into walks of
 * their own (N-D plans, nd/) move them so. */
#ifndef RELAY_BOX_WALK_H
#define RELAY_BOX_WALK_H

#include "kernels.h"
#include "message_set.h"

/* A buffer, and which of a box's two sides addresses it: the side moved
 * from or the side moved to (a sum laid out as A is addressed as A is). */
typedef enum { RL_BOX_FROM, RL_BOX_TO } rl_box_side;
typedef struct {
    char *base;
    rl_box_side side;
} rl_box_end;

/* dst := alpha * op(src) + beta * dst over box b of set (conj: op C).
 * s->large_dst, the caller's: whether dst's whole buffer is large enough
 * to be written past the caches (each rectangle is only a plane of it). */
void rl_box_move(const rl_scalars *s, int conj, const rl_msgset *set, const rl_box *b, rl_box_end dst, rl_box_end src);

#endif
