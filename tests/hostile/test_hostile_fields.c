/* test_hostile_fields.c — regression tests of what a campaign of
 * consistent hostile plans found, and the bounds of a field added since
 * (a predicted tuning's machine): each file is
 * edited as a tree and sealed again (forge.h), so only the reader's checks
 * past the checksums can refuse it, with one line naming the field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "forge.h"
#include "plan_internal.h"

/* A plan of each kind: a transform of two pairs (block-cyclic and grid,
 * relabeled) on 3 ranks, a BMMC plan on 4 and an HSUMMA plan on 2 x 2. */
static relay_plan *transform_plan(void)
{
    relay_layout *a, *b, *g;
    relay_plan *p = NULL;
    int64_t rs[] = {0, 3, 10, 17}, cs[] = {0, 5, 17};
    int owners[] = {0, 1, 1, 2, 0, 2};
    assert_int_equal(relay_layout_block_cyclic(&b, 17, 17, 4, 3, 1, 3, RELAY_COL_MAJOR, 0, 0, 0, RELAY_ROW_MAJOR), RELAY_OK);
    assert_int_equal(relay_layout_block_cyclic(&a, 17, 17, 8, 8, 3, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_layout_grid(&g, 3, 17, 17, 3, rs, 2, cs, owners, NULL, NULL, RELAY_COL_MAJOR), RELAY_OK);
    const relay_layout *as[2] = {a, g}, *bs[2] = {b, a};
    relay_op ops[2] = {RELAY_OP_T, RELAY_OP_N};
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.relabel = RELAY_RELABEL_GREEDY;
    assert_int_equal(relay_plan_transform_batch(&p, 3, 2, as, bs, ops, RELAY_DOUBLE, &o), RELAY_OK);
    relay_layout_free(a);
    relay_layout_free(b);
    relay_layout_free(g);
    return p;
}

static relay_plan *bmmc_plan(void)
{
    relay_bmmc perm;
    relay_plan *p = NULL;
    assert_int_equal(relay_bmmc_bit_reversal(&perm, 6), RELAY_OK);
    assert_int_equal(relay_plan_bmmc(&p, &perm, 2, 1, 8), RELAY_OK);
    return p;
}

static relay_plan *hsumma_plan(void)
{
    relay_hsumma_params hp;
    relay_plan *p = NULL;
    assert_int_equal(relay_hsumma_params_init(&hp, 20, 12, 16, 2, 2, RELAY_DOUBLE), RELAY_OK);
    hp.inner_block = hp.outer_block = 4;
    assert_int_equal(relay_plan_hsumma(&p, &hp), RELAY_OK);
    return p;
}

/* Opens the encoding of p (freed) for editing. */
static void open_plan(forge_plan *f, relay_plan *p, void **bytes)
{
    size_t len;
    assert_int_equal(relay_plan_encode(p, bytes, &len), RELAY_OK);
    assert_int_equal(forge_open(f, *bytes, len), 0);
    relay_plan_free(p);
}

/* Seals f and decodes it whole: the status, the message in relay_last_error(). */
static relay_status decode_forged(forge_plan *f, relay_plan **out)
{
    void *buf;
    size_t len;
    relay_plan *p = NULL;
    assert_int_equal(forge_seal(f, &buf, &len), 0);
    relay_status st = relay_plan_decode(&p, buf, len, -1);
    free(buf);
    if (out) *out = p;
    else relay_plan_free(p);
    return st;
}

/* Refused as RELAY_ERR_FORMAT with one line holding `want`. */
static void expect_refused(forge_plan *f, const char *want)
{
    assert_int_equal(decode_forged(f, NULL), RELAY_ERR_FORMAT);
    const char *msg = relay_last_error();
    if (!strstr(msg, want) || strchr(msg, '\n')) fail_msg("message \"%s\" does not say \"%s\" in one line", msg, want);
}

static msgpack_object *pair_layout(forge_plan *f, int k, const char *side)
{
    msgpack_object *pairs = forge_get(&f->header, "pairs");
    return forge_get(&pairs->via.array.ptr[k], side);
}

/* A BMMC or HSUMMA header that also carries a transform's pairs. */
static void test_pairs_in_a_header_only_plan_are_refused(void **state)
{
    (void)state;
    void *tb, *hb;
    forge_plan t, h;
    open_plan(&t, transform_plan(), &tb);
    relay_plan *(*make[2])(void) = {bmmc_plan, hsumma_plan};
    for (int kind = 0; kind < 2; kind++) {
        open_plan(&h, make[kind](), &hb);
        forge_add(&h, &h.header, "pairs", *forge_get(&t.header, "pairs"));
        expect_refused(&h, "`pairs`");
        forge_close(&h);
        free(hb);
    }
    forge_close(&t);
    free(tb);
}

/* The kind decides what is read: an HSUMMA header with a BMMC
 * map, or a BMMC header renamed hsumma, is refused. */
static void test_another_kinds_map_is_refused(void **state)
{
    (void)state;
    void *bb, *hb;
    forge_plan b, h;
    open_plan(&b, bmmc_plan(), &bb);
    open_plan(&h, hsumma_plan(), &hb);
    forge_add(&h, &h.header, "bmmc", *forge_get(&b.header, "bmmc"));
    expect_refused(&h, "`bmmc`");
    forge_remove(&h.header, "bmmc");
    *forge_get(&h.header, "kind") = forge_str(&h, "bmmc");
    expect_refused(&h, "`type`");
    *forge_get(&b.header, "kind") = forge_str(&b, "hsumma");
    expect_refused(&b, "`bmmc`");
    forge_close(&b);
    forge_close(&h);
    free(bb);
    free(hb);
}

/* Duplicate keys: a grid layout's arrays twice (they leaked), and any
 * header key twice. */
static void test_duplicate_keys_are_refused(void **state)
{
    (void)state;
    void *tb;
    forge_plan t;
    open_plan(&t, transform_plan(), &tb);
    msgpack_object *grid = pair_layout(&t, 1, "dst");
    forge_add(&t, grid, "owners", *forge_get(grid, "owners"));
    expect_refused(&t, "`owners` field twice");
    forge_remove(grid, "owners"); /* the first of the two */
    forge_add(&t, &t.header, "sigma", *forge_get(&t.header, "sigma"));
    expect_refused(&t, "`sigma` field twice");
    forge_close(&t);
    free(tb);
}

/* What a layout would cost is bounded before it is built: its
 * ranks (memory), and the block boundaries of block-cyclic layouts, which
 * cost no memory but are hashed into the fingerprint (time), 2^28 in all. */
static void test_layout_cost_is_bounded_before_it_is_built(void **state)
{
    (void)state;
    void *tb;
    forge_plan t;
    open_plan(&t, transform_plan(), &tb);
    msgpack_object *bc = pair_layout(&t, 0, "src"), *dst = pair_layout(&t, 0, "dst");
    forge_set_int(forge_get(bc, "m"), (int64_t)1 << 31); /* 715,827,883 block rows of 3 */
    forge_set_int(forge_get(bc, "mb"), 3);
    expect_refused(&t, "more blocks than a reader hashes (m / mb = 715827883 here, at most 2^28 in all)");
    forge_set_int(forge_get(bc, "m"), INT64_MAX); /* m / mb + n / nb would pass 2^63 */
    forge_set_int(forge_get(bc, "mb"), 1);
    forge_set_int(forge_get(bc, "n"), INT64_MAX);
    forge_set_int(forge_get(bc, "nb"), 1);
    expect_refused(&t, "(m / mb = 9223372036854775807 here");
    forge_set_int(forge_get(bc, "m"), (int64_t)3 << 27); /* 2^27 block rows here and 2^27 in dst: 2^28 in all */
    forge_set_int(forge_get(bc, "mb"), 3);
    forge_set_int(forge_get(bc, "n"), 17);
    forge_set_int(forge_get(bc, "nb"), 4);
    forge_set_int(forge_get(dst, "m"), (int64_t)1 << 30);
    expect_refused(&t, "(m / mb = 134217728 here, at most 2^28 in all)");
    forge_set_int(forge_get(dst, "m"), 17);
    forge_set_int(forge_get(bc, "m"), 17);
    forge_set_int(forge_get(bc, "mb"), 4);
    forge_set_int(forge_get(bc, "nprow"), 1 << 16); /* 2^31 - 2^16 ranks: 16 GB of per-rank sizes */
    forge_set_int(forge_get(bc, "npcol"), (1 << 15) - 1);
    forge_set_int(forge_get(bc, "nranks"), ((int64_t)1 << 31) - (1 << 16));
    expect_refused(&t, "2147418112 ranks, more than the plan's 3");
    forge_set_int(forge_get(bc, "nprow"), 1);
    forge_set_int(forge_get(bc, "npcol"), 3);
    forge_set_int(forge_get(bc, "nranks"), 3);
    forge_set_int(forge_get(&t.header, "nranks"), 1 << 24); /* sigma and index hold 3 */
    expect_refused(&t, "cannot hold the sigma and section index of 16777216 ranks");
    forge_close(&t);
    free(tb);
}

/* The pairs' relabeled layouts share one rank map, the plan's;
 * the others have none. */
static void test_relabeled_layouts_share_one_rank_map(void **state)
{
    (void)state;
    void *tb;
    forge_plan t;
    relay_plan *p;
    open_plan(&t, transform_plan(), &tb);
    assert_int_equal(decode_forged(&t, &p), RELAY_OK);
    for (int k = 0; k < p->count; k++) {
        assert_ptr_equal(p->pairs[k].dst_relabeled->rank_unmap, p->sigma_inverse);
        assert_ptr_equal(p->pairs[k].dst_relabeled->rank_map, p->sigma);
        assert_null(p->pairs[k].dst->rank_map);
        assert_null(p->pairs[k].src->rank_unmap);
    }
    relay_plan_free(p);
    forge_close(&t);
    free(tb);
}

/* BMMC rank bits near 2^31 are refused without overflowing the
 * message; and a layout's message is not garbled by
 * formatting relay_last_error() into itself. */
static void test_messages_of_extreme_fields(void **state)
{
    (void)state;
    void *bb, *tb;
    forge_plan b, t;
    open_plan(&b, bmmc_plan(), &bb);
    forge_set_int(forge_get(forge_get(&b.header, "bmmc"), "p"), INT32_MAX);
    expect_refused(&b, "rank bits 1..2147483647 exceed its 6 index bits");
    forge_set_int(forge_get(forge_get(&b.header, "bmmc"), "p"), 2);
    forge_set_int(forge_get(forge_get(&b.header, "bmmc"), "f"), INT32_MAX);
    expect_refused(&b, "rank bits 2147483647..2147483648 exceed");
    open_plan(&t, transform_plan(), &tb);
    forge_set_int(forge_get(pair_layout(&t, 0, "src"), "lld"), -1);
    assert_int_equal(decode_forged(&t, NULL), RELAY_ERR_FORMAT);
    assert_string_equal(relay_last_error(), "plan layout is invalid: block-cyclic layout: lld = -1 is negative");
    forge_close(&b);
    forge_close(&t);
    free(bb);
    free(tb);
}

/* A predicted tuning's machine name (format 2.2's optional `machine`):
 * refused unless 1 to 31 bytes of printable ASCII; read back when it is,
 * and a tuning without it reads as timed. */
static void test_predicted_tunings_machine_is_bounded(void **state)
{
    (void)state;
    relay_plan *p = transform_plan();
    relay_tuning t = {.ntimed = 2, .best = 1, .ranks_per_node_min = 1, .ranks_per_node_max = 3, .replays = 1,
                      .choices = {{RELAY_SCHED_P2P, 0, 2e-3}, {RELAY_SCHED_ALLTOALLV, 0, 1e-3}}, .machine = "fat-tree"};
    assert_int_equal(relay_plan_set_tuning(p, &t), RELAY_OK);
    forge_plan f;
    void *bytes;
    open_plan(&f, p, &bytes);
    msgpack_object *tuning = forge_get(&f.header, "tuning"), *machine = forge_get(tuning, "machine");
    assert_non_null(machine);
    static const char *const bad[] = {"", "a machine name of 32 bytes, long", "fat\x01tree", "fat\x7ftree"};
    for (int k = 0; k < 4; k++) {
        *machine = forge_str(&f, bad[k]);
        expect_refused(&f, k < 2 ? "a machine name of 1 to 31 bytes expected" : "machine name is not printable ASCII");
    }
    forge_set_int(machine, 7);
    expect_refused(&f, "machine");
    *machine = forge_str(&f, "my daint, 2 ranks a node");
    relay_plan *q;
    assert_int_equal(decode_forged(&f, &q), RELAY_OK);
    assert_string_equal(q->tuning.machine, "my daint, 2 ranks a node");
    relay_plan_free(q);
    forge_remove(tuning, "machine");
    assert_int_equal(decode_forged(&f, &q), RELAY_OK);
    assert_string_equal(q->tuning.machine, "");
    assert_int_equal(q->tuning.ntimed, 2);
    relay_plan_free(q);
    forge_close(&f);
    free(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs_in_a_header_only_plan_are_refused),
        cmocka_unit_test(test_another_kinds_map_is_refused),
        cmocka_unit_test(test_duplicate_keys_are_refused),
        cmocka_unit_test(test_layout_cost_is_bounded_before_it_is_built),
        cmocka_unit_test(test_relabeled_layouts_share_one_rank_map),
        cmocka_unit_test(test_messages_of_extreme_fields),
        cmocka_unit_test(test_predicted_tunings_machine_is_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
