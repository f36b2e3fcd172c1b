/* transform_lower.h — a transform's section as a message set
 * (transform_lower.c): what binding a transform plan replays from. */
#ifndef RELAY_TRANSFORM_LOWER_H
#define RELAY_TRANSFORM_LOWER_H

#include "message_set.h"
#include "transform.h"

/* Section s's messages, their lattices as boxes, its local lattices, its
 * pairs' ops (A := alpha op(B) + beta A); the pack buffers' layout is the
 * caller's (rl_msgset_layout, once the walks are made: a plan's pieces too
 * large for any memory are refused by the count of their tiles first). */
relay_status rl_transform_lower(rl_msgset *set, const rl_section *s, const rl_pair_info *pairs, int npairs, size_t esz);
/* One direction's chunks under a memory cap (schedules/capped.c): chunks
 * as messages of sub-lattices, set's other direction empty (no layout). */
relay_status rl_transform_lower_chunks(rl_msgset *set, const rl_message *chunks, int nchunks, const rl_span *spans,
                                       const rl_pair_info *pairs, int sending, size_t esz);
/* Where message lattice sp's elements lie in its packed form, from the
 * lattice's first: piece (i, j)'s element (r, c) at i*step_r + j*step_c
 * + r*rs + c*cs (A's coordinates). */
rl_walk_side rl_packed_form(const rl_span *sp, const rl_pair_info *pi);
/* The walk of a lattice moved straight from B to A: one the receiver
 * reads from the sender's B (transports/pull.c). */
rl_walk rl_straight_walk(const rl_local_span *l, const rl_pair_info *pi);

#endif
