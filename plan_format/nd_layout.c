/* nd_layout.c — N-D layouts (relay/nd.h): checking a description, the
 * 1-D cut of each array dimension, and the queries of the public API. */
#include <string.h>

#include "error.h"
#include "nd_layout.h"

/* ---- the 1-D cut of one array dimension ----------------------------------- */

static const rl_nd_place *shard_place(const relay_nd_layout *l, int k)
{
    return l->shard_of[k] < 0 ? NULL : &l->place[l->shard_of[k]];
}

int rl_nd_parts(const relay_nd_layout *l, int k)
{
    return l->shard_of[k] < 0 ? 1 : l->mesh_shape[l->shard_of[k]];
}

/* The coordinate c with splits[c] <= g < splits[c+1] (empty shards never
 * hold g): the last c whose split is <= g. */
static int split_owner(const int64_t *splits, int p, int64_t g)
{
    int lo = 0, hi = p; /* splits[lo] <= g < splits[hi] */
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (splits[mid] <= g) lo = mid;
        else hi = mid;
    }
    return lo;
}

int rl_nd_owner(const relay_nd_layout *l, int k, int64_t g)
{
    const rl_nd_place *s = shard_place(l, k);
    if (!s) return 0;
    int p = rl_nd_parts(l, k);
    return s->splits ? split_owner(s->splits, p, g) : (int)(g / s->block % p);
}

int64_t rl_nd_local_index(const relay_nd_layout *l, int k, int64_t g)
{
    const rl_nd_place *s = shard_place(l, k);
    if (!s) return g;
    if (s->splits) return g - s->splits[split_owner(s->splits, rl_nd_parts(l, k), g)];
    int64_t blk = g / s->block; /* block * parts may pass 2^63: divide instead */
    return blk / rl_nd_parts(l, k) * s->block + g % s->block;
}

int64_t rl_nd_local_extent(const relay_nd_layout *l, int k, int c)
{
    const rl_nd_place *s = shard_place(l, k);
    int64_t n = l->shape[k];
    if (!s) return n;
    if (s->splits) return s->splits[c + 1] - s->splits[c];
    int p = rl_nd_parts(l, k);
    int64_t b = s->block, nblocks = n / b, extent = nblocks / p * b, extra = nblocks % p;
    if (c < extra) extent += b;
    else if (c == extra) extent += n % b;
    return extent;
}

void rl_nd_blocks_of(const relay_nd_layout *l, int k, int c, rl_nd_blocks *out)
{
    const rl_nd_place *s = shard_place(l, k);
    int64_t n = l->shape[k];
    if (!s || s->splits) {
        int64_t lo = s ? s->splits[c] : 0, hi = s ? s->splits[c + 1] : n;
        *out = (rl_nd_blocks){lo, hi - lo, 0, hi > lo};
        return;
    }
    int64_t b = s->block, p = rl_nd_parts(l, k), nblocks = (n + b - 1) / b; /* k * b < n + b never overflows */
    if (p == 1) { /* consecutive blocks on one coordinate: one block */
        *out = (rl_nd_blocks){0, n, 0, n > 0};
        return;
    }
    int64_t count = c < nblocks ? (nblocks - 1 - c) / p + 1 : 0;
    *out = (rl_nd_blocks){count ? c * b : 0, b, count > 1 ? p * b : 0, count}; /* c * b < n when c holds a block, p * b when 2 */
}

void rl_nd_for_each_block(const relay_nd_layout *l, int k, int c, rl_nd_block_visitor visit, void *ctx)
{
    rl_nd_blocks x;
    rl_nd_blocks_of(l, k, c, &x);
    for (int64_t i = 0, n = l->shape[k]; i < x.count; i++) {
        int64_t lo = x.first + i * x.stride;
        visit(lo, x.len < n - lo ? lo + x.len : n, ctx);
    }
}

/* ---- the mesh --------------------------------------------------------------- */

void rl_nd_mesh_coords(const relay_nd_layout *l, int64_t position, int *coords)
{
    for (int m = l->mesh_ndims - 1; m >= 0; m--) {
        coords[m] = (int)(position % l->mesh_shape[m]);
        position /= l->mesh_shape[m];
    }
}

int64_t rl_nd_mesh_position(const relay_nd_layout *l, const int *coords)
{
    int64_t position = 0;
    for (int m = 0; m < l->mesh_ndims; m++) position = position * l->mesh_shape[m] + coords[m];
    return position;
}

void rl_nd_local_extents(const relay_nd_layout *l, const int *coords, int64_t *extents)
{
    for (int k = 0; k < l->ndims; k++) extents[k] = rl_nd_local_extent(l, k, rl_nd_dim_coord(l, k, coords));
}

void rl_nd_strides(const relay_nd_layout *l, const int64_t *extents, int64_t *strides)
{
    int64_t stride = 1;
    for (int i = 0; i < l->ndims; i++) {
        int k = l->order == RELAY_ROW_MAJOR ? l->ndims - 1 - i : i;
        strides[k] = stride;
        stride *= l->padded[k] ? l->padded[k] : extents[k];
    }
}

int64_t rl_nd_buffer_elems(const relay_nd_layout *l, const int *coords)
{
    int64_t extents[RELAY_ND_MAX_DIMS], elems = 1;
    rl_nd_local_extents(l, coords, extents);
    for (int k = 0; k < l->ndims; k++) {
        if (extents[k] == 0) return 0;
        elems *= l->padded[k] ? l->padded[k] : extents[k]; /* bounded when the layout was built */
    }
    return elems;
}

static int64_t mesh_product_of(const relay_nd_layout *l, relay_placement_kind kind)
{
    int64_t n = 1;
    for (int m = 0; m < l->mesh_ndims; m++)
        if (l->place[m].kind == kind) n *= l->mesh_shape[m];
    return n;
}

int64_t rl_nd_partial_pieces(const relay_nd_layout *l) { return mesh_product_of(l, RELAY_PARTIAL); }
int64_t rl_nd_replicas(const relay_nd_layout *l) { return mesh_product_of(l, RELAY_REPLICATE); }

/* ---- checking a description ------------------------------------------------- */

/* Local buffers are addressed with int64_t: every rank's padded product
 * must fit, as must every extent's product with the element size. */
#define RL_ND_MAX_ELEMS ((int64_t)1 << 56)
/* Ranks, as plan files bound them (RELAY_MAX_RANKS). */
#define RL_ND_MAX_RANKS (1 << 24)
/* Blocks of one dimension's block-cyclic cut: a rank's transfers keep a
 * run per block they cross, so this bounds their memory, for plans a
 * file describes as for a caller's. */
#define RL_ND_MAX_BLOCKS ((int64_t)1 << 24)

static relay_status check_shape(const relay_nd_desc *d, const char *what)
{
    if (d->ndims < 1 || d->ndims > RELAY_ND_MAX_DIMS)
        return rl_fail(RELAY_ERR_ARG, "%s: ndims = %d is not in [1, %d]", what, d->ndims, RELAY_ND_MAX_DIMS);
    if (!d->shape) return rl_fail(RELAY_ERR_ARG, "%s: shape is NULL", what);
    for (int k = 0; k < d->ndims; k++)
        if (d->shape[k] < 0 || d->shape[k] > RL_ND_MAX_ELEMS)
            return rl_fail(RELAY_ERR_ARG, "%s: extent %lld of dimension %d is not in [0, 2^56]", what, (long long)d->shape[k], k);
    if (d->order != RELAY_ROW_MAJOR && d->order != RELAY_COL_MAJOR)
        return rl_fail(RELAY_ERR_ARG, "%s: order %d is neither RELAY_ROW_MAJOR (C) nor RELAY_COL_MAJOR (Fortran)", what, (int)d->order);
    return RELAY_OK;
}

static relay_status check_mesh(const relay_nd_desc *d, int64_t *size, int *max_rank, const char *what)
{
    if (d->mesh_ndims < 1 || d->mesh_ndims > RELAY_ND_MAX_MESH)
        return rl_fail(RELAY_ERR_ARG, "%s: mesh_ndims = %d is not in [1, %d]", what, d->mesh_ndims, RELAY_ND_MAX_MESH);
    if (!d->mesh_shape || !d->mesh_ranks || !d->placements)
        return rl_fail(RELAY_ERR_ARG, "%s: mesh_shape, mesh_ranks and placements must not be NULL", what);
    *size = 1;
    for (int m = 0; m < d->mesh_ndims; m++) {
        if (d->mesh_shape[m] < 1 || d->mesh_shape[m] > (1 << 24) || *size * d->mesh_shape[m] > (1 << 24))
            return rl_fail(RELAY_ERR_ARG, "%s: mesh dimension %d of size %d: a mesh holds 1 to 2^24 ranks", what, m, d->mesh_shape[m]);
        *size *= d->mesh_shape[m];
    }
    *max_rank = -1;
    for (int64_t i = 0; i < *size; i++) {
        if (d->mesh_ranks[i] < 0 || d->mesh_ranks[i] >= RL_ND_MAX_RANKS)
            return rl_fail(RELAY_ERR_ARG, "%s: mesh rank %d at position %lld is not in [0, 2^24)", what, d->mesh_ranks[i], (long long)i);
        if (d->mesh_ranks[i] > *max_rank) *max_rank = d->mesh_ranks[i];
    }
    return RELAY_OK;
}

static relay_status check_splits(const int64_t *splits, int p, int64_t n, int m, const char *what)
{
    if (splits[0] != 0 || splits[p] != n)
        return rl_fail(RELAY_ERR_ARG, "%s: mesh dimension %d's splits run from %lld to %lld, not from 0 to the extent %lld", what, m,
                       (long long)splits[0], (long long)splits[p], (long long)n);
    for (int c = 0; c < p; c++)
        if (splits[c + 1] < splits[c])
            return rl_fail(RELAY_ERR_ARG, "%s: mesh dimension %d's splits decrease at %d (%lld after %lld)", what, m, c + 1,
                           (long long)splits[c + 1], (long long)splits[c]);
    return RELAY_OK;
}

static relay_status check_placements(const relay_nd_desc *d, const char *what)
{
    int sharded_by[RELAY_ND_MAX_DIMS];
    for (int k = 0; k < d->ndims; k++) sharded_by[k] = -1;
    for (int m = 0; m < d->mesh_ndims; m++) {
        const relay_placement *pl = &d->placements[m];
        if (pl->kind == RELAY_REPLICATE || pl->kind == RELAY_PARTIAL) continue;
        if (pl->kind != RELAY_SHARD) return rl_fail(RELAY_ERR_ARG, "%s: mesh dimension %d has placement kind %d", what, m, (int)pl->kind);
        if (pl->dim < 0 || pl->dim >= d->ndims)
            return rl_fail(RELAY_ERR_ARG, "%s: mesh dimension %d shards array dimension %d of an array of %d", what, m, pl->dim, d->ndims);
        if (sharded_by[pl->dim] >= 0)
            return rl_fail(RELAY_ERR_ARG, "%s: array dimension %d is sharded by mesh dimensions %d and %d (one at most)", what, pl->dim,
                           sharded_by[pl->dim], m);
        sharded_by[pl->dim] = m;
        if (pl->block < 0) return rl_fail(RELAY_ERR_ARG, "%s: mesh dimension %d's block %lld is negative", what, m, (long long)pl->block);
        if (pl->splits && pl->block)
            return rl_fail(RELAY_ERR_ARG, "%s: mesh dimension %d gives both splits and a block size", what, m);
        if (pl->splits) {
            relay_status st = check_splits(pl->splits, d->mesh_shape[m], d->shape[pl->dim], m, what);
            if (st) return st;
        }
        int64_t n = d->shape[pl->dim];
        if (pl->block > 0 && n > 0 && (n - 1) / pl->block >= RL_ND_MAX_BLOCKS)
            return rl_fail(RELAY_ERR_ARG, "%s: mesh dimension %d cuts %lld elements in blocks of %lld: more than 2^24 blocks", what, m,
                           (long long)n, (long long)pl->block);
    }
    return RELAY_OK;
}

/* ---- building --------------------------------------------------------------- */

static void resolve_blocks(relay_nd_layout *l)
{
    for (int m = 0; m < l->mesh_ndims; m++) {
        rl_nd_place *s = &l->place[m];
        if (s->kind != RELAY_SHARD) continue;
        l->shard_of[s->dim] = m;
        int64_t n = l->shape[s->dim], p = l->mesh_shape[m];
        if (!s->splits && s->block == 0) s->block = n == 0 ? 1 : (n + p - 1) / p;
        if (!s->splits && s->block > n) s->block = n > 0 ? n : 1; /* one block either way: same cut, no overflow */
    }
}

static relay_status copy_description(relay_nd_layout *l, const relay_nd_desc *d, int64_t size, int max_rank)
{
    l->ndims = d->ndims;
    memcpy(l->shape, d->shape, (size_t)d->ndims * sizeof *l->shape);
    l->mesh_ndims = d->mesh_ndims;
    memcpy(l->mesh_shape, d->mesh_shape, (size_t)d->mesh_ndims * sizeof *l->mesh_shape);
    l->mesh_size = size;
    l->order = d->order;
    for (int k = 0; k < RELAY_ND_MAX_DIMS; k++) l->shard_of[k] = -1;
    if (d->padded) memcpy(l->padded, d->padded, (size_t)d->ndims * sizeof *l->padded);
    l->min_ranks = max_rank + 1;
    l->mesh_ranks = rl_malloc_array((size_t)size, sizeof *l->mesh_ranks);
    l->sorted_ranks = rl_malloc_array((size_t)size, sizeof *l->sorted_ranks);
    l->sorted_positions = rl_malloc_array((size_t)size, sizeof *l->sorted_positions);
    if (!l->mesh_ranks || !l->sorted_ranks || !l->sorted_positions) return RL_NOMEM();
    memcpy(l->mesh_ranks, d->mesh_ranks, (size_t)size * sizeof *l->mesh_ranks);
    for (int m = 0; m < d->mesh_ndims; m++) {
        l->place[m] = (rl_nd_place){d->placements[m].kind, d->placements[m].dim, d->placements[m].block, NULL};
        if (d->placements[m].kind != RELAY_SHARD) l->place[m].dim = 0, l->place[m].block = 0;
        if (d->placements[m].kind == RELAY_SHARD && d->placements[m].splits) {
            size_t n = (size_t)d->mesh_shape[m] + 1;
            if (!(l->place[m].splits = rl_malloc_array(n, sizeof(int64_t)))) return RL_NOMEM();
            memcpy(l->place[m].splits, d->placements[m].splits, n * sizeof(int64_t));
        }
    }
    return RELAY_OK;
}

/* Sorts the mesh's ranks with their positions (radix sort: ranks are
 * below 2^24), refusing one that appears twice. */
static relay_status index_ranks(relay_nd_layout *l, const char *what)
{
    int64_t n = l->mesh_size;
    int *tmp_r = rl_malloc_array((size_t)n, sizeof *tmp_r), *tmp_p = rl_malloc_array((size_t)n, sizeof *tmp_p);
    if (!tmp_r || !tmp_p) {
        free(tmp_r);
        free(tmp_p);
        return RL_NOMEM();
    }
    for (int64_t i = 0; i < n; i++) l->sorted_ranks[i] = l->mesh_ranks[i], l->sorted_positions[i] = (int)i;
    for (int shift = 0; shift < 24; shift += 8) { /* stable by each byte: sorted by rank */
        int64_t count[257] = {0};
        for (int64_t i = 0; i < n; i++) count[(l->sorted_ranks[i] >> shift & 255) + 1]++;
        for (int b = 0; b < 256; b++) count[b + 1] += count[b];
        for (int64_t i = 0; i < n; i++) {
            int64_t to = count[l->sorted_ranks[i] >> shift & 255]++;
            tmp_r[to] = l->sorted_ranks[i], tmp_p[to] = l->sorted_positions[i];
        }
        memcpy(l->sorted_ranks, tmp_r, (size_t)n * sizeof *tmp_r);
        memcpy(l->sorted_positions, tmp_p, (size_t)n * sizeof *tmp_p);
    }
    free(tmp_r);
    free(tmp_p);
    for (int64_t i = 1; i < n; i++)
        if (l->sorted_ranks[i] == l->sorted_ranks[i - 1])
            return rl_fail(RELAY_ERR_ARG, "%s: rank %d appears twice on the mesh (positions %d and %d)", what, l->sorted_ranks[i],
                           l->sorted_positions[i - 1], l->sorted_positions[i]);
    return RELAY_OK;
}

/* Padding must hold every rank's local extent, and every buffer must be
 * addressable: the largest local extent along k is coordinate 0's (even
 * and block-cyclic cuts) or the largest split. */
static relay_status check_padding(const relay_nd_layout *l, const char *what)
{
    int64_t elems = 1;
    for (int k = 0; k < l->ndims; k++) {
        int64_t largest = 0;
        for (int c = 0; c < rl_nd_parts(l, k); c++) {
            int64_t e = rl_nd_local_extent(l, k, c);
            if (e > largest) largest = e;
        }
        if (l->padded[k] < 0 || (l->padded[k] && l->padded[k] < largest))
            return rl_fail(RELAY_ERR_ARG, "%s: padded extent %lld of dimension %d is below a rank's local extent %lld", what,
                           (long long)l->padded[k], k, (long long)largest);
        int64_t stored = l->padded[k] ? l->padded[k] : largest;
        if (stored && (rl_mul_overflows(elems, stored, &elems) || elems > RL_ND_MAX_ELEMS))
            return rl_fail(RELAY_ERR_ARG, "%s: a rank's local array exceeds 2^56 elements", what);
    }
    return RELAY_OK;
}

relay_status rl_nd_layout_build(relay_nd_layout **out, const relay_nd_desc *d, const char *what)
{
    if (!out || !d) return rl_fail(RELAY_ERR_ARG, "%s: NULL argument", what);
    int64_t size = 0;
    int max_rank = -1;
    relay_status st = check_shape(d, what);
    if (!st) st = check_mesh(d, &size, &max_rank, what);
    if (!st) st = check_placements(d, what);
    if (st) return st;
    relay_nd_layout *l = calloc(1, sizeof *l);
    if (!l) return RL_NOMEM();
    st = copy_description(l, d, size, max_rank);
    if (!st) st = index_ranks(l, what);
    if (!st) {
        resolve_blocks(l);
        st = check_padding(l, what);
    }
    if (st) {
        relay_nd_layout_free(l);
        return st;
    }
    *out = l;
    return RELAY_OK;
}

void rl_nd_layout_describe(const relay_nd_layout *l, relay_nd_desc *d, relay_placement *places)
{
    for (int m = 0; m < l->mesh_ndims; m++)
        places[m] = (relay_placement){l->place[m].kind, l->place[m].dim, l->place[m].splits ? 0 : l->place[m].block, l->place[m].splits};
    *d = (relay_nd_desc){l->ndims, l->shape, l->mesh_ndims, l->mesh_shape, l->mesh_ranks, places, l->order, l->padded};
}

relay_status rl_nd_layout_clone(relay_nd_layout **out, const relay_nd_layout *l)
{
    relay_nd_desc d;
    relay_placement places[RELAY_ND_MAX_MESH];
    rl_nd_layout_describe(l, &d, places);
    return rl_nd_layout_build(out, &d, "copying an N-D layout");
}

/* ---- the public API ------------------------------------------------------- */

relay_status relay_nd_layout_create(relay_nd_layout **out, const relay_nd_desc *d)
{
    return rl_nd_layout_build(out, d, "relay_nd_layout_create");
}

void relay_nd_layout_free(relay_nd_layout *l)
{
    if (!l) return;
    for (int m = 0; m < l->mesh_ndims; m++) free(l->place[m].splits);
    free(l->mesh_ranks);
    free(l->sorted_ranks);
    free(l->sorted_positions);
    free(l);
}

int relay_nd_layout_ndims(const relay_nd_layout *l) { return l ? l->ndims : 0; }
int relay_nd_layout_min_ranks(const relay_nd_layout *l) { return l ? l->min_ranks : 0; }

relay_status relay_nd_layout_shape(const relay_nd_layout *l, int64_t *shape)
{
    if (!l || !shape) return rl_fail(RELAY_ERR_ARG, "relay_nd_layout_shape: NULL argument");
    memcpy(shape, l->shape, (size_t)l->ndims * sizeof *shape);
    return RELAY_OK;
}

relay_status relay_nd_layout_local_shape(const relay_nd_layout *l, int rank, int64_t *extents)
{
    if (!l || !extents) return rl_fail(RELAY_ERR_ARG, "relay_nd_layout_local_shape: NULL argument");
    int64_t position = rl_nd_position_of(l, rank);
    int coords[RELAY_ND_MAX_MESH];
    if (position < 0) {
        memset(extents, 0, (size_t)l->ndims * sizeof *extents);
        return RELAY_OK;
    }
    rl_nd_mesh_coords(l, position, coords);
    rl_nd_local_extents(l, coords, extents);
    return RELAY_OK;
}

int64_t relay_nd_layout_local_elems(const relay_nd_layout *l, int rank)
{
    int64_t position = l ? rl_nd_position_of(l, rank) : -1;
    int coords[RELAY_ND_MAX_MESH];
    if (position < 0) return 0;
    rl_nd_mesh_coords(l, position, coords);
    return rl_nd_buffer_elems(l, coords);
}

relay_status relay_nd_layout_locate(const relay_nd_layout *l, int rank, const int64_t *index, int *held, int64_t *position)
{
    if (!l || !index || !held || !position) return rl_fail(RELAY_ERR_ARG, "relay_nd_layout_locate: NULL argument");
    for (int k = 0; k < l->ndims; k++)
        if (index[k] < 0 || index[k] >= l->shape[k])
            return rl_fail(RELAY_ERR_ARG, "relay_nd_layout_locate: index %lld of dimension %d is outside [0, %lld)", (long long)index[k], k,
                           (long long)l->shape[k]);
    int64_t at = rl_nd_position_of(l, rank), extents[RELAY_ND_MAX_DIMS], strides[RELAY_ND_MAX_DIMS];
    int coords[RELAY_ND_MAX_MESH];
    *held = 0;
    *position = -1;
    if (at < 0) return RELAY_OK;
    rl_nd_mesh_coords(l, at, coords);
    for (int k = 0; k < l->ndims; k++)
        if (rl_nd_owner(l, k, index[k]) != rl_nd_dim_coord(l, k, coords)) return RELAY_OK;
    rl_nd_local_extents(l, coords, extents);
    rl_nd_strides(l, extents, strides);
    int64_t pos = 0;
    for (int k = 0; k < l->ndims; k++) pos += rl_nd_local_index(l, k, index[k]) * strides[k];
    *held = 1;
    *position = pos;
    return RELAY_OK;
}
