/* grid_lattice.h — the pieces of a transform involving a custom grid
 * layout, enumerated block by block (COSTA's Algorithm 2) and grouped into
 * lattices wherever they form arithmetic progressions, so that a custom
 * layout that happens to be block-cyclic is described by about as few
 * lattices as the block-cyclic one (docs/design.md, section 2b). */
#ifndef RELAY_GRID_LATTICE_H
#define RELAY_GRID_LATTICE_H

#include "lattice_side.h"

/* Appends to out the lattices of pair k that rank sends (send_side = 1:
 * cutting the rank's blocks of B by A's grid, local ones included) or
 * receives (0: cutting its blocks of A by B's grid, local ones left out).
 * Both ends of a message find the same lattices in the same order: they
 * group the same pieces by the same deterministic rule. */
relay_status rl_grid_side_lattices(const rl_pair *pair, int64_t k, int rank, int send_side, rl_lattice_list *out);

#endif
