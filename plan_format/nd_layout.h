/* nd_layout.h — the N-D layout object (relay/nd.h) and the per-dimension
 * arithmetic the planner, the decoder and the executor share.
 *
 * Along array dimension k a layout is one of three 1-D cuts: whole (no mesh
 * dimension shards k: every coordinate holds [0, n)), block-cyclic (blocks
 * of b dealt round-robin over p coordinates, coordinate 0 first) or split
 * (coordinate c holds [splits[c], splits[c+1])).  A rank's local array is
 * the product of its 1-D parts, each stored in global order, so the local
 * index of a global index is a per-dimension formula and an element's
 * position is a sum of per-dimension terms: everything below is 1-D. */
#ifndef RELAY_ND_LAYOUT_H
#define RELAY_ND_LAYOUT_H

#include "relay/nd.h"

typedef struct {
    relay_placement_kind kind;
    int dim;                 /* SHARD: the array dimension */
    int64_t block;           /* SHARD without splits: the block size, resolved (>= 1) */
    int64_t *splits;         /* SHARD with splits: p+1 entries; else NULL */
} rl_nd_place;

struct relay_nd_layout {
    int ndims;
    int64_t shape[RELAY_ND_MAX_DIMS];
    int mesh_ndims;
    int mesh_shape[RELAY_ND_MAX_MESH];
    int64_t mesh_size;       /* product of mesh_shape */
    int *mesh_ranks;         /* mesh_size distinct ranks, mesh order */
    rl_nd_place place[RELAY_ND_MAX_MESH];
    relay_order order;
    int64_t padded[RELAY_ND_MAX_DIMS]; /* 0: tight */
    /* Derived: */
    int shard_of[RELAY_ND_MAX_DIMS];   /* the mesh dimension sharding array dimension k, or -1 */
    int min_ranks;           /* largest mesh rank + 1 */
    /* The mesh's ranks in increasing order and the position of each:
     * O(mesh) memory whatever the ranks' values. */
    int *sorted_ranks;
    int *sorted_positions;
};

/* The 1-D cut of array dimension k: how many coordinates share it (1 when
 * whole) and which coordinate holds global index g, and at which local index. */
int rl_nd_parts(const relay_nd_layout *l, int k);
int rl_nd_owner(const relay_nd_layout *l, int k, int64_t g);
int64_t rl_nd_local_index(const relay_nd_layout *l, int k, int64_t g);
/* How many indices of dimension k coordinate c holds. */
int64_t rl_nd_local_extent(const relay_nd_layout *l, int k, int c);
/* The blocks of dimension k that coordinate c holds, as a progression:
 * count blocks of len indices, block i at global index first + i * stride
 * (the last one cut at the extent), stored one after another in the local
 * array (block i from local index i * len).  A whole dimension, a split
 * and a block-cyclic cut on one coordinate are one block [first, first +
 * len) (count 1, or 0 when empty; stride 0 below 2 blocks), so that blocks
 * are never adjacent: a run of indices held at both ends of a transfer is
 * contiguous in both local arrays exactly while it stays in one block of
 * each. */
typedef struct {
    int64_t first, len, stride, count;
} rl_nd_blocks;
void rl_nd_blocks_of(const relay_nd_layout *l, int k, int c, rl_nd_blocks *out);
/* Calls visit(lo, hi, ctx) for each block [lo, hi) of dimension k that
 * coordinate c holds, in increasing order (one [0, n) when whole). */
typedef void (*rl_nd_block_visitor)(int64_t lo, int64_t hi, void *ctx);
void rl_nd_for_each_block(const relay_nd_layout *l, int k, int c, rl_nd_block_visitor visit, void *ctx);

/* Mesh coordinates of a mesh position (mesh_ndims entries) and back. */
void rl_nd_mesh_coords(const relay_nd_layout *l, int64_t position, int *coords);
int64_t rl_nd_mesh_position(const relay_nd_layout *l, const int *coords);
/* A rank's mesh position, or -1 when it is not on the mesh. */
static inline int64_t rl_nd_position_of(const relay_nd_layout *l, int rank)
{
    int64_t lo = 0, hi = l->mesh_size;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (l->sorted_ranks[mid] < rank) lo = mid + 1;
        else hi = mid;
    }
    return lo < l->mesh_size && l->sorted_ranks[lo] == rank ? l->sorted_positions[lo] : -1;
}
/* The coordinate along array dimension k of the rank at mesh coordinates
 * `coords` (0 when k is whole). */
static inline int rl_nd_dim_coord(const relay_nd_layout *l, int k, const int *coords)
{
    return l->shard_of[k] < 0 ? 0 : coords[l->shard_of[k]];
}

/* Local extents of the rank at mesh coordinates `coords`, the element
 * strides of its local array (padding included) and the elements its
 * buffer holds. */
void rl_nd_local_extents(const relay_nd_layout *l, const int *coords, int64_t *extents);
void rl_nd_strides(const relay_nd_layout *l, const int64_t *extents, int64_t *strides);
int64_t rl_nd_buffer_elems(const relay_nd_layout *l, const int *coords);

/* Whether the layout has a PARTIAL mesh dimension, and the number of
 * partial pieces (product of their sizes; 1 when none) and of replicas. */
int64_t rl_nd_partial_pieces(const relay_nd_layout *l);
int64_t rl_nd_replicas(const relay_nd_layout *l);

/* Checks a description and builds the layout from it (nd_layout.c): what
 * relay_nd_layout_create and the plan reader share, so that a layout read
 * from a file passes exactly the checks a caller's does.  `what` prefixes
 * the error message. */
relay_status rl_nd_layout_build(relay_nd_layout **out, const relay_nd_desc *d, const char *what);
/* A deep copy. */
relay_status rl_nd_layout_clone(relay_nd_layout **out, const relay_nd_layout *l);
/* The description of l (pointing into l): what the writer stores. */
void rl_nd_layout_describe(const relay_nd_layout *l, relay_nd_desc *d, relay_placement *places);

#endif
