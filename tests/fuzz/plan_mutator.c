/* plan_mutator.c — structure-aware mutations of plan files for the fuzzer.
 *
 * A plan file is MessagePack objects one after another: preamble, header,
 * one section per rank (docs/plan-format.md).  The mutator parses them into
 * msgpack-c object trees, edits one node the way a hostile or buggy writer
 * would — a value moved to an edge (0, -1, 4, 8, 2^24, 2^31, 2^62, INT64_MAX,
 * UINT64_MAX, ...), a type changed, a key dropped, repeated, renamed or
 * added, an array shortened, grown or reordered, a subtree copied over
 * another — and re-encodes the plan with its framing made consistent again:
 * the section index's offsets, sizes and byte hashes, the preamble's header
 * size and hash (unless the edit was to that framing itself).  The cross-
 * over grafts one key of another plan (a BMMC plan's `bmmc` map into a
 * transform header, a grid layout over a block-cyclic one, ...).
 *
 * The fuzzing build skips the remaining integrity checks (the content
 * checksums and the fingerprint: FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION),
 * so every edit reaches the field checks and the validation behind them. */
#include "plan_mutator.h"

#include <math.h>
#include <msgpack.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "codec.h"
#include "mp_reader.h"

enum { MAX_PARTS = 64, MAX_NODES = 16384 };

/* A parsed plan: its objects, and a zone for the objects an edit creates. */
typedef struct {
    msgpack_unpacked part[MAX_PARTS];
    int nparts;
    msgpack_zone zone;
    uint64_t rng;
} plan_tree;

/* A node of the trees and the container that holds it (NULL for a part). */
typedef struct {
    msgpack_object *obj, *parent;
    int part;
} node;

static uint64_t next(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static uint64_t pick(plan_tree *t, uint64_t n) { return n ? next(&t->rng) % n : 0; }

/* ---- parsing and encoding ------------------------------------------------ */

static void tree_free(plan_tree *t)
{
    for (int i = 0; i < t->nparts; i++) msgpack_unpacked_destroy(&t->part[i]);
    msgpack_zone_destroy(&t->zone);
}

/* Parses data as whole MessagePack objects; 0 if it is not, or has fewer
 * than two (a preamble and a header).  Each object is first walked with
 * the decoder's bounded cursor: msgpack-c allocates arrays by their
 * declared counts, which must not exceed the bytes there are. */
static int tree_parse(plan_tree *t, const uint8_t *data, size_t size, uint64_t seed)
{
    t->nparts = 0;
    t->rng = seed * 0x9e3779b97f4a7c15u | 1;
    msgpack_zone_init(&t->zone, 1024);
    size_t off = 0;
    while (off < size && t->nparts < MAX_PARTS) {
        mp_reader r;
        mp_init(&r, data + off, size - off);
        if (!mp_skip(&r)) return 0;
        msgpack_unpacked_init(&t->part[t->nparts]);
        if (msgpack_unpack_next(&t->part[t->nparts++], (const char *)data, size, &off) != MSGPACK_UNPACK_SUCCESS) return 0;
    }
    return off == size && t->nparts >= 2;
}

static msgpack_object *part(plan_tree *t, int i) { return &t->part[i].data; }

static void pack(msgpack_sbuffer *sb, const msgpack_object *o)
{
    msgpack_packer pk;
    msgpack_sbuffer_init(sb);
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    msgpack_pack_object(&pk, *o);
}

static msgpack_object *lookup(msgpack_object *map, const char *key)
{
    if (map->type != MSGPACK_OBJECT_MAP) return NULL;
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object *k = &map->via.map.ptr[i].key;
        /* An empty string's pointer may be NULL, which memcmp must not see. */
        if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == strlen(key) &&
            (!k->via.str.size || !memcmp(k->via.str.ptr, key, k->via.str.size)))
            return &map->via.map.ptr[i].val;
    }
    return NULL;
}

static void set_int(msgpack_object *o, int64_t v)
{
    if (v >= 0) {
        o->type = MSGPACK_OBJECT_POSITIVE_INTEGER;
        o->via.u64 = (uint64_t)v;
    } else {
        o->type = MSGPACK_OBJECT_NEGATIVE_INTEGER;
        o->via.i64 = v;
    }
}

static int64_t int_of(const msgpack_object *o, int64_t otherwise)
{
    if (o && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= INT64_MAX) return (int64_t)o->via.u64;
    if (o && o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) return o->via.i64;
    return otherwise;
}

/* Points the section index at the sections as encoded (offset, size and
 * byte hash of each; the content checksum is left as it was). */
static void reseal_index(msgpack_object *index, const msgpack_sbuffer *sections, int nsections)
{
    if (!index || index->type != MSGPACK_OBJECT_ARRAY) return;
    uint64_t off = 0;
    for (int i = 0; i < nsections && 4 * (uint64_t)i + 3 < index->via.array.size; i++) {
        msgpack_object *e = &index->via.array.ptr[4 * i];
        set_int(&e[0], (int64_t)off);
        set_int(&e[1], (int64_t)sections[i].size);
        e[2].type = MSGPACK_OBJECT_POSITIVE_INTEGER;
        e[2].via.u64 = XXH3_64bits(sections[i].data, sections[i].size);
        off += sections[i].size;
    }
}

/* Gives the preamble the encoded header's size and hash. */
static void reseal_preamble(msgpack_object *pre, const msgpack_sbuffer *header)
{
    msgpack_object *bytes = lookup(pre, "header_bytes"), *hash = lookup(pre, "header_hash");
    int64_t major = int_of(lookup(pre, "major"), RELAY_FORMAT_MAJOR), minor = int_of(lookup(pre, "minor"), 0);
    if (bytes) set_int(bytes, (int64_t)header->size);
    if (hash) {
        hash->type = MSGPACK_OBJECT_POSITIVE_INTEGER;
        hash->via.u64 = rl_header_hash(header->data, header->size, (int)major, (int)minor);
    }
}

/* Encodes the plan into out (at most max_size bytes), resealing what
 * the edit did not touch; returns the size or 0. */
static size_t tree_encode(plan_tree *t, int reseal_framing, int reseal_header, uint8_t *out, size_t max_size)
{
    int nsections = t->nparts - 2;
    msgpack_sbuffer pre, header, sections[MAX_PARTS];
    for (int i = 0; i < nsections; i++) pack(&sections[i], part(t, i + 2));
    if (reseal_framing) reseal_index(lookup(part(t, 1), "sections"), sections, nsections);
    pack(&header, part(t, 1));
    if (reseal_header) reseal_preamble(part(t, 0), &header);
    pack(&pre, part(t, 0));
    size_t len = pre.size + header.size;
    for (int i = 0; i < nsections; i++) len += sections[i].size;
    if (len <= max_size) {
        uint8_t *p = out;
        memcpy(p, pre.data, pre.size);
        memcpy(p += pre.size, header.data, header.size);
        p += header.size;
        for (int i = 0; i < nsections; i++) {
            memcpy(p, sections[i].data, sections[i].size);
            p += sections[i].size;
        }
    }
    msgpack_sbuffer_destroy(&pre);
    msgpack_sbuffer_destroy(&header);
    for (int i = 0; i < nsections; i++) msgpack_sbuffer_destroy(&sections[i]);
    return len <= max_size ? len : 0;
}

/* ---- choosing a node ----------------------------------------------------- */

static void collect(msgpack_object *o, msgpack_object *parent, int part_index, node *nodes, size_t *n)
{
    if (*n == MAX_NODES) return;
    nodes[(*n)++] = (node){o, parent, part_index};
    if (o->type == MSGPACK_OBJECT_MAP)
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            collect(&o->via.map.ptr[i].key, o, part_index, nodes, n);
            collect(&o->via.map.ptr[i].val, o, part_index, nodes, n);
        }
    else if (o->type == MSGPACK_OBJECT_ARRAY)
        for (uint32_t i = 0; i < o->via.array.size; i++) collect(&o->via.array.ptr[i], o, part_index, nodes, n);
}

/* A copy of o in the zone, so that a graft never shares a subtree with
 * (or contains) the node it replaces. */
static msgpack_object copy(plan_tree *t, const msgpack_object *o)
{
    msgpack_object c = *o;
    if (o->type == MSGPACK_OBJECT_MAP && o->via.map.size) {
        c.via.map.ptr = msgpack_zone_malloc(&t->zone, o->via.map.size * sizeof *c.via.map.ptr);
        for (uint32_t i = 0; i < o->via.map.size; i++)
            c.via.map.ptr[i] = (msgpack_object_kv){copy(t, &o->via.map.ptr[i].key), copy(t, &o->via.map.ptr[i].val)};
    } else if (o->type == MSGPACK_OBJECT_ARRAY && o->via.array.size) {
        c.via.array.ptr = msgpack_zone_malloc(&t->zone, o->via.array.size * sizeof *c.via.array.ptr);
        for (uint32_t i = 0; i < o->via.array.size; i++) c.via.array.ptr[i] = copy(t, &o->via.array.ptr[i]);
    }
    return c;
}

/* ---- the edits ----------------------------------------------------------- */

/* Every key and string value of the format, and one no reader knows. */
static const char *const words[] = {
    "magic", "major", "minor", "header_bytes", "header_hash", "relay-plan", "kind", "transform", "bmmc", "hsumma",
    "grid", "block_cyclic", "nranks", "type", "schedule", "rounds", "relabel", "pairs", "sigma", "stats",
    "fingerprint", "sections", "op", "dst", "src", "m", "n", "order", "mb", "nb", "nprow", "npcol", "grid_order",
    "rsrc", "csrc", "lld", "row_splits", "col_splits", "owners", "offsets", "lds", "bytes_total", "bytes_remote",
    "bytes_remote_identity", "messages", "pieces", "p", "f", "elem_size", "rank", "v", "w", "cv", "k", "grid_rows",
    "grid_cols", "group_rows", "group_cols", "inner_block", "outer_block", "dist", "dist_block", "bcast",
    "groups_from", "net_alpha", "net_beta", "src_elems", "dst_elems", "send", "recv", "send_lattices",
    "recv_lattices", "local", "local_round", "send_round", "recv_round", "tuning", "best", "ranks_per_node",
    "replays", "choices", "machine", "max_buffer_bytes", "nd", "perm", "shape", "mesh_shape", "mesh_ranks", "placements",
    "dim", "block", "splits", "padded", "shard", "replicate", "partial", "C", "F", "node_of_rank", "forward", "index", "move",
    "items", "item_elems", "owner_slots", "holder_slots", "segments", "list", "", "unknown"};

static void set_str(msgpack_object *o, const char *s)
{
    o->type = MSGPACK_OBJECT_STR;
    o->via.str.ptr = s;
    o->via.str.size = (uint32_t)strlen(s);
}

/* A value at an edge of some check, or a neighbour of the old one, or
 * another integer of the plan (a size, a rank count, an offset). */
static void mutate_int(plan_tree *t, msgpack_object *o, const node *nodes, size_t n)
{
    static const int64_t edges[] = {0, 1, -1, 2, 3, 4, 5, 8, 9, 62, 63, 64, 4096, 4097, 1 << 20, (1 << 20) + 1, 1 << 24,
                                    (1 << 24) + 1, INT32_MAX, (int64_t)INT32_MAX + 1, UINT32_MAX, (int64_t)1 << 40,
                                    ((int64_t)1 << 40) + 1, (int64_t)1 << 53, (int64_t)1 << 62, INT64_MAX, INT64_MIN,
                                    INT64_MIN + 1, -(1 << 24)};
    uint64_t old = (uint64_t)int_of(o, 0); /* wrapping arithmetic: an edit may overflow on purpose */
    switch (pick(t, 8)) {
    case 0: case 1: set_int(o, edges[pick(t, sizeof edges / sizeof *edges)]); return;
    case 2: set_int(o, (int64_t)(old + 1)); return;
    case 3: set_int(o, (int64_t)(old - 1)); return;
    case 4: set_int(o, (int64_t)(old ^ (uint64_t)1 << pick(t, 64))); return;
    case 5: set_int(o, (int64_t)(old * 2)); return;
    case 6:
        o->type = MSGPACK_OBJECT_POSITIVE_INTEGER;
        o->via.u64 = pick(t, 2) ? UINT64_MAX : (uint64_t)1 << 63;
        return;
    default: {
        const msgpack_object *other = nodes[pick(t, n)].obj;
        if (other->type == MSGPACK_OBJECT_POSITIVE_INTEGER || other->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) *o = *other;
        else set_int(o, (int64_t)old / 2);
    }
    }
}

static void mutate_float(plan_tree *t, msgpack_object *o)
{
    static const double specials[] = {0.0, -0.0, -1.0, 1e-300, 1e300, INFINITY, -INFINITY, NAN, 1e-6};
    o->type = MSGPACK_OBJECT_FLOAT64;
    o->via.f64 = specials[pick(t, sizeof specials / sizeof *specials)];
}

/* A bit flipped, a byte dropped or added, or all bytes zero. */
static void mutate_bin(plan_tree *t, msgpack_object *o)
{
    uint32_t size = o->via.bin.size, grown = size + (pick(t, 4) == 0);
    char *b = msgpack_zone_malloc(&t->zone, grown + 1);
    memcpy(b, o->via.bin.ptr, size);
    if (grown > size) b[size] = (char)0xff;
    switch (pick(t, 4)) {
    case 0: if (size) b[pick(t, size)] ^= (char)(1 << pick(t, 8)); break;
    case 1: if (size) grown = size - 1; break;
    case 2: memset(b, 0, size); break;
    default: break;
    }
    o->via.bin.ptr = b;
    o->via.bin.size = grown;
}

/* Removes element i of a map's or an array's entries (of `size` entries of
 * `width` bytes), or repeats it, into a fresh copy of the entries. */
static void *resize_entries(plan_tree *t, const void *entries, uint32_t *size, size_t width, uint32_t i, int repeat)
{
    char *e = msgpack_zone_malloc(&t->zone, (*size + 1) * width);
    const char *old = entries;
    memcpy(e, old, (size_t)i * width);
    if (repeat) {
        memcpy(e + i * width, old + i * width, width);
        memcpy(e + (i + 1) * width, old + i * width, (*size - i) * width);
        ++*size;
    } else {
        memcpy(e + i * width, old + (i + 1) * width, (*size - i - 1) * width);
        --*size;
    }
    return e;
}

/* Adds key: value at the end of map. */
static void append(plan_tree *t, msgpack_object *map, msgpack_object key, msgpack_object value)
{
    msgpack_object_map *m = &map->via.map;
    msgpack_object_kv *kv = msgpack_zone_malloc(&t->zone, (m->size + 1) * sizeof *kv);
    if (m->size) memcpy(kv, m->ptr, m->size * sizeof *kv);
    kv[m->size] = (msgpack_object_kv){key, value};
    m->ptr = kv;
    m->size++;
}

/* A key dropped or repeated, a key renamed, or a key added (with a copy
 * of some value of the plan). */
static void mutate_map(plan_tree *t, msgpack_object *o, const node *nodes, size_t n)
{
    msgpack_object_map *m = &o->via.map;
    uint32_t i = (uint32_t)pick(t, m->size);
    switch (m->size ? pick(t, 4) : 3) {
    case 0: m->ptr = resize_entries(t, m->ptr, &m->size, sizeof *m->ptr, i, 0); return;
    case 1: m->ptr = resize_entries(t, m->ptr, &m->size, sizeof *m->ptr, i, 1); return;
    case 2: set_str(&m->ptr[i].key, words[pick(t, sizeof words / sizeof *words)]); return;
    default: {
        msgpack_object key;
        set_str(&key, words[pick(t, sizeof words / sizeof *words)]);
        append(t, o, key, copy(t, nodes[pick(t, n)].obj));
    }
    }
}

/* An element dropped or repeated, two swapped, or the array cut short. */
static void mutate_array(plan_tree *t, msgpack_object *o)
{
    msgpack_object_array *a = &o->via.array;
    if (!a->size) {
        a->ptr = msgpack_zone_malloc(&t->zone, sizeof *a->ptr);
        set_int(a->ptr, 0);
        a->size = 1;
        return;
    }
    uint32_t i = (uint32_t)pick(t, a->size), j = (uint32_t)pick(t, a->size);
    switch (pick(t, 4)) {
    case 0: a->ptr = resize_entries(t, a->ptr, &a->size, sizeof *a->ptr, i, 0); return;
    case 1: a->ptr = resize_entries(t, a->ptr, &a->size, sizeof *a->ptr, i, 1); return;
    case 2: {
        msgpack_object tmp = a->ptr[i];
        a->ptr[i] = a->ptr[j];
        a->ptr[j] = tmp;
        return;
    }
    default: a->size = i; return;
    }
}

/* The node replaced by one of another type. */
static void change_type(plan_tree *t, msgpack_object *o)
{
    switch (pick(t, 7)) {
    case 0: o->type = MSGPACK_OBJECT_NIL; return;
    case 1: o->type = MSGPACK_OBJECT_BOOLEAN; o->via.boolean = true; return;
    case 2: mutate_float(t, o); return;
    case 3: set_str(o, words[pick(t, sizeof words / sizeof *words)]); return;
    case 4: o->type = MSGPACK_OBJECT_BIN; o->via.bin.ptr = "\x01\x02\x04\x08"; o->via.bin.size = 4; return;
    case 5: o->type = MSGPACK_OBJECT_ARRAY; o->via.array.size = 0; return;
    default: o->type = MSGPACK_OBJECT_MAP; o->via.map.size = 0; return;
    }
}

/* One edit of one node, most often one that keeps its type. */
static void mutate_node(plan_tree *t, msgpack_object *o, const node *nodes, size_t n)
{
    switch (pick(t, 10)) {
    case 0: change_type(t, o); return;
    case 1: *o = copy(t, nodes[pick(t, n)].obj); return;
    default: break;
    }
    switch (o->type) {
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: mutate_int(t, o, nodes, n); return;
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64: mutate_float(t, o); return;
    case MSGPACK_OBJECT_STR: set_str(o, words[pick(t, sizeof words / sizeof *words)]); return;
    case MSGPACK_OBJECT_BIN: mutate_bin(t, o); return;
    case MSGPACK_OBJECT_MAP: mutate_map(t, o, nodes, n); return;
    case MSGPACK_OBJECT_ARRAY: mutate_array(t, o); return;
    default: change_type(t, o); return;
    }
}

/* The part an edit goes to: a section or the header (the layouts, sigma,
 * the factors, the parameters), rarely the preamble. */
static int pick_part(plan_tree *t)
{
    uint64_t r = pick(t, 16);
    if (r == 0) return 0;
    if (r < 7 || t->nparts == 2) return 1;
    return 2 + (int)pick(t, (uint64_t)t->nparts - 2);
}

size_t plan_mutate(uint8_t *data, size_t size, size_t max_size, uint64_t seed)
{
    plan_tree t;
    node *nodes = malloc(MAX_NODES * sizeof *nodes);
    size_t n = 0, len = 0;
    if (tree_parse(&t, data, size, seed) && nodes) {
        for (int i = 0; i < t.nparts; i++) collect(part(&t, i), NULL, i, nodes, &n);
        int where = pick_part(&t);
        size_t first = 0, count = 0;
        while (first < n && nodes[first].part != where) first++;
        while (first + count < n && nodes[first + count].part == where) count++;
        node target = nodes[first + pick(&t, count)];
        const msgpack_object *index = lookup(part(&t, 1), "sections");
        int in_index = index && (target.obj == index || target.parent == index);
        mutate_node(&t, target.obj, nodes, n);
        len = tree_encode(&t, !in_index, where != 0, data, max_size);
    }
    tree_free(&t);
    free(nodes);
    return len;
}

/* A map of the tree: the header half the time, else any. */
static msgpack_object *pick_map(plan_tree *t, node *nodes, size_t n)
{
    if (pick(t, 2) && part(t, 1)->type == MSGPACK_OBJECT_MAP) return part(t, 1);
    for (int tries = 0; tries < 16; tries++) {
        msgpack_object *o = nodes[pick(t, n)].obj;
        if (o->type == MSGPACK_OBJECT_MAP) return o;
    }
    return NULL;
}

/* Puts a copy of key and value into map, over the value of a key of that
 * name if it has one. */
static void graft(plan_tree *t, msgpack_object *map, const msgpack_object_kv *kv)
{
    msgpack_object value = copy(t, &kv->val), *have = NULL;
    if (kv->key.type == MSGPACK_OBJECT_STR) {
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)kv->key.via.str.size, kv->key.via.str.ptr);
        have = lookup(map, name);
    }
    if (have) *have = value;
    else append(t, map, kv->key, value);
}

size_t plan_cross_over(const uint8_t *a, size_t a_size, const uint8_t *b, size_t b_size, uint8_t *out, size_t max_size,
                       uint64_t seed)
{
    plan_tree ta, tb;
    node *nodes = malloc(MAX_NODES * sizeof *nodes);
    size_t n = 0, len = 0;
    int parsed = tree_parse(&ta, a, a_size, seed);
    parsed = tree_parse(&tb, b, b_size, seed + 1) && parsed;
    if (nodes && parsed) {
        for (int i = 0; i < tb.nparts; i++) collect(part(&tb, i), NULL, i, nodes, &n);
        msgpack_object *from = pick_map(&tb, nodes, n);
        n = 0;
        for (int i = 0; i < ta.nparts; i++) collect(part(&ta, i), NULL, i, nodes, &n);
        msgpack_object *into = pick_map(&ta, nodes, n);
        if (from && from->via.map.size && into) {
            graft(&ta, into, &from->via.map.ptr[pick(&tb, from->via.map.size)]);
            len = tree_encode(&ta, 1, 1, out, max_size);
        }
    }
    tree_free(&ta);
    tree_free(&tb);
    free(nodes);
    return len;
}
