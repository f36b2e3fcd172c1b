/* index_lower.h — an index plan's section as a message set (index_lower.c):
 * what binding an index plan replays from. */
#ifndef RELAY_INDEX_LOWER_H
#define RELAY_INDEX_LOWER_H

#include "index_plan.h"
#include "message_set.h"

/* Section s (its items of item_elems elements of esz bytes) as a set: each
 * message to or from its peer (tag 0, no step), each segment a box of
 * pair 0 whose innermost dimension is the item, the local moves; a
 * broadcast's pair writes (op N, alpha 1, beta 0), a sum's adds in place
 * (RL_COMBINE_ADD), its receives combined in ascending peer order with the
 * local moves at this rank's place (the set `ordered`).  Work and memory
 * linear in the section.  The pack buffers' layout is the caller's
 * (rl_msgset_layout). */
relay_status rl_index_lower(rl_msgset *set, const rl_index_section *s, int64_t item_elems, relay_index_move move, size_t esz);

#endif
