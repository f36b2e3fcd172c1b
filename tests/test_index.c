/* test_index.c — cmocka tests of index layouts and their plans
 * (relay/index.h): broadcasts and sums planned for 1, 2, 3, 4 and 8 ranks,
 * replayed by the serial simulator from the plan's own sections and
 * compared, bitwise, with the serial reference (index_reference.h), which
 * searches the plain lists and shares no code with the planner.
 *
 * Random cases (fixed seeds): unsorted lists with duplicates, ranks that
 * hold or own nothing, items every rank holds, items no one holds or owns,
 * every type, items of 1 and 3 elements, lists given as items or as runs.
 * Structured cases: a 2-D block decomposition's halo of width 1 and 2
 * given as index lists compresses to runs alone, as many whatever the
 * grid's size.  Every plan is encoded and read back, whole and rank by
 * rank.  Bad input (items out of range, an item owned twice or held
 * without an owner, layouts that disagree, damaged files) gets one line
 * and nothing built. */
#define _GNU_SOURCE /* memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index_plan.h"
#include "index_reference.h"

enum { MAXP = 8 };

/* ---- buffers ---------------------------------------------------------------- */

typedef struct {
    char *v[MAXP];
} bufs;

static void fill(bufs *b, const ref_lists *l, int64_t k, relay_type t, uint64_t seed)
{
    for (int r = 0; r < l->nranks; r++) {
        b->v[r] = malloc((size_t)(l->count[r] * k) * relay_type_size(t) + 1);
        ref_index_fill(b->v[r], l->count[r] * k, t, &seed);
    }
}

static void copy_bufs(bufs *to, const bufs *from, const ref_lists *l, int64_t k, relay_type t)
{
    for (int r = 0; r < l->nranks; r++) {
        size_t n = (size_t)(l->count[r] * k) * relay_type_size(t);
        to->v[r] = malloc(n + 1);
        memcpy(to->v[r], from->v[r], n);
    }
}

static void free_bufs(bufs *b, int nranks)
{
    for (int r = 0; r < nranks; r++) free(b->v[r]);
}

static void assert_same_bufs(const bufs *a, const bufs *b, const ref_lists *l, int64_t k, relay_type t)
{
    for (int r = 0; r < l->nranks; r++)
        assert_memory_equal(a->v[r], b->v[r], (size_t)(l->count[r] * k) * relay_type_size(t));
}

/* ---- checks ----------------------------------------------------------------- */

/* The plan p of c's move, replayed by the simulator, against the reference. */
static void check_move(const relay_plan *p, const ref_index_case *c, int64_t k, relay_type t, uint64_t seed)
{
    int sum = relay_plan_index_move(p) == RELAY_INDEX_REDUCE_SUM;
    bufs own, hold, own_ref, hold_ref;
    fill(&own, &c->owners, k, t, seed);
    fill(&hold, &c->holders, k, t, seed + 1);
    copy_bufs(&own_ref, &own, &c->owners, k, t);
    copy_bufs(&hold_ref, &hold, &c->holders, k, t);
    if (sum) {
        ref_index_reduce_sum(&c->owners, &c->holders, k, t, own_ref.v, hold_ref.v);
        assert_int_equal(sim_index_plan(p, hold.v, own.v), 0);
    } else {
        ref_index_broadcast(&c->owners, &c->holders, k, t, own_ref.v, hold_ref.v);
        assert_int_equal(sim_index_plan(p, own.v, hold.v), 0);
    }
    assert_same_bufs(&own, &own_ref, &c->owners, k, t);
    assert_same_bufs(&hold, &hold_ref, &c->holders, k, t);
    free_bufs(&own, c->owners.nranks);
    free_bufs(&hold, c->holders.nranks);
    free_bufs(&own_ref, c->owners.nranks);
    free_bufs(&hold_ref, c->holders.nranks);
}

/* Encoded and read back: the whole plan (which then replays alike) and
 * each rank's section alone. */
static void check_roundtrip(const relay_plan *p, const ref_index_case *c, int64_t k, relay_type t)
{
    void *buf;
    size_t len;
    relay_plan *q;
    assert_int_equal(relay_plan_encode(p, &buf, &len), RELAY_OK);
    assert_int_equal(relay_plan_decode(&q, buf, len, -1), RELAY_OK);
    assert_int_equal(relay_plan_get_kind(q), RELAY_PLAN_INDEX);
    assert_true(relay_plan_fingerprint(q) == relay_plan_fingerprint(p));
    check_move(q, c, k, t, 99);
    relay_plan_free(q);
    for (int r = 0; r < relay_plan_nranks(p); r++) {
        assert_int_equal(relay_plan_decode(&q, buf, len, r), RELAY_OK);
        assert_true(q->index->sections[r]->checksum == p->index->sections[r]->checksum);
        assert_true(relay_plan_fingerprint(q) == relay_plan_fingerprint(p));
        relay_plan_free(q);
    }
    free(buf);
}

/* What a section holds costs at most 36 bytes per item it moves, sent,
 * received or local, plus a segment per message: runs hold at least 4
 * items (72 bytes), listed items 16 bytes each, and a listed segment lies
 * between two runs or at a message's start.  Random lists, which hardly
 * compress, cost about 16 bytes per item (per_item 20); PetscSF's graph
 * alone holds 24 bytes per leaf at 64-bit indices. */
static void check_memory(const relay_plan *p, int64_t per_item)
{
    for (int r = 0; r < relay_plan_nranks(p); r++) {
        const rl_index_section *s = p->index->sections[r];
        int64_t items = s->local.items;
        for (int k = 0; k < s->nsend; k++) items += s->send[k].items;
        for (int k = 0; k < s->nrecv; k++) items += s->recv[k].items;
        int64_t bytes = s->nsegs * (int64_t)sizeof(rl_index_seg) + s->nlist * 2 * (int64_t)sizeof(int64_t);
        if (bytes > per_item * items + (int64_t)sizeof(rl_index_seg) * (s->nsend + s->nrecv + 1))
            fail_msg("rank %d's section takes %lld bytes for %lld items", r, (long long)bytes, (long long)items);
    }
}

static const relay_type types[] = {RELAY_FLOAT, RELAY_DOUBLE, RELAY_CFLOAT, RELAY_CDOUBLE};
static const int rank_counts[] = {1, 2, 3, 4, 8};

static void plan_and_check(const ref_index_case *c, int64_t k, relay_type t, int as_runs, uint64_t seed, int64_t per_item)
{
    relay_index_layout *o = ref_index_layout_of(&c->owners, k, as_runs), *h = ref_index_layout_of(&c->holders, k, !as_runs);
    for (int move = RELAY_INDEX_BROADCAST; move <= RELAY_INDEX_REDUCE_SUM; move++) {
        relay_plan *p;
        assert_int_equal(relay_plan_index(&p, c->owners.nranks, o, h, (relay_index_move)move, t), RELAY_OK);
        check_move(p, c, k, t, seed);
        check_roundtrip(p, c, k, t);
        check_memory(p, per_item);
        relay_plan_free(p);
    }
    relay_index_layout_free(o);
    relay_index_layout_free(h);
}

static void random_lists(void **state)
{
    (void)state;
    for (int ip = 0; ip < 5; ip++)
        for (uint64_t seed = 1; seed <= 12; seed++) {
            int everyone = seed % 3 == 0;
            ref_index_case c = ref_index_random_case(rank_counts[ip], seed * 1000 + (uint64_t)ip, everyone);
            plan_and_check(&c, seed % 2 ? 1 : 3, types[seed % 4], (int)(seed / 2 % 2), seed, 20);
            ref_index_case_free(&c);
        }
}

/* The segments and listed items of a plan, over every section. */
static void count_pieces(const relay_plan *p, int64_t *segs, int64_t *listed)
{
    *segs = *listed = 0;
    for (int r = 0; r < relay_plan_nranks(p); r++) {
        *segs += p->index->sections[r]->nsegs;
        *listed += p->index->sections[r]->nlist;
    }
}

static relay_plan *halo_plan(const ref_index_case *c, relay_index_move move)
{
    relay_index_layout *o = ref_index_layout_of(&c->owners, 3, 0), *h = ref_index_layout_of(&c->holders, 3, 0);
    relay_plan *p;
    assert_int_equal(relay_plan_index(&p, c->owners.nranks, o, h, move, RELAY_DOUBLE), RELAY_OK);
    relay_index_layout_free(o);
    relay_index_layout_free(h);
    return p;
}

/* A halo given as indices: runs (and, at halo 1, the single corner items),
 * as many for a 24x24 grid as for a 480x480 one (400 times the items), and
 * a file of about the same size. */
static void halo_compresses(void **state)
{
    (void)state;
    static const int meshes[][2] = {{1, 1}, {1, 2}, {3, 1}, {2, 2}, {2, 4}};
    for (int m = 0; m < 5; m++)
        for (int64_t halo = 1; halo <= 2; halo++) {
            ref_index_case small = ref_index_halo_case(24, meshes[m][0], meshes[m][1], halo), big = ref_index_halo_case(480, meshes[m][0], meshes[m][1], halo);
            for (int move = RELAY_INDEX_BROADCAST; move <= RELAY_INDEX_REDUCE_SUM; move++) {
                relay_plan *ps = halo_plan(&small, (relay_index_move)move), *pb = halo_plan(&big, (relay_index_move)move);
                int64_t segs_s, list_s, segs_b, list_b;
                count_pieces(ps, &segs_s, &list_s);
                count_pieces(pb, &segs_b, &list_b);
                assert_int_equal(list_s, list_b); /* single corner items (halo 1) */
                assert_true(list_s <= 8 * (int64_t)small.owners.nranks * (halo == 1));
                assert_int_equal(segs_s, segs_b);
                void *bs, *bb;
                size_t ls, lb;
                assert_int_equal(relay_plan_encode(ps, &bs, &ls), RELAY_OK);
                assert_int_equal(relay_plan_encode(pb, &bb, &lb), RELAY_OK);
                assert_true(lb < ls + ls / 2);
                check_move(ps, &small, 3, RELAY_DOUBLE, 5);
                check_roundtrip(ps, &small, 3, RELAY_DOUBLE);
                free(bs);
                free(bb);
                relay_plan_free(ps);
                relay_plan_free(pb);
            }
            ref_index_case_free(&small);
            ref_index_case_free(&big);
        }
}

/* A halo replayed for every rank count and type. */
static void halo_every_type(void **state)
{
    (void)state;
    for (int ip = 0; ip < 5; ip++)
        for (int it = 0; it < 4; it++) {
            int p = rank_counts[ip], px = p == 8 ? 2 : p == 4 ? 2 : 1;
            ref_index_case c = ref_index_halo_case(13, px, p / px, 1 + it % 2);
            plan_and_check(&c, it % 2 ? 3 : 1, types[it], it / 2, (uint64_t)(ip * 4 + it), 36);
            ref_index_case_free(&c);
        }
}

/* ---- bad input -------------------------------------------------------------- */

/* A refusal: the status, a message of one line that names `what`. */
static void assert_refused(relay_status st, relay_status want, const char *what)
{
    assert_int_equal(st, want);
    const char *msg = relay_last_error();
    assert_non_null(strstr(msg, what));
    assert_null(strchr(msg, '\n'));
}

static void bad_layouts(void **state)
{
    (void)state;
    relay_index_layout *l;
    relay_index_run run;
    assert_refused(relay_index_layout_create(&l, -1, 1, 2), RELAY_ERR_ARG, "items");
    assert_null(l);
    assert_refused(relay_index_layout_create(&l, 10, 0, 2), RELAY_ERR_ARG, "items");
    assert_refused(relay_index_layout_create(&l, 10, 1, 0), RELAY_ERR_ARG, "ranks");
    assert_int_equal(relay_index_layout_create(&l, 10, 2, 2), RELAY_OK);
    const int64_t good[] = {3, 4, 5, 9, 0}, bad[] = {3, 10, 4}, negative[] = {-1};
    assert_int_equal(relay_index_layout_set_list(l, 0, 5, good), RELAY_OK);
    assert_refused(relay_index_layout_set_list(l, 0, 3, bad), RELAY_ERR_ARG, "item 1 is 10, outside the items 0 .. 9");
    assert_refused(relay_index_layout_set_list(l, 1, 1, negative), RELAY_ERR_ARG, "outside");
    assert_refused(relay_index_layout_set_list(l, 2, 1, good), RELAY_ERR_ARG, "rank 2");
    /* the holding refused leaves the one before: 3 4 5 | 9 | 0 */
    assert_int_equal(relay_index_layout_held(l, 0), 5);
    assert_int_equal(relay_index_layout_nruns(l, 0), 2);
    assert_int_equal(relay_index_layout_run(l, 0, 0, &run), RELAY_OK);
    assert_true(run.start == 3 && run.length == 3 && run.stride == 1);
    const relay_index_run over[] = {{2, 3, 4}}, under[] = {{5, 3, -3}}, ok[] = {{9, 4, -3}, {0, 0, 99}};
    assert_refused(relay_index_layout_set_runs(l, 1, 1, over), RELAY_ERR_ARG, "reaches outside the items 0 .. 9");
    assert_refused(relay_index_layout_set_runs(l, 1, 1, under), RELAY_ERR_ARG, "reaches outside");
    assert_int_equal(relay_index_layout_set_runs(l, 1, 2, ok), RELAY_OK);
    assert_int_equal(relay_index_layout_held(l, 1), 4);
    assert_int_equal(relay_index_layout_nruns(l, 1), 1);
    relay_index_layout_free(l);
}

static void bad_plans(void **state)
{
    (void)state;
    relay_index_layout *o, *h, *other;
    relay_plan *p = (relay_plan *)&p;
    assert_int_equal(relay_index_layout_create(&o, 6, 1, 2), RELAY_OK);
    assert_int_equal(relay_index_layout_create(&h, 6, 1, 2), RELAY_OK);
    assert_int_equal(relay_index_layout_create(&other, 7, 1, 2), RELAY_OK);
    const int64_t own0[] = {0, 1, 2}, own1[] = {3, 4, 2}, hold0[] = {5, 0}, own1_fixed[] = {3, 4};
    relay_index_layout_set_list(o, 0, 3, own0);
    relay_index_layout_set_list(o, 1, 3, own1);
    relay_index_layout_set_list(h, 0, 2, hold0);
    assert_refused(relay_plan_index(&p, 2, o, h, RELAY_INDEX_BROADCAST, RELAY_DOUBLE), RELAY_ERR_ARG,
                   "item 2 is owned twice, by rank 0 (slot 2) and rank 1 (slot 2)");
    assert_null(p);
    relay_index_layout_set_list(o, 1, 2, own1_fixed);
    assert_refused(relay_plan_index(&p, 2, o, h, RELAY_INDEX_REDUCE_SUM, RELAY_DOUBLE), RELAY_ERR_ARG,
                   "item 5, held by rank 0 in slot 0, has no owner");
    assert_refused(relay_plan_index(&p, 2, o, other, RELAY_INDEX_BROADCAST, RELAY_DOUBLE), RELAY_ERR_ARG, "the holders 7");
    assert_refused(relay_plan_index(&p, 1, o, h, RELAY_INDEX_BROADCAST, RELAY_DOUBLE), RELAY_ERR_ARG, "plan of 1");
    assert_refused(relay_plan_index(&p, 2, o, h, (relay_index_move)2, RELAY_DOUBLE), RELAY_ERR_ARG, "move 2");
    assert_refused(relay_plan_index(&p, 2, NULL, h, RELAY_INDEX_BROADCAST, RELAY_DOUBLE), RELAY_ERR_ARG, "NULL");
    /* an item no one holds needs no owner; a plan over more ranks than the layouts have */
    const int64_t hold0_fixed[] = {4, 0, 0};
    relay_index_layout_set_list(h, 0, 3, hold0_fixed);
    assert_int_equal(relay_plan_index(&p, 3, o, h, RELAY_INDEX_BROADCAST, RELAY_DOUBLE), RELAY_OK);
    assert_int_equal(relay_plan_index_slots(p, 1, 2), 0);
    assert_int_equal(relay_plan_index_slots(p, 1, 0), 3);
    relay_plan_free(p);
    relay_index_layout_free(o);
    relay_index_layout_free(h);
    relay_index_layout_free(other);
}

/* A small plan's encoding, for the decoder's refusals. */
static relay_plan *small_plan(void)
{
    ref_index_case c = ref_index_random_case(3, 7, 1);
    relay_index_layout *o = ref_index_layout_of(&c.owners, 2, 0), *h = ref_index_layout_of(&c.holders, 2, 0);
    relay_plan *p;
    assert_int_equal(relay_plan_index(&p, 3, o, h, RELAY_INDEX_REDUCE_SUM, RELAY_CFLOAT), RELAY_OK);
    relay_index_layout_free(o);
    relay_index_layout_free(h);
    ref_index_case_free(&c);
    return p;
}

static void damaged_files(void **state)
{
    (void)state;
    relay_plan *p = small_plan(), *q = NULL;
    unsigned char *buf;
    size_t len;
    assert_int_equal(relay_plan_encode(p, (void **)&buf, &len), RELAY_OK);
    for (size_t cut = 0; cut < len; cut++) {
        relay_status st = relay_plan_decode(&q, buf, cut, -1);
        assert_int_equal(st, RELAY_ERR_FORMAT);
        assert_null(strchr(relay_last_error(), '\n'));
    }
    for (size_t i = 0; i < len; i++)
        for (int bit = 0; bit < 8; bit += 3) {
            buf[i] ^= (unsigned char)(1u << bit);
            relay_status st = relay_plan_decode(&q, buf, len, -1);
            buf[i] ^= (unsigned char)(1u << bit);
            assert_int_not_equal(st, RELAY_OK);
            assert_null(strchr(relay_last_error(), '\n'));
        }
    /* a newer major, which this relay does not read */
    unsigned char *major = memmem(buf, 64, "major", 5);
    assert_non_null(major);
    assert_int_equal(major[5], 4);
    major[5] = 5;
    assert_refused(relay_plan_decode(&q, buf, len, -1), RELAY_ERR_VERSION, "version 5.0 is not readable by this relay");
    major[5] = 4;
    assert_int_equal(relay_plan_decode(&q, buf, len, 2), RELAY_OK);
    relay_plan_free(q);
    assert_refused(relay_plan_decode(&q, buf, len, 3), RELAY_ERR_ARG, "rank 3");
    free(buf);
    relay_plan_free(p);
}

/* Index plans are saved and read, but refused by the other kinds' calls. */
static void other_calls(void **state)
{
    (void)state;
    relay_plan *p = small_plan(), *q;
    assert_refused(relay_plan_invert(&q, p), RELAY_ERR_UNSUPPORTED, "index plans");
    assert_int_equal(relay_plan_get_kind(p), RELAY_PLAN_INDEX);
    assert_int_equal(relay_plan_index_move(p), RELAY_INDEX_REDUCE_SUM);
    assert_int_equal(relay_plan_index_item_elems(p), 2);
    relay_plan_stats st;
    assert_int_equal(relay_plan_get_stats(p, &st), RELAY_OK);
    assert_true(st.bytes_total >= st.bytes_remote && st.messages > 0);
    relay_plan_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_lists),   cmocka_unit_test(halo_compresses), cmocka_unit_test(halo_every_type),
        cmocka_unit_test(bad_layouts),    cmocka_unit_test(bad_plans),       cmocka_unit_test(damaged_files),
        cmocka_unit_test(other_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
