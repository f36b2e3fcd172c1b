/* index_moves.h — an index plan's moves of its message set's elements
 * (index_moves.c): the kind's own (rl_kind_moves, transform.h), through
 * which the schedules and transports pack, combine and move locally. */
#ifndef RELAY_INDEX_MOVES_H
#define RELAY_INDEX_MOVES_H

#include "transform.h"

extern const rl_kind_moves rl_index_moves;

#endif
