/* nd_lower.h — an N-D rank's transfers as a message set (nd_lower.c):
 * what binding an N-D plan replays from. */
#ifndef RELAY_ND_LOWER_H
#define RELAY_ND_LOWER_H

#include "message_set.h"
#include "nd_messages.h"
#include "nd_walk_order.h"

/* What lowering needs of one pair at this rank: its walk order, the
 * strides of this rank's A and B along A's dimensions (B's dimension
 * perm[k] for A's k), its op and how its received pieces combine. */
typedef struct {
    rl_nd_order order;
    int64_t a_stride[RELAY_ND_MAX_DIMS], b_stride[RELAY_ND_MAX_DIMS];
    relay_op op;
    rl_combine combine;
} rl_nd_geometry;

/* The strides of a rank's local array of layout l at mesh coordinates
 * coords, along A's dimensions (A's own: perm NULL; B's seen from A's:
 * perm). */
void rl_nd_strides_of(int64_t *stride, const relay_nd_layout *l, const int *coords, const int32_t *perm);

/* The messages m groups part's transfers into, each transfer a box of
 * its pair's dimensions in walk order (packed in that order, one after
 * another in its message), the local transfers, the pairs' moves, the
 * pack buffers' layout (a send passed on takes none: its bytes are its
 * receive's). */
relay_status rl_nd_lower(rl_msgset *set, const rl_nd_part *part, const rl_nd_messages *m, const rl_nd_geometry *pairs,
                         int npairs, size_t esz);

#endif
