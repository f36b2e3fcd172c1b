/* test_nd_cut.c — cmocka unit tests of the 1-D arithmetic behind N-D
 * transfers (plan_format/nd_cut.h): where a coordinate of A's cut of a
 * dimension meets a coordinate of B's, as progressions of runs.
 *
 * The reference is written here and knows nothing of relay's arithmetic:
 * it walks the dimension index by index, asks each side's cut which
 * coordinate owns the index (the first one whose blocks hold it: blocks of
 * b dealt round-robin from coordinate 0, or split points), counts each
 * coordinate's indices below it for its local index, and cuts the indices
 * two coordinates both own into maximal intervals.  The progressions relay
 * computes, run by run, must be exactly those intervals with their local
 * indices (compared sorted: the order is relay's own); and the cuts a
 * receiver and a sender make of one pair of coordinates must be identical,
 * progression by progression, since each end packs and unpacks by them.
 * Random cuts (fixed seeds) cover whole dimensions, even and block-cyclic
 * cuts, blocks longer than a period and split points with empty shards;
 * hand-picked long dimensions check that the progressions follow the
 * cuts' periods, not their blocks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd_cut.h"

enum { MAXP = 12 };

/* ---- one dimension's cut, as the tests describe it -------------------------------- */

typedef enum { WHOLE, BLOCKS, SPLITS } cut_kind;

typedef struct {
    cut_kind kind;
    int64_t n, b;              /* BLOCKS: b >= 1 */
    int p;
    int64_t splits[MAXP + 1];  /* SPLITS */
} cut;

/* The coordinate owning g: the one whose blocks or split hold it. */
static int ref_owner(const cut *c, int64_t g)
{
    if (c->kind == WHOLE) return 0;
    if (c->kind == BLOCKS) return (int)(g / c->b % c->p);
    for (int i = 0; i < c->p; i++)
        if (c->splits[i] <= g && g < c->splits[i + 1]) return i;
    return -1;
}

/* Owners of every index, and each index's local index on its owner (its
 * owner's indices below it, counted). */
static void ref_index(const cut *c, int *owner, int64_t *local)
{
    int64_t seen[MAXP] = {0};
    for (int64_t g = 0; g < c->n; g++) {
        owner[g] = ref_owner(c, g);
        local[g] = seen[owner[g]]++;
    }
}

static int parts(const cut *c) { return c->kind == WHOLE ? 1 : c->p; }

/* The relay layout of a 1-D cut: a mesh of p ranks, sharding dimension 0,
 * or replicating it on one rank when whole. */
static relay_nd_layout *layout_of(const cut *c)
{
    int64_t shape[1] = {c->n};
    int mesh[1] = {parts(c)}, ranks[MAXP];
    for (int i = 0; i < MAXP; i++) ranks[i] = i;
    relay_placement pl = {RELAY_SHARD, 0, c->kind == BLOCKS ? c->b : 0, c->kind == SPLITS ? (int64_t *)c->splits : NULL};
    if (c->kind == WHOLE) pl = (relay_placement){RELAY_REPLICATE, 0, 0, NULL};
    relay_nd_desc d = {1, shape, 1, mesh, ranks, &pl, RELAY_ROW_MAJOR, NULL};
    relay_nd_layout *l = NULL;
    assert_int_equal(relay_nd_layout_create(&l, &d), RELAY_OK);
    return l;
}

/* ---- runs, expanded and compared ------------------------------------------------ */

typedef struct {
    int64_t len, a, b;
} run;

static int by_a(const void *x, const void *y)
{
    const run *r = x, *s = y;
    return (r->a > s->a) - (r->a < s->a);
}

/* The runs of n progressions, sorted by A's local index; their count. */
static int64_t expand(const rl_nd_runs *v, int64_t n, run *out)
{
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        assert_true(v[i].len >= 1 && v[i].count >= 1);
        if (v[i].count == 1) assert_true(v[i].a_step == 0 && v[i].b_step == 0);
        for (int64_t t = 0; t < v[i].count; t++) out[m++] = (run){v[i].len, v[i].a_lo + t * v[i].a_step, v[i].b_lo + t * v[i].b_step};
    }
    qsort(out, (size_t)m, sizeof *out, by_a);
    return m;
}

/* The reference runs of coordinates ca and cb, in increasing order. */
static int64_t ref_runs(int64_t n, const int *oa, const int64_t *la, const int *ob, const int64_t *lb, int ca, int cb, run *out)
{
    int64_t m = 0;
    for (int64_t g = 0; g < n; g++) {
        if (oa[g] != ca || ob[g] != cb) continue;
        if (g > 0 && oa[g - 1] == ca && ob[g - 1] == cb) out[m - 1].len++;
        else out[m++] = (run){1, la[g], lb[g]};
    }
    return m;
}

static void assert_same_runs(const run *got, int64_t ngot, const run *want, int64_t nwant, const char *what)
{
    if (ngot != nwant) fail_msg("%s: %lld runs, the reference has %lld", what, (long long)ngot, (long long)nwant);
    for (int64_t i = 0; i < ngot; i++)
        if (got[i].len != want[i].len || got[i].a != want[i].a || got[i].b != want[i].b)
            fail_msg("%s: run %lld is %lld at A %lld, B %lld; the reference's %lld at A %lld, B %lld", what, (long long)i,
                     (long long)got[i].len, (long long)got[i].a, (long long)got[i].b, (long long)want[i].len, (long long)want[i].a,
                     (long long)want[i].b);
}

/* ---- one pair of cuts, every pair of coordinates ------------------------------------ */

typedef struct {
    int64_t progressions, runs, work; /* summed over the pairs of coordinates */
} totals;

/* rl_nd_overlap of every (ca, cb) against the reference; the receiver's
 * and the sender's cuts (rl_nd_cut_dimension) against the overlaps. */
static totals check_cuts(const cut *a, const cut *b, const char *what)
{
    int64_t n = a->n;
    int *oa = malloc((size_t)(n + 1) * sizeof *oa), *ob = malloc((size_t)(n + 1) * sizeof *ob);
    int64_t *la = malloc((size_t)(n + 1) * sizeof *la), *lb = malloc((size_t)(n + 1) * sizeof *lb);
    run *got = malloc((size_t)(n + 1) * sizeof *got), *want = malloc((size_t)(n + 1) * sizeof *want);
    assert_true(oa && ob && la && lb && got && want);
    ref_index(a, oa, la);
    ref_index(b, ob, lb);
    relay_nd_layout *al = layout_of(a), *bl = layout_of(b);
    rl_nd_pair pair = {.op = RELAY_OP_N, .perm = {0}, .dst = al, .src = bl};
    rl_nd_dim_cut recv[MAXP], send[MAXP];
    totals t = {0, 0, 0};
    for (int ca = 0; ca < parts(a); ca++) assert_int_equal(rl_nd_cut_dimension(&recv[ca], &pair, 0, 1, ca, &t.work), RELAY_OK);
    for (int cb = 0; cb < parts(b); cb++) assert_int_equal(rl_nd_cut_dimension(&send[cb], &pair, 0, 0, cb, &t.work), RELAY_OK);
    for (int ca = 0; ca < parts(a); ca++)
        for (int cb = 0; cb < parts(b); cb++) {
            char name[160];
            snprintf(name, sizeof name, "%s, A's coordinate %d with B's %d", what, ca, cb);
            rl_nd_blocks xa, xb;
            rl_nd_blocks_of(al, 0, ca, &xa);
            rl_nd_blocks_of(bl, 0, cb, &xb);
            rl_nd_run_list list = {0};
            int64_t work = 0;
            assert_int_equal(rl_nd_overlap(&list, &xa, &xb, n, &work), RELAY_OK);
            int64_t nwant = ref_runs(n, oa, la, ob, lb, ca, cb, want), ngot = expand(list.v, list.n, got);
            assert_same_runs(got, ngot, want, nwant, name);
            t.progressions += list.n;
            t.runs += nwant;
            /* Both ends' cuts hold this list, in this order, exactly where it is not empty. */
            const rl_nd_dim_cut *cuts[2] = {&recv[ca], &send[cb]};
            int64_t other[2] = {cb, ca};
            for (int side = 0; side < 2; side++) {
                const rl_nd_dim_cut *c = cuts[side];
                int64_t i = 0;
                while (i < c->ncoords && c->coords[i] < other[side]) i++;
                int found = i < c->ncoords && c->coords[i] == other[side];
                if (found != (nwant > 0)) fail_msg("%s: the %s's cut %s the other coordinate", name, side ? "sender" : "receiver", found ? "lists" : "lacks");
                if (!found) continue;
                assert_int_equal(c->first[i + 1] - c->first[i], list.n);
                assert_memory_equal(c->runs.v + c->first[i], list.v, (size_t)list.n * sizeof *list.v);
                assert_int_equal(c->extent[i], rl_nd_runs_extent(list.v, list.n));
            }
            free(list.v);
        }
    for (int ca = 0; ca < parts(a); ca++) {
        for (int64_t i = 1; i < recv[ca].ncoords; i++) assert_true(recv[ca].coords[i - 1] < recv[ca].coords[i]);
        rl_nd_dim_cut_free(&recv[ca]);
    }
    for (int cb = 0; cb < parts(b); cb++) rl_nd_dim_cut_free(&send[cb]);
    relay_nd_layout_free(al);
    relay_nd_layout_free(bl);
    free(oa), free(ob), free(la), free(lb), free(got), free(want);
    return t;
}

/* ---- random cuts ------------------------------------------------------------------ */

static uint64_t rng_state;
static uint64_t next_random(void)
{
    rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
    return rng_state >> 33;
}
static int64_t uniform(int64_t lo, int64_t hi) { return lo + (int64_t)(next_random() % (uint64_t)(hi - lo + 1)); }

static void random_cut(cut *c, int64_t n)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    c->p = (int)uniform(1, MAXP);
    int pick = (int)uniform(0, 9);
    if (pick == 0) {
        c->kind = WHOLE;
    } else if (pick <= 6) {
        c->kind = BLOCKS;
        int64_t top = n < 1 ? 1 : n;
        c->b = pick <= 2 ? uniform(1, 3) : pick <= 4 ? uniform(1, top / c->p + 1) : uniform(1, top); /* small, near even, any */
        if (pick == 5) c->b = 0; /* the even split, ceil(n/p) */
    } else {
        c->kind = SPLITS;
        for (int i = 1; i < c->p; i++) c->splits[i] = uniform(0, n);
        c->splits[c->p] = n;
        for (int i = 1; i <= c->p; i++) /* sorted: insertion */
            for (int j = i; j > 1 && c->splits[j - 1] > c->splits[j]; j--) {
                int64_t s = c->splits[j];
                c->splits[j] = c->splits[j - 1];
                c->splits[j - 1] = s;
            }
    }
    if (c->kind == BLOCKS && c->b == 0) c->b = n == 0 ? 1 : (n + c->p - 1) / c->p; /* the reference's own even blocks */
}

static void test_random_cuts(void **state)
{
    (void)state;
    rng_state = 20240917;
    for (int trial = 0; trial < 4000; trial++) {
        int64_t n = trial % 50 == 0 ? 0 : trial % 7 == 0 ? uniform(200, 3000) : uniform(1, 120);
        cut a, b;
        random_cut(&a, n);
        random_cut(&b, n);
        char what[64];
        snprintf(what, sizeof what, "random pair %d (n %lld)", trial, (long long)n);
        check_cuts(&a, &b, what);
    }
}

/* ---- hand-picked cuts: progressions follow the periods ------------------------------------- */

static cut blocks(int64_t n, int64_t b, int p) { return (cut){BLOCKS, n, b, p, {0}}; }

static void test_periodic_cuts_are_few_progressions(void **state)
{
    (void)state;
    struct {
        cut a, b;
        int64_t max_progressions; /* over every pair of coordinates */
    } cases[] = {
        {blocks(60000, 1, 2), blocks(60000, 1, 3), 6},              /* cyclic against cyclic: one per pair */
        {blocks(60000, 1, 11), blocks(60000, 1, 12), 132},
        {blocks(60000, 7, 3), blocks(60000, 5, 4), 12 * 12},         /* (7 + 5 - 1)/g + 1 per pair */
        {blocks(60000, 6000, 2), blocks(60000, 1, 3), 6 * 3 * 5},    /* long blocks: 3 per block of A */
        {blocks(60000, 30000, 2), blocks(60000, 7, 5), 2 * 5 * 3},   /* even split against cyclic */
        {blocks(60001, 1, 2), blocks(60001, 60001, 1), 2},           /* one coordinate: one block */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char what[64];
        snprintf(what, sizeof what, "periodic case %zu", i);
        totals t = check_cuts(&cases[i].a, &cases[i].b, what);
        if (t.progressions > cases[i].max_progressions)
            fail_msg("%s: %lld progressions for %lld runs, more than %lld", what, (long long)t.progressions, (long long)t.runs,
                     (long long)cases[i].max_progressions);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_cuts),
        cmocka_unit_test(test_periodic_cuts_are_few_progressions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
