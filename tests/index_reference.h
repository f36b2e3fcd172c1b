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
