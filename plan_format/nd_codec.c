/* nd_codec.c — reading an N-D plan's pairs from a plan file (format 3.0,
 * kind nd) as untrusted input; codec_write.c writes them.
 *
 * A pair is a map {op, perm, forward, dst, src} (forward: A's replicas
 * pass elements on; absent: 0); a layout is the arguments of
 * relay_nd_layout_create, {shape, mesh_shape, mesh_ranks, placements,
 * order, padded}, each placement {kind, dim, block, splits}.  Reading
 * bounds every count before it allocates (1 to 8 dimensions, 1 to 4 mesh
 * dimensions, a mesh of at most the plan's ranks, each a rank of the plan,
 * the rank maps within rl_nd_limits), then rebuilds each layout through
 * rl_nd_layout_build and checks each pair with rl_nd_check_pair, so that
 * what a file holds passes exactly the checks a caller's arguments do. */
#include <stdio.h>
#include <string.h>

#include "codec.h"
#include "error.h"
#include "nd_codec.h"
#include "nd_transfers.h"

const char *const rl_nd_placement_names[3] = {[RELAY_SHARD] = "shard", [RELAY_REPLICATE] = "replicate",
                                              [RELAY_PARTIAL] = "partial"};

/* ---- reading: error messages and keys ---------------------------------------- */

/* The field `key` of `what` failed to read (r->error says why). */
static relay_status field_error(const mp_reader *r, const char *what, const char *key)
{
    return rl_fail(RELAY_ERR_FORMAT, "%s field `%s` is malformed: %s", what, key, r->error ? r->error : "unexpected content");
}

/* What failed to read as a whole (a map or a key that is not one). */
static relay_status map_error(const mp_reader *r, const char *what)
{
    return rl_fail(RELAY_ERR_FORMAT, "%s is malformed: %s", what, r->error ? r->error : "unexpected content");
}

/* A refusal of the checks a caller's arguments get (RELAY_ERR_ARG) is a
 * format error in a file; the message names the pair or layout already. */
static relay_status as_format(relay_status st)
{
    return st == RELAY_ERR_ARG ? rl_fail(RELAY_ERR_FORMAT, "%s", relay_last_error()) : st;
}

/* Reads the next key of a map of `what` into *k (an index into keys, or -1
 * for a key this reader does not know); a known key met twice is refused. */
static relay_status read_key(mp_reader *r, const char *const *keys, int count, unsigned *seen, int *k, const char *what)
{
    const char *key;
    uint32_t klen;
    if (!mp_read_str(r, &key, &klen)) return map_error(r, what);
    *k = mp_key_index(keys, count, key, klen);
    if (*k >= 0 && *seen & 1u << *k) return rl_fail(RELAY_ERR_FORMAT, "%s has the `%s` field twice", what, keys[*k]);
    if (*k >= 0) *seen |= 1u << *k;
    return *k < 0 && !mp_skip(r) ? map_error(r, what) : RELAY_OK;
}

/* ---- reading: a layout's fields ---------------------------------------------- */

enum { LK_SHAPE, LK_MESH_SHAPE, LK_MESH_RANKS, LK_PLACEMENTS, LK_ORDER, LK_PADDED, LK_COUNT };
static const char *const layout_keys[LK_COUNT] = {"shape", "mesh_shape", "mesh_ranks", "placements", "order", "padded"};
enum { PK_KIND, PK_DIM, PK_BLOCK, PK_SPLITS, PK_COUNT };
static const char *const placement_keys[PK_COUNT] = {"kind", "dim", "block", "splits"};

/* A layout as read, before it is built. */
typedef struct {
    const char *what;                          /* "plan N-D pair 0's dst layout" */
    unsigned seen;                             /* keys met, bit per layout_keys index */
    uint32_t ndims, npadded, mesh_ndims, nmesh_ranks, nplaces;
    int64_t shape[RELAY_ND_MAX_DIMS], padded[RELAY_ND_MAX_DIMS];
    int mesh_shape[RELAY_ND_MAX_MESH];
    int *mesh_ranks;                           /* nmesh_ranks, each a rank of the plan */
    int max_rank;
    relay_placement places[RELAY_ND_MAX_MESH];
    int64_t *splits[RELAY_ND_MAX_MESH];        /* owned; places[m].splits points here */
    uint32_t nsplits[RELAY_ND_MAX_MESH];
    unsigned place_seen[RELAY_ND_MAX_MESH];    /* keys met, bit per placement_keys index */
    relay_order order;
} layout_fields;

static void layout_fields_free(layout_fields *f)
{
    free(f->mesh_ranks);
    for (int m = 0; m < RELAY_ND_MAX_MESH; m++) free(f->splits[m]);
}

/* An array's header of 1 .. max entries ("shape", "mesh_shape", ...). */
static relay_status read_count(mp_reader *r, const layout_fields *f, const char *key, uint32_t *n, uint32_t max)
{
    if (!mp_read_array(r, n)) return field_error(r, f->what, key);
    if (*n < 1 || *n > max)
        return rl_fail(RELAY_ERR_FORMAT, "%s has %u entries in `%s`, not 1 to %u", f->what, *n, key, max);
    return RELAY_OK;
}

/* `shape` or `padded`: 1 to 8 extents, checked by rl_nd_layout_build. */
static relay_status read_extents(mp_reader *r, const layout_fields *f, const char *key, int64_t *out, uint32_t *n)
{
    relay_status st = read_count(r, f, key, n, RELAY_ND_MAX_DIMS);
    for (uint32_t i = 0; !st && i < *n; i++)
        if (!mp_read_int(r, &out[i])) st = field_error(r, f->what, key);
    return st;
}

static relay_status read_mesh_shape(mp_reader *r, layout_fields *f, const rl_nd_limits *lim)
{
    int64_t v;
    relay_status st = read_count(r, f, "mesh_shape", &f->mesh_ndims, RELAY_ND_MAX_MESH);
    for (uint32_t m = 0; !st && m < f->mesh_ndims; m++) {
        if (!mp_read_int(r, &v)) return field_error(r, f->what, "mesh_shape");
        if (v < 1 || v > lim->nranks)
            return rl_fail(RELAY_ERR_FORMAT, "%s's mesh dimension %u has %lld ranks, not 1 to the plan's %lld", f->what, m,
                           (long long)v, (long long)lim->nranks);
        f->mesh_shape[m] = (int)v;
    }
    return st;
}

/* The mesh's ranks: distinct ranks of the plan, so at most its nranks
 * (counted before the list is allocated). */
static relay_status read_mesh_ranks(mp_reader *r, layout_fields *f, const rl_nd_limits *lim)
{
    int64_t v;
    relay_status st = read_count(r, f, "mesh_ranks", &f->nmesh_ranks, (uint32_t)lim->nranks);
    if (!st && !(f->mesh_ranks = rl_malloc_array(f->nmesh_ranks, sizeof *f->mesh_ranks))) st = RL_NOMEM();
    f->max_rank = -1;
    for (uint32_t i = 0; !st && i < f->nmesh_ranks; i++) {
        if (!mp_read_int(r, &v)) return field_error(r, f->what, "mesh_ranks");
        if (v < 0 || v >= lim->nranks)
            return rl_fail(RELAY_ERR_FORMAT, "%s's mesh rank %lld at position %u is not a rank of the plan's %lld", f->what,
                           (long long)v, i, (long long)lim->nranks);
        f->mesh_ranks[i] = (int)v;
        if (v > f->max_rank) f->max_rank = (int)v;
    }
    return st;
}

static relay_status read_order(mp_reader *r, layout_fields *f)
{
    const char *s;
    uint32_t n;
    if (!mp_read_str(r, &s, &n)) return field_error(r, f->what, "order");
    if (mp_key_is(s, n, "C")) f->order = RELAY_ROW_MAJOR;
    else if (mp_key_is(s, n, "F")) f->order = RELAY_COL_MAJOR;
    else return rl_fail(RELAY_ERR_FORMAT, "%s's order is neither \"C\" nor \"F\"", f->what);
    return RELAY_OK;
}

/* ---- reading: placements ----------------------------------------------------- */

static relay_status read_placement_kind(mp_reader *r, relay_placement *pl, const char *what)
{
    const char *s;
    uint32_t n;
    if (!mp_read_str(r, &s, &n)) return field_error(r, what, "kind");
    int kind = mp_key_index(rl_nd_placement_names, 3, s, n);
    if (kind < 0) return rl_fail(RELAY_ERR_FORMAT, "%s's kind is not shard, replicate or partial", what);
    pl->kind = (relay_placement_kind)kind;
    return RELAY_OK;
}

/* A shard's split points: one more than the mesh dimension's ranks, so at
 * most the plan's ranks + 1 (counted before they are allocated). */
static relay_status read_splits(mp_reader *r, layout_fields *f, int m, const rl_nd_limits *lim, const char *what)
{
    uint32_t n;
    if (!mp_read_array(r, &n)) return field_error(r, what, "splits");
    if (n < 2 || n > lim->nranks + 1)
        return rl_fail(RELAY_ERR_FORMAT, "%s has %u split points, not 2 to the plan's ranks + 1", what, n);
    if (!(f->splits[m] = rl_malloc_array(n, sizeof *f->splits[m]))) return RL_NOMEM();
    f->nsplits[m] = n;
    for (uint32_t i = 0; i < n; i++)
        if (!mp_read_int(r, &f->splits[m][i])) return field_error(r, what, "splits");
    return RELAY_OK;
}

static relay_status read_placement_field(mp_reader *r, layout_fields *f, int m, int k, const rl_nd_limits *lim, const char *what)
{
    relay_placement *pl = &f->places[m];
    int64_t v = 0;
    switch (k) {
    case PK_KIND: return read_placement_kind(r, pl, what);
    case PK_DIM:
        if (!mp_read_ranged(r, &v, INT32_MIN, INT32_MAX)) return field_error(r, what, "dim");
        pl->dim = (int)v;
        return RELAY_OK;
    case PK_BLOCK: return mp_read_int(r, &pl->block) ? RELAY_OK : field_error(r, what, "block");
    default: return read_splits(r, f, m, lim, what);
    }
}

/* A shard needs its dimension; the other kinds have no dimension, block
 * or splits (a key of another kind is refused, as in a header). */
static relay_status check_placement_keys(const layout_fields *f, int m, const char *what)
{
    unsigned seen = f->place_seen[m], cut = 1u << PK_DIM | 1u << PK_BLOCK | 1u << PK_SPLITS;
    if (!(seen & 1u << PK_KIND)) return rl_fail(RELAY_ERR_FORMAT, "%s lacks its `kind` field", what);
    if (f->places[m].kind == RELAY_SHARD && !(seen & 1u << PK_DIM))
        return rl_fail(RELAY_ERR_FORMAT, "%s is a shard without its `dim` field", what);
    if (f->places[m].kind != RELAY_SHARD && seen & cut)
        return rl_fail(RELAY_ERR_FORMAT, "%s of kind %s has a `%s` field, which only shards have", what,
                       rl_nd_placement_names[f->places[m].kind], placement_keys[__builtin_ctz(seen & cut)]);
    return RELAY_OK;
}

static relay_status read_placement(mp_reader *r, layout_fields *f, int m, const rl_nd_limits *lim)
{
    char what[96];
    uint32_t pairs;
    relay_status st = RELAY_OK;
    snprintf(what, sizeof what, "%s's placement %d", f->what, m);
    if (!mp_read_map(r, &pairs)) return map_error(r, what);
    for (uint32_t i = 0; i < pairs && !st; i++) {
        int k = -1; /* read_key sets it where it succeeds */
        st = read_key(r, placement_keys, PK_COUNT, &f->place_seen[m], &k, what);
        if (!st && k >= 0) st = read_placement_field(r, f, m, k, lim, what);
    }
    return st ? st : check_placement_keys(f, m, what);
}

static relay_status read_placements(mp_reader *r, layout_fields *f, const rl_nd_limits *lim)
{
    relay_status st = read_count(r, f, "placements", &f->nplaces, RELAY_ND_MAX_MESH);
    for (uint32_t m = 0; !st && m < f->nplaces; m++) st = read_placement(r, f, (int)m, lim);
    return st;
}

/* ---- reading: a layout ------------------------------------------------------- */

static relay_status read_layout_field(mp_reader *r, layout_fields *f, int k, const rl_nd_limits *lim)
{
    switch (k) {
    case LK_SHAPE: return read_extents(r, f, "shape", f->shape, &f->ndims);
    case LK_PADDED: return read_extents(r, f, "padded", f->padded, &f->npadded);
    case LK_MESH_SHAPE: return read_mesh_shape(r, f, lim);
    case LK_MESH_RANKS: return read_mesh_ranks(r, f, lim);
    case LK_PLACEMENTS: return read_placements(r, f, lim);
    default: return read_order(r, f);
    }
}

/* The fields agree in their counts: a placement per mesh dimension, a
 * padded extent per dimension, a rank per mesh position, a split point
 * per coordinate of a shard and one more. */
static relay_status check_counts(const layout_fields *f)
{
    unsigned need = (1u << LK_PADDED) - 1;
    if ((f->seen & need) != need)
        return rl_fail(RELAY_ERR_FORMAT, "%s lacks its `%s` field", f->what, layout_keys[__builtin_ctz(~f->seen & need)]);
    if (f->nplaces != f->mesh_ndims)
        return rl_fail(RELAY_ERR_FORMAT, "%s has %u placements for a mesh of %u dimensions", f->what, f->nplaces, f->mesh_ndims);
    if (f->seen & 1u << LK_PADDED && f->npadded != f->ndims)
        return rl_fail(RELAY_ERR_FORMAT, "%s has %u padded extents for %u dimensions", f->what, f->npadded, f->ndims);
    int64_t size = 1;
    for (uint32_t m = 0; m < f->mesh_ndims && size <= f->nmesh_ranks; m++) size *= f->mesh_shape[m]; /* <= 2^24 * 2^24 */
    if (size != f->nmesh_ranks)
        return rl_fail(RELAY_ERR_FORMAT, "%s lists %u mesh ranks for a mesh of %s%lld ranks", f->what, f->nmesh_ranks,
                       size > f->nmesh_ranks ? "more than " : "", (long long)size);
    for (uint32_t m = 0; m < f->nplaces; m++)
        if (f->splits[m] && f->nsplits[m] != (uint32_t)f->mesh_shape[m] + 1)
            return rl_fail(RELAY_ERR_FORMAT, "%s's placement %u has %u split points for %d mesh coordinates", f->what, m,
                           f->nsplits[m], f->mesh_shape[m]);
    return RELAY_OK;
}

/* Takes the layout's rank list and rank map (its mesh size, its largest
 * rank + 1 entries) from the budget. */
static relay_status charge(rl_nd_limits *lim, const layout_fields *f)
{
    int64_t entries = (int64_t)f->nmesh_ranks + f->max_rank + 1;
    if (entries > lim->ranks_left)
        return rl_fail(RELAY_ERR_FORMAT, "%s: the plan's N-D layouts would take more memory than a plan file of this size "
                                         "may ask (%lld more rank entries than allowed)",
                       f->what, (long long)(entries - lim->ranks_left));
    lim->ranks_left -= entries;
    return RELAY_OK;
}

static relay_status build_layout(layout_fields *f, rl_nd_limits *lim, relay_nd_layout **out)
{
    relay_status st = check_counts(f);
    if (!st) st = charge(lim, f);
    if (st) return st;
    for (uint32_t m = 0; m < f->nplaces; m++) f->places[m].splits = f->splits[m];
    relay_nd_desc d = {(int)f->ndims, f->shape, (int)f->mesh_ndims, f->mesh_shape, f->mesh_ranks, f->places, f->order,
                       f->seen & 1u << LK_PADDED ? f->padded : NULL};
    return as_format(rl_nd_layout_build(out, &d, f->what));
}

/* A layout map, rebuilt through rl_nd_layout_build once its counts are
 * known to be within the limits. */
static relay_status read_layout(mp_reader *r, rl_nd_limits *lim, relay_nd_layout **out, const char *what)
{
    layout_fields f;
    uint32_t pairs;
    relay_status st = RELAY_OK;
    memset(&f, 0, sizeof f);
    f.what = what;
    if (!mp_read_map(r, &pairs)) return map_error(r, what);
    for (uint32_t i = 0; i < pairs && !st; i++) {
        int k = -1; /* read_key sets it where it succeeds */
        st = read_key(r, layout_keys, LK_COUNT, &f.seen, &k, what);
        if (!st && k >= 0) st = read_layout_field(r, &f, k, lim);
    }
    if (!st) st = build_layout(&f, lim, out);
    layout_fields_free(&f);
    return st;
}

/* ---- reading: pairs ---------------------------------------------------------- */

enum { QK_OP, QK_PERM, QK_DST, QK_SRC, QK_FORWARD, QK_COUNT };
static const char *const pair_keys[QK_COUNT] = {"op", "perm", "dst", "src", "forward"};

/* 1 to 8 axes; whether they are a permutation is rl_nd_check_pair's to say. */
static relay_status read_perm(mp_reader *r, rl_nd_pair *pair, uint32_t *n, const char *what)
{
    int64_t v;
    if (!mp_read_array(r, n)) return field_error(r, what, "perm");
    if (*n < 1 || *n > RELAY_ND_MAX_DIMS)
        return rl_fail(RELAY_ERR_FORMAT, "%s's permutation has %u axes, not 1 to %d", what, *n, RELAY_ND_MAX_DIMS);
    for (uint32_t k = 0; k < *n; k++) {
        if (!mp_read_ranged(r, &v, INT32_MIN, INT32_MAX)) return field_error(r, what, "perm");
        pair->perm[k] = (int32_t)v;
    }
    return RELAY_OK;
}

static relay_status read_pair_field(mp_reader *r, rl_nd_limits *lim, rl_nd_pair *pair, int k, uint32_t *nperm, const char *what)
{
    char side[96];
    int64_t v;
    switch (k) {
    case QK_OP:
        if (!mp_read_ranged(r, &v, RELAY_OP_N, RELAY_OP_C)) return field_error(r, what, "op");
        pair->op = (relay_op)v;
        return RELAY_OK;
    case QK_FORWARD:
        if (!mp_read_ranged(r, &v, 0, 1)) return field_error(r, what, "forward");
        pair->forward = (int32_t)v;
        return RELAY_OK;
    case QK_PERM: return read_perm(r, pair, nperm, what);
    default:
        snprintf(side, sizeof side, "%s's %s layout", what, pair_keys[k]);
        return read_layout(r, lim, k == QK_DST ? &pair->dst : &pair->src, side);
    }
}

static relay_status read_pair(mp_reader *r, rl_nd_limits *lim, rl_nd_pair *pair, int index)
{
    char what[32];
    uint32_t pairs, nperm = 0;
    unsigned seen = 0;
    relay_status st = RELAY_OK;
    snprintf(what, sizeof what, "plan N-D pair %d", index);
    if (!mp_read_map(r, &pairs)) return map_error(r, what);
    for (uint32_t i = 0; i < pairs && !st; i++) {
        int k = -1; /* read_key sets it where it succeeds */
        st = read_key(r, pair_keys, QK_COUNT, &seen, &k, what);
        if (!st && k >= 0) st = read_pair_field(r, lim, pair, k, &nperm, what);
    }
    unsigned need = (1u << QK_FORWARD) - 1;
    if (st) return st;
    if ((seen & need) != need)
        return rl_fail(RELAY_ERR_FORMAT, "%s lacks its `%s` field", what, pair_keys[__builtin_ctz(~seen & need)]);
    if (nperm != (uint32_t)pair->dst->ndims)
        return rl_fail(RELAY_ERR_FORMAT, "%s's permutation has %u axes for layouts of %d dimensions", what, nperm, pair->dst->ndims);
    /* The planner forwards only among replicas (and the fingerprint covers
     * the flag): a flag A's layout cannot use is not a plan it makes. */
    if (pair->forward && rl_nd_replicas(pair->dst) < 2)
        return rl_fail(RELAY_ERR_FORMAT, "%s forwards among A's replicas, but its dst layout has none", what);
    return RELAY_OK;
}

relay_status rl_nd_read_pairs(mp_reader *r, rl_nd_limits *lim, rl_nd_plan **out)
{
    uint32_t n;
    if (!mp_read_array(r, &n)) return field_error(r, "plan header", "pairs");
    if (n < 1 || n > RELAY_MAX_PAIRS)
        return rl_fail(RELAY_ERR_FORMAT, "plan header has %u N-D pairs, not 1 to %d", n, RELAY_MAX_PAIRS);
    rl_nd_plan *nd = calloc(1, sizeof *nd);
    rl_nd_pair *pairs = rl_calloc(n, sizeof *pairs);
    if (!nd || !pairs) {
        free(nd);
        free(pairs);
        return RL_NOMEM();
    }
    nd->count = (int32_t)n;
    nd->pairs = pairs;
    relay_status st = RELAY_OK;
    for (uint32_t k = 0; k < n && !st; k++) st = read_pair(r, lim, &pairs[k], (int)k);
    if (st) {
        rl_nd_plan_free(nd);
        return st;
    }
    *out = nd;
    return RELAY_OK;
}

relay_status rl_nd_check_read_pairs(const rl_nd_plan *nd, int nranks, relay_type type)
{
    for (int k = 0; k < nd->count; k++) {
        char what[32];
        snprintf(what, sizeof what, "plan N-D pair %d", k);
        relay_status st = rl_nd_check_pair(&nd->pairs[k], nranks, type, what);
        if (st) return as_format(st);
    }
    return RELAY_OK;
}
