/* test_codec.c — plan files: round trips, per-rank loading, file modes, and hostile input.
 *
 * Round trips must give the same fingerprint and re-encode to the same bytes;
 * a rank's own section must equal the one of the full plan.  Every
 * truncation and every single-bit flip of a sample plan, a wrong major
 * version, bad magic and absurd counts must be refused with
 * RELAY_ERR_FORMAT or RELAY_ERR_VERSION and a message, never a crash. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "codec.h"
#include "plan_internal.h"

static relay_plan *sample_plan(int nranks, relay_op op, int batch)
{
    relay_layout *a, *b, *g;
    relay_plan *p = NULL;
    int64_t rs[] = {0, 3, 10, 17}, cs[] = {0, 5, 17};
    int owners[] = {0, 1, 1, 2 % nranks, 0, 2 % nranks};
    assert_int_equal(relay_layout_block_cyclic(&b, 17, 17, 4, 3, 1, nranks, RELAY_COL_MAJOR, 0, 0, 0, RELAY_ROW_MAJOR), RELAY_OK);
    assert_int_equal(relay_layout_block_cyclic(&a, 17, 17, 8, 8, nranks, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
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

static void test_round_trip_is_identical(void **state)
{
    (void)state;
    for (int batch = 0; batch <= 1; batch++)
        for (int op = 0; op < 3; op++) {
            relay_plan *p = sample_plan(3, (relay_op)op, batch), *q;
            void *buf, *again;
            size_t len, len2;
            encode_ok(p, &buf, &len);
            assert_int_equal(relay_plan_decode(&q, buf, len, -1), RELAY_OK);
            assert_true(relay_plan_fingerprint(q) == relay_plan_fingerprint(p));
            encode_ok(q, &again, &len2);
            assert_int_equal(len, len2);
            assert_memory_equal(buf, again, len);
            free(again);
            for (int r = 0; r < 3; r++) {
                relay_plan *one;
                assert_int_equal(relay_plan_decode(&one, buf, len, r), RELAY_OK);
                assert_true(relay_plan_fingerprint(one) == relay_plan_fingerprint(p));
                assert_int_equal(one->sections[r]->checksum, p->sections[r]->checksum);
                for (int o = 0; o < 3; o++)
                    if (o != r) assert_null(one->sections[o]);
                assert_int_equal(relay_plan_encode(one, &again, &len2), RELAY_ERR_ARG); /* partial plans are not saved */
                relay_plan_free(one);
            }
            free(buf);
            relay_plan_free(p);
            relay_plan_free(q);
        }
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

static void test_every_truncation_is_refused(void **state)
{
    (void)state;
    relay_plan *p = sample_plan(3, RELAY_OP_C, 1);
    void *buf;
    size_t len;
    encode_ok(p, &buf, &len);
    assert_int_equal(decode_bad(buf, len), RELAY_OK);
    for (size_t n = 0; n < len; n++) {
        relay_status st = decode_bad(buf, n);
        if (st != RELAY_ERR_FORMAT) fail_msg("truncation to %zu of %zu bytes gave %s", n, len, relay_status_str(st));
    }
    free(buf);
    relay_plan_free(p);
}

static void test_every_bit_flip_is_refused(void **state)
{
    (void)state;
    relay_plan *p = sample_plan(3, RELAY_OP_T, 1);
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
    assert_int_equal(decode_bad(buf, forge(buf, "relay-plan", 2, empty_map, 1)), RELAY_ERR_VERSION);
    assert_int_equal(decode_bad(buf, forge(buf, "relay-plam", 1, empty_map, 1)), RELAY_ERR_FORMAT);
    assert_int_equal(decode_bad(buf, forge(buf, "relay-plan", 1, huge_map, sizeof huge_map)), RELAY_ERR_FORMAT);
    assert_int_equal(decode_bad(buf, forge(buf, "relay-plan", 1, huge_array, sizeof huge_array)), RELAY_ERR_FORMAT);
    assert_int_equal(decode_bad(buf, forge(buf, "relay-plan", 1, huge_ranks, sizeof huge_ranks)), RELAY_ERR_FORMAT);
    assert_int_equal(decode_bad(buf, forge(buf, "relay-plan", 1, empty_map, 1)), RELAY_ERR_FORMAT);
    assert_int_equal(decode_bad("", 0), RELAY_ERR_FORMAT);
    assert_int_equal(decode_bad("\xc1", 1), RELAY_ERR_FORMAT);
}

/* A section that passes its checksums but lies about offsets is refused by
 * validation: rebuild a plan whose piece reaches past its buffer. */
static void test_lying_section_is_refused(void **state)
{
    (void)state;
    relay_plan *p = sample_plan(3, RELAY_OP_N, 0);
    p->sections[1]->recv_pieces[0].off = p->sections[1]->dst_elems[0];
    p->sections[1]->checksum = rl_section_hash(p->sections[1], p->count);
    uint64_t sums[3];
    for (int r = 0; r < 3; r++) sums[r] = p->sections[r]->checksum;
    p->fingerprint = rl_plan_hash(p, sums);
    void *buf;
    size_t len;
    encode_ok(p, &buf, &len);
    assert_int_equal(decode_bad(buf, len), RELAY_ERR_FORMAT);
    assert_non_null(strstr(relay_last_error(), "beyond"));
    free(buf);
    relay_plan_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_is_identical),
        cmocka_unit_test(test_save_and_load_files),
        cmocka_unit_test(test_saved_mode_follows_umask),
        cmocka_unit_test(test_every_truncation_is_refused),
        cmocka_unit_test(test_every_bit_flip_is_refused),
        cmocka_unit_test(test_versions_magic_and_absurd_counts),
        cmocka_unit_test(test_lying_section_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
