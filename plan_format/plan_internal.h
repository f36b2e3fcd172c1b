/* plan_internal.h — the in-memory plan: what every module of relay shares.
 *
 * A plan is a header (kind, rank count, element type, the transform pairs
 * with their layouts and ops, sigma, statistics, fingerprint) and one
 * section per rank.  A section is all one rank needs to replay: the
 * messages it sends and receives, the pieces each message carries, and the
 * pieces it copies locally.  A piece is a rectangle of A (rows x cols in
 * A's coordinates) together with where it sits in a rank's buffer.
 *
 * Pieces of one message are in canonical order (pair, first A column,
 * first A row), so that sender and receiver agree on their positions in the
 * packed message without exchanging anything. */
#ifndef RELAY_PLAN_INTERNAL_H
#define RELAY_PLAN_INTERNAL_H

#include "relay/bmmc.h"
#include "relay/hsumma.h"
#include "relay/plan.h"
#include "gf2.h"
#include "hsumma_check.h"
#include "layout_internal.h"
#include "nd_layout.h"

/* All plan records are made of 64-bit fields only, so they have no padding
 * and their bytes can be hashed as they are. */

/* A lattice of pieces as one side sees it: count_r x count_c pieces of
 * rows x cols elements (A's coordinates), all of one pair, piece (i, j)
 * (0 <= i < count_r, 0 <= j < count_c) starting at element
 *     off + i * step_r + j * step_c
 * of this rank's buffer (B's for a sender, A's for a receiver), stored at
 * leading dimension ld in that layout's element order (transposed in B
 * when the pair's op is T or C).  A plain piece is a 1 x 1 lattice.
 *
 * In a message a lattice travels as units, one after another (i inner, j
 * outer), each stored tightly in B's element order (transposed when op
 * transposes): a unit is a piece, except along a dimension the lattice is
 * `fused` along, where all its pieces form one unit (count_r * rows rows,
 * or count_c * cols columns).  The planner fuses a dimension where the
 * pieces touch in both buffers (each starts where the one before ends), so
 * that such pieces move as one long run, and nowhere else, so that the
 * elements of a scattered piece stay together in the message. */
enum { RL_FUSED_ROWS = 1, RL_FUSED_COLS = 2 };

/* Plans of fewer ranks than this are made and encoded on one thread: a
 * thread team costs more than their sections, and inside a job whose
 * ranks share cores (every rank planning, as relay_pdgemr2d does on a
 * miss) each rank's team oversubscribes them, and a small plan then takes
 * many times longer than on one thread. */
enum { RL_PARALLEL_RANKS = 64 };

typedef struct {
    int64_t pair;            /* transform pair index k */
    int64_t rows, cols;      /* each piece, in A's coordinates */
    int64_t count_r, count_c; /* pieces down A's rows, across A's columns */
    int64_t off;             /* offset of piece (0, 0) */
    int64_t step_r, step_c;  /* offset steps between pieces (> 0; 0 along a count of 1) */
    int64_t ld;              /* leading dimension of every piece */
    int64_t fused;           /* RL_FUSED_* bits: how the lattice travels (same at both ends) */
} rl_span;

/* A lattice a rank copies to itself, straight from B to A: both sides. */
typedef struct {
    int64_t pair;
    int64_t rows, cols;
    int64_t count_r, count_c;
    int64_t src_off, src_step_r, src_step_c, src_ld; /* in B_pair's buffer */
    int64_t dst_off, dst_step_r, dst_step_c, dst_ld; /* in A_pair's buffer */
} rl_local_span;

/* One message to or from a peer: lattices [first, first+count) of the
 * section's send or receive array; elems is their total size. */
typedef struct {
    int64_t peer;
    int64_t first;
    int64_t count;
    int64_t elems;
} rl_message;

typedef struct {
    int32_t rank;
    int32_t nsend, nrecv;
    rl_message *send;        /* in increasing peer order */
    rl_message *recv;        /* in increasing peer order */
    int64_t nsend_spans, nrecv_spans, nlocal;
    rl_span *send_spans;
    rl_span *recv_spans;
    rl_local_span *local;
    int64_t *send_round;     /* rounds schedule only (else NULL): the step of each send */
    int64_t *recv_round;     /* rounds schedule only (else NULL): the step of each receive */
    int64_t local_round;     /* rounds schedule with local lattices: their step; else -1 */
    int64_t *src_elems;      /* per pair: elements this rank's B buffer holds */
    int64_t *dst_elems;      /* per pair: elements this rank's A buffer holds */
    uint64_t checksum;       /* hash of everything above */
} rl_section;

typedef struct {
    relay_op op;
    relay_layout *dst;       /* A's layout as planned (logical ranks) */
    relay_layout *dst_relabeled; /* A's layout with sigma applied to owners */
    relay_layout *src;       /* B's layout */
} rl_pair;

/* A BMMC plan (kind RELAY_PLAN_BMMC): the permutation as given and its
 * factors in processor-major coordinates, where an index's low n-p bits are
 * the position in a rank's buffer and its high p bits the rank.  Every rank
 * derives its partners and offsets from these O(n) words. */
typedef struct {
    int n, p, f;
    int64_t elem_size;
    rl_gf2 a;                /* y = A x ^ c, actual layout */
    uint64_t c;
    rl_gf2 v, w;             /* processor-major: y = V (W x) ^ cv */
    uint64_t cv;
    int rank;                /* rank of V's lower-left block, which is reduced:
                                zero but for its last `rank` columns */
} rl_bmmc;

/* Checks that v and w factor a (moved to processor-major coordinates) with
 * the structure the executor relies on. */
relay_status rl_bmmc_validate(const rl_bmmc *b);
/* The processor-major form of b's permutation: Q^-1 A Q and Q^-1 c. */
void rl_bmmc_processor_major(const rl_bmmc *b, rl_gf2 *a, uint64_t *c);
/* Rank's partners for its first count blocks (of 2^r, after W): to[b] the
 * rank block b goes to, from[b] the rank whose same block arrives.
 * Returns the block among them that the rank keeps, or -1. */
int rl_bmmc_partners(const rl_bmmc *b, int rank, int count, int *to, int *from);
/* keeps[i]: whether rank first_rank + i keeps one of its blocks. */
void rl_bmmc_keeps_block(const rl_bmmc *b, int first_rank, int count, unsigned char *keeps);
/* The permutation from its factors (a plan file stores only those):
 * A = Q V W Q^-1, c = Q c_v. */
void rl_bmmc_from_factors(rl_bmmc *b);

/* An HSUMMA plan (kind RELAY_PLAN_HSUMMA) is its parameters, which pass
 * rl_hsumma_check (hsumma_check.h): every rank derives its steps, groups
 * and panels from them (hsumma_dist.h). */
typedef struct {
    relay_hsumma_params params;  /* groups 0 x 0 while they are chosen at bind */
    relay_hsumma_groups_from groups_from;
} rl_hsumma;

/* An N-D plan (kind RELAY_PLAN_ND) is its header: per pair the layouts,
 * op, permutation (A's dimension k is B's perm[k]) and how A's replicas
 * receive, and the node map
 * that guides the choice of source replicas.  Every rank derives its
 * messages from it (nd_transfers.h). */
typedef struct {
    relay_op op;
    int32_t perm[RELAY_ND_MAX_DIMS];
    int32_t forward;         /* A replicated: 1 when its replicas pass elements on (nd_transfers.c), 0 when each reads its own */
    relay_nd_layout *dst, *src;
} rl_nd_pair;

typedef struct {
    int32_t count;
    rl_nd_pair *pairs;
    int32_t *node_of_rank;   /* nranks entries, or NULL: no node map */
} rl_nd_plan;

/* An N-D plan (plan.c): a plan of kind RELAY_PLAN_ND with count empty
 * pairs, or a deep copy of one (fingerprint, statistics and tuning too). */
relay_status rl_nd_plan_new(relay_plan **out, int nranks, int count, relay_type type);
relay_status rl_nd_plan_clone(relay_plan **out, const relay_plan *p);
/* Its body (nd_plan.c): count empty pairs, a deep copy of another's pairs
 * and node map into one of the same count, its release, and what plan.c's
 * accessors ask of it. */
rl_nd_plan *rl_nd_plan_body(int count);
relay_status rl_nd_plan_body_copy(rl_nd_plan *to, const rl_nd_plan *from, int nranks);
/* Whether some pair's destination is replicated, and whether some pair forwards. */
int rl_nd_plan_replicated(const rl_nd_plan *nd);
int rl_nd_plan_forwards(const rl_nd_plan *nd);
void rl_nd_plan_free(rl_nd_plan *nd);
int64_t rl_nd_plan_buffer_elems(const relay_plan *p, int is_dst, int index, int rank);

/* An index plan's body (index_plan.h). */
typedef struct rl_index_plan rl_index_plan;

struct relay_plan {
    relay_plan_kind kind;
    int32_t nranks;
    relay_type type;
    relay_schedule schedule; /* never AUTO in a built plan: the planner resolves it */
    int32_t rounds;          /* communication steps of one replay (1 unless rounds) */
    int64_t max_buffer_bytes;/* the memory cap (relay_plan_options; rounds only), 0 if none */
    relay_relabel relabel;
    int32_t count;
    rl_pair *pairs;          /* count entries */
    int32_t *sigma;          /* nranks entries; NULL (the identity) for BMMC and HSUMMA */
    int32_t *sigma_inverse;  /* read plans: sigma's inverse, the rank map the pairs' dst_relabeled share; else NULL */
    relay_plan_stats stats;
    uint64_t fingerprint;    /* hash of the header: what the sections are derived from */
    int format_major, format_minor; /* of the file it was read from, or the current */
    int from_bytes;          /* decoded, not planned: the executor checks each section it
                                binds against the header, element by element */
    rl_section **sections;   /* nranks entries, NULL where not loaded; the array NULL for BMMC and HSUMMA */
    rl_bmmc *bmmc;           /* BMMC plans only */
    rl_hsumma *hsumma;       /* HSUMMA plans only */
    rl_nd_plan *nd;          /* N-D plans only (count pairs live here; pairs stays NULL) */
    rl_index_plan *index;    /* index plans only (relay/index.h) */
    relay_tuning tuning;     /* transform plans: what relay_exec_tune measured (ntimed 0: none);
                                outside the fingerprint, like the file's bytes (tuning.c) */
};

/* A new HSUMMA plan of these parameters (checked), with its statistics and
 * fingerprint (hsumma.c). */
relay_status rl_hsumma_plan_new(relay_plan **out, const relay_hsumma_params *p, relay_hsumma_groups_from from);

/* Allocation and release of the plan's parts.  A transform (count > 0
 * pairs) gets an identity sigma and empty sections; BMMC and HSUMMA plans
 * (count 0) neither, so their memory does not grow with the ranks. */
relay_plan *rl_plan_alloc(int nranks, int count);
void rl_section_free(rl_section *s);
rl_section *rl_section_alloc(int rank, int count);
relay_status rl_section_clone(rl_section **out, const rl_section *s, int count);

/* The B-side (source) order and shape of pair k: a piece of rows x cols in
 * A's coordinates is cols x rows in B's when op transposes. */
int rl_op_transposes(relay_op op);

/* Element offset of (r, c) inside a block stored at ld in order o. */
static inline int64_t rl_elem_offset(relay_order o, int64_t ld, int64_t r, int64_t c)
{
    return o == RELAY_COL_MAJOR ? r + c * ld : r * ld + c;
}

/* Hashes: a section's checksum, and the plan's fingerprint.  The
 * fingerprint covers the header alone (what the planner derives every
 * section from), so that a rank that built or read only its own section
 * knows it: relay_exec_create compares it across ranks. */
uint64_t rl_section_hash(const rl_section *s, int count);
uint64_t rl_plan_hash(const relay_plan *p);
/* A layout's fingerprint (the Python package's layout equality): its
 * description, as the plan's fingerprint hashes it; 0 without memory. */
uint64_t rl_layout_hash(const relay_layout *l);
uint64_t rl_nd_layout_hash(const relay_nd_layout *l);

/* One side of a local lattice (B's, or A's when dst), as a span that is not fused. */
static inline rl_span rl_local_half(const rl_local_span *l, int dst)
{
    return dst ? (rl_span){l->pair, l->rows, l->cols, l->count_r, l->count_c, l->dst_off, l->dst_step_r, l->dst_step_c, l->dst_ld, 0}
               : (rl_span){l->pair, l->rows, l->cols, l->count_r, l->count_c, l->src_off, l->src_step_r, l->src_step_c, l->src_ld, 0};
}

/* Pieces and elements of a lattice (no overflow once validated). */
static inline int64_t rl_span_pieces(const rl_span *s) { return s->count_r * s->count_c; }
static inline int64_t rl_span_elems(const rl_span *s) { return s->rows * s->cols * s->count_r * s->count_c; }
static inline int64_t rl_local_span_pieces(const rl_local_span *s) { return s->count_r * s->count_c; }
static inline int64_t rl_local_span_elems(const rl_local_span *s) { return s->rows * s->cols * s->count_r * s->count_c; }

/* Records are stored as runs of 64-bit fields, in files as in memory. */
enum { RL_MESSAGE_FIELDS = 4, RL_SPAN_FIELDS = 10, RL_LOCAL_FIELDS = 13 };
_Static_assert(sizeof(rl_message) == RL_MESSAGE_FIELDS * sizeof(int64_t), "rl_message has padding");
_Static_assert(sizeof(rl_span) == RL_SPAN_FIELDS * sizeof(int64_t), "rl_span has padding");
_Static_assert(sizeof(rl_local_span) == RL_LOCAL_FIELDS * sizeof(int64_t), "rl_local_span has padding");

/* Why t cannot be p's tuning, or NULL when it can (tuning.c); t->ntimed > 0. */
const char *rl_tuning_flaw(const relay_plan *p, const relay_tuning *t);

/* Checks that a section is self-consistent and within its declared buffer
 * sizes and the plan's rank count: the executor's trust boundary. */
relay_status rl_section_validate(const rl_section *s, const relay_plan *p);

#endif
