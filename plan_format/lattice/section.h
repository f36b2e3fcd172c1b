/* section.h — a rank's section of a transform plan, built from the piece
 * lattices of the batch's pairs: block-cyclic pairs from their shared 1-D
 * overlays (bc_lattice.h), custom ones block by block (grid_lattice.h). */
#ifndef RELAY_SECTION_H
#define RELAY_SECTION_H

#include "lattice_side.h"

/* What every rank's section of one batch shares: each block-cyclic pair's
 * overlay, made once.  Keeps a pointer to pairs, which must outlive it. */
typedef struct rl_batch rl_batch;
relay_status rl_batch_create(rl_batch **out, const rl_pair *pairs, int count, relay_type type);
void rl_batch_free(rl_batch *b);

/* A rank's send side (send_side = 1: its messages and local lattices) or
 * receive side (0) over the batch's pairs. */
relay_status rl_batch_side(const rl_batch *b, int rank, int send_side, rl_lattice_side *out);

/* The rank's whole section, with its buffer sizes and checksum (steps of a
 * rounds schedule are added later by schedule.c). */
relay_status rl_batch_section(const rl_batch *b, int rank, rl_section **out);

#endif
