/* redescribe.h — edits of one rank's section that keep what each message
 * carries and its packed order but describe one end of it otherwise, the
 * way a plan file can: binding's check of the packed form
 * passes them, so every way the executor moves a message (packed, direct
 * run by run, pulled from the peer's B, in chunks under a cap) must still
 * move the same elements, or refuse the plan on every rank.
 * mpi_lying_plans tells them to decoded plans; make_hostile seals them into
 * files for relay-run. */
#ifndef RELAY_TESTS_REDESCRIBE_H
#define RELAY_TESTS_REDESCRIBE_H

#include "plan_internal.h"

/* The plan A := op(B) on nranks ranks (a memory cap of cap bytes, 0 for
 * none), encoded and decoded with every section: a plan read from bytes,
 * whose sections binding checks against its header.  NULL on failure. */
relay_plan *redescribe_decoded_plan(int nranks, const relay_layout *a, const relay_layout *b, relay_op op, int64_t cap);

/* Which lattices a split cuts in two: any it can, only across piece
 * columns (a direct message's runs stay whole), or only across the
 * columns of a lattice's one piece (its runs are cut). */
typedef enum { REDESCRIBE_ANY, REDESCRIBE_PIECE_COLUMNS, REDESCRIBE_COLUMNS } redescribe_split;

/* Splits the first send (receive) lattice of s that `kind` allows in two;
 * 0 if none can be, or memory ran out. */
int redescribe_split_send(rl_section *s, redescribe_split kind);
int redescribe_split_receive(rl_section *s, redescribe_split kind);

/* Describes a receive lattice of two pieces in A's two consecutive packed
 * blocks (step_r = rows*cols, ld = rows) as one fused stack at twice the
 * leading dimension: the same positions and packed order, but run by run
 * (or read piece by piece from the sender's B) each position would get
 * another element.  0 if s has none, or the edit would not validate. */
int redescribe_fuse_across_blocks(const relay_plan *p, rl_section *s);

/* Layouts whose messages travel direct, over nranks ranks, column-major:
 * a 1 x P grid of REDESCRIBE_ROWS x nb blocks, 48 * nranks columns (between
 * two of these, op N, pieces are whole columns of 4 KB: with nb 8 and 12
 * lattices of several pieces, with 16 and 48 lattices of one piece); and
 * 2R x C (REDESCRIBE_STACK_ROWS = R, REDESCRIBE_STACK_COLS = C) in one or
 * two row blocks owned by `owner`, packed, so that two blocks follow each
 * other in its buffer (A, owner 1) while one block holds both in its
 * columns (B, owner 0).  NULL if the constructor refuses. */
enum { REDESCRIBE_ROWS = 512, REDESCRIBE_STACK_ROWS = 256, REDESCRIBE_STACK_COLS = 16 };
relay_layout *redescribe_direct_columns(int nranks, int64_t nb);
relay_layout *redescribe_stacked(int nranks, int blocks, int owner);

#endif
