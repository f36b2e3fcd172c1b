/* nd_transfers.h — what one rank sends and receives in an N-D plan,
 * derived from the plan's header alone (nd_transfers.c).
 *
 * A transfer is everything one pair moves from one rank to another: the
 * elements of A that the receiver holds and the sender supplies.  Along
 * each of A's dimensions those are a list of runs, so a transfer is the
 * product of its dimensions' run lists: its size follows the cuts, not
 * the elements.  A run is consecutive global indices of A's dimension k,
 * contiguous at both ends: in A's local dimension k on the receiver and
 * in B's local dimension perm[k] on the sender.  A list is held as a few
 * progressions of equal runs (nd_cut.h), computed from the layouts'
 * periodic structure, so that its size follows the cuts' periods rather
 * than their blocks.
 *
 * Sender and receiver derive the same run lists (each from its own side),
 * so a message needs no description: both know where every element goes. */
#ifndef RELAY_ND_TRANSFERS_H
#define RELAY_ND_TRANSFERS_H

#include "nd_cut.h"

typedef struct {
    int32_t pair, peer;
    int32_t origin;                      /* the rank that read it from B (peer, or in a forwarding
                                            pair the source a replica passes on) */
    int32_t forwarded;                   /* passed on by a replica: sender != origin */
    int64_t partial;                     /* the source's partial piece: 0 .. pieces-1 */
    int64_t elems;                       /* product of the run lists' lengths */
    int64_t nprogs[RELAY_ND_MAX_DIMS];   /* per A dimension: progressions of runs */
    const rl_nd_runs *runs[RELAY_ND_MAX_DIMS]; /* into the part's cuts: the peers of one coordinate share them */
} rl_nd_transfer;

/* The elements (runs) of t along A's dimension k. */
static inline int64_t rl_nd_transfer_extent(const rl_nd_transfer *t, int k) { return rl_nd_runs_extent(t->runs[k], t->nprogs[k]); }
static inline int64_t rl_nd_transfer_runs(const rl_nd_transfer *t, int k) { return rl_nd_runs_count(t->runs[k], t->nprogs[k]); }

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
    rl_nd_runs **cuts;                   /* the run lists transfers point into: one per pair, */
    int64_t ncuts;                       /* direction and dimension */
    int64_t work;                        /* the steps deriving them took (rl_nd_part_derive) */
} rl_nd_part;

enum { RL_ND_SENDS = 1, RL_ND_RECEIVES = 2 };

/* Tags every MPI offers (MPI_TAG_UB is at least this): a transfer passed
 * on travels under its own tag, 1, 2, ... between two ranks. */
enum { RL_ND_GUARANTEED_TAGS = 32767 };

/* Derives the transfers of `rank` in plan p (kind ND) that `which`
 * (RL_ND_SENDS | RL_ND_RECEIVES) asks for; a local transfer counts as both.
 * Each pair costs O(its run progressions and transfers + the rank's blocks
 * along each dimension + the other side's mesh), nothing where the rank's
 * own array of the pair is empty; part->work counts the steps, and a
 * derivation past RL_ND_WORK_BUDGET plus a few steps per transfer,
 * progression and mesh rank of the plan is refused (RELAY_ERR_UNSUPPORTED,
 * one line): no plan relay writes comes near it. */
relay_status rl_nd_part_derive(rl_nd_part *out, const relay_plan *p, int rank, unsigned which);
void rl_nd_part_free(rl_nd_part *part);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define RL_ND_WORK_BUDGET ((int64_t)1 << 20) /* the fuzzer reports what goes past it: a cost hole */
#else
#define RL_ND_WORK_BUDGET ((int64_t)1 << 28) /* seconds */
#endif

/* The checks a plan's pairs must pass (shapes agree after the
 * permutation, ops, ranks within nranks, no partial destination): what
 * the planner and the plan reader share.  `what` prefixes the message. */
relay_status rl_nd_check_pair(const rl_nd_pair *pair, int nranks, relay_type type, const char *what);

#endif
