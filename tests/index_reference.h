/* index_reference.h — the serial reference of index moves, and a serial
 * simulator of an index plan's messages.
 *
 * The reference (index_reference.c) knows nothing of relay's planner: from
 * plain per-rank item lists it finds each item's owner by searching the
 * owner lists, and sums each owned item's holders by scanning every
 * holder's list in (rank, slot) order.  The simulator replays a plan's
 * sections as the ranks of a job would: every sender packs each message
 * by its own section, every receiver unpacks it by its own (broadcast:
 * written; sum: added in ascending peer order, its local moves at its own
 * rank's place). */
#ifndef RELAY_TEST_INDEX_REFERENCE_H
#define RELAY_TEST_INDEX_REFERENCE_H

#include <stdint.h>

#include "relay/relay.h"

/* What each of nranks ranks holds: count[r] items, items[r][0 .. count[r]). */
typedef struct {
    int nranks;
    int64_t n;
    int64_t *count;
    int64_t **items;
} ref_lists;

/* A case: the owner and holder lists of one move. */
typedef struct {
    ref_lists owners, holders;
} ref_index_case;

/* splitmix64, and a number in [0, n) from it (0 where n <= 0). */
uint64_t ref_index_random(uint64_t *s);
int64_t ref_index_below(uint64_t *s, int64_t n);
/* Random owners (a shuffled share of the items, some owned by no one, some
 * ranks owning nothing) and holders (random owned items, duplicates,
 * unsorted; an empty rank; with `everyone`, items every rank holds). */
ref_index_case ref_index_random_case(int nranks, uint64_t seed, int everyone);
/* An N x N grid of items (row-major) on a px x py mesh of blocks: rank
 * (a, b) owns its block, row by row, and holds it widened by `halo` on
 * every side (cut at the grid's edge), row by row. */
ref_index_case ref_index_halo_case(int64_t N, int px, int py, int64_t halo);
void ref_index_case_free(ref_index_case *c);
/* The layout of lists of items of k elements: given as a list, or
 * (as_runs) each item as a run of one; NULL where relay refuses it. */
relay_index_layout *ref_index_layout_of(const ref_lists *l, int64_t k, int as_runs);

/* elems elements of type t whose sums depend on their order (mixed
 * magnitudes and signs), from the random state *seed. */
void ref_index_fill(char *buf, int64_t elems, relay_type t, uint64_t *seed);

/* holders[h] slot j := owners' value of its item (bufs of k elements per slot). */
void ref_index_broadcast(const ref_lists *owners, const ref_lists *holders, int64_t k, relay_type type,
                         char *const *owner_bufs, char *const *holder_bufs);
/* owners' slot := ((slot + c_0) + c_1) + ... over holder slots in (rank, slot) order. */
void ref_index_reduce_sum(const ref_lists *owners, const ref_lists *holders, int64_t k, relay_type type,
                          char *const *owner_bufs, char *const *holder_bufs);

/* Replays p (every section present) over per-rank buffers: from_bufs read,
 * to_bufs written (broadcast) or added into (sum).  0 on success, -1 when
 * a receiver finds no matching send (a defect). */
int sim_index_plan(const relay_plan *p, char *const *from_bufs, char *const *to_bufs);

#endif
