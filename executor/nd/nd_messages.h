/* nd_messages.h — one rank's transfers of an N-D plan as MPI messages.
 *
 * Transfers a peer's origin reads from B travel together: one message per
 * peer and direction (tag 0), every pair's transfer in the part's order.
 * A transfer a replica passes on (nd_transfers.h, forwarding pairs)
 * travels alone, tagged 1, 2, ... in the part's order among those between
 * the same two ranks, so that its send can start as soon as the message
 * that brought it lands: its bytes are that message's, sent from the
 * receive buffer where they landed, never copied.  The messages' buffers
 * are their message set's (nd_lower.h).  (Merged, a message
 * passed on could wait for one that waits for it.) */
#ifndef RELAY_ND_MESSAGES_H
#define RELAY_ND_MESSAGES_H

#include "nd_transfers.h"

typedef struct {
    int peer, tag;
    int64_t first, count, elems;  /* transfers [first, first+count) of the part's list */
    int from;                     /* sends passed on: the receive they pass on; else -1 */
    int64_t from_offset;          /* ... and the byte where their bytes land in its packed form */
} rl_nd_message;

typedef struct {
    int nsend, nrecv;
    rl_nd_message *send, *recv;
    int *starts_first, *starts;   /* per receive (CSR): the sends it lets start when it lands */
    int64_t max_tag;              /* the largest tag of any message: binding checks MPI_TAG_UB */
} rl_nd_messages;

/* RELAY_ERR_UNSUPPORTED when a message exceeds MPI's int counts. */
relay_status rl_nd_messages_build(rl_nd_messages *m, const rl_nd_part *part, size_t esz);
void rl_nd_messages_free(rl_nd_messages *m);

#endif
