/* test_codec.c — plan files: round trips, per-rank loading, file modes, and hostile input.
 *
 * Round trips must give the same fingerprint and re-encode to the same bytes;
 * a rank's own section must equal the one of the full plan, and so must the
 * section relay_plan_transform_rank builds alone.  Every truncation and
 * every single-bit flip of a sample plan, a wrong major version, bad magic
 * and absurd counts must be refused with RELAY_ERR_FORMAT or
 * RELAY_ERR_VERSION and a message, never a crash.  Sections that lie about
 * their lattices are re-sealed (content checksum, byte hash, header hash)
 * so that the decoder's checks past the checksums are what refuses them.
 * N-D plans (format 3.0, kind nd) round-trip, load at any rank, and every
 * field of their header, edited and re-sealed, is refused with a message
 * naming it, or ignored where the format says so (unknown keys). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libgen.h>
#include <msgpack.h>
#include <xxhash.h>
#include <cmocka.h>

#include "codec.h"
#include "mp_reader.h"
#include "plan_internal.h"

static relay_plan *sample_plan(int nranks, relay_op op, int batch)
{
    relay_layout *a, *b, *g;
    relay_plan *p = NULL;
    int64_t rs[] = {0, 3, 10, 17}, cs[] = {0, 5, 17};
    int owners[] = {0, 1, 1, 2 % nranks, 0, 2 % nranks};
    assert_int_equal(relay_layout_block_cyclic(&b, 17, 17, 4, 3, 1, nranks, RELAY_COL_MAJOR, 0, 0, 0, RELAY_ROW_MAJOR), RELAY_OK);
    assert_int_equal(relay_layout_block_cyclic(&a, 17, 17, 1, 4, nranks, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_layout_grid(&g, nranks, 17, 17, 3, rs, 2, cs, owners, NULL, NULL, RELAY_COL_MAJOR), RELAY_OK);
    const relay_layout *as[2] = {a, g}, *bs[2] = {b, a};
    relay_op ops[2] = {op, RELAY_OP_N};
    assert_int_equal(relay_plan_transform_batch(&p, nranks, batch ? 2 : 1, as, bs, ops, RELAY_CFLOAT, NULL), RELAY_OK);
    relay_layout_free(a);
    relay_layout_free(b);
    relay_layout_free(g);
    return p;
}

static void encode_ok(const relay_plan *p, void **buf, size_t *len)
{
    assert_int_equal(relay_plan_encode(p, buf, len), RELAY_OK);
}

/* p encoded and decoded again, whole and by each of its nranks ranks: the
 * same fingerprint, sections and bytes. */
static void check_read_back(const relay_plan *p, int nranks)
{
    relay_plan *q;
    void *buf, *again;
    size_t len, len2;
    encode_ok(p, &buf, &len);
    assert_int_equal(relay_plan_decode(&q, buf, len, -1), RELAY_OK);
    assert_true(relay_plan_fingerprint(q) == relay_plan_fingerprint(p));
    assert_int_equal(q->format_major, 2);
    assert_int_equal(q->format_minor, RELAY_FORMAT_MINOR);
    encode_ok(q, &again, &len2);
    assert_int_equal(len, len2);
    assert_memory_equal(buf, again, len);
    free(again);
    for (int r = 0; r < nranks; r++) {
        relay_plan *one;
        assert_int_equal(relay_plan_decode(&one, buf, len, r), RELAY_OK);
        assert_true(relay_plan_fingerprint(one) == relay_plan_fingerprint(p));
        assert_int_equal(one->sections[r]->checksum, p->sections[r]->checksum);
        for (int o = 0; o < nranks; o++)
            if (o != r) assert_null(one->sections[o]);
        assert_int_equal(relay_plan_encode(one, &again, &len2), RELAY_ERR_ARG); /* partial plans are not saved */
        relay_plan_free(one);
    }
    free(buf);
    relay_plan_free(q);
}

static void test_round_trip_is_identical(void **state)
{
    (void)state;
    for (int batch = 0; batch <= 1; batch++)
        for (int op = 0; op < 3; op++) {
            relay_plan *p = sample_plan(3, (relay_op)op, batch);
            check_read_back(p, 3);
            relay_plan_free(p);
        }
}

/* A block-cyclic layout costs O(ranks) whatever its
 * block count, so a plan of 10^7 one-row blocks, which the planner builds,
 * is read back (its fingerprint still covers every block boundary). */
static void test_ten_million_one_row_blocks_read_back(void **state)
{
    (void)state;
    relay_layout *a, *b;
    relay_plan *p;
    assert_int_equal(relay_layout_block_cyclic(&b, 10000000, 8, 1, 8, 4, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_layout_block_cyclic(&a, 10000000, 8, 64, 4, 2, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_plan_transform(&p, 4, a, b, RELAY_OP_N, RELAY_DOUBLE, NULL), RELAY_OK);
    check_read_back(p, 4);
    relay_plan_free(p);
    relay_layout_free(a);
    relay_layout_free(b);
}

static void test_save_and_load_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/relay-codec-XXXXXX", path[128];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/p.plan", dir);
    relay_plan *p = sample_plan(4, RELAY_OP_T, 1), *q;
    assert_int_equal(relay_plan_save(p, path), RELAY_OK);
    assert_int_equal(relay_plan_load(&q, path, 2), RELAY_OK);
    assert_true(relay_plan_fingerprint(q) == relay_plan_fingerprint(p));
    assert_non_null(q->sections[2]);
    relay_plan_free(q);
    assert_int_equal(relay_plan_load(&q, path, 4), RELAY_ERR_ARG);
    char missing[160];
    snprintf(missing, sizeof missing, "%s/none.plan", dir);
    assert_int_equal(relay_plan_load(&q, missing, -1), RELAY_ERR_IO);
    assert_int_equal(relay_plan_load(&q, dir, -1), RELAY_ERR_IO);
    snprintf(missing, sizeof missing, "%s/no/such/dir.plan", dir);
    assert_int_equal(relay_plan_save(p, missing), RELAY_ERR_IO);
    unlink(path);
    rmdir(dir);
    relay_plan_free(p);
}

/* A file too short for its ranks' sections (each at least its rank and a
 * buffer size per pair and side) is refused from its header, before a
 * layout is built or any section read, even by a rank whose own section
 * is whole; relay_plan_file_nranks reads the rank count from the header
 * alone and refuses the same files. */
static void test_files_too_short_for_their_sections(void **state)
{
    (void)state;
    char dir[] = "/tmp/relay-codec-XXXXXX", path[128];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/p.plan", dir);
    relay_plan *p = sample_plan(4, RELAY_OP_N, 1), *q = NULL;
    void *buf;
    size_t len, cut;
    int nranks = 0;
    encode_ok(p, &buf, &len);
    assert_int_equal(relay_plan_save(p, path), RELAY_OK);
    assert_int_equal(relay_plan_file_nranks(path, &nranks), RELAY_OK);
    assert_int_equal(nranks, 4);
    for (cut = len; cut > 0; cut--) {
        q = NULL;
        relay_status st = relay_plan_decode(&q, buf, cut, 0);
        relay_plan_free(q);
        if (st != RELAY_OK && strstr(relay_last_error(), "too few for the sections")) break;
    }
    assert_true(cut > 0 && cut < len);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, cut, f), cut);
    fclose(f);
    assert_int_equal(relay_plan_file_nranks(path, &nranks), RELAY_ERR_FORMAT);
    assert_non_null(strstr(relay_last_error(), "too few for the sections of its 4 ranks and 2 pairs"));
    assert_int_equal(relay_plan_file_nranks(NULL, &nranks), RELAY_ERR_ARG);
    unlink(path);
    rmdir(dir);
    free(buf);
    relay_plan_free(p);
}

/* The mode of a plan saved under umask `mask` (the file is removed). */
static mode_t saved_mode(const relay_plan *p, const char *dir, mode_t mask)
{
    char path[160];
    struct stat sb;
    snprintf(path, sizeof path, "%s/umask%03o.plan", dir, (unsigned)mask);
    mode_t old = umask(mask);
    relay_status st = relay_plan_save(p, path);
    umask(old);
    assert_int_equal(st, RELAY_OK);
    assert_int_equal(stat(path, &sb), 0);
    unlink(path);
    return sb.st_mode & 07777;
}

/* A plan file is readable by whom the umask allows (mkstemp made 0600),
 * and saving leaves no temporary file behind. */
static void test_saved_mode_follows_umask(void **state)
{
    (void)state;
    char dir[] = "/tmp/relay-codec-XXXXXX";
    assert_non_null(mkdtemp(dir));
    relay_plan *p = sample_plan(2, RELAY_OP_N, 0);
    assert_int_equal(saved_mode(p, dir, 022), 0644);
    assert_int_equal(saved_mode(p, dir, 077), 0600);
    relay_plan_free(p);
    assert_int_equal(rmdir(dir), 0); /* empty */
}

/* Decoding must fail cleanly; returns the status. */
static relay_status decode_bad(const void *buf, size_t len)
{
    relay_plan *sentinel = (relay_plan *)&sentinel, *q = sentinel;
    relay_status st = relay_plan_decode(&q, buf, len, -1);
    if (st == RELAY_OK) {
        relay_plan_free(q);
        return st;
    }
    assert_ptr_equal(q, sentinel);
    assert_true(strlen(relay_last_error()) > 0);
    return st;
}

/* Every truncation of a plan's bytes is refused as a format error. */
static void check_every_truncation(const relay_plan *p)
{
    void *buf;
    size_t len;
    encode_ok(p, &buf, &len);
    assert_int_equal(decode_bad(buf, len), RELAY_OK);
    for (size_t n = 0; n < len; n++) {
        relay_status st = decode_bad(buf, n);
        if (st != RELAY_ERR_FORMAT) fail_msg("truncation to %zu of %zu bytes gave %s", n, len, relay_status_str(st));
    }
    free(buf);
}

/* And every flip of one bit (of the version: as a version, or as a
 * header hash that no longer matches). */
static void check_every_bit_flip(const relay_plan *p)
{
    unsigned char *buf;
    size_t len;
    encode_ok(p, (void **)&buf, &len);
    assert_int_equal(decode_bad(buf, len), RELAY_OK); /* the unflipped plan itself is fine */
    for (size_t i = 0; i < len; i++)
        for (int bit = 0; bit < 8; bit++) {
            buf[i] ^= (unsigned char)(1 << bit);
            relay_status st = decode_bad(buf, len);
            if (st != RELAY_ERR_FORMAT && st != RELAY_ERR_VERSION)
                fail_msg("flipping bit %d of byte %zu of %zu gave %s", bit, i, len, relay_status_str(st));
            buf[i] ^= (unsigned char)(1 << bit);
        }
    free(buf);
}

static void test_every_truncation_is_refused(void **state)
{
    (void)state;
    relay_plan *p = sample_plan(3, RELAY_OP_C, 1);
    check_every_truncation(p);
    relay_plan_free(p);
}

static void test_every_bit_flip_is_refused(void **state)
{
    (void)state;
    relay_plan *p = sample_plan(3, RELAY_OP_T, 1);
    check_every_bit_flip(p);
    relay_plan_free(p);
}

/* Builds a preamble by hand: magic, version, header size and hash. */
static size_t forge(unsigned char *out, const char *magic, int major, const unsigned char *header, size_t hlen)
{
    size_t n = 0, ml = strlen(magic);
    out[n++] = 0x85;
    out[n++] = 0xa5; memcpy(out + n, "magic", 5); n += 5;
    out[n++] = (unsigned char)(0xa0 + ml); memcpy(out + n, magic, ml); n += ml;
    out[n++] = 0xa5; memcpy(out + n, "major", 5); n += 5;
    out[n++] = (unsigned char)major;
    out[n++] = 0xa5; memcpy(out + n, "minor", 5); n += 5;
    out[n++] = 0;
    out[n++] = 0xac; memcpy(out + n, "header_bytes", 12); n += 12;
    out[n++] = (unsigned char)hlen;
    uint64_t h = rl_header_hash(header, hlen, major, 0);
    out[n++] = 0xab; memcpy(out + n, "header_hash", 11); n += 11;
    out[n++] = 0xcf;
    for (int i = 7; i >= 0; i--) out[n++] = (unsigned char)(h >> (8 * i));
    memcpy(out + n, header, hlen);
    return n + hlen;
}

static void test_versions_magic_and_absurd_counts(void **state)
{
    (void)state;
    unsigned char buf[512];
    /* A header that is a map claiming 2^32-1 pairs in a few bytes. */
    const unsigned char huge_map[] = {0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1, 'x'};
    /* A header whose "pairs" array claims 2^32-1 entries. */
    const unsigned char huge_array[] = {0x81, 0xa5, 'p', 'a', 'i', 'r', 's', 0xdd, 0xff, 0xff, 0xff, 0xff};
    /* A header with a ranks count far beyond the limit. */
    const unsigned char huge_ranks[] = {0x81, 0xa6, 'n', 'r', 'a', 'n', 'k', 's', 0xce, 0x7f, 0xff, 0xff, 0xff};
    const unsigned char empty_map[] = {0x80};
    assert_int_equal(decode_bad(buf, forge(buf, "relay-plan", 5, empty_map, 1)), RELAY_ERR_VERSION);
    assert_non_null(strstr(relay_last_error(), "newer"));
    assert_int_equal(decode_bad(buf, forge(buf, "relay-plan", 3, empty_map, 1)), RELAY_ERR_FORMAT); /* 3.x is read: N-D plans */
    assert_int_equal(decode_bad(buf, forge(buf, "relay-plan", 4, empty_map, 1)), RELAY_ERR_FORMAT); /* 4.x: index plans */
    assert_int_equal(decode_bad(buf, forge(buf, "relay-plam", 2, empty_map, 1)), RELAY_ERR_FORMAT);
    assert_int_equal(decode_bad(buf, forge(buf, "relay-plan", 2, huge_map, sizeof huge_map)), RELAY_ERR_FORMAT);
    assert_int_equal(decode_bad(buf, forge(buf, "relay-plan", 2, huge_array, sizeof huge_array)), RELAY_ERR_FORMAT);
    assert_int_equal(decode_bad(buf, forge(buf, "relay-plan", 2, huge_ranks, sizeof huge_ranks)), RELAY_ERR_FORMAT);
    assert_int_equal(decode_bad(buf, forge(buf, "relay-plan", 2, empty_map, 1)), RELAY_ERR_FORMAT);
    assert_int_equal(decode_bad("", 0), RELAY_ERR_FORMAT);
    assert_int_equal(decode_bad("\xc1", 1), RELAY_ERR_FORMAT);
}

/* A format 1.x file (pieces, not lattices) is refused as a version, with
 * the way out: rebuild the plan.  Its header is never parsed, so even a
 * well-formed 1.x header does not matter. */
static void test_format_1_is_refused_with_a_rebuild_hint(void **state)
{
    (void)state;
    unsigned char buf[512];
    const unsigned char empty_map[] = {0x80};
    for (int major = 0; major <= 1; major++) {
        assert_int_equal(decode_bad(buf, forge(buf, "relay-plan", major, empty_map, 1)), RELAY_ERR_VERSION);
        assert_non_null(strstr(relay_last_error(), "rebuild"));
        assert_non_null(strstr(relay_last_error(), "relay-plan"));
    }
}

/* ---- re-sealing a tampered file ----------------------------------------- */

/* Overwrites a uint64 the writer stored in full (0xcf and 8 bytes). */
static void put_uint64(unsigned char *at, uint64_t v)
{
    assert_int_equal(at[0], 0xcf);
    for (int i = 0; i < 8; i++) at[1 + i] = (unsigned char)(v >> (8 * (7 - i)));
}

/* Reads the preamble: where the header starts and how long it is, and
 * where the header hash is stored. */
static void find_header(const unsigned char *buf, size_t len, size_t *start, uint64_t *bytes, size_t *hash_at)
{
    mp_reader r;
    uint32_t pairs;
    mp_init(&r, buf, len);
    assert_true(mp_read_map(&r, &pairs));
    for (uint32_t i = 0; i < pairs; i++) {
        const char *key;
        uint32_t klen;
        assert_true(mp_read_str(&r, &key, &klen));
        if (mp_key_is(key, klen, "header_hash")) *hash_at = (size_t)(r.p - buf);
        if (mp_key_is(key, klen, "header_bytes")) assert_true(mp_read_uint64(&r, bytes));
        else assert_true(mp_skip(&r));
    }
    *start = (size_t)(r.p - buf);
}

/* Positions of the section index's entries in the header (4 per rank). */
static size_t find_index(const unsigned char *header, uint64_t hlen, size_t *at, size_t cap)
{
    mp_reader r;
    uint32_t pairs, n = 0;
    mp_init(&r, header, (size_t)hlen);
    assert_true(mp_read_map(&r, &pairs));
    for (uint32_t i = 0; i < pairs; i++) {
        const char *key;
        uint32_t klen;
        assert_true(mp_read_str(&r, &key, &klen));
        if (!mp_key_is(key, klen, "sections")) {
            assert_true(mp_skip(&r));
            continue;
        }
        assert_true(mp_read_array(&r, &n));
        assert_true(n <= cap);
        for (uint32_t k = 0; k < n; k++) {
            uint64_t v;
            at[k] = (size_t)(r.p - header);
            assert_true(mp_read_uint64(&r, &v));
        }
    }
    return n;
}

/* After an edit of some section's bytes that keeps its length, makes every
 * section's byte hash and the header hash true again, so that the decoder
 * gets past its checksums to the content. */
static void reseal(unsigned char *buf, size_t len)
{
    size_t hstart, hash_at = 0, at[64];
    uint64_t hlen;
    find_header(buf, len, &hstart, &hlen, &hash_at);
    unsigned char *header = buf + hstart;
    size_t n = find_index(header, hlen, at, 64);
    for (size_t k = 0; k < n; k += 4) {
        uint64_t off, size;
        mp_reader r;
        mp_init(&r, header + at[k], 18);
        assert_true(mp_read_uint64(&r, &off) && mp_read_uint64(&r, &size));
        put_uint64(header + at[k + 2], XXH3_64bits(header + hlen + off, (size_t)size));
    }
    put_uint64(buf + hash_at, rl_header_hash(header, (size_t)hlen, RELAY_FORMAT_MAJOR, RELAY_FORMAT_MINOR));
}

/* Drops the last integer of the first array stored under `key` (its
 * length byte or bytes decremented): a partial record. */
static void drop_last_field(unsigned char *buf, size_t len, const char *key)
{
    size_t klen = strlen(key);
    unsigned char *k = NULL;
    for (size_t i = 0; i + klen + 1 < len && !k; i++)
        if (buf[i] == 0xa0 + klen && memcmp(buf + i + 1, key, klen) == 0) k = buf + i + 1 + klen;
    assert_non_null(k);
    if (k[0] > 0x90 && k[0] <= 0x9f) k[0]--;
    else {
        assert_int_equal(k[0], 0xdc);
        unsigned n = (unsigned)k[1] << 8 | k[2];
        assert_true(n > 0);
        n--;
        k[1] = (unsigned char)(n >> 8);
        k[2] = (unsigned char)n;
    }
}

static void test_partial_records_are_refused(void **state)
{
    (void)state;
    static const char *const keys[] = {"send_lattices", "recv_lattices", "local", "send", "recv"};
    relay_plan *p = sample_plan(3, RELAY_OP_N, 1);
    unsigned char *buf;
    size_t len;
    encode_ok(p, (void **)&buf, &len);
    unsigned char *copy = malloc(len);
    assert_non_null(copy);
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        memcpy(copy, buf, len);
        drop_last_field(copy, len, keys[i]);
        reseal(copy, len);
        assert_int_equal(decode_bad(copy, len), RELAY_ERR_FORMAT);
        if (!strstr(relay_last_error(), "partial record")) fail_msg("%s: %s", keys[i], relay_last_error());
    }
    memcpy(copy, buf, len);
    reseal(copy, len); /* re-sealing an intact file changes nothing */
    assert_memory_equal(copy, buf, len);
    free(copy);
    free(buf);
    relay_plan_free(p);
}

/* An unknown header key is any bytes the file holds, a newline among them:
 * when its value cannot be skipped, the refusal still names it in one line
 * (found by the fuzzer). */
static void test_unknown_key_is_named_in_one_line(void **state)
{
    (void)state;
    relay_plan *p = sample_plan(2, RELAY_OP_N, 0);
    unsigned char *buf, *k = NULL;
    size_t len;
    encode_ok(p, (void **)&buf, &len);
    for (size_t i = 0; i + 7 < len && !k; i++)
        if (buf[i] == 0xa5 && memcmp(buf + i + 1, "stats", 5) == 0) k = buf + i + 1;
    assert_non_null(k);
    k[2] = '\n';   /* "st\nts", a key this relay does not know */
    k[5] = 0xc1;   /* and its value a byte MessagePack never uses */
    size_t hstart, hash_at = 0;  /* the header sealed again (reseal cannot walk it now) */
    uint64_t hlen;
    find_header(buf, len, &hstart, &hlen, &hash_at);
    put_uint64(buf + hash_at, rl_header_hash(buf + hstart, (size_t)hlen, RELAY_FORMAT_MAJOR, RELAY_FORMAT_MINOR));
    assert_int_equal(decode_bad(buf, len), RELAY_ERR_FORMAT);
    const char *msg = relay_last_error();
    if (strchr(msg, '\n') || !strstr(msg, "`st?ts`")) fail_msg("refusal: \"%s\"", msg);
    free(buf);
    relay_plan_free(p);
}

/* What lets element types beyond the four enter the format without a
 * major step (plan-format.md, "Element types beyond the four"): a header
 * whose `type` is past 3, or is not an integer (the array a converting
 * plan would write), is refused with a message naming the field, checksums
 * right or not. */
static void test_unknown_types_are_refused(void **state)
{
    (void)state;
    static const struct {
        unsigned char value; /* one MessagePack byte in place of the type's */
        const char *says;
    } cases[] = {{0x04, "out of range"}, {0x10, "out of range"}, {0x90, "expected an integer"}};
    relay_plan *p = sample_plan(2, RELAY_OP_N, 0);
    unsigned char *buf, *copy, *value = NULL;
    size_t len;
    encode_ok(p, (void **)&buf, &len);
    copy = malloc(len);
    assert_non_null(copy);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        memcpy(copy, buf, len);
        for (size_t i = 0; i + 5 < len && !value; i++)
            if (copy[i] == 0xa4 && memcmp(copy + i + 1, "type", 4) == 0) value = copy + i + 5;
        assert_non_null(value);
        assert_int_equal(*value, RELAY_CFLOAT); /* the sample's type, one byte */
        *value = cases[c].value;
        value = NULL;
        reseal(copy, len);
        assert_int_equal(decode_bad(copy, len), RELAY_ERR_FORMAT);
        const char *msg = relay_last_error();
        if (!strstr(msg, "`type`") || !strstr(msg, cases[c].says)) fail_msg("type byte 0x%02x: %s", cases[c].value, msg);
    }
    free(copy);
    free(buf);
    relay_plan_free(p);
}

/* ---- sections that lie about their lattices ----------------------------- */

/* A side's element strides (rs, cs) of A's (r, c) inside a piece. */
static void strides(const relay_plan *p, const rl_span *sp, int is_dst, int64_t *rs, int64_t *cs)
{
    const rl_pair *pr = &p->pairs[sp->pair];
    relay_order o = is_dst ? pr->dst->order : pr->src->order;
    int across = (o == RELAY_ROW_MAJOR) != (!is_dst && rl_op_transposes(pr->op)); /* A's rows run across ld */
    *rs = across ? sp->ld : 1;
    *cs = across ? 1 : sp->ld;
}

/* One past the farthest element of pieces [0, i_end) x [0, j_end) of a
 * lattice, element by element: the serial reference of the bounds check. */
static int64_t reach(const relay_plan *p, const rl_span *sp, int is_dst, int64_t i_end, int64_t j_end)
{
    int64_t rs, cs, far = 0;
    strides(p, sp, is_dst, &rs, &cs);
    for (int64_t i = 0; i < i_end; i++)
        for (int64_t j = 0; j < j_end; j++)
            for (int64_t r = 0; r < sp->rows; r++)
                for (int64_t c = 0; c < sp->cols; c++) {
                    int64_t e = sp->off + i * sp->step_r + j * sp->step_c + r * rs + c * cs + 1;
                    far = e > far ? e : far;
                }
    return far;
}

/* The first lattice of rank 0's sends (or receives) of several pieces. */
static rl_span *long_lattice(relay_plan *p, int is_dst)
{
    rl_section *s = p->sections[0];
    rl_span *sp = is_dst ? s->recv_spans : s->send_spans;
    int64_t n = is_dst ? s->nrecv_spans : s->nsend_spans;
    for (int64_t i = 0; i < n; i++)
        if (rl_span_pieces(&sp[i]) > 1) return &sp[i];
    fail_msg("the sample plan has no lattice of several pieces");
    return NULL;
}

/* Its count and step along a direction with several pieces. */
static int64_t *long_count(rl_span *sp) { return sp->count_r > 1 ? &sp->count_r : &sp->count_c; }
static int64_t *long_step(rl_span *sp) { return sp->count_r > 1 ? &sp->step_r : &sp->step_c; }

/* Moves a lattice so that its last piece ends `past` elements beyond its
 * buffer (0: exactly at its end); its first piece stays inside. */
static void place_last_piece(relay_plan *p, rl_span *sp, int is_dst, int64_t past)
{
    const rl_section *s = p->sections[0];
    int64_t elems = is_dst ? s->dst_elems[sp->pair] : s->src_elems[sp->pair];
    sp->off += elems + past - reach(p, sp, is_dst, sp->count_r, sp->count_c);
    assert_true(sp->off >= 0);
    assert_true(reach(p, sp, is_dst, 1, 1) <= elems);
}

static void send_one_past(relay_plan *p) { place_last_piece(p, long_lattice(p, 0), 0, 1); }
static void recv_one_past(relay_plan *p) { place_last_piece(p, long_lattice(p, 1), 1, 1); }
static void zero_count(relay_plan *p) { long_lattice(p, 0)->count_r = 0; }
static void negative_count(relay_plan *p) { long_lattice(p, 1)->count_c = -2; }
static void zero_rows(relay_plan *p) { long_lattice(p, 0)->rows = 0; }
static void negative_step(relay_plan *p) { *long_step(long_lattice(p, 0)) = -1; }

/* A fused bit the format does not define. */
static void unknown_fusion(relay_plan *p) { long_lattice(p, 0)->fused = 4; }

/* Fused along a dimension of one piece. */
static void fused_along_one(relay_plan *p)
{
    rl_span *sp = long_lattice(p, 1);
    sp->fused |= sp->count_r == 1 ? RL_FUSED_ROWS : RL_FUSED_COLS;
    if (sp->count_r > 1 && sp->count_c > 1) fail_msg("the sample lattice has several pieces both ways");
}

/* A zero step along several pieces: they would all start at one place. */
static void zero_step(relay_plan *p) { *long_step(long_lattice(p, 0)) = 0; }
static void negative_offset(relay_plan *p) { long_lattice(p, 1)->off = -1; }
static void pair_out_of_range(relay_plan *p) { long_lattice(p, 0)->pair = p->count; }

/* A step along a count of 1 (which would let two equal lattices differ). */
static void step_along_one(relay_plan *p)
{
    rl_span *sp = long_lattice(p, 0);
    if (sp->count_r == 1) sp->step_r = 1;
    else {
        sp->count_c = 1;
        sp->step_c = 1;
    }
}

/* 2 * step overflows int64; the elements (count_r * rows * cols) do not. */
static void step_times_count_overflows(relay_plan *p)
{
    rl_span *sp = long_lattice(p, 0);
    *long_step(sp) = INT64_MAX / 2 + 1;
    *long_count(sp) = 3;
}

/* off + (count - 1) * step overflows. */
static void offset_plus_steps_overflows(relay_plan *p)
{
    rl_span *sp = long_lattice(p, 1);
    sp->off = INT64_MAX - *long_step(sp) / 2;
}

/* rows * cols * count_r * count_c overflows int64. */
static void elements_overflow(relay_plan *p)
{
    rl_span *sp = long_lattice(p, 0);
    sp->rows = sp->cols = (int64_t)1 << 31;
    sp->count_r = 2;
}

/* The leading dimension is shorter than a piece's side along it. */
static void ld_too_small(relay_plan *p)
{
    rl_span *sp = long_lattice(p, 1);
    int64_t rs, cs;
    strides(p, sp, 1, &rs, &cs);
    sp->ld = rs == 1 ? sp->rows - 1 : sp->cols - 1;
}

/* (lines - 1) * ld overflows, for a piece of several lines. */
static void ld_overflows(relay_plan *p)
{
    rl_span *sp = long_lattice(p, 0);
    int64_t rs, cs;
    strides(p, sp, 0, &rs, &cs);
    assert_true((rs == 1 ? sp->cols : sp->rows) > 1);
    sp->ld = INT64_MAX;
}
static void elems_off_by_one(relay_plan *p) { p->sections[0]->send[0].elems++; }
static void range_past_array(relay_plan *p) { p->sections[0]->recv[p->sections[0]->nrecv - 1].count++; }
static void range_with_gap(relay_plan *p) { p->sections[0]->send[p->sections[0]->nsend - 1].first++; }
static void peer_is_self(relay_plan *p) { p->sections[0]->send[0].peer = 0; }

/* The last message leaves its last lattice out (and says so in elems). */
static void lattice_left_out(relay_plan *p)
{
    rl_section *s = p->sections[0];
    rl_message *m = &s->send[s->nsend - 1];
    m->count--;
    m->elems -= rl_span_elems(&s->send_spans[m->first + m->count]);
}

/* The local lattice of several pieces, as one side sees it. */
static rl_local_span *local_lattice(relay_plan *p)
{
    rl_section *s = p->sections[0];
    for (int64_t i = 0; i < s->nlocal; i++)
        if (rl_local_span_pieces(&s->local[i]) > 1) return &s->local[i];
    fail_msg("the sample plan has no local lattice of several pieces");
    return NULL;
}

/* Its destination side reaches one element past A's buffer. */
static void local_one_past(relay_plan *p)
{
    rl_local_span *l = local_lattice(p);
    rl_span to = rl_local_half(l, 1);
    place_last_piece(p, &to, 1, 1);
    l->dst_off = to.off;
}

static void local_negative_step(relay_plan *p) { local_lattice(p)->src_step_c = -3; }

typedef struct {
    const char *what;
    void (*tamper)(relay_plan *p);
    const char *says;        /* in the refusal's message */
} defect;

static const defect defects[] = {
    {"zero count", zero_count, "empty or negative shape"},
    {"negative count", negative_count, "empty or negative shape"},
    {"zero rows", zero_rows, "empty or negative shape"},
    {"negative step", negative_step, "steps"},
    {"zero step along several pieces", zero_step, "steps"},
    {"unknown fused bit", unknown_fusion, "fused"},
    {"fused along one piece", fused_along_one, "fused"},
    {"step along a count of 1", step_along_one, "steps"},
    {"negative offset", negative_offset, "offset"},
    {"send lattice one past its buffer through its last piece", send_one_past, "reaches beyond its buffer"},
    {"receive lattice one past its buffer through its last piece", recv_one_past, "reaches beyond its buffer"},
    {"(count - 1) * step overflows", step_times_count_overflows, "reaches beyond its buffer"},
    {"offset + steps overflows", offset_plus_steps_overflows, "reaches beyond its buffer"},
    {"rows * cols * counts overflows", elements_overflow, "more than 2^63 elements"},
    {"ld smaller than a piece", ld_too_small, "leading dimension"},
    {"ld * rows overflows", ld_overflows, "leading dimension"},
    {"pair out of range", pair_out_of_range, "names pair"},
    {"message elems not its lattices' sum", elems_off_by_one, "declares"},
    {"lattice range past the array", range_past_array, "bad lattice range"},
    {"lattice range with a gap", range_with_gap, "bad lattice range"},
    {"lattice in no message", lattice_left_out, "not all in a message"},
    {"peer is the rank itself", peer_is_self, "peer"},
    {"local lattice one past A's buffer", local_one_past, "local lattice"},
    {"local lattice with a negative step", local_negative_step, "steps"},
};

/* Rank 0's section, tampered with and re-checksummed (the writer hashes
 * the bytes again), must be refused on reading, whole or alone, and the
 * other ranks' sections still read. */
static void expect_refused(const defect *d)
{
    relay_plan *p = sample_plan(3, RELAY_OP_T, 1), *q;
    d->tamper(p);
    p->sections[0]->checksum = rl_section_hash(p->sections[0], p->count);
    void *buf;
    size_t len;
    encode_ok(p, &buf, &len);
    for (int rank = -1; rank <= 0; rank++) {
        relay_status st = relay_plan_decode(&q, buf, len, rank);
        if (st != RELAY_ERR_FORMAT || !strstr(relay_last_error(), d->says))
            fail_msg("%s: %s, \"%s\" (wanted RELAY_ERR_FORMAT and \"%s\")", d->what, relay_status_str(st),
                     relay_last_error(), d->says);
    }
    assert_int_equal(relay_plan_decode(&q, buf, len, 1), RELAY_OK);
    relay_plan_free(q);
    free(buf);
    relay_plan_free(p);
}

static void test_lying_sections_are_refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof defects / sizeof *defects; i++) expect_refused(&defects[i]);
}

/* The bound is exact: a lattice whose last piece ends at the last element
 * of its buffer is read. */
static void test_lattice_ending_at_its_buffer_end_is_read(void **state)
{
    (void)state;
    for (int is_dst = 0; is_dst <= 1; is_dst++) {
        relay_plan *p = sample_plan(3, RELAY_OP_T, 1), *q;
        place_last_piece(p, long_lattice(p, is_dst), is_dst, 0);
        p->sections[0]->checksum = rl_section_hash(p->sections[0], p->count);
        void *buf;
        size_t len;
        encode_ok(p, &buf, &len);
        if (relay_plan_decode(&q, buf, len, 0) != RELAY_OK) fail_msg("%s", relay_last_error());
        relay_plan_free(q);
        free(buf);
        relay_plan_free(p);
    }
}

/* ---- one rank's plan ---------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

/* A number in [lo, hi] (xorshift64*: reproducible). */
static int64_t draw(int64_t lo, int64_t hi)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return lo + (int64_t)((rng_state * 0x2545f4914f6cdd1du >> 11) % (uint64_t)(hi - lo + 1));
}

static relay_layout *random_block_cyclic(int nranks, int64_t m, int64_t n)
{
    relay_layout *l;
    int pr = (int)draw(1, nranks), pc = (int)draw(1, nranks / pr);
    assert_int_equal(relay_layout_block_cyclic(&l, m, n, draw(1, m), draw(1, n), pr, pc, (relay_order)draw(0, 1),
                                               (int)draw(0, pr - 1), (int)draw(0, pc - 1), 0, (relay_order)draw(0, 1)),
                     RELAY_OK);
    return l;
}

/* Strictly increasing splits of [0, extent] into at most 4 blocks. */
static int random_splits(int64_t extent, int64_t *splits)
{
    int nb = 1;
    splits[0] = 0;
    while (nb < 4 && splits[nb - 1] < extent - 1 && draw(0, 2)) {
        splits[nb] = draw(splits[nb - 1] + 1, extent - 1);
        nb++;
    }
    splits[nb] = extent;
    return nb;
}

static relay_layout *random_grid(int nranks, int64_t m, int64_t n)
{
    relay_layout *l;
    int64_t rs[5], cs[5];
    int owners[16];
    int nbr = random_splits(m, rs), nbc = random_splits(n, cs);
    for (int b = 0; b < nbr * nbc; b++) owners[b] = (int)draw(0, nranks - 1);
    assert_int_equal(relay_layout_grid(&l, nranks, m, n, nbr, rs, nbc, cs, owners, NULL, NULL, (relay_order)draw(0, 1)),
                     RELAY_OK);
    return l;
}

static relay_layout *random_layout(int nranks, int64_t m, int64_t n)
{
    return draw(0, 2) ? random_block_cyclic(nranks, m, n) : random_grid(nranks, m, n);
}

static void assert_records_equal(const void *a, const void *b, int64_t n, size_t size)
{
    if (n) assert_memory_equal(a, b, (size_t)n * size);
}

static void assert_sections_equal(const rl_section *a, const rl_section *b, int count)
{
    assert_int_equal(a->rank, b->rank);
    assert_int_equal(a->nsend, b->nsend);
    assert_int_equal(a->nrecv, b->nrecv);
    assert_int_equal(a->nsend_spans, b->nsend_spans);
    assert_int_equal(a->nrecv_spans, b->nrecv_spans);
    assert_int_equal(a->nlocal, b->nlocal);
    assert_records_equal(a->send, b->send, a->nsend, sizeof *a->send);
    assert_records_equal(a->recv, b->recv, a->nrecv, sizeof *a->recv);
    assert_records_equal(a->send_spans, b->send_spans, a->nsend_spans, sizeof *a->send_spans);
    assert_records_equal(a->recv_spans, b->recv_spans, a->nrecv_spans, sizeof *a->recv_spans);
    assert_records_equal(a->local, b->local, a->nlocal, sizeof *a->local);
    assert_records_equal(a->src_elems, b->src_elems, count, sizeof *a->src_elems);
    assert_records_equal(a->dst_elems, b->dst_elems, count, sizeof *a->dst_elems);
    assert_int_equal(a->checksum, b->checksum);
}

/* Every rank's own plan against the whole plan of the same request: the
 * same header (fingerprint, statistics, sigma) and the same section, no
 * other section, and refused by relay_plan_save and relay_plan_encode. */
static void check_rank_plans(const relay_plan *whole, int nranks, int count, const relay_layout *const *dst,
                             const relay_layout *const *src, const relay_op *ops, const relay_plan_options *o)
{
    for (int rank = 0; rank < nranks; rank++) {
        relay_plan *one;
        void *buf;
        size_t len;
        if (relay_plan_transform_rank(&one, rank, nranks, count, dst, src, ops, whole->type, o) != RELAY_OK)
            fail_msg("rank %d: %s", rank, relay_last_error());
        assert_true(relay_plan_fingerprint(one) == relay_plan_fingerprint(whole));
        assert_memory_equal(&one->stats, &whole->stats, sizeof one->stats);
        assert_memory_equal(one->sigma, whole->sigma, (size_t)nranks * sizeof *one->sigma);
        assert_sections_equal(one->sections[rank], whole->sections[rank], count);
        for (int r = 0; r < nranks; r++)
            if (r != rank) assert_null(one->sections[r]);
        if (nranks > 1) { /* else the rank's plan is the whole plan */
            assert_int_equal(relay_plan_save(one, "/nonexistent/never-written.plan"), RELAY_ERR_ARG);
            assert_non_null(strstr(relay_last_error(), "only some ranks"));
            assert_int_equal(relay_plan_encode(one, &buf, &len), RELAY_ERR_ARG);
        }
        relay_plan_free(one);
    }
}

/* The header's statistics, which the planner derives from the layouts'
 * structure (and a one-rank plan carries too), against the sections: bytes,
 * messages and pieces (count_r * count_c per lattice) counted from them. */
static void assert_stats_match_sections(const relay_plan *p)
{
    int64_t esz = (int64_t)relay_type_size(p->type), remote = 0, local = 0, messages = 0, pieces = 0;
    for (int r = 0; r < p->nranks; r++) {
        const rl_section *s = p->sections[r];
        messages += s->nsend;
        for (int k = 0; k < s->nsend; k++) remote += s->send[k].elems * esz;
        for (int64_t i = 0; i < s->nsend_spans; i++) pieces += rl_span_pieces(&s->send_spans[i]);
        for (int64_t i = 0; i < s->nlocal; i++) {
            pieces += rl_local_span_pieces(&s->local[i]);
            local += rl_local_span_elems(&s->local[i]) * esz;
        }
    }
    assert_int_equal(p->stats.bytes_remote, remote);
    assert_int_equal(p->stats.bytes_total, remote + local);
    assert_int_equal(p->stats.messages, messages);
    assert_int_equal(p->stats.pieces, pieces);
}

/* One random request: 1 or 2 pairs of random block-cyclic and grid
 * layouts, random ops, relabeling and a one-wave schedule. */
static void check_random_request(void)
{
    int nranks = (int)draw(1, 6), count = (int)draw(1, 2);
    relay_layout *dst[2], *src[2];
    relay_op ops[2];
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.relabel = (relay_relabel)draw(0, 2);
    o.schedule = draw(0, 1) ? RELAY_SCHED_P2P : RELAY_SCHED_ALLTOALLV;
    for (int k = 0; k < count; k++) {
        int64_t m = draw(1, 40), n = draw(1, 40);
        ops[k] = (relay_op)draw(0, 2);
        dst[k] = random_layout(nranks, m, n);
        src[k] = rl_op_transposes(ops[k]) ? random_layout(nranks, n, m) : random_layout(nranks, m, n);
    }
    relay_type type = (relay_type)draw(0, 3);
    relay_plan *whole;
    const relay_layout *const *cd = (const relay_layout *const *)dst, *const *cs = (const relay_layout *const *)src;
    assert_int_equal(relay_plan_transform_batch(&whole, nranks, count, cd, cs, ops, type, &o), RELAY_OK);
    assert_stats_match_sections(whole);
    check_rank_plans(whole, nranks, count, cd, cs, ops, &o);
    relay_plan_free(whole);
    for (int k = 0; k < count; k++) {
        relay_layout_free(dst[k]);
        relay_layout_free(src[k]);
    }
}

/* ---- a plan's tuning and memory cap (format 2.2) ------------------------- */

static relay_plan *rounds_plan(int64_t cap)
{
    relay_layout *a, *b;
    relay_plan *p = NULL;
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.schedule = RELAY_SCHED_ROUNDS;
    o.max_buffer_bytes = cap;
    assert_int_equal(relay_layout_block_cyclic(&b, 17, 13, 4, 3, 1, 3, RELAY_COL_MAJOR, 0, 0, 0, RELAY_ROW_MAJOR), RELAY_OK);
    assert_int_equal(relay_layout_block_cyclic(&a, 17, 13, 2, 5, 3, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_plan_transform(&p, 3, a, b, RELAY_OP_N, RELAY_DOUBLE, &o), RELAY_OK);
    relay_layout_free(a);
    relay_layout_free(b);
    return p;
}

static const relay_tuning sample_tuning = {
    .ntimed = 5, .best = 1, .ranks_per_node_min = 1, .ranks_per_node_max = 3, .replays = 9,
    .choices = {{RELAY_SCHED_P2P, 0, 2e-3}, {RELAY_SCHED_ROUNDS, 0, 1e-3}, {RELAY_SCHED_ALLTOALLV, 0, 3e-3},
                {RELAY_SCHED_P2P, 1, 4e-3}, {RELAY_SCHED_P2P, 0, 5e-3, .window = 1}}};

static void assert_same_tuning(const relay_tuning *x, const relay_tuning *y)
{
    assert_int_equal(x->ntimed, y->ntimed);
    assert_int_equal(x->best, y->best);
    assert_int_equal(x->ranks_per_node_min, y->ranks_per_node_min);
    assert_int_equal(x->ranks_per_node_max, y->ranks_per_node_max);
    assert_int_equal(x->replays, y->replays);
    assert_string_equal(x->machine, y->machine);
    for (int i = 0; i < x->ntimed; i++) {
        assert_int_equal(x->choices[i].schedule, y->choices[i].schedule);
        assert_int_equal(x->choices[i].packed, y->choices[i].packed);
        assert_int_equal(x->choices[i].window, y->choices[i].window);
        assert_true(x->choices[i].seconds == y->choices[i].seconds);
    }
}

/* A tuning and a cap survive encoding (a capped plan's with a choice
 * through the window too); the tuning leaves the fingerprint alone, the
 * cap does not. */
static void test_tuning_and_cap_read_back(void **state)
{
    (void)state;
    relay_plan *p = rounds_plan(0), *capped = rounds_plan(24);
    uint64_t before = relay_plan_fingerprint(p);
    assert_int_equal(relay_plan_set_tuning(p, &sample_tuning), RELAY_OK);
    assert_true(relay_plan_fingerprint(p) == before);
    assert_true(relay_plan_fingerprint(capped) != before);
    check_read_back(p, 3);
    check_read_back(capped, 3);
    void *buf;
    size_t len;
    relay_plan *q;
    relay_tuning t;
    encode_ok(p, &buf, &len);
    assert_int_equal(relay_plan_decode(&q, buf, len, 1), RELAY_OK);
    assert_int_equal(relay_plan_tuning(q, &t), RELAY_OK);
    assert_same_tuning(&t, &sample_tuning);
    relay_plan_free(q);
    free(buf);
    relay_tuning predicted = sample_tuning; /* a predicted tuning names its machine */
    snprintf(predicted.machine, sizeof predicted.machine, "dragonfly-aries");
    assert_int_equal(relay_plan_set_tuning(p, &predicted), RELAY_OK);
    encode_ok(p, &buf, &len);
    assert_int_equal(relay_plan_decode(&q, buf, len, -1), RELAY_OK);
    assert_int_equal(relay_plan_tuning(q, &t), RELAY_OK);
    assert_same_tuning(&t, &predicted);
    relay_plan_free(q);
    free(buf);
    /* Under a cap, rounds through MPI and through the window; the window's
     * rounds without a cap are refused. */
    relay_tuning chunks = {.ntimed = 2, .best = 1, .ranks_per_node_min = 3, .ranks_per_node_max = 3, .replays = 5,
                           .choices = {{RELAY_SCHED_ROUNDS, 0, 2e-3}, {RELAY_SCHED_ROUNDS, 0, 1e-3, .window = 1}}};
    assert_int_equal(relay_plan_set_tuning(capped, &chunks), RELAY_OK);
    assert_int_equal(relay_plan_set_tuning(p, &chunks), RELAY_ERR_ARG);
    encode_ok(capped, &buf, &len);
    assert_int_equal(relay_plan_decode(&q, buf, len, -1), RELAY_OK);
    assert_int_equal(relay_plan_max_buffer_bytes(q), 24);
    assert_int_equal(relay_plan_tuning(q, &t), RELAY_OK);
    assert_same_tuning(&t, &chunks);
    relay_plan_free(q);
    free(buf);
    relay_plan_free(p);
    relay_plan_free(capped);
}

/* A file is untrusted even when its checksums hold: tunings the plan
 * cannot carry, written past relay_plan_set_tuning's check, are refused by
 * the reader with RELAY_ERR_FORMAT; so are caps that do not fit. */
static void expect_decode_refused(relay_plan *p, const char *what)
{
    void *buf;
    size_t len;
    relay_plan *q = NULL;
    encode_ok(p, &buf, &len);
    relay_status st = relay_plan_decode(&q, buf, len, -1);
    if (st != RELAY_ERR_FORMAT) fail_msg("%s: decoded with status %d", what, (int)st);
    assert_null(q);
    free(buf);
}

static void test_hostile_tunings_and_caps_are_refused(void **state)
{
    (void)state;
    relay_plan *p = rounds_plan(0);
    relay_tuning bad[13];
    for (int k = 0; k < 13; k++) bad[k] = sample_tuning;
    bad[0].best = 5;                                          /* not a choice */
    bad[1].choices[2].seconds = 0.0 / 0.0;                    /* NaN */
    bad[2].choices[2].seconds = 1e300;                        /* beyond any replay */
    bad[3].choices[3] = bad[3].choices[0];                    /* timed twice */
    bad[4].ranks_per_node_max = 4;                            /* more than the plan's ranks */
    bad[5].ranks_per_node_min = 3, bad[5].ranks_per_node_max = 2; /* fewest above most */
    bad[6].choices[0].schedule = RELAY_SCHED_AUTO;            /* not a way to replay */
    bad[7].choices[1].packed = 1;                             /* packed rounds */
    bad[8].replays = 0;                                       /* nothing timed */
    bad[9].choices[4].window = 2;                             /* a flag not 0 or 1 */
    bad[10].choices[2].window = 1;                            /* alltoallv through the window */
    snprintf(bad[11].machine, sizeof bad[11].machine, "fat\x1b[2J"); /* a machine name with an escape */
    bad[12].ntimed = 0, bad[12].best = 0;                     /* with ntimed 0 nothing is written: a control */
    for (int k = 0; k < 12; k++) {
        assert_int_equal(relay_plan_set_tuning(p, &bad[k]), RELAY_ERR_ARG);
        p->tuning = bad[k]; /* past the check, as a hostile file would be */
        expect_decode_refused(p, "a tuning the plan cannot carry");
    }
    p->tuning = bad[12];
    check_read_back(p, 3);
    p->tuning = (relay_tuning){0};
    p->max_buffer_bytes = 4; /* below one double */
    p->fingerprint = rl_plan_hash(p);
    expect_decode_refused(p, "a cap below one element");
    relay_plan_free(p);
    p = sample_plan(3, RELAY_OP_N, 0); /* p2p: no steps */
    p->max_buffer_bytes = 64;
    p->fingerprint = rl_plan_hash(p);
    expect_decode_refused(p, "a cap without rounds");
    assert_non_null(strstr(relay_last_error(), "memory cap"));
    p->max_buffer_bytes = 0;
    p->fingerprint = rl_plan_hash(p);
    relay_tuning rounds = sample_tuning;
    assert_int_equal(relay_plan_set_tuning(p, &rounds), RELAY_ERR_ARG);
    p->tuning = rounds;
    expect_decode_refused(p, "a rounds choice for a plan without steps");
    relay_plan_free(p);
}

static void test_rank_plan_is_its_part_of_the_whole(void **state)
{
    (void)state;
    for (int trial = 0; trial < 300; trial++) check_random_request();
}

/* ---- N-D plans (format 3.0, kind nd) --------------------------------------- */

static relay_nd_layout *nd_layout(int ndims, const int64_t *shape, int mesh_ndims, const int *mesh_shape, const int *ranks,
                                  const relay_placement *places, relay_order order, const int64_t *padded)
{
    relay_nd_layout *l;
    relay_nd_desc d = {ndims, shape, mesh_ndims, mesh_shape, ranks, places, order, padded};
    if (relay_nd_layout_create(&l, &d) != RELAY_OK) fail_msg("%s", relay_last_error());
    return l;
}

enum { ND_SAMPLES = 3 };

/* Sample i of the N-D plans, each field of the format in one of them:
 *   0  a 6 x 5 x 4 pencil reshape on 4 ranks, axes permuted (2, 0, 1),
 *      complex doubles: B in C order on a 2 x 2 mesh (even and block-cyclic
 *      shards), A in Fortran order, padded, on the mesh's ranks reversed,
 *      one dimension cut at uneven split points with an empty shard;
 *   1  a batch on 8 ranks with a node map: B replicated on ranks 4-7 to A
 *      sharded on ranks 0-3 (op N), and a partial B to a replicated A
 *      whose replicas forward (pair 1's `forward`);
 *   2  a 1-D move of 10 floats from uneven splits on 3 ranks to one rank. */
static relay_plan *nd_sample(int i)
{
    relay_plan *p = NULL;
    relay_status st;
    if (i == 0) {
        int64_t bshape[] = {6, 5, 4}, ashape[] = {4, 6, 5}, splits[] = {0, 0, 6}, padded[] = {3, 0, 0};
        int mesh[] = {2, 2}, ranks[] = {0, 1, 2, 3}, reversed[] = {3, 2, 1, 0}, perm[] = {2, 0, 1};
        relay_placement bp[] = {{RELAY_SHARD, 1, 0, NULL}, {RELAY_SHARD, 2, 1, NULL}};
        relay_placement ap[] = {{RELAY_SHARD, 0, 1, NULL}, {RELAY_SHARD, 1, 0, splits}};
        relay_nd_layout *b = nd_layout(3, bshape, 2, mesh, ranks, bp, RELAY_ROW_MAJOR, NULL);
        relay_nd_layout *a = nd_layout(3, ashape, 2, mesh, reversed, ap, RELAY_COL_MAJOR, padded);
        st = relay_plan_nd(&p, 4, a, b, RELAY_OP_T, perm, RELAY_CDOUBLE, NULL);
        relay_nd_layout_free(a);
        relay_nd_layout_free(b);
    } else if (i == 1) {
        int64_t shape[] = {8, 6};
        int m22[] = {2, 2}, m4[] = {4}, high[] = {4, 5, 6, 7}, low[] = {0, 1, 2, 3}, nodes[] = {0, 0, 0, 0, 1, 1, 1, 1};
        relay_placement rep[] = {{RELAY_SHARD, 0, 0, NULL}, {RELAY_REPLICATE, 0, 0, NULL}};
        relay_placement part[] = {{RELAY_PARTIAL, 0, 0, NULL}, {RELAY_SHARD, 1, 2, NULL}};
        relay_placement s1[] = {{RELAY_SHARD, 1, 0, NULL}}, all[] = {{RELAY_REPLICATE, 0, 0, NULL}};
        relay_nd_layout *src[2] = {nd_layout(2, shape, 2, m22, high, rep, RELAY_ROW_MAJOR, NULL),
                                   nd_layout(2, shape, 2, m22, low, part, RELAY_COL_MAJOR, NULL)};
        relay_nd_layout *dst[2] = {nd_layout(2, shape, 1, m4, low, s1, RELAY_ROW_MAJOR, NULL),
                                   nd_layout(2, shape, 1, m4, high, all, RELAY_ROW_MAJOR, NULL)};
        relay_op ops[2] = {RELAY_OP_N, RELAY_OP_N};
        relay_plan_options o;
        relay_plan_options_init(&o);
        o.node_of_rank = nodes;
        o.replicas = RELAY_REPLICAS_FORWARD;
        st = relay_plan_nd_batch(&p, 8, 2, (const relay_nd_layout *const *)dst, (const relay_nd_layout *const *)src, ops, NULL,
                                 RELAY_DOUBLE, &o);
        for (int k = 0; k < 2; k++) {
            relay_nd_layout_free(dst[k]);
            relay_nd_layout_free(src[k]);
        }
    } else {
        int64_t shape[] = {10}, splits[] = {0, 7, 7, 10};
        int m3[] = {3}, m1[] = {1}, three[] = {0, 1, 2}, two[] = {2};
        relay_placement uneven[] = {{RELAY_SHARD, 0, 0, splits}}, whole[] = {{RELAY_REPLICATE, 0, 0, NULL}};
        relay_nd_layout *b = nd_layout(1, shape, 1, m3, three, uneven, RELAY_ROW_MAJOR, NULL);
        relay_nd_layout *a = nd_layout(1, shape, 1, m1, two, whole, RELAY_COL_MAJOR, NULL);
        st = relay_plan_nd(&p, 3, a, b, RELAY_OP_N, NULL, RELAY_FLOAT, NULL);
        relay_nd_layout_free(a);
        relay_nd_layout_free(b);
    }
    if (st != RELAY_OK) fail_msg("N-D sample %d: %s", i, relay_last_error());
    assert_int_equal(p->nd->pairs[p->nd->count - 1].forward, i == 1); /* only sample 1's replicated A forwards */
    return p;
}

/* q read back holds p: the fingerprint (which covers every layout, op,
 * permutation and the node map), the version, and the node map. */
static void assert_same_nd_plan(const relay_plan *q, const relay_plan *p)
{
    assert_int_equal(relay_plan_get_kind(q), RELAY_PLAN_ND);
    assert_true(relay_plan_fingerprint(q) == relay_plan_fingerprint(p));
    assert_true(rl_plan_hash(q) == relay_plan_fingerprint(p));
    assert_int_equal(q->format_major, RELAY_FORMAT_ND_MAJOR);
    assert_int_equal(q->format_minor, RELAY_FORMAT_ND_MINOR);
    assert_int_equal(relay_plan_count(q), relay_plan_count(p));
    assert_null(q->sections);
    assert_int_equal(!q->nd->node_of_rank, !p->nd->node_of_rank);
    if (p->nd->node_of_rank) assert_memory_equal(q->nd->node_of_rank, p->nd->node_of_rank, (size_t)p->nranks * sizeof(int32_t));
    for (int k = 0; k < p->nd->count; k++) assert_int_equal(q->nd->pairs[k].forward, p->nd->pairs[k].forward);
}

/* Encoded, decoded whole and at every rank (the header is the whole plan),
 * encoded again to the same bytes; saved, counted and loaded from a file. */
static void check_nd_read_back(const relay_plan *p)
{
    relay_plan *q;
    void *buf, *again;
    size_t len, len2;
    uint64_t fingerprint;
    encode_ok(p, &buf, &len);
    for (int rank = -1; rank < p->nranks; rank++) {
        if (relay_plan_decode(&q, buf, len, rank) != RELAY_OK) fail_msg("rank %d: %s", rank, relay_last_error());
        assert_same_nd_plan(q, p);
        encode_ok(q, &again, &len2);
        assert_int_equal(len, len2);
        assert_memory_equal(buf, again, len);
        free(again);
        relay_plan_free(q);
    }
    assert_int_equal(relay_plan_decode(&q, buf, len, p->nranks), RELAY_ERR_ARG);
    size_t hstart, hash_at = 0;
    uint64_t hlen;
    find_header(buf, len, &hstart, &hlen, &hash_at);
    assert_int_equal(hstart + hlen, len); /* no sections */
    assert_int_equal(rl_header_fingerprint((unsigned char *)buf + hstart, (size_t)hlen, &fingerprint), RELAY_OK);
    assert_true(fingerprint == relay_plan_fingerprint(p));
    free(buf);
    char dir[] = "/tmp/relay-codec-XXXXXX", path[128];
    int nranks = 0;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/nd.plan", dir);
    assert_int_equal(relay_plan_save(p, path), RELAY_OK);
    assert_int_equal(relay_plan_file_nranks(path, &nranks), RELAY_OK);
    assert_int_equal(nranks, p->nranks);
    assert_int_equal(relay_plan_load(&q, path, p->nranks - 1), RELAY_OK);
    assert_same_nd_plan(q, p);
    relay_plan_free(q);
    unlink(path);
    rmdir(dir);
}

static void test_nd_plans_read_back(void **state)
{
    (void)state;
    for (int i = 0; i < ND_SAMPLES; i++) {
        relay_plan *p = nd_sample(i);
        check_nd_read_back(p);
        relay_plan_free(p);
    }
}

/* A plan made without the planner (rl_nd_plan_new, the layouts and the
 * fingerprint filled in by hand, as the reader does) reads back too. */
static void test_hand_built_nd_plan_reads_back(void **state)
{
    (void)state;
    relay_plan *p;
    int64_t shape[] = {3, 4};
    int mesh[] = {2}, ranks[] = {1, 0}, in_order[] = {0, 1};
    relay_placement rows[] = {{RELAY_SHARD, 0, 2, NULL}};
    assert_int_equal(rl_nd_plan_new(&p, 2, 1, RELAY_FLOAT), RELAY_OK);
    p->nd->pairs[0] = (rl_nd_pair){.op = RELAY_OP_N, .perm = {0, 1},
                                   .dst = nd_layout(2, shape, 1, mesh, ranks, rows, RELAY_ROW_MAJOR, NULL),
                                   .src = nd_layout(2, shape, 1, mesh, in_order, rows, RELAY_COL_MAJOR, NULL)};
    p->stats = (relay_plan_stats){48, 0, 0, 0, 2};
    p->fingerprint = rl_plan_hash(p);
    check_nd_read_back(p);
    relay_plan_free(p);
}

/* Truncations and bit flips of N-D plans, as of the others. */
static void test_nd_truncations_and_bit_flips_are_refused(void **state)
{
    (void)state;
    for (int i = 0; i < ND_SAMPLES; i++) {
        relay_plan *p = nd_sample(i);
        check_every_truncation(p);
        check_every_bit_flip(p);
        relay_plan_free(p);
    }
}

/* ---- N-D headers edited as a hostile writer would ---------------------------- */

/* The header of p's file as a msgpack-c tree, which an edit changes in
 * place (new nodes in the unpacked object's zone). */
typedef void nd_edit(msgpack_zone *z, msgpack_object *header);

/* p's file with its header edited, packed again and sealed (the header's
 * size and its hash under the version given) before what followed it. */
static size_t edited_file(const relay_plan *p, nd_edit *edit, int major, int minor, unsigned char **out)
{
    unsigned char *buf;
    size_t len, hstart, hash_at = 0;
    uint64_t hlen;
    encode_ok(p, (void **)&buf, &len);
    find_header(buf, len, &hstart, &hlen, &hash_at);
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    assert_int_equal(msgpack_unpack_next(&u, (const char *)buf + hstart, (size_t)hlen, NULL), MSGPACK_UNPACK_SUCCESS);
    if (edit) edit(u.zone, &u.data);
    msgpack_sbuffer header, pre;
    msgpack_packer pk;
    msgpack_sbuffer_init(&header);
    msgpack_packer_init(&pk, &header, msgpack_sbuffer_write);
    msgpack_pack_object(&pk, u.data);
    msgpack_sbuffer_init(&pre);
    msgpack_packer_init(&pk, &pre, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 5);
    const char *keys[] = {"magic", "major", "minor", "header_bytes", "header_hash"};
    uint64_t vals[] = {0, (uint64_t)major, (uint64_t)minor, header.size, rl_header_hash(header.data, header.size, major, minor)};
    for (int k = 0; k < 5; k++) {
        msgpack_pack_str_with_body(&pk, keys[k], strlen(keys[k]));
        if (k) msgpack_pack_uint64(&pk, vals[k]);
        else msgpack_pack_str_with_body(&pk, RELAY_FORMAT_MAGIC, strlen(RELAY_FORMAT_MAGIC));
    }
    size_t rest = len - hstart - (size_t)hlen, total = pre.size + header.size + rest;
    *out = malloc(total);
    assert_non_null(*out);
    memcpy(*out, pre.data, pre.size);
    memcpy(*out + pre.size, header.data, header.size);
    memcpy(*out + pre.size + header.size, buf + hstart + hlen, rest);
    msgpack_sbuffer_destroy(&header);
    msgpack_sbuffer_destroy(&pre);
    msgpack_unpacked_destroy(&u);
    free(buf);
    return total;
}

/* The value of `key` in a map (which must have it). */
static msgpack_object *get(msgpack_object *map, const char *key)
{
    assert_int_equal(map->type, MSGPACK_OBJECT_MAP);
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        msgpack_object *k = &map->via.map.ptr[i].key;
        if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == strlen(key) && !memcmp(k->via.str.ptr, key, k->via.str.size))
            return &map->via.map.ptr[i].val;
    }
    fail_msg("no key `%s`", key);
    return NULL;
}

static msgpack_object *item(msgpack_object *array, uint32_t i)
{
    assert_int_equal(array->type, MSGPACK_OBJECT_ARRAY);
    assert_true(i < array->via.array.size);
    return &array->via.array.ptr[i];
}

static msgpack_object *pair0(msgpack_object *h, const char *key) { return get(item(get(h, "pairs"), 0), key); }
static msgpack_object *placement(msgpack_object *h, const char *side, uint32_t m) { return item(get(pair0(h, side), "placements"), m); }

static void set_int(msgpack_object *o, int64_t v)
{
    o->type = v < 0 ? MSGPACK_OBJECT_NEGATIVE_INTEGER : MSGPACK_OBJECT_POSITIVE_INTEGER;
    if (v < 0) o->via.i64 = v;
    else o->via.u64 = (uint64_t)v;
}

static int64_t int_at(msgpack_object *o) { return o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER ? o->via.i64 : (int64_t)o->via.u64; }

static void set_str(msgpack_object *o, const char *s)
{
    o->type = MSGPACK_OBJECT_STR;
    o->via.str.ptr = s;
    o->via.str.size = (uint32_t)strlen(s);
}

/* An array of n copies of `fill` (NULL: of 0) in place of o. */
static void set_array(msgpack_zone *z, msgpack_object *o, uint32_t n, const msgpack_object *fill)
{
    msgpack_object *a = msgpack_zone_malloc(z, (n ? n : 1) * sizeof *a);
    for (uint32_t i = 0; i < n; i++) {
        if (fill) a[i] = *fill;
        else set_int(&a[i], 0);
    }
    o->type = MSGPACK_OBJECT_ARRAY;
    o->via.array.size = n;
    o->via.array.ptr = a;
}

/* key: value added at the end of a map. */
static void add_key(msgpack_zone *z, msgpack_object *map, const char *key, msgpack_object value)
{
    msgpack_object_kv *kv = msgpack_zone_malloc(z, (map->via.map.size + 1) * sizeof *kv);
    memcpy(kv, map->via.map.ptr, map->via.map.size * sizeof *kv);
    set_str(&kv[map->via.map.size].key, key);
    kv[map->via.map.size].val = value;
    map->via.map.ptr = kv;
    map->via.map.size++;
}

static void drop_key(msgpack_object *map, const char *key)
{
    msgpack_object *v = get(map, key);
    uint32_t i = (uint32_t)((msgpack_object_kv *)((char *)v - offsetof(msgpack_object_kv, val)) - map->via.map.ptr);
    memmove(&map->via.map.ptr[i], &map->via.map.ptr[i + 1], (map->via.map.size - i - 1) * sizeof *map->via.map.ptr);
    map->via.map.size--;
}

/* The edits, on sample 0 (4 ranks; A 4 x 6 x 5, F order, padded, split;
 * B 6 x 5 x 4; perm 2, 0, 1) unless said. */
static void kind_transform(msgpack_zone *z, msgpack_object *h) { set_str(get(h, "kind"), "transform"); }
static void nine_dims(msgpack_zone *z, msgpack_object *h) { set_array(z, get(pair0(h, "dst"), "shape"), 9, NULL); }
static void five_mesh_dims(msgpack_zone *z, msgpack_object *h) { set_array(z, get(pair0(h, "src"), "mesh_shape"), 5, NULL); }
static void empty_mesh_dim(msgpack_zone *z, msgpack_object *h) { set_int(item(get(pair0(h, "src"), "mesh_shape"), 1), 0); }
static void mesh_too_small(msgpack_zone *z, msgpack_object *h) { set_int(item(get(pair0(h, "src"), "mesh_shape"), 1), 1); }
static void rank_out_of_range(msgpack_zone *z, msgpack_object *h) { set_int(item(get(pair0(h, "src"), "mesh_ranks"), 2), 4); }
static void rank_twice(msgpack_zone *z, msgpack_object *h) { set_int(item(get(pair0(h, "dst"), "mesh_ranks"), 0), 0); }
static void splits_not_summing(msgpack_zone *z, msgpack_object *h) { set_int(item(get(placement(h, "dst", 1), "splits"), 2), 7); }
static void splits_short(msgpack_zone *z, msgpack_object *h) { get(placement(h, "dst", 1), "splits")->via.array.size = 2; }
static void perm_repeats(msgpack_zone *z, msgpack_object *h) { set_int(item(pair0(h, "perm"), 1), 2); }
static void perm_short(msgpack_zone *z, msgpack_object *h) { get(item(get(h, "pairs"), 0), "perm")->via.array.size = 2; }
static void op_n_permuting(msgpack_zone *z, msgpack_object *h) { set_int(pair0(h, "op"), RELAY_OP_N); }
static void op_out_of_range(msgpack_zone *z, msgpack_object *h) { set_int(pair0(h, "op"), 3); }
static void shapes_disagree(msgpack_zone *z, msgpack_object *h) { set_int(item(get(pair0(h, "src"), "shape"), 0), 7); }
static void padding_short(msgpack_zone *z, msgpack_object *h) { set_int(item(get(pair0(h, "dst"), "padded"), 0), 1); }
static void padded_count(msgpack_zone *z, msgpack_object *h) { get(pair0(h, "dst"), "padded")->via.array.size = 2; }
static void bad_order(msgpack_zone *z, msgpack_object *h) { set_str(get(pair0(h, "dst"), "order"), "K"); }
static void bad_kind_of_placement(msgpack_zone *z, msgpack_object *h) { set_str(get(placement(h, "src", 0), "kind"), "sharded"); }
static void block_and_splits(msgpack_zone *z, msgpack_object *h) { set_int(get(placement(h, "src", 0), "block"), 2); add_key(z, placement(h, "src", 0), "splits", *get(placement(h, "dst", 1), "splits")); }
static void shard_beyond_dims(msgpack_zone *z, msgpack_object *h) { set_int(get(placement(h, "src", 0), "dim"), 3); }
static void two_shards_of_a_dim(msgpack_zone *z, msgpack_object *h) { set_int(get(placement(h, "src", 0), "dim"), 2); }
static void shard_without_dim(msgpack_zone *z, msgpack_object *h) { drop_key(placement(h, "src", 0), "dim"); }
static void missing_order(msgpack_zone *z, msgpack_object *h) { drop_key(pair0(h, "dst"), "order"); }
static void missing_perm(msgpack_zone *z, msgpack_object *h) { drop_key(item(get(h, "pairs"), 0), "perm"); }
static void placements_short(msgpack_zone *z, msgpack_object *h) { get(pair0(h, "src"), "placements")->via.array.size = 1; }
static void shape_twice(msgpack_zone *z, msgpack_object *h) { add_key(z, pair0(h, "dst"), "shape", *get(pair0(h, "dst"), "shape")); }
static void sigma_in_nd(msgpack_zone *z, msgpack_object *h) { add_key(z, h, "sigma", *get(pair0(h, "src"), "mesh_ranks")); }
static void rounds_schedule(msgpack_zone *z, msgpack_object *h) { set_int(get(h, "schedule"), RELAY_SCHED_ROUNDS); }
static void no_pairs(msgpack_zone *z, msgpack_object *h) { get(h, "pairs")->via.array.size = 0; }
static void fewer_ranks(msgpack_zone *z, msgpack_object *h) { set_int(get(h, "nranks"), 3); }
static void stats_edited(msgpack_zone *z, msgpack_object *h) { set_int(get(get(h, "stats"), "messages"), 1000); }

/* A partial placement of A: a placement map {kind: partial} over a shard. */
static void partial_destination(msgpack_zone *z, msgpack_object *h)
{
    msgpack_object *pl = placement(h, "dst", 1);
    pl->via.map.size = 1; /* kind comes first */
    set_str(get(pl, "kind"), "partial");
}

/* A replicate placement that names a dimension. */
static void replicate_with_dim(msgpack_zone *z, msgpack_object *h)
{
    msgpack_object *pl = placement(h, "src", 0);
    set_str(get(pl, "kind"), "replicate");
}

/* Counts beyond the limits, with the bytes there to hold them: 4097 pairs,
 * a mesh of more ranks than the plan, more split points than ranks + 1. */
static void pairs_4097(msgpack_zone *z, msgpack_object *h)
{
    msgpack_object nil = {.type = MSGPACK_OBJECT_NIL};
    set_array(z, get(h, "pairs"), 4097, &nil);
}
static void mesh_of_5(msgpack_zone *z, msgpack_object *h) { set_array(z, get(pair0(h, "src"), "mesh_ranks"), 5, NULL); }
static void splits_6(msgpack_zone *z, msgpack_object *h) { set_array(z, get(placement(h, "dst", 1), "splits"), 6, NULL); }

/* A 2^24-rank plan whose layout sits on its last rank: a rank map of 2^24
 * entries from a few bytes, beyond what a header this size may ask. */
static void last_of_2_24_ranks(msgpack_zone *z, msgpack_object *h)
{
    set_int(get(h, "nranks"), 1 << 24);
    set_int(item(get(pair0(h, "dst"), "mesh_ranks"), 0), (1 << 24) - 1);
}

/* A forward flag out of range (sample 1's pair 1), and one on a pair
 * whose A has no replicas (sample 0). */
static void forward_2(msgpack_zone *z, msgpack_object *h) { set_int(get(item(get(h, "pairs"), 1), "forward"), 2); }
static void forward_unreplicated(msgpack_zone *z, msgpack_object *h)
{
    msgpack_object one;
    set_int(&one, 1);
    add_key(z, item(get(h, "pairs"), 0), "forward", one);
}

/* Sample 1's node map: a node out of range, an entry short. */
static void node_out_of_range(msgpack_zone *z, msgpack_object *h) { set_int(item(get(h, "node_of_rank"), 3), 8); }
static void node_map_short(msgpack_zone *z, msgpack_object *h) { get(h, "node_of_rank")->via.array.size = 7; }

typedef struct {
    const char *what;
    int sample, major;
    nd_edit *edit;
    relay_status status;
    const char *says;
} nd_defect;

static const nd_defect nd_defects[] = {
    {"an N-D plan in a 2.x file", 0, 2, NULL, RELAY_ERR_FORMAT, "N-D plans are format 3.x files"},
    {"a transform kind in a 3.x file", 0, 3, kind_transform, RELAY_ERR_FORMAT, "holds N-D plans (kind nd) only"},
    {"a newer major", 0, 5, NULL, RELAY_ERR_VERSION, "written by a newer relay"},
    {"9 dimensions", 0, 3, nine_dims, RELAY_ERR_FORMAT, "pair 0's dst layout has 9 entries in `shape`, not 1 to 8"},
    {"5 mesh dimensions", 0, 3, five_mesh_dims, RELAY_ERR_FORMAT, "has 5 entries in `mesh_shape`, not 1 to 4"},
    {"an empty mesh dimension", 0, 3, empty_mesh_dim, RELAY_ERR_FORMAT, "mesh dimension 1 has 0 ranks"},
    {"a mesh smaller than its ranks", 0, 3, mesh_too_small, RELAY_ERR_FORMAT, "lists 4 mesh ranks for a mesh of 2 ranks"},
    {"a rank out of range", 0, 3, rank_out_of_range, RELAY_ERR_FORMAT, "mesh rank 4 at position 2 is not a rank of the plan's 4"},
    {"a rank twice on a mesh", 0, 3, rank_twice, RELAY_ERR_FORMAT, "rank 0 appears twice on the mesh"},
    {"splits not summing", 0, 3, splits_not_summing, RELAY_ERR_FORMAT, "splits run from 0 to 7, not from 0 to the extent 6"},
    {"a split point short", 0, 3, splits_short, RELAY_ERR_FORMAT, "placement 1 has 2 split points for 2 mesh coordinates"},
    {"a permutation repeating an axis", 0, 3, perm_repeats, RELAY_ERR_FORMAT, "pair 0: the permutation is not one of 3 axes"},
    {"a permutation short", 0, 3, perm_short, RELAY_ERR_FORMAT, "permutation has 2 axes for layouts of 3 dimensions"},
    {"op N with a permutation", 0, 3, op_n_permuting, RELAY_ERR_FORMAT, "permuting them is op T"},
    {"op 3", 0, 3, op_out_of_range, RELAY_ERR_FORMAT, "pair 0 field `op` is malformed: out of range"},
    {"shapes not matching after the permutation", 0, 3, shapes_disagree, RELAY_ERR_FORMAT, "which the permutation puts there"},
    {"padding below a local extent", 0, 3, padding_short, RELAY_ERR_FORMAT, "padded extent 1 of dimension 0 is below"},
    {"padding of 2 dimensions of 3", 0, 3, padded_count, RELAY_ERR_FORMAT, "has 2 padded extents for 3 dimensions"},
    {"an order K", 0, 3, bad_order, RELAY_ERR_FORMAT, "order is neither \"C\" nor \"F\""},
    {"a placement kind unknown", 0, 3, bad_kind_of_placement, RELAY_ERR_FORMAT, "kind is not shard, replicate or partial"},
    {"a block and splits", 0, 3, block_and_splits, RELAY_ERR_FORMAT, "gives both splits and a block size"},
    {"a shard of a dimension beyond the array's", 0, 3, shard_beyond_dims, RELAY_ERR_FORMAT, "shards array dimension 3 of an array of 3"},
    {"two shards of one dimension", 0, 3, two_shards_of_a_dim, RELAY_ERR_FORMAT, "is sharded by mesh dimensions 0 and 1"},
    {"a shard without its dimension", 0, 3, shard_without_dim, RELAY_ERR_FORMAT, "is a shard without its `dim` field"},
    {"a replicate naming a dimension", 0, 3, replicate_with_dim, RELAY_ERR_FORMAT, "of kind replicate has a `dim` field"},
    {"a partial destination", 0, 3, partial_destination, RELAY_ERR_FORMAT, "A's mesh dimension 1 is partial"},
    {"no order", 0, 3, missing_order, RELAY_ERR_FORMAT, "pair 0's dst layout lacks its `order` field"},
    {"no permutation", 0, 3, missing_perm, RELAY_ERR_FORMAT, "pair 0 lacks its `perm` field"},
    {"a placement short", 0, 3, placements_short, RELAY_ERR_FORMAT, "has 1 placements for a mesh of 2 dimensions"},
    {"a shape twice", 0, 3, shape_twice, RELAY_ERR_FORMAT, "dst layout has the `shape` field twice"},
    {"a transform's sigma", 0, 3, sigma_in_nd, RELAY_ERR_FORMAT, "nd plan has a `sigma` field, which nd plans do not have"},
    {"the rounds schedule", 0, 3, rounds_schedule, RELAY_ERR_FORMAT, "N-D plans replay point to point"},
    {"no pairs", 0, 3, no_pairs, RELAY_ERR_FORMAT, "plan header has 0 N-D pairs, not 1 to 4096"},
    {"4097 pairs", 0, 3, pairs_4097, RELAY_ERR_FORMAT, "plan header has 4097 N-D pairs, not 1 to 4096"},
    {"a mesh of more ranks than the plan", 0, 3, mesh_of_5, RELAY_ERR_FORMAT, "has 5 entries in `mesh_ranks`, not 1 to 4"},
    {"more split points than ranks", 0, 3, splits_6, RELAY_ERR_FORMAT, "has 6 split points, not 2 to the plan's ranks + 1"},
    {"fewer ranks than a mesh holds", 0, 3, fewer_ranks, RELAY_ERR_FORMAT, "has 4 entries in `mesh_ranks`, not 1 to 3"},
    {"a rank map of 2^24 entries", 0, 3, last_of_2_24_ranks, RELAY_ERR_FORMAT, "would take more memory than a plan file of this size"},
    {"statistics edited", 0, 3, stats_edited, RELAY_ERR_FORMAT, "fingerprint does not match"},
    {"a forward flag of 2", 1, 3, forward_2, RELAY_ERR_FORMAT, "pair 1 field `forward` is malformed: out of range"},
    {"forwarding without replicas", 0, 3, forward_unreplicated, RELAY_ERR_FORMAT, "forwards among A's replicas, but its dst layout has none"},
    {"a node out of range", 1, 3, node_out_of_range, RELAY_ERR_FORMAT, "field `node_of_rank` is malformed: array element out of range"},
    {"a node map short", 1, 3, node_map_short, RELAY_ERR_FORMAT, "plan node map has 7 entries for 8 ranks"},
};

/* Each defect is refused with its status and a message saying what, by a
 * whole decode, a rank's decode and relay_plan_file_nranks where the
 * header's first pass sees it; none returns a plan. */
static void expect_nd_refused(const nd_defect *d)
{
    relay_plan *p = nd_sample(d->sample);
    unsigned char *buf;
    size_t len = edited_file(p, d->edit, d->major, d->major == 3 ? 0 : 2, &buf);
    for (int rank = -1; rank <= 0; rank++) {
        relay_plan *sentinel = (relay_plan *)&sentinel, *q = sentinel;
        relay_status st = relay_plan_decode(&q, buf, len, rank);
        if (st != d->status || !strstr(relay_last_error(), d->says))
            fail_msg("%s: %s, \"%s\" (wanted %s and \"%s\")", d->what, relay_status_str(st), relay_last_error(),
                     relay_status_str(d->status), d->says);
        assert_ptr_equal(q, sentinel);
        assert_null(strchr(relay_last_error(), '\n'));
    }
    free(buf);
    relay_plan_free(p);
}

static void test_nd_header_defects_are_refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof nd_defects / sizeof *nd_defects; i++) expect_nd_refused(&nd_defects[i]);
}

/* Keys this reader does not know, at every level of an N-D header, are
 * ignored (that is how minor versions add fields), and so is the order of
 * the keys; a newer minor of 3 is read too. */
static void unknown_keys_everywhere(msgpack_zone *z, msgpack_object *h)
{
    msgpack_object v;
    set_str(&v, "from a later relay");
    add_key(z, placement(h, "src", 1), "future", v);
    add_key(z, pair0(h, "dst"), "future", v);
    add_key(z, item(get(h, "pairs"), 0), "future", v);
    add_key(z, h, "future", v);
    msgpack_object_kv first = h->via.map.ptr[0];
    memmove(h->via.map.ptr, h->via.map.ptr + 1, (h->via.map.size - 1) * sizeof first);
    h->via.map.ptr[h->via.map.size - 1] = first; /* kind last */
}

static void test_nd_unknown_keys_are_ignored(void **state)
{
    (void)state;
    for (int minor = 0; minor <= 1; minor++) {
        relay_plan *p = nd_sample(0), *q;
        unsigned char *buf;
        size_t len = edited_file(p, unknown_keys_everywhere, RELAY_FORMAT_ND_MAJOR, minor, &buf);
        if (relay_plan_decode(&q, buf, len, 1) != RELAY_OK) fail_msg("%s", relay_last_error());
        assert_true(relay_plan_fingerprint(q) == relay_plan_fingerprint(p));
        assert_int_equal(q->format_minor, minor);
        relay_plan_free(q);
        free(buf);
        relay_plan_free(p);
    }
}

/* The mesh ranks are bounded by the plan's before a layout is built: an
 * edit within [0, nranks) that keeps the plan valid is read (it is another
 * plan, whose fingerprint the file does not hold). */
static void shifted_mesh(msgpack_zone *z, msgpack_object *h)
{
    msgpack_object *ranks = get(pair0(h, "src"), "mesh_ranks");
    for (uint32_t i = 0; i < ranks->via.array.size; i++) set_int(item(ranks, i), (int_at(item(ranks, i)) + 1) % 4);
}

static void test_nd_edits_of_a_valid_plan_meet_the_fingerprint(void **state)
{
    (void)state;
    relay_plan *p = nd_sample(0);
    unsigned char *buf;
    size_t len = edited_file(p, shifted_mesh, RELAY_FORMAT_ND_MAJOR, 0, &buf);
    uint64_t fingerprint;
    size_t hstart, hash_at = 0;
    uint64_t hlen;
    assert_int_equal(decode_bad(buf, len), RELAY_ERR_FORMAT);
    assert_non_null(strstr(relay_last_error(), "fingerprint does not match"));
    find_header(buf, len, &hstart, &hlen, &hash_at);
    assert_int_equal(rl_header_fingerprint(buf + hstart, (size_t)hlen, &fingerprint), RELAY_OK);
    assert_true(fingerprint != relay_plan_fingerprint(p));
    free(buf);
    relay_plan_free(p);
}

/* A transform plan's file under major 3, and the N-D kind under major 2:
 * each major holds its own kinds, checked before the header's fields. */
static void test_kinds_and_majors_do_not_mix(void **state)
{
    (void)state;
    relay_plan *p = sample_plan(2, RELAY_OP_N, 0);
    unsigned char *buf;
    size_t len = edited_file(p, NULL, RELAY_FORMAT_ND_MAJOR, 0, &buf);
    assert_int_equal(decode_bad(buf, len), RELAY_ERR_FORMAT);
    assert_non_null(strstr(relay_last_error(), "plan of kind transform in a format 3.x file, which holds N-D plans (kind nd) only"));
    free(buf);
    len = edited_file(p, NULL, RELAY_FORMAT_MAJOR, RELAY_FORMAT_MINOR, &buf); /* resealed as it was: read */
    relay_plan *q;
    assert_int_equal(relay_plan_decode(&q, buf, len, -1), RELAY_OK);
    relay_plan_free(q);
    free(buf);
    relay_plan_free(p);
}

/* ---- golden files ------------------------------------------------------------ */

/* The plans tests/golden holds (written by an earlier relay, format 2.0)
 * load, and are written again as 2.2 with the same fingerprint. */
static void test_golden_files_still_load(void **state)
{
    (void)state;
    static const char *const names[] = {"transform", "bmmc", "hsumma"};
    char source[4096];
    snprintf(source, sizeof source, "%s", __FILE__);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[4200];
        relay_plan *p, *q;
        void *buf;
        size_t len;
        snprintf(path, sizeof path, "%s/golden/%s.plan", dirname(source), names[i]);
        snprintf(source, sizeof source, "%s", __FILE__); /* dirname may write into it */
        if (relay_plan_load(&p, path, -1) != RELAY_OK) fail_msg("%s: %s", path, relay_last_error());
        assert_int_equal(p->format_major, 2);
        encode_ok(p, &buf, &len);
        assert_int_equal(relay_plan_decode(&q, buf, len, -1), RELAY_OK);
        assert_true(relay_plan_fingerprint(q) == relay_plan_fingerprint(p));
        assert_int_equal(q->format_major, RELAY_FORMAT_MAJOR);
        assert_int_equal(q->format_minor, RELAY_FORMAT_MINOR);
        relay_plan_free(q);
        relay_plan_free(p);
        free(buf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_is_identical),
        cmocka_unit_test(test_ten_million_one_row_blocks_read_back),
        cmocka_unit_test(test_save_and_load_files),
        cmocka_unit_test(test_files_too_short_for_their_sections),
        cmocka_unit_test(test_saved_mode_follows_umask),
        cmocka_unit_test(test_every_truncation_is_refused),
        cmocka_unit_test(test_every_bit_flip_is_refused),
        cmocka_unit_test(test_versions_magic_and_absurd_counts),
        cmocka_unit_test(test_format_1_is_refused_with_a_rebuild_hint),
        cmocka_unit_test(test_partial_records_are_refused),
        cmocka_unit_test(test_unknown_key_is_named_in_one_line),
        cmocka_unit_test(test_unknown_types_are_refused),
        cmocka_unit_test(test_lying_sections_are_refused),
        cmocka_unit_test(test_lattice_ending_at_its_buffer_end_is_read),
        cmocka_unit_test(test_rank_plan_is_its_part_of_the_whole),
        cmocka_unit_test(test_tuning_and_cap_read_back),
        cmocka_unit_test(test_hostile_tunings_and_caps_are_refused),
        cmocka_unit_test(test_nd_plans_read_back),
        cmocka_unit_test(test_hand_built_nd_plan_reads_back),
        cmocka_unit_test(test_nd_truncations_and_bit_flips_are_refused),
        cmocka_unit_test(test_nd_header_defects_are_refused),
        cmocka_unit_test(test_nd_unknown_keys_are_ignored),
        cmocka_unit_test(test_nd_edits_of_a_valid_plan_meet_the_fingerprint),
        cmocka_unit_test(test_kinds_and_majors_do_not_mix),
        cmocka_unit_test(test_golden_files_still_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
