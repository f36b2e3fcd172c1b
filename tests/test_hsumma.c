/* test_hsumma.c — HSUMMA plans by planning alone (the HSUMMA paper).
 *
 * relay_hsumma_params_init must fill the documented defaults.  Bad requests
 * (group counts that do not divide the grid or are half automatic or
 * negative, b = 0, B < b, negative sizes, empty grids, bad types, bad
 * block-cyclic blocks, a panel above MPI's int count, NULL arguments) are
 * refused with RELAY_ERR_ARG and a message, leaving *out alone.  Good plans
 * report their rank count, kind, type, parameters, where their groups came
 * from (given; at bind without a network; the model's best groups, and
 * its network, with one) and step counts that match an independent count (outer steps cut k
 * at multiples of B and wherever A's column owner or B's row owner
 * changes; inner steps cut each outer step every b).  The operand layouts
 * must place every element where this file's own checkerboard and
 * ScaLAPACK formulas put it, column-major with ld = local rows.  Plans
 * survive the codec (fingerprint and info) and every truncation is
 * refused.  The cost model must equal the paper's closed forms for square
 * grids and groups (Table I, Table II, formula (12)), SUMMA at G = 1 and
 * G = p, and relay_hsumma_best_groups must follow condition (10). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "reference.h"
#include "relay/hsumma.h"
#include "relay/relay.h"

/* Outer and inner steps of one replay, counted from their definition. */
static void count_steps(const relay_hsumma_params *p, int64_t *outer, int64_t *inner)
{
    *outer = *inner = 0;
    int64_t start = 0;
    while (start < p->k) {
        int oa, ob, oa2, ob2;
        int64_t l;
        ref_hsumma_locate(p, p->k, p->grid_cols, start, &oa, &l);
        ref_hsumma_locate(p, p->k, p->grid_rows, start, &ob, &l);
        int64_t end = start + 1;
        while (end < p->k && end % p->outer_block != 0) {
            ref_hsumma_locate(p, p->k, p->grid_cols, end, &oa2, &l);
            ref_hsumma_locate(p, p->k, p->grid_rows, end, &ob2, &l);
            if (oa2 != oa || ob2 != ob) break;
            end++;
        }
        (*outer)++;
        *inner += (end - start + p->inner_block - 1) / p->inner_block;
        start = end;
    }
}

static relay_hsumma_params base_params(void)
{
    relay_hsumma_params p;
    memset(&p, 0, sizeof p);
    p.m = 10;
    p.n = 9;
    p.k = 11;
    p.grid_rows = 2;
    p.grid_cols = 3;
    p.group_rows = 1;
    p.group_cols = 3;
    p.inner_block = 2;
    p.outer_block = 4;
    p.dist = RELAY_HSUMMA_CHECKERBOARD;
    p.dist_block = 3;
    p.type = RELAY_DOUBLE;
    p.network.bcast = RELAY_BCAST_VAN_DE_GEIJN;
    return p;
}

static relay_plan *plan_ok(const relay_hsumma_params *p)
{
    relay_plan *plan = NULL;
    relay_status st = relay_plan_hsumma(&plan, p);
    if (st != RELAY_OK)
        fail_msg("planning %lldx%lldx%lld on %dx%d groups %dx%d b %lld B %lld dist %d/%lld failed: %s (%s)",
                 (long long)p->m, (long long)p->n, (long long)p->k, p->grid_rows, p->grid_cols, p->group_rows,
                 p->group_cols, (long long)p->inner_block, (long long)p->outer_block, (int)p->dist,
                 (long long)p->dist_block, relay_status_str(st), relay_last_error());
    assert_non_null(plan);
    return plan;
}

/* ---- defaults ------------------------------------------------------------ */

static void test_params_init(void **state)
{
    (void)state;
    relay_hsumma_params p;
    memset(&p, 0x5a, sizeof p);
    assert_int_equal(relay_hsumma_params_init(&p, 100, 200, 300, 3, 4, RELAY_CFLOAT), RELAY_OK);
    assert_int_equal(p.m, 100);
    assert_int_equal(p.n, 200);
    assert_int_equal(p.k, 300);
    assert_int_equal(p.grid_rows, 3);
    assert_int_equal(p.grid_cols, 4);
    assert_int_equal(p.group_rows, 0);
    assert_int_equal(p.group_cols, 0);
    assert_int_equal(p.inner_block, 64);
    assert_int_equal(p.outer_block, 64);
    assert_int_equal(p.dist, RELAY_HSUMMA_CHECKERBOARD);
    assert_int_equal(p.dist_block, 64);
    assert_int_equal(p.type, RELAY_CFLOAT);
    assert_true(p.network.alpha == 0.0);
    assert_true(p.network.beta == 0.0);
    assert_int_equal(p.network.bcast, RELAY_BCAST_VAN_DE_GEIJN);
    assert_int_equal(relay_hsumma_params_init(NULL, 1, 1, 1, 1, 1, RELAY_DOUBLE), RELAY_ERR_ARG);

    /* the defaults plan, with groups chosen at bind */
    relay_plan *plan = plan_ok(&p);
    relay_hsumma_info info;
    assert_int_equal(relay_plan_hsumma_info(plan, &info), RELAY_OK);
    assert_int_equal(info.groups_from, RELAY_GROUPS_AT_BIND);
    assert_int_equal(info.params.group_rows, 0);
    assert_int_equal(info.params.group_cols, 0);
    relay_plan_free(plan);
}

/* ---- refusals ------------------------------------------------------------ */

static void expect_refused(const relay_hsumma_params *p, const char *what)
{
    static int sentinel_storage;
    relay_plan *sentinel = (relay_plan *)&sentinel_storage, *out = sentinel;
    relay_status st = relay_plan_hsumma(&out, p);
    if (st != RELAY_ERR_ARG) {
        if (st == RELAY_OK && out != sentinel) relay_plan_free(out);
        fail_msg("%s: got %s, want RELAY_ERR_ARG", what, relay_status_str(st));
    }
    if (out != sentinel) fail_msg("%s: *out changed on failure", what);
    if (strlen(relay_last_error()) == 0) fail_msg("%s: no message", what);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    relay_hsumma_params p = base_params();
    relay_plan_free(plan_ok(&p));

#define REFUSE(field, value, what)                 \
    do {                                           \
        relay_hsumma_params q = base_params();     \
        q.field = value;                           \
        expect_refused(&q, what);                  \
    } while (0)
    REFUSE(group_rows, 3, "3 group rows on 2 grid rows");
    REFUSE(group_rows, 4, "4 group rows on 2 grid rows");
    REFUSE(group_cols, 2, "2 group cols on 3 grid cols");
    REFUSE(group_cols, 6, "6 group cols on 3 grid cols");
    REFUSE(group_rows, 0, "group rows 0, group cols 3");
    REFUSE(group_rows, -1, "group rows -1");
    REFUSE(group_rows, -2, "group rows -2");
    REFUSE(group_cols, -1, "group cols -1");
    REFUSE(group_cols, -3, "group cols -3");
    REFUSE(inner_block, 0, "b = 0");
    REFUSE(inner_block, -2, "b = -2");
    REFUSE(inner_block, 5, "b = 5 > B = 4");
    REFUSE(outer_block, 1, "B = 1 < b = 2");
    REFUSE(outer_block, 0, "B = 0");
    REFUSE(outer_block, -4, "B = -4");
    REFUSE(m, -1, "m = -1");
    REFUSE(n, -1, "n = -1");
    REFUSE(k, -1, "k = -1");
    REFUSE(grid_rows, 0, "grid rows 0");
    REFUSE(grid_cols, 0, "grid cols 0");
    REFUSE(grid_rows, -2, "grid rows -2");
    REFUSE(grid_cols, -3, "grid cols -3");
    REFUSE(type, (relay_type)4, "type 4");
    REFUSE(type, (relay_type)-1, "type -1");
    REFUSE(dist, (relay_hsumma_dist)2, "dist 2");
#undef REFUSE
    {
        relay_hsumma_params q = base_params();
        q.group_rows = 2;
        q.group_cols = 0;
        expect_refused(&q, "group rows 2, group cols 0");
    }
    for (int64_t db = 0; db >= -1; db--) {
        relay_hsumma_params q = base_params();
        q.dist = RELAY_HSUMMA_BLOCK_CYCLIC;
        q.dist_block = db;
        expect_refused(&q, db == 0 ? "block-cyclic dist_block 0" : "block-cyclic dist_block -1");
    }
    {
        /* a checkerboard plan ignores dist_block */
        relay_hsumma_params q = base_params();
        q.dist_block = 0;
        relay_plan_free(plan_ok(&q));
    }
    {
        /* A's outer panel: 2^33 local rows on each grid row */
        relay_hsumma_params q = base_params();
        q.m = (int64_t)1 << 34;
        q.grid_rows = q.grid_cols = 2;
        q.group_rows = q.group_cols = 1;
        q.inner_block = q.outer_block = 1;
        expect_refused(&q, "a panel of 2^33 elements");
    }
    {
        relay_plan *sentinel = (relay_plan *)&p, *out = sentinel;
        assert_int_equal(relay_plan_hsumma(&out, NULL), RELAY_ERR_ARG);
        assert_ptr_equal(out, sentinel);
        assert_true(strlen(relay_last_error()) > 0);
        assert_int_equal(relay_plan_hsumma(NULL, &p), RELAY_ERR_ARG);
    }
    /* info and layout of NULL or of another kind of plan */
    relay_hsumma_info info;
    relay_layout *l = NULL;
    assert_int_equal(relay_plan_hsumma_info(NULL, &info), RELAY_ERR_ARG);
    relay_plan *plan = plan_ok(&p);
    assert_int_equal(relay_plan_hsumma_info(plan, NULL), RELAY_ERR_ARG);
    assert_int_equal(relay_plan_hsumma_layout(plan, 3, &l), RELAY_ERR_ARG);
    assert_int_equal(relay_plan_hsumma_layout(plan, -1, &l), RELAY_ERR_ARG);
    assert_null(l);
    assert_int_equal(relay_plan_hsumma_layout(plan, 0, NULL), RELAY_ERR_ARG);
    relay_plan_free(plan);
    relay_bmmc bm;
    assert_int_equal(relay_bmmc_bit_reversal(&bm, 4), RELAY_OK);
    assert_int_equal(relay_plan_bmmc(&plan, &bm, 1, 0, 8), RELAY_OK);
    assert_int_not_equal(relay_plan_hsumma_info(plan, &info), RELAY_OK);
    assert_int_not_equal(relay_plan_hsumma_layout(plan, 0, &l), RELAY_OK);
    relay_plan_free(plan);
    /* the model */
    relay_hsumma_network net = {1e-6, 1e-9, RELAY_BCAST_VAN_DE_GEIJN};
    double sec;
    int gi, gj;
    assert_int_equal(relay_hsumma_model(NULL, 1, 1, &net, &sec, NULL, NULL), RELAY_ERR_ARG);
    assert_int_equal(relay_hsumma_model(&p, 1, 1, NULL, &sec, NULL, NULL), RELAY_ERR_ARG);
    assert_int_equal(relay_hsumma_best_groups(NULL, &net, &gi, &gj), RELAY_ERR_ARG);
    assert_int_equal(relay_hsumma_best_groups(&p, NULL, &gi, &gj), RELAY_ERR_ARG);
}

/* ---- good plans ------------------------------------------------------------ */

static void expect_info(const relay_plan *plan, const relay_hsumma_params *p, relay_hsumma_groups_from from,
        int gr, int gc)
{
    relay_hsumma_info info;
    memset(&info, 0x77, sizeof info);
    assert_int_equal(relay_plan_hsumma_info(plan, &info), RELAY_OK);
    assert_int_equal(relay_plan_nranks(plan), p->grid_rows * p->grid_cols);
    assert_int_equal(relay_plan_get_kind(plan), RELAY_PLAN_HSUMMA);
    assert_int_equal(relay_plan_type(plan), p->type);
    assert_int_equal(info.params.m, p->m);
    assert_int_equal(info.params.n, p->n);
    assert_int_equal(info.params.k, p->k);
    assert_int_equal(info.params.grid_rows, p->grid_rows);
    assert_int_equal(info.params.grid_cols, p->grid_cols);
    assert_int_equal(info.params.inner_block, p->inner_block);
    assert_int_equal(info.params.outer_block, p->outer_block);
    assert_int_equal(info.params.dist, p->dist);
    if (p->dist == RELAY_HSUMMA_BLOCK_CYCLIC) assert_int_equal(info.params.dist_block, p->dist_block);
    assert_int_equal(info.params.type, p->type);
    assert_int_equal(info.groups_from, from);
    assert_int_equal(info.params.group_rows, gr);
    assert_int_equal(info.params.group_cols, gc);
    int64_t outer, inner;
    count_steps(p, &outer, &inner);
    if (info.outer_steps != outer || info.inner_steps != inner)
        fail_msg("k %lld on %dx%d, b %lld B %lld, dist %d/%lld: steps %lld outer %lld inner, want %lld and %lld",
                 (long long)p->k, p->grid_rows, p->grid_cols, (long long)p->inner_block, (long long)p->outer_block,
                 (int)p->dist, (long long)p->dist_block, (long long)info.outer_steps, (long long)info.inner_steps,
                 (long long)outer, (long long)inner);
}

static void test_hand_counted_steps(void **state)
{
    (void)state;
    /* checkerboard k = 10: over t = 3 boundaries at 4 and 7, over s = 2 at 5 */
    relay_hsumma_params p = base_params();
    p.k = 10;
    p.inner_block = 2;
    p.outer_block = 100;
    relay_plan *plan = plan_ok(&p);
    relay_hsumma_info info;
    assert_int_equal(relay_plan_hsumma_info(plan, &info), RELAY_OK);
    assert_int_equal(info.outer_steps, 4);  /* [0,4) [4,5) [5,7) [7,10) */
    assert_int_equal(info.inner_steps, 6);  /* 2 + 1 + 1 + 2 */
    relay_plan_free(plan);
    p.outer_block = 3;                      /* and cuts at 3, 6, 9 */
    plan = plan_ok(&p);
    assert_int_equal(relay_plan_hsumma_info(plan, &info), RELAY_OK);
    assert_int_equal(info.outer_steps, 7);  /* [0,3) [3,4) [4,5) [5,6) [6,7) [7,9) [9,10) */
    assert_int_equal(info.inner_steps, 8);
    relay_plan_free(plan);
    /* block-cyclic, dist_block 2: owners change every 2 on both */
    p.dist = RELAY_HSUMMA_BLOCK_CYCLIC;
    p.dist_block = 2;
    p.outer_block = 8;
    p.inner_block = 1;
    plan = plan_ok(&p);
    assert_int_equal(relay_plan_hsumma_info(plan, &info), RELAY_OK);
    assert_int_equal(info.outer_steps, 5);
    assert_int_equal(info.inner_steps, 10);
    relay_plan_free(plan);
    /* k = 0: nothing to do */
    p.k = 0;
    plan = plan_ok(&p);
    assert_int_equal(relay_plan_hsumma_info(plan, &info), RELAY_OK);
    assert_int_equal(info.outer_steps, 0);
    assert_int_equal(info.inner_steps, 0);
    relay_plan_free(plan);
}

static void test_good_plans(void **state)
{
    (void)state;
    static const int64_t shapes[][3] = {{10, 9, 11}, {37, 23, 29}, {1, 1, 1}, {2, 3, 1}, {0, 5, 7},
                                        {5, 0, 7},   {5, 7, 0},    {64, 64, 64}, {3, 4, 50}};
    static const int64_t blocks[][2] = {{1, 1}, {3, 3}, {3, 8}, {4, 8}, {8, 8}, {2, 7}, {5, 64}};
    int cases = 0;
    for (int s = 1; s <= 4; s++)
        for (int t = 1; t <= 4; t++)
            for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
                for (size_t bl = 0; bl < sizeof blocks / sizeof *blocks; bl++)
                    for (int dist = 0; dist < 4; dist++) {
                        relay_hsumma_params p = base_params();
                        p.m = shapes[sh][0];
                        p.n = shapes[sh][1];
                        p.k = shapes[sh][2];
                        p.grid_rows = s;
                        p.grid_cols = t;
                        p.inner_block = blocks[bl][0];
                        p.outer_block = blocks[bl][1];
                        p.dist = dist == 0 ? RELAY_HSUMMA_CHECKERBOARD : RELAY_HSUMMA_BLOCK_CYCLIC;
                        p.dist_block = dist == 1 ? 1 : dist == 2 ? 2 : 5;
                        p.type = (relay_type)((sh + bl) % 4);
                        /* groups: cycle over the divisors */
                        int divs_s[4], ns = 0, divs_t[4], nt = 0;
                        for (int d = 1; d <= s; d++)
                            if (s % d == 0) divs_s[ns++] = d;
                        for (int d = 1; d <= t; d++)
                            if (t % d == 0) divs_t[nt++] = d;
                        p.group_rows = divs_s[(sh + dist) % ns];
                        p.group_cols = divs_t[(bl + dist) % nt];
                        relay_plan *plan = plan_ok(&p);
                        expect_info(plan, &p, RELAY_GROUPS_GIVEN, p.group_rows, p.group_cols);
                        relay_plan_free(plan);
                        cases++;
                    }
    assert_true(cases > 1000);
}

static void test_group_sources(void **state)
{
    (void)state;
    relay_hsumma_params p = base_params();
    p.m = p.n = p.k = 48;
    p.grid_rows = 4;
    p.grid_cols = 2;
    p.group_rows = p.group_cols = 0;
    /* network zero: at bind */
    relay_plan *plan = plan_ok(&p);
    expect_info(plan, &p, RELAY_GROUPS_AT_BIND, 0, 0);
    relay_plan_free(plan);
    /* only alpha or only beta: still at bind */
    p.network.alpha = 1e-5;
    plan = plan_ok(&p);
    expect_info(plan, &p, RELAY_GROUPS_AT_BIND, 0, 0);
    relay_plan_free(plan);
    p.network.alpha = 0;
    p.network.beta = 1e-9;
    plan = plan_ok(&p);
    expect_info(plan, &p, RELAY_GROUPS_AT_BIND, 0, 0);
    relay_plan_free(plan);
    /* both: the model, now */
    static const double alphas[] = {1e-3, 1e-5, 1e-9};
    for (int a = 0; a < 3; a++)
        for (int bc = 0; bc < 2; bc++) {
            p.network.alpha = alphas[a];
            p.network.beta = 1e-9;
            p.network.bcast = bc ? RELAY_BCAST_BINOMIAL : RELAY_BCAST_VAN_DE_GEIJN;
            int gr = -1, gc = -1;
            assert_int_equal(relay_hsumma_best_groups(&p, &p.network, &gr, &gc), RELAY_OK);
            assert_true(gr >= 1 && p.grid_rows % gr == 0);
            assert_true(gc >= 1 && p.grid_cols % gc == 0);
            plan = plan_ok(&p);
            expect_info(plan, &p, RELAY_GROUPS_MODEL, gr, gc);
            relay_hsumma_info info;
            assert_int_equal(relay_plan_hsumma_info(plan, &info), RELAY_OK);
            assert_true(info.params.network.alpha == p.network.alpha);
            assert_true(info.params.network.beta == p.network.beta);
            assert_int_equal(info.params.network.bcast, p.network.bcast);
            relay_plan_free(plan);
        }
    /* given groups stay given whatever the network */
    p.group_rows = 2;
    p.group_cols = 1;
    plan = plan_ok(&p);
    expect_info(plan, &p, RELAY_GROUPS_GIVEN, 2, 1);
    relay_plan_free(plan);
}

/* ---- layouts --------------------------------------------------------------- */

static void check_layouts(const relay_hsumma_params *p)
{
    relay_plan *plan = plan_ok(p);
    int s = p->grid_rows, t = p->grid_cols;
    for (int which = 0; which < 3; which++) {
        int64_t rows = which == 0 ? p->m : which == 1 ? p->k : p->m;
        int64_t cols = which == 0 ? p->k : which == 1 ? p->n : p->n;
        relay_layout *l = NULL;
        assert_int_equal(relay_plan_hsumma_layout(plan, which, &l), RELAY_OK);
        assert_non_null(l);
        assert_int_equal(relay_layout_nranks(l), s * t);
        assert_int_equal(relay_layout_rows(l), rows);
        assert_int_equal(relay_layout_cols(l), cols);
        for (int r = 0; r < s * t; r++) {
            int64_t want = ref_hsumma_count(p, rows, s, r / t) * ref_hsumma_count(p, cols, t, r % t);
            if (relay_layout_local_elems(l, r) != want)
                fail_msg("operand %d, rank %d of %dx%d, dist %d/%lld: %lld local elements, want %lld", which, r, s, t,
                         (int)p->dist, (long long)p->dist_block, (long long)relay_layout_local_elems(l, r),
                         (long long)want);
        }
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++) {
                int pr, pc, rank = -1;
                int64_t li, lj, index = -1;
                ref_hsumma_locate(p, rows, s, i, &pr, &li);
                ref_hsumma_locate(p, cols, t, j, &pc, &lj);
                int want_rank = pr * t + pc;
                int64_t want_index = li + lj * ref_hsumma_count(p, rows, s, pr);
                assert_int_equal(relay_layout_locate(l, i, j, &rank, &index), RELAY_OK);
                if (rank != want_rank || index != want_index)
                    fail_msg("operand %d (%lldx%lld) on %dx%d, dist %d/%lld: (%lld, %lld) at rank %d index %lld, "
                             "want rank %d index %lld",
                             which, (long long)rows, (long long)cols, s, t, (int)p->dist, (long long)p->dist_block,
                             (long long)i, (long long)j, rank, (long long)index, want_rank, (long long)want_index);
            }
        relay_layout_free(l);
    }
    relay_plan_free(plan);
}

static void test_layouts(void **state)
{
    (void)state;
    static const int64_t shapes[][3] = {{10, 9, 11}, {37, 23, 29}, {1, 2, 3}, {0, 4, 5}, {7, 13, 0}, {16, 16, 16}};
    for (int s = 1; s <= 4; s++)
        for (int t = 1; t <= 4; t++)
            for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
                for (int dist = 0; dist < 4; dist++) {
                    relay_hsumma_params p = base_params();
                    p.m = shapes[sh][0];
                    p.n = shapes[sh][1];
                    p.k = shapes[sh][2];
                    p.grid_rows = s;
                    p.grid_cols = t;
                    p.group_rows = s;
                    p.group_cols = 1;
                    p.dist = dist == 0 ? RELAY_HSUMMA_CHECKERBOARD : RELAY_HSUMMA_BLOCK_CYCLIC;
                    p.dist_block = dist == 1 ? 1 : dist == 2 ? 2 : 5;
                    check_layouts(&p);
                }
}

/* ---- codec ----------------------------------------------------------------- */

static void same_info(const relay_plan *a, const relay_plan *b)
{
    relay_hsumma_info x, y;
    assert_int_equal(relay_plan_hsumma_info(a, &x), RELAY_OK);
    assert_int_equal(relay_plan_hsumma_info(b, &y), RELAY_OK);
    assert_int_equal(x.params.m, y.params.m);
    assert_int_equal(x.params.n, y.params.n);
    assert_int_equal(x.params.k, y.params.k);
    assert_int_equal(x.params.grid_rows, y.params.grid_rows);
    assert_int_equal(x.params.grid_cols, y.params.grid_cols);
    assert_int_equal(x.params.group_rows, y.params.group_rows);
    assert_int_equal(x.params.group_cols, y.params.group_cols);
    assert_int_equal(x.params.inner_block, y.params.inner_block);
    assert_int_equal(x.params.outer_block, y.params.outer_block);
    assert_int_equal(x.params.dist, y.params.dist);
    if (x.params.dist == RELAY_HSUMMA_BLOCK_CYCLIC) assert_int_equal(x.params.dist_block, y.params.dist_block);
    assert_int_equal(x.params.type, y.params.type);
    assert_int_equal(x.groups_from, y.groups_from);
    if (x.groups_from == RELAY_GROUPS_MODEL) { /* the network the groups came from */
        assert_true(x.params.network.alpha == y.params.network.alpha);
        assert_true(x.params.network.beta == y.params.network.beta);
        assert_int_equal(x.params.network.bcast, y.params.network.bcast);
    }
    assert_int_equal(x.outer_steps, y.outer_steps);
    assert_int_equal(x.inner_steps, y.inner_steps);
    assert_int_equal(relay_plan_nranks(a), relay_plan_nranks(b));
    assert_int_equal(relay_plan_get_kind(b), RELAY_PLAN_HSUMMA);
    assert_int_equal(relay_plan_type(a), relay_plan_type(b));
    assert_true(relay_plan_fingerprint(a) == relay_plan_fingerprint(b));
}

static void round_trip(const relay_hsumma_params *p)
{
    relay_plan *plan = plan_ok(p), *back = NULL;
    void *buf = NULL;
    size_t len = 0;
    assert_int_equal(relay_plan_encode(plan, &buf, &len), RELAY_OK);
    assert_true(len > 0);
    for (int rank = -1; rank < relay_plan_nranks(plan); rank++) {
        back = NULL;
        assert_int_equal(relay_plan_decode(&back, buf, len, rank), RELAY_OK);
        same_info(plan, back);
        /* the decoded plan still describes the same layouts */
        relay_layout *l1, *l2;
        assert_int_equal(relay_plan_hsumma_layout(back, 2, &l1), RELAY_OK);
        assert_int_equal(relay_plan_hsumma_layout(plan, 2, &l2), RELAY_OK);
        for (int r = 0; r < relay_plan_nranks(plan); r++)
            assert_int_equal(relay_layout_local_elems(l1, r), relay_layout_local_elems(l2, r));
        relay_layout_free(l1);
        relay_layout_free(l2);
        relay_plan_free(back);
    }
    static int sentinel_storage;
    relay_plan *sentinel = (relay_plan *)&sentinel_storage;
    for (size_t n = 0; n < len; n++) {
        relay_plan *q = sentinel;
        relay_status st = relay_plan_decode(&q, buf, n, -1);
        if (st == RELAY_OK) {
            relay_plan_free(q);
            fail_msg("truncation to %zu of %zu bytes decoded", n, len);
        }
        if (st != RELAY_ERR_FORMAT && st != RELAY_ERR_VERSION)
            fail_msg("truncation to %zu of %zu bytes gave %s", n, len, relay_status_str(st));
        assert_ptr_equal(q, sentinel);
        assert_true(strlen(relay_last_error()) > 0);
    }
    free(buf);
    relay_plan_free(plan);
}

static void test_codec(void **state)
{
    (void)state;
    relay_hsumma_params p = base_params();
    round_trip(&p);
    p.dist = RELAY_HSUMMA_BLOCK_CYCLIC;
    p.dist_block = 5;
    p.type = RELAY_CFLOAT;
    p.m = 37;
    p.n = 0;
    round_trip(&p);
    p.group_rows = p.group_cols = 0; /* at bind */
    round_trip(&p);
    p.network.alpha = 1e-5;          /* model */
    p.network.beta = 2e-9;
    p.network.bcast = RELAY_BCAST_BINOMIAL;
    round_trip(&p);
    /* different groups, different fingerprints */
    relay_hsumma_params q = base_params();
    relay_plan *a = plan_ok(&q);
    q.group_rows = 2;
    relay_plan *b = plan_ok(&q);
    q.group_rows = 1;
    q.inner_block = 1;
    relay_plan *c = plan_ok(&q);
    assert_true(relay_plan_fingerprint(a) != relay_plan_fingerprint(b));
    assert_true(relay_plan_fingerprint(a) != relay_plan_fingerprint(c));
    relay_plan_free(a);
    relay_plan_free(b);
    relay_plan_free(c);
}

/* ---- the cost model ----------------------------------------------------------- */

/* The closed forms need log2 and square roots of powers of two only, so
 * they are exact here (and the test needs no libm). */
static double lg(double x)
{
    double l = 0;
    while (x > 1.5) x /= 2, l++;
    return l;
}
static double root(double x)
{
    double r = 1;
    while (r * r < x) r++;
    return r;
}
static double absd(double x) { return x < 0 ? -x : x; }

static void expect_close(double got, double want, const char *what, int p, int g)
{
    if (!(absd(got - want) <= 1e-9 * absd(want)))
        fail_msg("%s, p = %d, G = %d: model %.17g, closed form %.17g", what, p, g, got, want);
}

static relay_hsumma_params square_params(int q, int64_t n, int64_t b, int64_t B, relay_type type)
{
    relay_hsumma_params p = base_params();
    p.m = p.n = p.k = n;
    p.grid_rows = p.grid_cols = q;
    p.group_rows = p.group_cols = 1;
    p.inner_block = b;
    p.outer_block = B;
    p.type = type;
    return p;
}

static void test_model_closed_forms(void **state)
{
    (void)state;
    static const relay_type types[] = {RELAY_DOUBLE, RELAY_FLOAT, RELAY_CDOUBLE};
    for (int q = 2; q <= 64; q *= 2)
        for (int bB = 0; bB < 2; bB++)
            for (int ty = 0; ty < 3; ty++) {
                int p = q * q;
                int64_t b = 16, B = bB ? 64 : 16;
                int64_t n = (int64_t)q * B * 3;
                relay_hsumma_params prm = square_params(q, n, b, B, types[ty]);
                double esz = (double)relay_type_size(types[ty]);
                double N = (double)n, sp = root((double)p), nb = N / (double)b, nB = N / (double)B;
                for (int bc = 0; bc < 2; bc++) {
                    relay_hsumma_network net = {3e-6, 7e-10, bc ? RELAY_BCAST_BINOMIAL : RELAY_BCAST_VAN_DE_GEIJN};
                    double al = net.alpha, be = net.beta * esz;
                    /* SUMMA: 1 x 1 and q x q groups (the latter only when b = B) */
                    double lat_s, bw_s;
                    if (bc) {
                        lat_s = lg(p) * nb * al;
                        bw_s = N * N * lg(p) / sp * be;
                    } else {
                        lat_s = (lg(p) + 2 * (sp - 1)) * nb * al;
                        bw_s = 4 * (1 - 1 / sp) * N * N / sp * be;
                    }
                    double sec, lat, bw;
                    assert_int_equal(relay_hsumma_model(&prm, 1, 1, &net, &sec, &lat, &bw), RELAY_OK);
                    expect_close(lat, lat_s, bc ? "SUMMA latency (Table I)" : "SUMMA latency (Table II)", p, 1);
                    expect_close(bw, bw_s, bc ? "SUMMA bandwidth (Table I)" : "SUMMA bandwidth (Table II)", p, 1);
                    expect_close(sec, lat_s + bw_s, "SUMMA seconds", p, 1);
                    double sec_only;
                    assert_int_equal(relay_hsumma_model(&prm, 1, 1, &net, &sec_only, NULL, NULL), RELAY_OK);
                    expect_close(sec_only, sec, "seconds without latency and bandwidth", p, 1);
                    /* every square G = g x g */
                    for (int g = 1; g <= q; g *= 2) {
                        double G = (double)g * g, sG = g, want_lat, want_bw;
                        if (bc) {
                            want_lat = lg(p / G) * nb * al + lg(G) * nB * al;
                            want_bw = (lg(p / G) + lg(G)) * N * N / sp * be;
                        } else {
                            want_lat = (lg(p / G) + 2 * (sp / sG - 1)) * nb * al + (lg(G) + 2 * (sG - 1)) * nB * al;
                            want_bw = (4 * (1 - sG / sp) + 4 * (1 - 1 / sG)) * N * N / sp * be;
                        }
                        assert_int_equal(relay_hsumma_model(&prm, g, g, &net, &sec, &lat, &bw), RELAY_OK);
                        const char *what = bc ? "HSUMMA (Table I)" : "HSUMMA (Table II)";
                        expect_close(lat, want_lat, what, p, (int)G);
                        expect_close(bw, want_bw, what, p, (int)G);
                        expect_close(sec, want_lat + want_bw, what, p, (int)G);
                        if (g == q && b == B) {
                            expect_close(sec, lat_s + bw_s, "G = p is SUMMA", p, (int)G);
                        }
                        /* formula (12): G = sqrt(p), b = B, Van de Geijn */
                        if (G == sp && b == B && !bc) {
                            double p4 = root(sp);
                            double f12 = (lg(p) + 4 * (p4 - 1)) * nb * al + 8 * (1 - 1 / p4) * N * N / sp * be;
                            expect_close(sec, f12, "formula (12)", p, (int)G);
                        }
                    }
                }
            }
}

static void test_condition_10(void **state)
{
    (void)state;
    int q = 128, p = q * q;
    int64_t n = 65536, b = 256;
    relay_hsumma_params prm = square_params(q, n, b, b, RELAY_DOUBLE);
    prm.group_rows = prm.group_cols = 0;
    double esz = 8, alpha = 3e-6, threshold = 2.0 * (double)n * (double)b / p; /* 2nb/p = 2048 */
    double sec1, secp, sec_best;
    for (int bc = 0; bc < 2; bc++) {
        relay_hsumma_network net = {alpha, 0, RELAY_BCAST_VAN_DE_GEIJN};
        /* (10): alpha / beta > 2nb/p: an interior minimum, below SUMMA */
        net.beta = alpha / (threshold * 20) / esz;
        int gr = -1, gc = -1;
        assert_int_equal(relay_hsumma_best_groups(&prm, &net, &gr, &gc), RELAY_OK);
        if (!bc) {
            assert_true(q % gr == 0 && q % gc == 0);
            if ((gr == 1 && gc == 1) || (gr == q && gc == q)) fail_msg("condition (10) holds but groups %dx%d", gr, gc);
            assert_int_equal(relay_hsumma_model(&prm, gr, gc, &net, &sec_best, NULL, NULL), RELAY_OK);
            assert_int_equal(relay_hsumma_model(&prm, 1, 1, &net, &sec1, NULL, NULL), RELAY_OK);
            assert_int_equal(relay_hsumma_model(&prm, q, q, &net, &secp, NULL, NULL), RELAY_OK);
            assert_true(sec_best < sec1 * 0.9);
            expect_close(secp, sec1, "G = 1 against G = p", p, p);
            /* it is the minimum over every I x J, and G = sqrt(p) beats SUMMA */
            for (int i = 1; i <= q; i *= 2)
                for (int j = 1; j <= q; j *= 2) {
                    double sec;
                    assert_int_equal(relay_hsumma_model(&prm, i, j, &net, &sec, NULL, NULL), RELAY_OK);
                    if (sec < sec_best * (1 - 1e-12)) fail_msg("%dx%d (%g s) beats the best %dx%d (%g s)", i, j, sec, gr, gc, sec_best);
                }
        }
        /* (11): alpha / beta < 2nb/p: SUMMA, as 1 x 1 */
        net.beta = alpha / (threshold / 20) / esz;
        net.bcast = bc ? RELAY_BCAST_BINOMIAL : RELAY_BCAST_VAN_DE_GEIJN;
        assert_int_equal(relay_hsumma_best_groups(&prm, &net, &gr, &gc), RELAY_OK);
        if (!bc && (gr != 1 || gc != 1)) fail_msg("condition (11) holds but groups %dx%d", gr, gc);
        assert_int_equal(relay_hsumma_model(&prm, 1, 1, &net, &sec1, NULL, NULL), RELAY_OK);
        assert_int_equal(relay_hsumma_model(&prm, q, q, &net, &secp, NULL, NULL), RELAY_OK);
        expect_close(secp, sec1, "G = 1 against G = p", p, p);
        /* binomial with b = B: every I x J costs the same (log2 splits), so 1 x 1 by the tie rule */
        if (bc && (gr != 1 || gc != 1)) fail_msg("binomial, b = B: all groups tie, but groups %dx%d", gr, gc);
    }
    /* just either side of the threshold, at a smaller p */
    q = 16;
    p = q * q;
    n = 4096;
    b = 64;
    prm = square_params(q, n, b, b, RELAY_DOUBLE);
    threshold = 2.0 * (double)n * (double)b / p;
    for (int side = 0; side < 2; side++) {
        relay_hsumma_network net = {1e-5, 0, RELAY_BCAST_VAN_DE_GEIJN};
        net.beta = net.alpha / (threshold * (side ? 1.05 : 0.95)) / esz;
        int gr, gc;
        assert_int_equal(relay_hsumma_best_groups(&prm, &net, &gr, &gc), RELAY_OK);
        int interior = !(gr == 1 && gc == 1) && !(gr == q && gc == q);
        if (side != interior) fail_msg("alpha/beta = %.2f x 2nb/p: groups %dx%d", side ? 1.05 : 0.95, gr, gc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params_init),     cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_hand_counted_steps), cmocka_unit_test(test_good_plans),
        cmocka_unit_test(test_group_sources),   cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_codec),           cmocka_unit_test(test_model_closed_forms),
        cmocka_unit_test(test_condition_10),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
