/* relay/plan.h — planning a transform once, and the plan object.
 *
 * A plan for A := alpha*op(B) + beta*A holds everything about the data
 * movement that does not depend on the data: the grid overlay of the two
 * layouts, the pieces each rank packs, sends, receives, unpacks or copies
 * locally, the process relabeling and statistics.  Planning needs no MPI:
 * a plan for any rank count can be built on one process.  Plans are
 * immutable but for their tuning (below); one plan may serve any number of
 * executors. */
#ifndef RELAY_PLAN_H
#define RELAY_PLAN_H

#include "relay/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { RELAY_RELABEL_NONE, RELAY_RELABEL_GREEDY, RELAY_RELABEL_OPTIMAL } relay_relabel;
/* How a transform's messages move: all at once, point to point (p2p); in
 * contention-free steps (rounds); as one MPI_Alltoallv (alltoallv); as one
 * neighbourhood alltoallv on a graph of the plan's messages (neighbor). */
typedef enum { RELAY_SCHED_AUTO, RELAY_SCHED_P2P, RELAY_SCHED_ROUNDS, RELAY_SCHED_ALLTOALLV, RELAY_SCHED_NEIGHBOR } relay_schedule;
/* RELAY_PLAN_ND: an N-D transform (relay/nd.h); RELAY_PLAN_INDEX: a move
 * between index layouts (relay/index.h). */
typedef enum { RELAY_PLAN_TRANSFORM, RELAY_PLAN_BMMC, RELAY_PLAN_HSUMMA, RELAY_PLAN_ND, RELAY_PLAN_INDEX } relay_plan_kind;

/* How the replicas of a replicated N-D destination receive (relay/nd.h):
 * each from the sources (direct), or the sources' elements reach one
 * replica of each group, which passes them down a binomial tree of the
 * group's replicas (forward), or as the planner's model finds faster
 * (auto: the fewer bytes the busiest rank sends or receives; on a tie the
 * fewer bytes packed, forwarded bytes being sent from where they landed;
 * direct if that ties too). */
typedef enum { RELAY_REPLICAS_AUTO, RELAY_REPLICAS_DIRECT, RELAY_REPLICAS_FORWARD } relay_replicas;

typedef struct {
    relay_relabel relabel;       /* default RELAY_RELABEL_NONE */
    relay_schedule schedule;     /* default RELAY_SCHED_AUTO */
    const int *node_of_rank;     /* optional, nranks entries: enables the node-aware cost */
    double inter_node_weight;    /* cost of one inter-node byte relative to an intra-node byte */
    /* A memory cap (default 0: none): each rank's pack buffer and receive
     * buffer hold at most this many bytes (each rounded up to 64; past
     * 2^31 - 1 bytes to 64 KiB), for redistributions too big to stage at
     * once.  The replay runs in rounds (schedule auto or rounds; the
     * others are refused), each step's message in chunks of at most half
     * this many bytes (all of it below 128 bytes), two sent and two
     * received at a time, so that one travels while the next is packed
     * and the one before unpacked, all in
     * relay_exec_wait (relay_exec_start starts nothing, so nothing
     * overlaps the caller's work).  At least one element. */
    int64_t max_buffer_bytes;
    relay_replicas replicas;     /* N-D plans (relay/nd.h); default RELAY_REPLICAS_AUTO */
} relay_plan_options;

/* Fills o with the defaults above (inter_node_weight 1). */
RELAY_API void relay_plan_options_init(relay_plan_options *o);

typedef struct relay_plan relay_plan;

/* Plans A := alpha*op(B) + beta*A on nranks ranks.  dst is A's layout
 * (m x n), src is B's (m x n for RELAY_OP_N, n x m otherwise).  Each
 * layout may have fewer ranks than nranks; the others own nothing of it.
 * A relabeled layout (relay_plan_dst_layout of another plan) is planned as
 * an explicit grid of its blocks (at most 2^22 of them), so that plans
 * chain.  opts may be NULL for the defaults. */
RELAY_API relay_status relay_plan_transform(relay_plan **out, int nranks, const relay_layout *dst,
        const relay_layout *src, relay_op op, relay_type type, const relay_plan_options *opts);

/* Plans count transforms (A_k, B_k, op_k) of one element type that move in
 * one communication round: each rank sends at most one message per peer,
 * carrying the pieces of every pair. */
RELAY_API relay_status relay_plan_transform_batch(relay_plan **out, int nranks, int count,
        const relay_layout *const *dst, const relay_layout *const *src, const relay_op *ops,
        relay_type type, const relay_plan_options *opts);

/* The same plan as relay_plan_transform_batch, holding the section of
 * `rank` alone: time and memory follow that rank's lattices (and, for the
 * header's statistics and sigma, the volumes between ranks), not the
 * whole plan.  Its fingerprint is the whole plan's, so ranks that each
 * build their own section pass relay_exec_create's agreement; typical
 * inside a job, where every rank plans what it replays.  Such a plan
 * cannot be saved. */
RELAY_API relay_status relay_plan_transform_rank(relay_plan **out, int rank, int nranks, int count,
        const relay_layout *const *dst, const relay_layout *const *src, const relay_op *ops,
        relay_type type, const relay_plan_options *opts);

/* Plan algebra: plans made from plans, offline.  Each reads only the
 * plans' headers (a plan loaded for one rank will do) and plans its result
 * afresh; the result's schedule is the one both plans have, else auto.
 *
 * compose: `first` moves B into A1 and `second` moves A1, as the first
 * delivers it (relay_plan_dst_layout of first, relabeling included), into
 * A2; the result moves B into A2 directly, each element once, and
 * relabels as `second` does.  Transform plans compose pair by pair (same
 * ranks, type and pair count): op2 after op1, so T after T is N, and T
 * with C is N for real types and RELAY_ERR_UNSUPPORTED for complex ones
 * (it conjugates without transposing).  Replayed with
 * alpha = alpha2 * op2(alpha1) (conj(alpha1) when op2 is C) and beta2, it
 * gives A2 what the two replays give with beta1 = 0, leaving A1 alone.
 * BMMC plans (same bits, rank bits and element size) compose by Lemma 1.
 * RELAY_ERR_MISMATCH when the second plan does not read A1 where the first
 * leaves it.
 *
 * invert: the plan that moves the data back, B := op(A) from A as p
 * delivers it (N, T and C are their own inverses; alpha 1, beta 0), or
 * the inverse BMMC permutation.
 *
 * concat: two transform plans over the same ranks and type as one batch
 * (x's pairs, then y's): one message per peer carries both.  A's blocks
 * go where each plan sends them.
 *
 * HSUMMA plans have no algebra (RELAY_ERR_UNSUPPORTED). */
RELAY_API relay_status relay_plan_compose(relay_plan **out, const relay_plan *first, const relay_plan *second);
RELAY_API relay_status relay_plan_invert(relay_plan **out, const relay_plan *p);
RELAY_API relay_status relay_plan_concat(relay_plan **out, const relay_plan *x, const relay_plan *y);

/* Plan files (MessagePack; see docs/plan-format.md).  load/decode with
 * rank >= 0 keep only that rank's section; rank -1 keeps every section. */
RELAY_API relay_status relay_plan_save(const relay_plan *p, const char *path);
RELAY_API relay_status relay_plan_load(relay_plan **out, const char *path, int rank);
/* The rank count of the plan in a file, from its preamble and header
 * alone (checksum, kind, keys, and room in the file for every rank's
 * section): no layout built, no section read.  A job can refuse a plan of
 * another size before it pays for reading one. */
RELAY_API relay_status relay_plan_file_nranks(const char *path, int *nranks);
RELAY_API relay_status relay_plan_encode(const relay_plan *p, void **buf, size_t *len); /* free() the buffer */
RELAY_API relay_status relay_plan_decode(relay_plan **out, const void *buf, size_t len, int rank);

RELAY_API int relay_plan_nranks(const relay_plan *p);
RELAY_API relay_plan_kind relay_plan_get_kind(const relay_plan *p);
RELAY_API relay_type relay_plan_type(const relay_plan *p);
RELAY_API int relay_plan_count(const relay_plan *p);        /* transform pairs (1 unless batched) */
RELAY_API uint64_t relay_plan_fingerprint(const relay_plan *p);
RELAY_API relay_schedule relay_plan_schedule(const relay_plan *p); /* as planned: never AUTO */
RELAY_API int relay_plan_rounds(const relay_plan *p);      /* communication steps of one replay */
RELAY_API int64_t relay_plan_max_buffer_bytes(const relay_plan *p); /* its memory cap, 0 if none */

/* sigma[j] = the rank that receives the blocks the destination layout
 * assigns to rank j (identity without relabeling).  nranks entries. */
RELAY_API relay_status relay_plan_relabeling(const relay_plan *p, int *sigma);

/* The destination layout of pair `index` with sigma applied to its owners. */
RELAY_API const relay_layout *relay_plan_dst_layout(const relay_plan *p, int index);
/* The source layout of pair `index`. */
RELAY_API const relay_layout *relay_plan_src_layout(const relay_plan *p, int index);

/* Elements that rank's buffer for pair `index` must hold: the destination
 * (relabeled) buffer when is_dst, the source buffer otherwise; -1 on bad
 * arguments. */
RELAY_API int64_t relay_plan_buffer_elems(const relay_plan *p, int is_dst, int index, int rank);

/* Communication statistics of the plan (bytes include rank-local copies in
 * bytes_total only). */
typedef struct {
    int64_t bytes_total;           /* all bytes moved, local copies included */
    int64_t bytes_remote;          /* bytes that cross ranks, with the plan's sigma */
    int64_t bytes_remote_identity; /* bytes that would cross ranks with sigma = identity */
    int64_t messages;              /* remote messages in one replay */
    int64_t pieces;                /* overlay pieces (remote and local) */
} relay_plan_stats;
RELAY_API relay_status relay_plan_get_stats(const relay_plan *p, relay_plan_stats *stats);

/* ---- a plan's tuning (relay_exec_tune, relay/exec.h) ---------------------- */

/* One way the executor can replay a transform plan on the same sections: a
 * schedule (not AUTO; rounds only for a plan made with rounds, whose
 * sections hold the steps) and, under p2p, whether every message is packed
 * (1) or long contiguous runs travel straight from B into A (0).  For an
 * N-D plan (relay/nd.h; p2p, packed 0): whether the replicas of its
 * replicated destinations forward (1) or each receive from the sources (0),
 * whatever the plan chose (relay_plan_options.replicas).  Under p2p,
 * window 1: messages between two ranks of one node are packed by their
 * sender straight into the receiver's landing area in a shared-memory
 * window (RELAY_SHM, relay/exec.h), not copied by MPI; under a memory cap
 * (rounds) whose chunks reach 4 KiB (a cap of 8 KiB or more), the same
 * chunk by chunk, into a slot of the receiver's chunk buffer, which is its
 * segment of the window. */
typedef struct {
    relay_schedule schedule;
    int packed;              /* p2p only; 0 for the other schedules */
    double seconds;          /* the median over the timed replays of the slowest rank's time */
    int forward;             /* N-D plans with a replicated destination; else 0 (after seconds:
                                initialisers of the three fields before it keep their meaning) */
    int window;              /* transform plans, p2p (rounds under a memory cap): on-node messages
                                through a shared-memory window (1) or MPI (0) */
} relay_tuning_choice;

enum { RELAY_TUNING_MAX_CHOICES = 8, RELAY_TUNING_MACHINE_MAX = 32 };

/* What relay_exec_tune measured: every choice it timed, the fastest, and
 * the job's shape.  relay_exec_create replays choices[best] in a job whose
 * nodes hold as many of the plan's ranks (fewest and most per node) as the
 * tuning job's did; elsewhere it replays the plan's own schedule.  The
 * plan's schedule, data movement and fingerprint are unchanged by tuning.
 * A predicted tuning (relay_predict_tuning, relay/predict.h) has the same
 * shape: its seconds were simulated on the machine model `machine`, in the
 * job shape that model places the plan's ranks in, one replay each. */
typedef struct {
    int ntimed;              /* choices timed; 0: the plan carries no tuning */
    int best;                /* the fastest, an index into choices */
    int ranks_per_node_min, ranks_per_node_max;
    int replays;             /* timed replays of each choice (1 for a prediction) */
    relay_tuning_choice choices[RELAY_TUNING_MAX_CHOICES];
    /* "" for a tuning that was timed; a predicted one's machine model:
     * printable ASCII, NUL-terminated (last: initialisers of the fields
     * before it keep their meaning) */
    char machine[RELAY_TUNING_MACHINE_MAX];
} relay_tuning;

/* The plan's tuning (t->ntimed 0 if it has none). */
RELAY_API relay_status relay_plan_tuning(const relay_plan *p, relay_tuning *t);
/* Records t in p, replacing any earlier tuning, or removes it (t NULL or
 * t->ntimed 0).  RELAY_ERR_ARG, p unchanged, when t is not one a
 * transform plan of p's schedule and ranks can carry (a choice it cannot
 * replay, a choice timed twice, best out of range, negative or non-finite
 * seconds, a job shape beyond its ranks, a machine name that is not
 * printable ASCII ended by a NUL).  Not while another thread reads p. */
RELAY_API relay_status relay_plan_set_tuning(relay_plan *p, const relay_tuning *t);

RELAY_API void relay_plan_free(relay_plan *p);

#ifdef __cplusplus
}
#endif
#endif
