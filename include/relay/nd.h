/* relay/nd.h — N-dimensional arrays on process meshes, and their transforms.
 *
 * An N-D layout places an array of 1 to RELAY_ND_MAX_DIMS dimensions on a
 * process mesh of 1 to RELAY_ND_MAX_MESH dimensions.  The mesh is a list of
 * distinct ranks of the plan's communicator, in mesh order (row-major: the
 * last mesh dimension varies fastest), so that the two layouts of one plan
 * may sit on the same, overlapping or disjoint groups of ranks.  Each mesh
 * dimension has a placement, as PyTorch DTensor's:
 *   RELAY_SHARD      cuts one array dimension across the mesh dimension's p
 *                    coordinates: block-cyclic in blocks of `block` (0: one
 *                    block of ceil(n/p) each, torch.chunk's and DTensor's
 *                    even split, trailing shards shorter or empty), or at
 *                    explicit split points (uneven, empty shards allowed);
 *   RELAY_REPLICATE  every coordinate holds the same data;
 *   RELAY_PARTIAL    the array is the sum of the pieces along this mesh
 *                    dimension (sources only).
 * An array dimension is sharded by at most one mesh dimension.
 *
 * Each rank of the mesh stores its part as a dense local array whose extent
 * along dimension k is the number of global indices of k it holds, in the
 * order they appear globally (ScaLAPACK's local storage, per dimension), in
 * C order (RELAY_ROW_MAJOR: the last dimension fastest) or Fortran order
 * (RELAY_COL_MAJOR).  Optional padded extents (the same on every rank, at
 * least every rank's local extent) set the strides, as FFTW's padded last
 * dimension does.
 *
 * The transform A := alpha * permute(B) + beta * A reorders B's axes as
 * numpy's transpose does: A's dimension k is B's dimension perm[k], so
 * A[i_0, ..., i_{d-1}] = B[j] with j[perm[k]] = i_k.  op RELAY_OP_N needs
 * the identity (perm NULL), RELAY_OP_T permutes (perm NULL: the axes
 * reversed, numpy's .T), RELAY_OP_C permutes and conjugates.  A 2-D
 * transform is the d = 2 case: RELAY_OP_T with the axes reversed.
 *
 * Which replica a source element is read from, and how replicas of a
 * destination receive, is the plan's choice (docs/design.md): every element
 * of A is read from exactly one replica of B (a rank that holds one reads
 * its own; others spread over the replicas, node-local ones first when the
 * options give a node map); every replica of A receives, either directly
 * from the sources or down a tree among the replicas
 * (relay_plan_options.replicas); and partial sums are added in the order
 * of their mesh coordinates, so that replays are bitwise reproducible. */
#ifndef RELAY_ND_H
#define RELAY_ND_H

#include "relay/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { RELAY_ND_MAX_DIMS = 8, RELAY_ND_MAX_MESH = 4 };

typedef enum { RELAY_SHARD, RELAY_REPLICATE, RELAY_PARTIAL } relay_placement_kind;

/* One mesh dimension's placement.  For RELAY_SHARD: `dim` is the array
 * dimension it cuts; `splits`, when not NULL, holds p+1 non-decreasing
 * split points from 0 to the dimension's extent (coordinate c holds
 * [splits[c], splits[c+1])) and `block` must be 0; otherwise `block` is
 * the block-cyclic block size (0: ceil(n/p); at most 2^24 blocks).  The
 * other kinds ignore dim, block and splits. */
typedef struct {
    relay_placement_kind kind;
    int dim;
    int64_t block;
    const int64_t *splits;
} relay_placement;

typedef struct {
    int ndims;                         /* 1 .. RELAY_ND_MAX_DIMS */
    const int64_t *shape;              /* ndims extents, each >= 0 */
    int mesh_ndims;                    /* 1 .. RELAY_ND_MAX_MESH */
    const int *mesh_shape;             /* mesh_ndims sizes, each >= 1 */
    const int *mesh_ranks;             /* their product of distinct ranks >= 0, mesh order */
    const relay_placement *placements; /* mesh_ndims */
    relay_order order;                 /* local storage: RELAY_ROW_MAJOR (C) or RELAY_COL_MAJOR (Fortran) */
    const int64_t *padded;             /* optional, ndims: local extents to store at (0 entries: tight) */
} relay_nd_desc;

typedef struct relay_nd_layout relay_nd_layout;

/* Checks and copies the description (all arrays are copied). */
RELAY_API relay_status relay_nd_layout_create(relay_nd_layout **out, const relay_nd_desc *d);
RELAY_API void relay_nd_layout_free(relay_nd_layout *l);

RELAY_API int relay_nd_layout_ndims(const relay_nd_layout *l);
/* shape: ndims entries. */
RELAY_API relay_status relay_nd_layout_shape(const relay_nd_layout *l, int64_t *shape);
/* The smallest communicator size that holds the mesh: its largest rank + 1. */
RELAY_API int relay_nd_layout_min_ranks(const relay_nd_layout *l);
/* The extents of rank's local array (ndims entries, all 0 when the rank is
 * not on the mesh), and the elements its buffer must hold (padding
 * included; 0 when it holds nothing). */
RELAY_API relay_status relay_nd_layout_local_shape(const relay_nd_layout *l, int rank, int64_t *extents);
RELAY_API int64_t relay_nd_layout_local_elems(const relay_nd_layout *l, int rank);
/* Whether rank holds global element `index` (ndims entries) and, if so
 * (*held 1), where in its buffer.  Replicas hold the same elements;
 * partial pieces hold a part of each. */
RELAY_API relay_status relay_nd_layout_locate(const relay_nd_layout *l, int rank, const int64_t *index, int *held,
                                              int64_t *position);

/* Plans A := alpha * permute(B) + beta * A over nranks ranks (every mesh
 * rank of both layouts below nranks).  perm has the layouts' ndims entries
 * (see above; NULL as op says).  opts as relay_plan_transform's but
 * relabeling (refused, RELAY_ERR_UNSUPPORTED), schedule (p2p, the one an
 * N-D plan replays with) and the memory cap (refused); node_of_rank guides
 * the choice of source replicas (inter_node_weight is not used), replicas
 * how a replicated destination receives.  The plan's kind is RELAY_PLAN_ND: it is
 * its header alone (the layouts, permutations and node map), from which
 * each rank derives its own messages when it binds, in time and memory
 * that follow its messages. */
RELAY_API relay_status relay_plan_nd(relay_plan **out, int nranks, const relay_nd_layout *dst,
        const relay_nd_layout *src, relay_op op, const int *perm, relay_type type, const relay_plan_options *opts);

/* count transforms (A_k, B_k, op_k, perms[k]) of one type in one
 * communication round: at most one message per pair of ranks carries the
 * pieces of every pair.  perms may be NULL, or hold NULL entries. */
RELAY_API relay_status relay_plan_nd_batch(relay_plan **out, int nranks, int count,
        const relay_nd_layout *const *dst, const relay_nd_layout *const *src, const relay_op *ops,
        const int *const *perms, relay_type type, const relay_plan_options *opts);

/* The layouts of an N-D plan's pair `index` (NULL for other plans or a bad
 * index), and its permutation (ndims entries into perm). */
RELAY_API const relay_nd_layout *relay_plan_nd_dst(const relay_plan *p, int index);
RELAY_API const relay_nd_layout *relay_plan_nd_src(const relay_plan *p, int index);
RELAY_API relay_status relay_plan_nd_perm(const relay_plan *p, int index, int *perm);

#ifdef __cplusplus
}
#endif
#endif
