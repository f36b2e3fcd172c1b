/* index_codec.c — reading an index plan (format 4.0) from untrusted bytes.
 *
 * Order of trust, as for the other kinds: the header's hash; its keys
 * (kind and rank count first, each known key once, all present), and
 * room in the header for its per-rank arrays and in the file for a
 * section per rank, before anything of the rank count's size is
 * allocated; the fields and their ranges; the fingerprint (the header and
 * every section's checksum in the index); then each wanted section's byte
 * range, byte hash, records, content checksum and rl_index_section_validate,
 * and with every section read, rl_index_sections_agree.  Every check is
 * linear in the bytes read. */
#include <string.h>
#include <xxhash.h>

#include "codec.h"
#include "error.h"
#include "index_codec.h"
#include "mp_reader.h"
#include "stats_fields.h"

enum { K_KIND, K_NRANKS, K_TYPE, K_MOVE, K_ITEMS, K_ITEM_ELEMS, K_OWNER_SLOTS, K_HOLDER_SLOTS, K_STATS, K_FINGERPRINT,
       K_SECTIONS, K_COUNT };
static const char *const keys[K_COUNT] = {"kind",         "nranks", "type",  "move",        "items",   "item_elems",
                                          "owner_slots", "holder_slots", "stats", "fingerprint", "sections"};

/* The smallest section: a map of its six keys, a rank and five arrays,
 * the local move's four integers. */
enum { MIN_SECTION_BYTES = 46 };

static relay_status malformed(const mp_reader *r, const char *where)
{
    return rl_fail(RELAY_ERR_FORMAT, "plan %s is malformed: %s", where, r->error ? r->error : "unexpected content");
}

static relay_status read_header_bytes(const rl_index_file *f, mp_reader *r)
{
    const unsigned char *b;
    relay_status st = f->read(f->source, f->header_at, f->header_bytes, &b, "header");
    if (st) return st;
    if (RL_HASH_MISMATCH(rl_header_hash(b, (size_t)f->header_bytes, RELAY_FORMAT_INDEX_MAJOR, f->minor), f->header_hash))
        return rl_fail(RELAY_ERR_FORMAT, "plan header does not match its hash");
    mp_init(r, b, (size_t)f->header_bytes);
    return RELAY_OK;
}

/* The first pass: the keys (each once, all there), the kind and the rank
 * count, and room for what the rank count asks. */
static relay_status scan_header(const rl_index_file *f, mp_reader r, int64_t *nranks)
{
    uint32_t pairs, seen = 0;
    if (!mp_read_map(&r, &pairs)) return malformed(&r, "header");
    for (uint32_t i = 0; i < pairs; i++) {
        const char *key, *val;
        uint32_t klen, vlen;
        if (!mp_read_str(&r, &key, &klen)) return malformed(&r, "header");
        int k = mp_key_index(keys, K_COUNT, key, klen);
        if (k >= 0 && (seen >> k & 1)) return rl_fail(RELAY_ERR_FORMAT, "plan header has the `%s` field twice", keys[k]);
        if (k >= 0) seen |= 1u << k;
        if (k == K_KIND) {
            if (!mp_read_str(&r, &val, &vlen)) return malformed(&r, "header field `kind`");
            if (!mp_key_is(val, vlen, "index"))
                return rl_fail(RELAY_ERR_FORMAT, "plan of kind %.*s in a format %d.x file, which holds index plans (kind index) only",
                               (int)(vlen < 32 ? vlen : 32), val, RELAY_FORMAT_INDEX_MAJOR);
        } else if (k == K_NRANKS) {
            if (!mp_read_ranged(&r, nranks, 1, RELAY_MAX_RANKS)) return malformed(&r, "header field `nranks`");
        } else if (!mp_skip(&r)) return malformed(&r, "header");
    }
    if (seen != (1u << K_COUNT) - 1)
        return rl_fail(RELAY_ERR_FORMAT, "plan header lacks its `%s` field", keys[__builtin_ctz(~seen)]);
    if (6 * *nranks > (int64_t)f->header_bytes)
        return rl_fail(RELAY_ERR_FORMAT, "plan header of %llu bytes is too short for the per-rank arrays of %lld ranks",
                       (unsigned long long)f->header_bytes, (long long)*nranks);
    uint64_t after = f->size - f->header_at - f->header_bytes;
    if ((uint64_t)*nranks * MIN_SECTION_BYTES > after)
        return rl_fail(RELAY_ERR_FORMAT, "plan file has %llu bytes after its header, too few for the sections of its %lld ranks",
                       (unsigned long long)after, (long long)*nranks);
    return RELAY_OK;
}

/* One rank's slot counts, each within 2^40 slots. */
static int read_slots(mp_reader *r, int64_t *slots, int64_t nranks)
{
    return mp_read_int_array(r, slots, (uint32_t)nranks, 0, RL_INDEX_MAX_SLOTS);
}

static int read_index(mp_reader *r, uint64_t *index, int64_t nranks)
{
    uint32_t n;
    if (!mp_read_array(r, &n)) return 0;
    if (n != 4 * nranks) {
        r->error = "not four entries per rank";
        return 0;
    }
    for (uint32_t i = 0; i < n; i++)
        if (!mp_read_uint64(r, &index[i])) return 0;
    return 1;
}

typedef struct {
    int64_t type, move, items, item_elems, stats[5];
    uint64_t fingerprint;
} header_values;

static relay_status read_field(mp_reader *r, int k, header_values *v, rl_index_plan *x, uint64_t *index, int64_t nranks)
{
    int ok = 1;
    switch (k) {
    case K_TYPE: ok = mp_read_ranged(r, &v->type, RELAY_FLOAT, RELAY_CDOUBLE); break;
    case K_MOVE: ok = mp_read_ranged(r, &v->move, RELAY_INDEX_BROADCAST, RELAY_INDEX_REDUCE_SUM); break;
    case K_ITEMS: ok = mp_read_ranged(r, &v->items, 0, RL_INDEX_MAX_ELEMS); break;
    case K_ITEM_ELEMS: ok = mp_read_ranged(r, &v->item_elems, 1, RL_INDEX_MAX_ELEMS); break;
    case K_OWNER_SLOTS: ok = read_slots(r, x->owner_slots, nranks); break;
    case K_HOLDER_SLOTS: ok = read_slots(r, x->holder_slots, nranks); break;
    case K_STATS: return rl_read_stats(r, v->stats);
    case K_FINGERPRINT: ok = mp_read_uint64(r, &v->fingerprint); break;
    case K_SECTIONS: ok = read_index(r, index, nranks); break;
    default: ok = mp_skip(r);
    }
    return ok ? RELAY_OK : rl_fail(RELAY_ERR_FORMAT, "plan header field `%s` is malformed: %s", k >= 0 ? keys[k] : "?",
                                   r->error ? r->error : "unexpected content");
}

/* The elements each rank's buffers and the index space hold, within 2^56. */
static relay_status check_sizes(const header_values *v, const rl_index_plan *x, int64_t nranks)
{
    if (v->items > RL_INDEX_MAX_ELEMS / v->item_elems)
        return rl_fail(RELAY_ERR_FORMAT, "plan's %lld items of %lld elements exceed 2^56 elements", (long long)v->items,
                       (long long)v->item_elems);
    for (int64_t r = 0; r < nranks; r++)
        if (x->owner_slots[r] > RL_INDEX_MAX_ELEMS / v->item_elems || x->holder_slots[r] > RL_INDEX_MAX_ELEMS / v->item_elems)
            return rl_fail(RELAY_ERR_FORMAT, "plan's buffers of rank %lld exceed 2^56 elements", (long long)r);
    return RELAY_OK;
}

/* The second pass: every field, into a new plan. */
static relay_status read_header(mp_reader r, int64_t nranks, uint64_t *index, relay_plan **out)
{
    header_values v = {0};
    relay_plan *p = NULL;
    relay_status st = rl_index_plan_new(&p, (int)nranks, RELAY_FLOAT, RELAY_INDEX_BROADCAST, 0, 1);
    uint32_t pairs;
    if (!st && !mp_read_map(&r, &pairs)) st = malformed(&r, "header");
    for (uint32_t i = 0; !st && i < pairs; i++) {
        const char *key;
        uint32_t klen;
        if (!mp_read_str(&r, &key, &klen)) st = malformed(&r, "header");
        else if (mp_key_is(key, klen, "kind") || mp_key_is(key, klen, "nranks")) mp_skip(&r);
        else st = read_field(&r, mp_key_index(keys, K_COUNT, key, klen), &v, p->index, index, nranks);
    }
    if (!st) st = check_sizes(&v, p->index, nranks);
    if (st) {
        relay_plan_free(p);
        return st;
    }
    p->type = (relay_type)v.type;
    p->index->move = (relay_index_move)v.move;
    p->index->items = v.items;
    p->index->item_elems = v.item_elems;
    p->stats = (relay_plan_stats){v.stats[0], v.stats[1], v.stats[2], v.stats[3], v.stats[4]};
    p->fingerprint = v.fingerprint;
    for (int64_t r0 = 0; r0 < nranks; r0++) p->index->checksums[r0] = index[4 * r0 + 3];
    *out = p;
    return RELAY_OK;
}

/* ---- sections ------------------------------------------------------------ */

enum { S_RANK, S_SEND, S_RECV, S_LOCAL, S_SEGMENTS, S_LIST, S_COUNT };
static const char *const section_keys[S_COUNT] = {"rank", "send", "recv", "local", "segments", "list"};
static const int64_t section_fields[S_COUNT] = {1, RL_INDEX_MSG_FIELDS, RL_INDEX_MSG_FIELDS, RL_INDEX_MSG_FIELDS,
                                                RL_INDEX_SEG_FIELDS, 2};

/* An array of whole records of `fields` integers each, into a new array
 * (*out, free()) of *count records: its length is checked against the
 * bytes left before anything is allocated. */
static int read_records(mp_reader *r, int64_t fields, int64_t **out, int64_t *count)
{
    uint32_t n;
    if (!mp_read_array(r, &n)) return 0;
    if (n % fields) {
        r->error = "not whole records";
        return 0;
    }
    if (!(*out = rl_malloc_array(n, sizeof **out))) {
        r->error = "out of memory";
        return 0;
    }
    for (uint32_t i = 0; i < n; i++)
        if (!mp_read_int(r, &(*out)[i])) return 0;
    *count = n / fields;
    return 1;
}

/* The section's fields, each once and all there, into s. */
static relay_status read_section_fields(mp_reader *r, int rank, rl_index_section *s)
{
    uint32_t pairs, seen = 0;
    int64_t *arrays[S_COUNT] = {0}, counts[S_COUNT] = {0}, v;
    relay_status st = mp_read_map(r, &pairs) ? RELAY_OK : malformed(r, "section");
    for (uint32_t i = 0; !st && i < pairs; i++) {
        const char *key;
        uint32_t klen;
        if (!mp_read_str(r, &key, &klen)) {
            st = malformed(r, "section");
            break;
        }
        int k = mp_key_index(section_keys, S_COUNT, key, klen);
        if (k >= 0 && (seen >> k & 1)) {
            st = rl_fail(RELAY_ERR_FORMAT, "plan section of rank %d has the `%s` field twice", rank, section_keys[k]);
            break;
        }
        if (k >= 0) seen |= 1u << k;
        int ok = k < 0 ? mp_skip(r) : k == S_RANK ? mp_read_ranged(r, &v, rank, rank) : read_records(r, section_fields[k], &arrays[k], &counts[k]);
        if (!ok)
            st = rl_fail(RELAY_ERR_FORMAT, "plan section of rank %d: field `%s` is malformed: %s", rank, k >= 0 ? section_keys[k] : "?",
                         r->error ? r->error : "unexpected content");
    }
    if (!st && seen != (1u << S_COUNT) - 1)
        st = rl_fail(RELAY_ERR_FORMAT, "plan section of rank %d lacks its `%s` field", rank, section_keys[__builtin_ctz(~seen)]);
    if (!st && counts[S_LOCAL] != 1) st = rl_fail(RELAY_ERR_FORMAT, "plan section of rank %d has not one local move list", rank);
    if (!st && (counts[S_SEND] > RELAY_MAX_RANKS || counts[S_RECV] > RELAY_MAX_RANKS))
        st = rl_fail(RELAY_ERR_FORMAT, "plan section of rank %d has more messages than ranks", rank);
    if (!st) {
        s->send = (rl_index_msg *)arrays[S_SEND];
        s->recv = (rl_index_msg *)arrays[S_RECV];
        s->segs = (rl_index_seg *)arrays[S_SEGMENTS];
        s->list = arrays[S_LIST];
        s->local = *(rl_index_msg *)arrays[S_LOCAL];
        s->nsend = (int32_t)counts[S_SEND];
        s->nrecv = (int32_t)counts[S_RECV];
        s->nsegs = counts[S_SEGMENTS];
        s->nlist = counts[S_LIST];
        arrays[S_SEND] = arrays[S_RECV] = arrays[S_SEGMENTS] = arrays[S_LIST] = NULL;
    }
    for (int k = 0; k < S_COUNT; k++) free(arrays[k]);
    return st;
}

/* Rank's section: its bytes within the file and their hash, its fields,
 * its content checksum, then what it says against the header. */
static relay_status read_section(const rl_index_file *f, relay_plan *p, const uint64_t *index, int rank)
{
    uint64_t base = f->header_at + f->header_bytes, off = index[4 * rank], len = index[4 * rank + 1];
    const unsigned char *b;
    if (off > f->size - base || len > f->size - base - off)
        return rl_fail(RELAY_ERR_FORMAT, "plan section of rank %d lies beyond the file", rank);
    relay_status st = f->read(f->source, base + off, len, &b, "section");
    if (st) return st;
    if (RL_HASH_MISMATCH(XXH3_64bits(b, (size_t)len), index[4 * rank + 2]))
        return rl_fail(RELAY_ERR_FORMAT, "plan section of rank %d does not match its hash", rank);
    rl_index_section *s = calloc(1, sizeof *s);
    if (!s) return RL_NOMEM();
    s->rank = rank;
    mp_reader r;
    mp_init(&r, b, (size_t)len);
    st = read_section_fields(&r, rank, s);
    if (!st) s->checksum = rl_index_section_hash(s);
    if (!st && RL_HASH_MISMATCH(s->checksum, index[4 * rank + 3]))
        st = rl_fail(RELAY_ERR_FORMAT, "plan section of rank %d does not match its checksum", rank);
    if (!st) st = rl_index_section_validate(s, p);
    if (st) {
        rl_index_section_free(s);
        return st;
    }
    p->index->sections[rank] = s;
    return RELAY_OK;
}

/* ---- the plan ------------------------------------------------------------ */

static relay_status read_plan(const rl_index_file *f, int rank, uint64_t *index, int64_t nranks, mp_reader r, relay_plan **out)
{
    relay_plan *p = NULL;
    relay_status st = read_header(r, nranks, index, &p);
    if (!st && (rank < -1 || rank >= nranks))
        st = rl_fail(RELAY_ERR_ARG, "rank %d is not -1 or a rank of this %lld-rank plan", rank, (long long)nranks);
    if (!st && RL_HASH_MISMATCH(rl_index_plan_hash(p), p->fingerprint))
        st = rl_fail(RELAY_ERR_FORMAT, "plan fingerprint does not match its contents");
    for (int64_t q = rank < 0 ? 0 : rank; !st && q < (rank < 0 ? nranks : rank + 1); q++) st = read_section(f, p, index, (int)q);
    if (!st && rank < 0) st = rl_index_sections_agree(p);
    if (st) {
        relay_plan_free(p);
        return st;
    }
    p->format_minor = f->minor;
    p->from_bytes = 1;
    *out = p;
    return RELAY_OK;
}

relay_status rl_index_decode(const rl_index_file *f, int rank, relay_plan **out)
{
    mp_reader r;
    int64_t nranks = 0;
    relay_status st = read_header_bytes(f, &r);
    if (!st) st = scan_header(f, r, &nranks);
    if (st) return st;
    uint64_t *index = rl_malloc_array((size_t)nranks * 4, sizeof *index);
    if (!index) return RL_NOMEM();
    st = read_plan(f, rank, index, nranks, r, out);
    free(index);
    return st;
}

relay_status rl_index_peek_nranks(const rl_index_file *f, int *nranks)
{
    mp_reader r;
    int64_t n = 0;
    relay_status st = read_header_bytes(f, &r);
    if (!st) st = scan_header(f, r, &n);
    if (!st) *nranks = (int)n;
    return st;
}
