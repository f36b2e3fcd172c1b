/* forge.c — a plan file as msgpack-c objects, and sealing it back
 * (forge.h).  The content checksum is computed here from the spec
 * (docs/plan-format.md, "Checksums"), not by relay's own code; only the
 * fingerprint, a hash of relay's in-memory layouts, comes from relay
 * (rl_header_fingerprint). */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "codec.h"
#include "forge.h"

int forge_open(forge_plan *f, const void *file, size_t len)
{
    msgpack_object preamble;
    size_t off = 0;
    memset(f, 0, sizeof *f);
    if (!msgpack_zone_init(&f->zone, 4096)) return 1;
    if (msgpack_unpack(file, len, &off, &f->zone, &preamble) < 0) return 1;
    if (msgpack_unpack(file, len, &off, &f->zone, &f->header) < 0) return 1;
    msgpack_object *index = forge_get(&f->header, "sections");
    f->nsections = index ? (int)index->via.array.size / 4 : 0;
    f->sections = msgpack_zone_malloc(&f->zone, sizeof *f->sections * (size_t)(f->nsections + 1));
    for (int r = 0; r < f->nsections; r++)
        if (msgpack_unpack(file, len, &off, &f->zone, &f->sections[r]) < 0) return 1;
    return 0;
}

void forge_close(forge_plan *f) { msgpack_zone_destroy(&f->zone); }

msgpack_object *forge_get(msgpack_object *map, const char *key)
{
    if (map->type != MSGPACK_OBJECT_MAP) return NULL;
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        msgpack_object *k = &map->via.map.ptr[i].key;
        if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == strlen(key) && !memcmp(k->via.str.ptr, key, k->via.str.size))
            return &map->via.map.ptr[i].val;
    }
    return NULL;
}

void forge_set_int(msgpack_object *o, int64_t v)
{
    o->type = v < 0 ? MSGPACK_OBJECT_NEGATIVE_INTEGER : MSGPACK_OBJECT_POSITIVE_INTEGER;
    if (v < 0) o->via.i64 = v;
    else o->via.u64 = (uint64_t)v;
}

void forge_remove(msgpack_object *map, const char *key)
{
    msgpack_object *v = forge_get(map, key);
    if (!v) return;
    msgpack_object_kv *kv = (msgpack_object_kv *)((char *)v - offsetof(msgpack_object_kv, val));
    size_t i = (size_t)(kv - map->via.map.ptr);
    memmove(kv, kv + 1, (map->via.map.size - i - 1) * sizeof *kv);
    map->via.map.size--;
}

msgpack_object forge_str(forge_plan *f, const char *s)
{
    size_t n = strlen(s);
    char *copy = msgpack_zone_malloc(&f->zone, n + 1);
    memcpy(copy, s, n + 1);
    msgpack_object o = {.type = MSGPACK_OBJECT_STR};
    o.via.str.ptr = copy;
    o.via.str.size = (uint32_t)n;
    return o;
}

void forge_add(forge_plan *f, msgpack_object *map, const char *key, msgpack_object value)
{
    uint32_t n = map->via.map.size;
    msgpack_object_kv *kv = msgpack_zone_malloc(&f->zone, sizeof *kv * (n + 1));
    memcpy(kv, map->via.map.ptr, sizeof *kv * n);
    kv[n].key = forge_str(f, key);
    kv[n].val = value;
    map->via.map.ptr = kv;
    map->via.map.size = n + 1;
}

/* ---- the content checksum, from the spec -------------------------------- */

static int64_t int_of(const msgpack_object *o)
{
    return o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER ? o->via.i64
           : o->type == MSGPACK_OBJECT_POSITIVE_INTEGER ? (int64_t)o->via.u64
                                                       : 0;
}

static void put(XXH3_state_t *h, int64_t v) { XXH3_64bits_update(h, &v, sizeof v); }

/* An array's whole records, preceded by their count (lengths for fields 1). */
static void put_records(XXH3_state_t *h, msgpack_object *s, const char *key, uint32_t fields)
{
    msgpack_object *a = forge_get(s, key);
    uint32_t n = a && a->type == MSGPACK_OBJECT_ARRAY ? a->via.array.size / fields : 0;
    put(h, n);
    for (uint32_t i = 0; i < n * fields; i++) put(h, int_of(&a->via.array.ptr[i]));
}

static uint64_t content_checksum(msgpack_object *s)
{
    static const char *const records[5] = {"send", "recv", "send_lattices", "recv_lattices", "local"};
    static const uint32_t fields[5] = {4, 4, 10, 10, 13};
    XXH3_state_t *h = XXH3_createState();
    XXH3_64bits_reset(h);
    msgpack_object *rank = forge_get(s, "rank"), *local_round = forge_get(s, "local_round");
    put(h, rank ? int_of(rank) : 0);
    for (int k = 0; k < 5; k++) put_records(h, s, records[k], fields[k]);
    put_records(h, s, "send_round", 1);
    put_records(h, s, "recv_round", 1);
    if (local_round) put(h, int_of(local_round));
    put_records(h, s, "src_elems", 1);
    put_records(h, s, "dst_elems", 1);
    uint64_t v = XXH3_64bits_digest(h);
    XXH3_freeState(h);
    return v;
}

/* ---- sealing -------------------------------------------------------------- */

static void pack_to(msgpack_sbuffer *sb, const msgpack_object *o)
{
    msgpack_packer pk;
    msgpack_sbuffer_init(sb);
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    msgpack_pack_object(&pk, *o);
}

/* The index entries (4 per rank) the sections give, where the header has room. */
static void fill_index(forge_plan *f, msgpack_object *header)
{
    msgpack_object *index = forge_get(header, "sections");
    uint64_t offset = 0;
    for (int r = 0; index && r < f->nsections && 4 * (uint32_t)r + 3 < index->via.array.size; r++) {
        msgpack_sbuffer sb;
        pack_to(&sb, &f->sections[r]);
        msgpack_object *e = &index->via.array.ptr[4 * r];
        uint64_t v[4] = {offset, sb.size, XXH3_64bits(sb.data, sb.size), content_checksum(&f->sections[r])};
        for (int k = 0; k < 4; k++) e[k] = (msgpack_object){.type = MSGPACK_OBJECT_POSITIVE_INTEGER, .via.u64 = v[k]};
        offset += sb.size;
        msgpack_sbuffer_destroy(&sb);
    }
}

/* Stores the fingerprint the header's fields give, if they read. */
static void fill_fingerprint(msgpack_object *header)
{
    msgpack_object *fp = forge_get(header, "fingerprint");
    msgpack_sbuffer sb;
    uint64_t v;
    pack_to(&sb, header);
    if (fp && rl_header_fingerprint(sb.data, sb.size, &v) == RELAY_OK)
        *fp = (msgpack_object){.type = MSGPACK_OBJECT_POSITIVE_INTEGER, .via.u64 = v};
    msgpack_sbuffer_destroy(&sb);
}

static void pack_str(msgpack_packer *pk, const char *s)
{
    msgpack_pack_str(pk, strlen(s));
    msgpack_pack_str_body(pk, s, strlen(s));
}

int forge_seal(forge_plan *f, void **out, size_t *len)
{
    msgpack_object header = f->header;
    fill_index(f, &header);
    fill_fingerprint(&header);
    msgpack_sbuffer hb, file;
    msgpack_packer pk;
    pack_to(&hb, &header);
    msgpack_sbuffer_init(&file);
    msgpack_packer_init(&pk, &file, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 5);
    pack_str(&pk, "magic");
    pack_str(&pk, RELAY_FORMAT_MAGIC);
    pack_str(&pk, "major");
    msgpack_pack_int(&pk, RELAY_FORMAT_MAJOR);
    pack_str(&pk, "minor");
    msgpack_pack_int(&pk, RELAY_FORMAT_MINOR);
    pack_str(&pk, "header_bytes");
    msgpack_pack_uint64(&pk, hb.size);
    pack_str(&pk, "header_hash");
    msgpack_pack_uint64(&pk, rl_header_hash(hb.data, hb.size, RELAY_FORMAT_MAJOR, RELAY_FORMAT_MINOR));
    msgpack_sbuffer_write(&file, hb.data, hb.size);
    msgpack_sbuffer_destroy(&hb);
    for (int r = 0; r < f->nsections; r++) {
        msgpack_sbuffer sb;
        pack_to(&sb, &f->sections[r]);
        msgpack_sbuffer_write(&file, sb.data, sb.size);
        msgpack_sbuffer_destroy(&sb);
    }
    *out = file.data;
    *len = file.size;
    return file.data == NULL;
}
