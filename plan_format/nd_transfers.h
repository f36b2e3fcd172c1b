/* nd_transfers.h — what one rank sends and receives in an N-D plan,
 * derived from the plan's header alone (nd_transfers.c).
 *
 * A transfer is everything one pair moves from one rank to another: the
 * elements of A that the receiver holds and the sender supplies.  Along
 * each of A's dimensions those are a list of runs, so a transfer is the
 * product of its dimensions' run lists: its size follows the cuts, not
 * the elements.  A run is `len` consecutive global indices of A's
 * dimension k that start at local index a_lo of A's dimension k on the
 * receiver and at local index b_lo of B's dimension perm[k] on the
 * sender: both ends' local indices are contiguous along a run, because a
 * run never crosses a block of either layout.
 *
 * Sender and receiver derive the same run lists (each from its own side),
 * so a message needs no description: both know where every element goes. */
#ifndef RELAY_ND_TRANSFERS_H
#define RELAY_ND_TRANSFERS_H

#include "plan_internal.h"

typedef struct {
    int64_t len, a_lo, b_lo;
} rl_nd_run;

typedef struct {
    int32_t pair, peer;
    int32_t origin;                      /* the rank that read it from B (peer, or in a forwarding
                                            pair the source a replica passes on) */
    int32_t forwarded;                   /* passed on by a replica: sender != origin */
    int64_t partial;                     /* the source's partial piece: 0 .. pieces-1 */
    int64_t elems;                       /* product of the run lists' lengths */
    int64_t nruns[RELAY_ND_MAX_DIMS];    /* per A dimension */
    rl_nd_run *runs[RELAY_ND_MAX_DIMS];  /* into the part's cuts: the peers of one coordinate share them */
} rl_nd_transfer;

/* The elements of t along A's dimension k: its runs' lengths summed. */
static inline int64_t rl_nd_transfer_extent(const rl_nd_transfer *t, int k)
{
    int64_t len = 0;
    for (int64_t r = 0; r < t->nruns[k]; r++) len += t->runs[k][r].len;
    return len;
}

/* Whether t travels on its own (a replica passing on what it received)
 * rather than in its peer's one message of transfers read from B. */
static inline int rl_nd_forwarded(const rl_nd_transfer *t) { return t->forwarded; }

/* One rank's transfers: sends and receives sorted by peer, then those read
 * from B by their origin before those passed on, then by pair and origin;
 * and those it makes to itself (peer = rank) sorted by pair. */
typedef struct {
    int rank;
    int64_t nsend, nrecv, nlocal;
    rl_nd_transfer *send, *recv, *local;
    rl_nd_run **cuts;                    /* the run lists transfers point into: one per pair, */
    int64_t ncuts;                       /* direction and dimension, O(the rank's own blocks) */
} rl_nd_part;

enum { RL_ND_SENDS = 1, RL_ND_RECEIVES = 2 };

/* Tags every MPI offers (MPI_TAG_UB is at least this): a transfer passed
 * on travels under its own tag, 1, 2, ... between two ranks. */
enum { RL_ND_GUARANTEED_TAGS = 32767 };

/* Derives the transfers of `rank` in plan p (kind ND) that `which`
 * (RL_ND_SENDS | RL_ND_RECEIVES) asks for; a local transfer counts as both.
 * Time and memory follow those transfers and the rank's own blocks. */
relay_status rl_nd_part_derive(rl_nd_part *out, const relay_plan *p, int rank, unsigned which);
void rl_nd_part_free(rl_nd_part *part);

/* The checks a plan's pairs must pass (shapes agree after the
 * permutation, ops, ranks within nranks, no partial destination): what
 * the planner and the plan reader share.  `what` prefixes the message. */
relay_status rl_nd_check_pair(const rl_nd_pair *pair, int nranks, relay_type type, const char *what);

#endif
