/* test_nd_layout.c — cmocka unit tests of N-D layouts (relay/nd.h) against
 * a small independent reference written here.
 *
 * The reference knows nothing of relay's code: along each array dimension
 * a layout is one 1-D cut (whole, block-cyclic in blocks of b dealt from
 * coordinate 0, the even split b = ceil(n/p), or explicit split points),
 * a coordinate's local extent is the number of global indices it owns
 * (counted, not computed by formula), its local index of a global index
 * the number of indices it owns below it, and a position the sum of local
 * indices times strides of the stored (padded) extents in C or Fortran
 * order.  Hand-picked layouts check literal numbers; random ones check
 * every rank's local shape, buffer size and every element's locate.
 *
 * Every bad description must return RELAY_ERR_ARG, leave *out untouched and
 * set relay_last_error(); each bad call runs in a fresh thread, whose
 * thread-local message starts empty, so a stale message cannot pass for a
 * new one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "relay/nd.h"
#include "relay/status.h"

enum { MAXD = 8, MAXM = 4, MAXR = 64 };

/* ---- a description the tests own ------------------------------------------------ */

typedef struct {
    int64_t shape[MAXD + 1];
    int mesh_shape[MAXM + 1];
    int ranks[MAXR];
    relay_placement place[MAXM + 1];
    int64_t splits[MAXM + 1][MAXR + 1];
    int64_t padded[MAXD + 1];
    relay_nd_desc d;
} tdesc;

/* A valid baseline: 5 x 4 x 3 on a 2 x 2 mesh of ranks 0..3, S0 (even), S1 (even), C order. */
static void tdesc_base(tdesc *t)
{
    memset(t, 0, sizeof *t);
    t->shape[0] = 5, t->shape[1] = 4, t->shape[2] = 3;
    t->mesh_shape[0] = 2, t->mesh_shape[1] = 2;
    for (int r = 0; r < 4; r++) t->ranks[r] = r;
    t->place[0] = (relay_placement){RELAY_SHARD, 0, 0, NULL};
    t->place[1] = (relay_placement){RELAY_SHARD, 1, 0, NULL};
    t->d = (relay_nd_desc){3, t->shape, 2, t->mesh_shape, t->ranks, t->place, RELAY_ROW_MAJOR, NULL};
}

/* ---- the reference -------------------------------------------------------------- */

static int64_t mesh_size(const relay_nd_desc *d)
{
    int64_t s = 1;
    for (int m = 0; m < d->mesh_ndims; m++) s *= d->mesh_shape[m];
    return s;
}

/* The mesh dimension that shards array dimension k, or -1. */
static int shard_of(const relay_nd_desc *d, int k)
{
    for (int m = 0; m < d->mesh_ndims; m++)
        if (d->placements[m].kind == RELAY_SHARD && d->placements[m].dim == k) return m;
    return -1;
}

/* Which coordinate along mesh dimension m (sharding k) owns global index g. */
static int ref_owner(const relay_nd_desc *d, int k, int m, int64_t g)
{
    if (m < 0) return 0;
    int p = d->mesh_shape[m];
    const relay_placement *pl = &d->placements[m];
    if (pl->splits) {
        for (int c = 0; c < p; c++)
            if (pl->splits[c] <= g && g < pl->splits[c + 1]) return c;
        return -1;
    }
    int64_t n = d->shape[k];
    int64_t b = pl->block ? pl->block : (n + p - 1) / p;
    if (b < 1) b = 1;
    return (int)((g / b) % p);
}

/* Coordinate c's local extent along k and local index of g (-1: not owned), by counting. */
static int64_t ref_local_extent(const relay_nd_desc *d, int k, int c)
{
    int m = shard_of(d, k);
    int64_t e = 0;
    for (int64_t g = 0; g < d->shape[k]; g++) e += ref_owner(d, k, m, g) == c;
    return e;
}

static int64_t ref_local_index(const relay_nd_desc *d, int k, int c, int64_t g)
{
    int m = shard_of(d, k);
    if (ref_owner(d, k, m, g) != c) return -1;
    int64_t li = 0;
    for (int64_t h = 0; h < g; h++) li += ref_owner(d, k, m, h) == c;
    return li;
}

/* The mesh coordinates of rank, or 0 if it is not on the mesh. */
static int ref_coords(const relay_nd_desc *d, int rank, int *coords)
{
    int64_t size = mesh_size(d), pos = -1;
    for (int64_t i = 0; i < size; i++)
        if (d->mesh_ranks[i] == rank) pos = i;
    if (pos < 0) return 0;
    for (int m = d->mesh_ndims - 1; m >= 0; m--) {
        coords[m] = (int)(pos % d->mesh_shape[m]);
        pos /= d->mesh_shape[m];
    }
    return 1;
}

static int dim_coord(const relay_nd_desc *d, int k, const int *coords)
{
    int m = shard_of(d, k);
    return m < 0 ? 0 : coords[m];
}

/* Local extents, element strides and buffer elements of rank (0 when it holds nothing). */
static int64_t ref_local(const relay_nd_desc *d, int rank, int64_t *ext, int64_t *stride)
{
    int coords[MAXM];
    for (int k = 0; k < d->ndims; k++) ext[k] = 0, stride[k] = 0;
    if (!ref_coords(d, rank, coords)) return 0;
    int64_t stored[MAXD], elems = 1;
    int empty = 0;
    for (int k = 0; k < d->ndims; k++) {
        ext[k] = ref_local_extent(d, k, dim_coord(d, k, coords));
        stored[k] = d->padded && d->padded[k] ? d->padded[k] : ext[k];
        empty |= ext[k] == 0;
        elems *= stored[k];
    }
    int64_t s = 1;
    if (d->order == RELAY_ROW_MAJOR)
        for (int k = d->ndims - 1; k >= 0; k--) stride[k] = s, s *= stored[k];
    else
        for (int k = 0; k < d->ndims; k++) stride[k] = s, s *= stored[k];
    return empty ? 0 : elems;
}

/* Whether rank holds global element idx and where. */
static int ref_locate(const relay_nd_desc *d, int rank, const int64_t *idx, int64_t *pos)
{
    int coords[MAXM];
    int64_t ext[MAXD], stride[MAXD];
    if (!ref_coords(d, rank, coords)) return 0;
    ref_local(d, rank, ext, stride);
    *pos = 0;
    for (int k = 0; k < d->ndims; k++) {
        int64_t li = ref_local_index(d, k, dim_coord(d, k, coords), idx[k]);
        if (li < 0) return 0;
        *pos += li * stride[k];
    }
    return 1;
}

static int max_rank(const relay_nd_desc *d)
{
    int mx = -1;
    for (int64_t i = 0; i < mesh_size(d); i++) mx = d->mesh_ranks[i] > mx ? d->mesh_ranks[i] : mx;
    return mx;
}

/* Compares every query of l with the reference; prints the first difference. */
static int layout_matches(const relay_nd_layout *l, const relay_nd_desc *d, const char *what)
{
    if (relay_nd_layout_ndims(l) != d->ndims) {
        print_error("%s: ndims %d, expected %d\n", what, relay_nd_layout_ndims(l), d->ndims);
        return 0;
    }
    int64_t shape[MAXD];
    memset(shape, 0xff, sizeof shape);
    if (relay_nd_layout_shape(l, shape) != RELAY_OK) {
        print_error("%s: relay_nd_layout_shape failed: %s\n", what, relay_last_error());
        return 0;
    }
    for (int k = 0; k < d->ndims; k++)
        if (shape[k] != d->shape[k]) {
            print_error("%s: shape[%d] = %lld, expected %lld\n", what, k, (long long)shape[k], (long long)d->shape[k]);
            return 0;
        }
    if (relay_nd_layout_min_ranks(l) != max_rank(d) + 1) {
        print_error("%s: min_ranks %d, expected %d\n", what, relay_nd_layout_min_ranks(l), max_rank(d) + 1);
        return 0;
    }
    int64_t total = 1;
    for (int k = 0; k < d->ndims; k++) total *= d->shape[k];
    for (int rank = 0; rank <= max_rank(d) + 1; rank++) {
        int64_t ext[MAXD], stride[MAXD], got[MAXD];
        int64_t want_elems = ref_local(d, rank, ext, stride);
        memset(got, 0xff, sizeof got);
        if (relay_nd_layout_local_shape(l, rank, got) != RELAY_OK) {
            print_error("%s: local_shape(rank %d) failed: %s\n", what, rank, relay_last_error());
            return 0;
        }
        for (int k = 0; k < d->ndims; k++)
            if (got[k] != ext[k]) {
                print_error("%s: rank %d local extent %d = %lld, expected %lld\n", what, rank, k, (long long)got[k],
                            (long long)ext[k]);
                return 0;
            }
        int64_t elems = relay_nd_layout_local_elems(l, rank);
        if (elems != want_elems) {
            print_error("%s: rank %d local_elems %lld, expected %lld\n", what, rank, (long long)elems,
                        (long long)want_elems);
            return 0;
        }
        for (int64_t lin = 0; lin < total; lin++) {
            int64_t idx[MAXD], rest = lin;
            for (int k = d->ndims - 1; k >= 0; k--) idx[k] = rest % d->shape[k], rest /= d->shape[k];
            int64_t want_pos = -1, got_pos = -7;
            int want_held = ref_locate(d, rank, idx, &want_pos), got_held = -7;
            relay_status s = relay_nd_layout_locate(l, rank, idx, &got_held, &got_pos);
            if (s != RELAY_OK || got_held != want_held || (want_held && got_pos != want_pos)) {
                print_error("%s: rank %d locate(element %lld) = %s held %d pos %lld, expected held %d pos %lld\n", what,
                            rank, (long long)lin, relay_status_str(s), got_held, (long long)got_pos, want_held,
                            (long long)want_pos);
                return 0;
            }
            if (want_held && (want_pos < 0 || want_pos >= want_elems)) {
                print_error("%s: the reference put element %lld outside rank %d's buffer\n", what, (long long)lin, rank);
                return 0;
            }
        }
    }
    return 1;
}

static relay_nd_layout *create_ok(const relay_nd_desc *d, const char *what)
{
    relay_nd_layout *l = NULL;
    relay_status s = relay_nd_layout_create(&l, d);
    if (s != RELAY_OK) fail_msg("%s: relay_nd_layout_create: %s: %s", what, relay_status_str(s), relay_last_error());
    assert_non_null(l);
    return l;
}

static void check_layout(const relay_nd_desc *d, const char *what)
{
    relay_nd_layout *l = create_ok(d, what);
    int ok = layout_matches(l, d, what);
    relay_nd_layout_free(l);
    if (!ok) fail_msg("%s: layout differs from the reference", what);
}

/* Literal local extents of each mesh position (ndims per rank) and buffer sizes. */
static void expect_extents(const relay_nd_desc *d, const int64_t *extents, const int64_t *elems, const char *what)
{
    relay_nd_layout *l = create_ok(d, what);
    int64_t size = mesh_size(d);
    for (int64_t i = 0; i < size; i++) {
        int rank = d->mesh_ranks[i];
        int64_t got[MAXD];
        assert_int_equal(relay_nd_layout_local_shape(l, rank, got), RELAY_OK);
        for (int k = 0; k < d->ndims; k++)
            if (got[k] != extents[i * d->ndims + k])
                fail_msg("%s: rank %d extent %d = %lld, expected %lld", what, rank, k, (long long)got[k],
                         (long long)extents[i * d->ndims + k]);
        if (relay_nd_layout_local_elems(l, rank) != elems[i])
            fail_msg("%s: rank %d local_elems %lld, expected %lld", what, rank,
                     (long long)relay_nd_layout_local_elems(l, rank), (long long)elems[i]);
    }
    int ok = layout_matches(l, d, what);
    relay_nd_layout_free(l);
    if (!ok) fail_msg("%s: layout differs from the reference", what);
}

/* ---- the reference itself, by hand ---------------------------------------------- */

static void test_reference_by_hand(void **state)
{
    (void)state;
    tdesc t;
    tdesc_base(&t);
    /* 1-D, n = 5 on p = 4, even: chunk 2 -> 2, 2, 1, 0 */
    t.d.ndims = 1, t.shape[0] = 5, t.d.mesh_ndims = 1, t.mesh_shape[0] = 4;
    int64_t want[] = {2, 2, 1, 0};
    for (int c = 0; c < 4; c++) assert_int_equal(ref_local_extent(&t.d, 0, c), want[c]);
    /* numroc(10, 3, c, 0, 2): 6, 4 */
    t.shape[0] = 10, t.mesh_shape[0] = 2, t.place[0].block = 3;
    assert_int_equal(ref_local_extent(&t.d, 0, 0), 6);
    assert_int_equal(ref_local_extent(&t.d, 0, 1), 4);
    assert_int_equal(ref_local_index(&t.d, 0, 0, 7), 4); /* block 2 (6..8) is c0's second */
    assert_int_equal(ref_local_index(&t.d, 0, 1, 9), 3);
}

/* ---- good layouts: literal numbers ---------------------------------------------- */

static void one_d(tdesc *t, int64_t n, int p, int64_t block, const int64_t *splits)
{
    tdesc_base(t);
    t->d.ndims = 1, t->shape[0] = n;
    t->d.mesh_ndims = 1, t->mesh_shape[0] = p;
    for (int r = 0; r < p; r++) t->ranks[r] = r;
    t->place[0] = (relay_placement){RELAY_SHARD, 0, block, splits};
}

static void test_even_chunks(void **state)
{
    (void)state;
    tdesc t;
    struct { int64_t n; int p; int64_t want[8]; } cases[] = {
        {5, 4, {2, 2, 1, 0}}, {6, 4, {2, 2, 2, 0}}, {8, 3, {3, 3, 2}}, {2, 4, {1, 1, 0, 0}},
        {0, 3, {0, 0, 0}},   {7, 1, {7}},          {9, 8, {2, 2, 2, 2, 1, 0, 0, 0}}, {1, 2, {1, 0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        one_d(&t, cases[i].n, cases[i].p, 0, NULL);
        char what[64];
        snprintf(what, sizeof what, "even n=%lld p=%d", (long long)cases[i].n, cases[i].p);
        expect_extents(&t.d, cases[i].want, cases[i].want, what);
    }
    /* 2-D even on a 2 x 3 mesh: 5 x 7, S0, S1 -> rows 3, 2; cols 3, 3, 1 */
    tdesc_base(&t);
    t.d.ndims = 2, t.shape[0] = 5, t.shape[1] = 7;
    t.mesh_shape[0] = 2, t.mesh_shape[1] = 3;
    for (int r = 0; r < 6; r++) t.ranks[r] = r;
    int64_t ext[] = {3, 3, 3, 3, 3, 1, 2, 3, 2, 3, 2, 1};
    int64_t elems[] = {9, 9, 3, 6, 6, 2};
    expect_extents(&t.d, ext, elems, "even 5x7 on 2x3");
    /* the same with the placements swapped: mesh dim 0 shards columns */
    t.place[0].dim = 1, t.place[1].dim = 0;
    int64_t ext2[] = {2, 4, 2, 4, 1, 4, 2, 3, 2, 3, 1, 3};
    int64_t elems2[] = {8, 8, 4, 6, 6, 3};
    expect_extents(&t.d, ext2, elems2, "even 5x7 on 2x3, S1,S0");
}

static void test_block_cyclic(void **state)
{
    (void)state;
    tdesc t;
    struct { int64_t n; int p; int64_t b; int64_t want[8]; } cases[] = {
        {10, 2, 3, {6, 4}}, {10, 3, 1, {4, 3, 3}}, {10, 3, 2, {4, 4, 2}}, {7, 4, 2, {2, 2, 2, 1}},
        {3, 4, 2, {2, 1, 0, 0}}, {12, 2, 7, {7, 5}}, {5, 2, 100, {5, 0}}, {0, 2, 2, {0, 0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        one_d(&t, cases[i].n, cases[i].p, cases[i].b, NULL);
        char what[64];
        snprintf(what, sizeof what, "block-cyclic n=%lld p=%d b=%lld", (long long)cases[i].n, cases[i].p,
                 (long long)cases[i].b);
        expect_extents(&t.d, cases[i].want, cases[i].want, what);
    }
    /* positions: n = 10, p = 2, b = 3: coordinate 0 holds 0 1 2 6 7 8 at 0..5, 1 holds 3 4 5 9 */
    one_d(&t, 10, 2, 3, NULL);
    relay_nd_layout *l = create_ok(&t.d, "bc positions");
    int64_t owner0[] = {0, 1, 2, -1, -1, -1, 3, 4, 5, -1}, owner1[] = {-1, -1, -1, 0, 1, 2, -1, -1, -1, 3};
    for (int64_t g = 0; g < 10; g++) {
        for (int r = 0; r < 2; r++) {
            int held = -1;
            int64_t pos = -1, want = r ? owner1[g] : owner0[g];
            assert_int_equal(relay_nd_layout_locate(l, r, &g, &held, &pos), RELAY_OK);
            assert_int_equal(held, want >= 0);
            if (want >= 0) assert_int_equal(pos, want);
        }
    }
    relay_nd_layout_free(l);
}

static void test_splits(void **state)
{
    (void)state;
    tdesc t;
    static const int64_t s1[] = {0, 0, 3, 3, 5};
    one_d(&t, 5, 4, 0, s1);
    expect_extents(&t.d, (int64_t[]){0, 3, 0, 2}, (int64_t[]){0, 3, 0, 2}, "splits 0,0,3,3,5");
    static const int64_t s2[] = {0, 5, 5, 5};
    one_d(&t, 5, 3, 0, s2);
    expect_extents(&t.d, (int64_t[]){5, 0, 0}, (int64_t[]){5, 0, 0}, "splits 0,5,5,5");
    static const int64_t s3[] = {0, 0, 0};
    one_d(&t, 0, 2, 0, s3);
    expect_extents(&t.d, (int64_t[]){0, 0}, (int64_t[]){0, 0}, "splits of an empty dimension");
    static const int64_t s4[] = {0, 1, 4, 9};
    one_d(&t, 9, 3, 0, s4);
    expect_extents(&t.d, (int64_t[]){1, 3, 5}, (int64_t[]){1, 3, 5}, "splits 0,1,4,9");
    /* positions of s4's coordinate 2: 4..8 at 0..4 */
    relay_nd_layout *l = create_ok(&t.d, "split positions");
    for (int64_t g = 0; g < 9; g++) {
        int held = -1;
        int64_t pos = -1;
        assert_int_equal(relay_nd_layout_locate(l, 2, &g, &held, &pos), RELAY_OK);
        assert_int_equal(held, g >= 4);
        if (g >= 4) assert_int_equal(pos, g - 4);
    }
    relay_nd_layout_free(l);
    /* a 2-D split x even: 6 x 5, mesh 3 x 2, S0 splits 0,4,4,6, S1 even (3, 2) */
    static const int64_t s5[] = {0, 4, 4, 6};
    tdesc_base(&t);
    t.d.ndims = 2, t.shape[0] = 6, t.shape[1] = 5;
    t.mesh_shape[0] = 3, t.mesh_shape[1] = 2;
    for (int r = 0; r < 6; r++) t.ranks[r] = r;
    t.place[0].splits = s5;
    expect_extents(&t.d, (int64_t[]){4, 3, 4, 2, 0, 3, 0, 2, 2, 3, 2, 2}, (int64_t[]){12, 8, 0, 0, 6, 4},
                   "splits x even on 3x2");
}

static void test_replicate_and_partial(void **state)
{
    (void)state;
    tdesc t;
    relay_placement_kind kinds[] = {RELAY_REPLICATE, RELAY_PARTIAL};
    for (int i = 0; i < 2; i++) {
        /* 5 x 4 on 2 x 3: mesh dim 0 R or P, mesh dim 1 shards dim 1 (even: 2, 2, 0) */
        tdesc_base(&t);
        t.d.ndims = 2, t.shape[0] = 5, t.shape[1] = 4;
        t.mesh_shape[0] = 2, t.mesh_shape[1] = 3;
        int ranks[] = {7, 2, 4, 0, 6, 1};
        memcpy(t.ranks, ranks, sizeof ranks);
        t.place[0] = (relay_placement){kinds[i], 0, 0, NULL};
        t.place[1] = (relay_placement){RELAY_SHARD, 1, 0, NULL};
        expect_extents(&t.d, (int64_t[]){5, 2, 5, 2, 5, 0, 5, 2, 5, 2, 5, 0}, (int64_t[]){10, 10, 0, 10, 10, 0},
                       i ? "P,S1" : "R,S1");
        /* every coordinate holds the same elements at the same places */
        relay_nd_layout *l = create_ok(&t.d, "R/P positions");
        for (int64_t a = 0; a < 5; a++)
            for (int64_t b = 0; b < 4; b++) {
                int64_t idx[2] = {a, b}, p0 = -1, p1 = -2;
                int h0 = -1, h1 = -1;
                int r0 = b < 2 ? 7 : 2, r1 = b < 2 ? 0 : 6;
                assert_int_equal(relay_nd_layout_locate(l, r0, idx, &h0, &p0), RELAY_OK);
                assert_int_equal(relay_nd_layout_locate(l, r1, idx, &h1, &p1), RELAY_OK);
                assert_int_equal(h0, 1);
                assert_int_equal(h1, 1);
                assert_int_equal(p0, a * 2 + b % 2);
                assert_int_equal(p1, p0);
            }
        relay_nd_layout_free(l);
        /* all replicated or all partial: every rank the whole array */
        tdesc_base(&t);
        t.d.mesh_ndims = 1, t.mesh_shape[0] = 3;
        t.place[0] = (relay_placement){kinds[i], 0, 0, NULL};
        expect_extents(&t.d, (int64_t[]){5, 4, 3, 5, 4, 3, 5, 4, 3}, (int64_t[]){60, 60, 60}, "all R or P");
    }
    /* R and P ignore dim, block and splits */
    static const int64_t junk_splits[] = {9, 1};
    tdesc_base(&t);
    t.place[1] = (relay_placement){RELAY_REPLICATE, 42, -3, junk_splits};
    check_layout(&t.d, "REPLICATE with junk dim, block, splits");
    t.place[1] = (relay_placement){RELAY_PARTIAL, -1, -3, junk_splits};
    check_layout(&t.d, "PARTIAL with junk dim, block, splits");
    /* S, R, P on a 3-D mesh of 2 x 2 x 2 */
    tdesc_base(&t);
    t.d.mesh_ndims = 3, t.mesh_shape[2] = 2;
    for (int r = 0; r < 8; r++) t.ranks[r] = 7 - r;
    t.place[0] = (relay_placement){RELAY_PARTIAL, 0, 0, NULL};
    t.place[1] = (relay_placement){RELAY_SHARD, 2, 0, NULL};
    t.place[2] = (relay_placement){RELAY_REPLICATE, 0, 0, NULL};
    check_layout(&t.d, "P, S2, R on 2x2x2");
}

static void test_order_and_padding(void **state)
{
    (void)state;
    tdesc t;
    /* one rank holding 3 x 4 */
    tdesc_base(&t);
    t.d.ndims = 2, t.shape[0] = 3, t.shape[1] = 4;
    t.d.mesh_ndims = 1, t.mesh_shape[0] = 1, t.ranks[0] = 0;
    t.place[0] = (relay_placement){RELAY_REPLICATE, 0, 0, NULL};
    struct { relay_order order; int64_t pad0, pad1, elems, di, dj; } cases[] = {
        {RELAY_ROW_MAJOR, 0, 0, 12, 4, 1}, {RELAY_COL_MAJOR, 0, 0, 12, 1, 3},
        {RELAY_ROW_MAJOR, 0, 6, 18, 6, 1}, {RELAY_COL_MAJOR, 0, 6, 18, 1, 3},
        {RELAY_ROW_MAJOR, 5, 0, 20, 4, 1}, {RELAY_COL_MAJOR, 5, 0, 20, 1, 5},
        {RELAY_ROW_MAJOR, 3, 4, 12, 4, 1}, {RELAY_COL_MAJOR, 4, 7, 28, 1, 4},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        t.d.order = cases[c].order;
        t.padded[0] = cases[c].pad0, t.padded[1] = cases[c].pad1;
        t.d.padded = t.padded;
        relay_nd_layout *l = create_ok(&t.d, "order/padding");
        assert_int_equal(relay_nd_layout_local_elems(l, 0), cases[c].elems);
        for (int64_t i = 0; i < 3; i++)
            for (int64_t j = 0; j < 4; j++) {
                int64_t idx[2] = {i, j}, pos = -1;
                int held = 0;
                assert_int_equal(relay_nd_layout_locate(l, 0, idx, &held, &pos), RELAY_OK);
                assert_int_equal(held, 1);
                if (pos != i * cases[c].di + j * cases[c].dj)
                    fail_msg("case %zu: (%lld, %lld) at %lld, expected %lld", c, (long long)i, (long long)j,
                             (long long)pos, (long long)(i * cases[c].di + j * cases[c].dj));
            }
        int ok = layout_matches(l, &t.d, "order/padding");
        relay_nd_layout_free(l);
        assert_true(ok);
    }
    /* 3-D sharded with padding, Fortran order: 5 x 4 x 3, S0, S1 on 2 x 2; padded 4, 0, 5 */
    tdesc_base(&t);
    t.d.order = RELAY_COL_MAJOR;
    t.padded[0] = 4, t.padded[2] = 5;
    t.d.padded = t.padded;
    /* local extents 3|2 x 2 x 3; stored 4 x 2 x 5 = 40 */
    expect_extents(&t.d, (int64_t[]){3, 2, 3, 3, 2, 3, 2, 2, 3, 2, 2, 3}, (int64_t[]){40, 40, 40, 40},
                   "3-D Fortran padded");
    relay_nd_layout *l = create_ok(&t.d, "3-D Fortran padded");
    int64_t idx[3] = {4, 3, 2}, pos = -1; /* rank 3: local (1, 1, 2) -> 1 + 4*1 + 8*2 */
    int held = 0;
    assert_int_equal(relay_nd_layout_locate(l, 3, idx, &held, &pos), RELAY_OK);
    assert_int_equal(held, 1);
    assert_int_equal(pos, 1 + 4 + 16);
    relay_nd_layout_free(l);
    t.d.order = RELAY_ROW_MAJOR; /* rank 3: (1, 1, 2) -> 1*10 + 1*5 + 2 */
    l = create_ok(&t.d, "3-D C padded");
    assert_int_equal(relay_nd_layout_locate(l, 3, idx, &held, &pos), RELAY_OK);
    assert_int_equal(pos, 10 + 5 + 2);
    relay_nd_layout_free(l);
    /* padding equal to the largest local extent is legal */
    tdesc_base(&t);
    t.padded[0] = 3, t.padded[1] = 2, t.padded[2] = 3;
    t.d.padded = t.padded;
    check_layout(&t.d, "padding equal to the largest extent");
    /* an empty shard with padding holds nothing: 0 elements */
    one_d(&t, 5, 4, 0, NULL);
    t.padded[0] = 3;
    t.d.padded = t.padded;
    expect_extents(&t.d, (int64_t[]){2, 2, 1, 0}, (int64_t[]){3, 3, 3, 0}, "empty shard, padded");
}

static void test_min_ranks_and_ranks_off_the_mesh(void **state)
{
    (void)state;
    tdesc t;
    tdesc_base(&t);
    t.d.mesh_ndims = 1, t.mesh_shape[0] = 3;
    t.ranks[0] = 5, t.ranks[1] = 2, t.ranks[2] = 9;
    t.place[0] = (relay_placement){RELAY_SHARD, 1, 0, NULL};
    relay_nd_layout *l = create_ok(&t.d, "ranks 5, 2, 9");
    assert_int_equal(relay_nd_layout_min_ranks(l), 10);
    int off[] = {0, 1, 3, 4, 6, 7, 8, 10, 11, 1000};
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
        int64_t ext[3] = {-1, -1, -1};
        assert_int_equal(relay_nd_layout_local_shape(l, off[i], ext), RELAY_OK);
        for (int k = 0; k < 3; k++) assert_int_equal(ext[k], 0);
        assert_int_equal(relay_nd_layout_local_elems(l, off[i]), 0);
        int64_t idx[3] = {0, 0, 0}, pos = -1;
        int held = -1;
        assert_int_equal(relay_nd_layout_locate(l, off[i], idx, &held, &pos), RELAY_OK);
        assert_int_equal(held, 0);
    }
    /* rank 5 holds columns 0-1, rank 2 column 2-3, rank 9 nothing of 4 / 3 */
    assert_int_equal(relay_nd_layout_local_elems(l, 5), 5 * 2 * 3);
    assert_int_equal(relay_nd_layout_local_elems(l, 2), 5 * 2 * 3);
    assert_int_equal(relay_nd_layout_local_elems(l, 9), 0);
    int ok = layout_matches(l, &t.d, "ranks 5, 2, 9");
    relay_nd_layout_free(l);
    assert_true(ok);
    /* a single rank far from 0 */
    tdesc_base(&t);
    t.d.mesh_ndims = 1, t.mesh_shape[0] = 1, t.ranks[0] = 4095;
    l = create_ok(&t.d, "rank 4095");
    assert_int_equal(relay_nd_layout_min_ranks(l), 4096);
    assert_int_equal(relay_nd_layout_local_elems(l, 4095), 60);
    assert_int_equal(relay_nd_layout_local_elems(l, 0), 0);
    relay_nd_layout_free(l);
}

static void test_description_is_copied(void **state)
{
    (void)state;
    tdesc t, keep;
    tdesc_base(&t);
    static int64_t splits[] = {0, 1, 4};
    t.place[1].splits = splits;
    t.padded[2] = 4;
    t.d.padded = t.padded;
    keep = t;
    keep.d = (relay_nd_desc){3, keep.shape, 2, keep.mesh_shape, keep.ranks, keep.place, RELAY_ROW_MAJOR, keep.padded};
    int64_t keep_splits[] = {0, 1, 4};
    keep.place[1].splits = keep_splits;
    relay_nd_layout *l = create_ok(&t.d, "copied");
    /* scribble over everything the description pointed to */
    memset(t.shape, 0x55, sizeof t.shape);
    memset(t.mesh_shape, 0x55, sizeof t.mesh_shape);
    memset(t.ranks, 0x55, sizeof t.ranks);
    memset(t.padded, 0x55, sizeof t.padded);
    splits[1] = 3;
    t.place[0].dim = 2;
    int ok = layout_matches(l, &keep.d, "after scribbling over the description");
    relay_nd_layout_free(l);
    splits[1] = 1;
    assert_true(ok);
}

static void test_out_of_range_queries(void **state)
{
    (void)state;
    tdesc t;
    tdesc_base(&t);
    relay_nd_layout *l = create_ok(&t.d, "base");
    const int64_t outside[][3] = {{5, 0, 0}, {-1, 0, 0}, {0, 0, 3}, {0, 4, 0}, {0, -1, 0}};
    for (size_t c = 0; c < sizeof outside / sizeof outside[0]; c++) {
        int64_t pos = -77;
        int held = -77;
        relay_status s = relay_nd_layout_locate(l, 0, outside[c], &held, &pos);
        if (s != RELAY_ERR_ARG || held != -77 || pos != -77 || !relay_last_error()[0])
            fail_msg("locate(%lld, %lld, %lld) of 5 x 4 x 3: %s, held %d, pos %lld; expected RELAY_ERR_ARG, a "
                     "message and nothing written",
                     (long long)outside[c][0], (long long)outside[c][1], (long long)outside[c][2],
                     relay_status_str(s), held, (long long)pos);
    }
    int64_t idx[3] = {0, 0, 0}, pos = -1;
    int held = -1;
    assert_int_equal(relay_nd_layout_locate(l, 0, NULL, &held, &pos), RELAY_ERR_ARG);
    assert_int_equal(relay_nd_layout_local_elems(l, -1), 0);
    assert_int_not_equal(relay_nd_layout_shape(NULL, idx), RELAY_OK);
    assert_int_not_equal(relay_nd_layout_shape(l, NULL), RELAY_OK);
    assert_int_not_equal(relay_nd_layout_local_shape(l, 0, NULL), RELAY_OK);
    relay_nd_layout_free(l);
    relay_nd_layout_free(NULL);
}

/* ---- good layouts: random ------------------------------------------------------- */

static uint64_t rng_state;
static uint64_t rng_next(void)
{
    rng_state += 0x9e3779b97f4a7c15ULL;
    uint64_t z = rng_state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static int64_t rng_range(int64_t lo, int64_t hi) { return lo + (int64_t)(rng_next() % (uint64_t)(hi - lo + 1)); }

static void random_desc(tdesc *t)
{
    memset(t, 0, sizeof *t);
    int nd = (int)rng_range(1, rng_range(0, 9) == 0 ? 6 : 3);
    int64_t total = 1;
    for (int k = 0; k < nd; k++) {
        t->shape[k] = rng_range(0, total > 60 ? 2 : 7);
        if (rng_range(0, 9) && t->shape[k] == 0) t->shape[k] = 1;
        total *= t->shape[k] ? t->shape[k] : 1;
    }
    int md = (int)rng_range(1, 3);
    int64_t size = 1;
    for (int m = 0; m < md; m++) t->mesh_shape[m] = (int)rng_range(1, 3), size *= t->mesh_shape[m];
    /* distinct ranks below 2 * size, shuffled */
    int pool[2 * 27];
    for (int i = 0; i < 2 * size; i++) pool[i] = i;
    for (int i = (int)(2 * size) - 1; i > 0; i--) {
        int j = (int)rng_range(0, i), x = pool[i];
        pool[i] = pool[j], pool[j] = x;
    }
    for (int i = 0; i < size; i++) t->ranks[i] = pool[i];
    int used[MAXD] = {0};
    for (int m = 0; m < md; m++) {
        int kind = (int)rng_range(0, 3);
        int k = (int)rng_range(0, nd - 1);
        if (kind <= 1 && !used[k]) {
            used[k] = 1;
            relay_placement *pl = &t->place[m];
            pl->kind = RELAY_SHARD, pl->dim = k;
            int how = (int)rng_range(0, 2);
            if (how == 1) pl->block = rng_range(1, 3);
            if (how == 2) {
                int p = t->mesh_shape[m];
                t->splits[m][0] = 0, t->splits[m][p] = t->shape[k];
                for (int c = 1; c < p; c++) t->splits[m][c] = rng_range(0, t->shape[k]);
                for (int a = 1; a < p; a++) /* sort */
                    for (int b = a; b > 1 && t->splits[m][b - 1] > t->splits[m][b]; b--) {
                        int64_t x = t->splits[m][b];
                        t->splits[m][b] = t->splits[m][b - 1], t->splits[m][b - 1] = x;
                    }
                pl->splits = t->splits[m];
            }
        } else
            t->place[m].kind = kind == 2 ? RELAY_PARTIAL : RELAY_REPLICATE;
    }
    t->d = (relay_nd_desc){nd, t->shape, md, t->mesh_shape, t->ranks, t->place,
                           rng_range(0, 1) ? RELAY_ROW_MAJOR : RELAY_COL_MAJOR, NULL};
    if (rng_range(0, 2) == 0) {
        for (int k = 0; k < nd; k++) {
            int m = shard_of(&t->d, k);
            int64_t mx = 0;
            for (int c = 0; c < (m < 0 ? 1 : t->mesh_shape[m]); c++) {
                int64_t e = ref_local_extent(&t->d, k, c);
                mx = e > mx ? e : mx;
            }
            t->padded[k] = rng_range(0, 1) ? 0 : mx + rng_range(0, 2);
        }
        t->d.padded = t->padded;
    }
}

static void test_random_layouts(void **state)
{
    (void)state;
    for (int i = 0; i < 400; i++) {
        uint64_t seed = 0x7e57ed00 + (uint64_t)i;
        rng_state = seed;
        tdesc t;
        random_desc(&t);
        char what[64];
        snprintf(what, sizeof what, "random layout seed %#llx", (unsigned long long)seed);
        check_layout(&t.d, what);
    }
}

/* ---- rejected descriptions ------------------------------------------------------- */

static char sentinel_storage;
#define SENTINEL ((relay_nd_layout *)(void *)&sentinel_storage)

typedef struct {
    const relay_nd_desc *d;
    int null_out;
    int message_empty_before, out_untouched, message_set;
    relay_status status;
    relay_status expect;
} fresh_call;

static int run_fresh_call(void *arg)
{
    fresh_call *c = arg;
    const char *before = relay_last_error();
    c->message_empty_before = before && before[0] == '\0';
    relay_nd_layout *out = SENTINEL;
    c->status = relay_nd_layout_create(c->null_out ? NULL : &out, c->d);
    c->out_untouched = out == SENTINEL;
    const char *after = relay_last_error();
    c->message_set = after && after[0] != '\0';
    if (c->status == RELAY_OK && out != SENTINEL) relay_nd_layout_free(out);
    return 0;
}

static int rejected_as(const relay_nd_desc *d, int null_out, relay_status expect, const char *what)
{
    fresh_call c = {.d = d, .null_out = null_out, .expect = expect};
    thrd_t thread;
    if (thrd_create(&thread, run_fresh_call, &c) != thrd_success) fail_msg("cannot start a thread");
    thrd_join(thread, NULL);
    const char *problem = !c.message_empty_before ? "relay_last_error() not \"\" in a new thread"
                        : c.status != expect    ? relay_status_str(c.status)
                        : !c.out_untouched      ? "*out changed"
                        : !c.message_set        ? "relay_last_error() empty"
                                                : NULL;
    if (problem)
        print_error("%s: expected %s, untouched *out and a message; got: %s\n", what, relay_status_str(expect), problem);
    return problem == NULL;
}
static int rejected(const relay_nd_desc *d, int null_out, const char *what)
{
    return rejected_as(d, null_out, RELAY_ERR_ARG, what);
}

#define REJECT(what, ...)                                          \
    do {                                                           \
        tdesc t_;                                                  \
        tdesc_base(&t_);                                           \
        tdesc *t = &t_;                                            \
        __VA_ARGS__;                                               \
        failures += !rejected(&t->d, 0, what);                     \
    } while (0)

static void test_rejects_bad_descriptions(void **state)
{
    (void)state;
    int failures = 0;
    /* the baseline itself is valid */
    {
        tdesc t;
        tdesc_base(&t);
        check_layout(&t.d, "baseline");
    }
    REJECT("ndims 0", t->d.ndims = 0);
    REJECT("ndims 9", t->d.ndims = 9; for (int k = 0; k < 9; k++) t->shape[k] = 2);
    REJECT("ndims -1", t->d.ndims = -1);
    REJECT("negative extent", t->shape[1] = -1);
    REJECT("negative extent, unsharded dim", t->shape[2] = -4);
    REJECT("mesh_ndims 0", t->d.mesh_ndims = 0);
    REJECT("mesh_ndims 5", t->d.mesh_ndims = 5; t->mesh_shape[2] = t->mesh_shape[3] = t->mesh_shape[4] = 1;
           for (int m = 2; m < 5; m++) t->place[m].kind = RELAY_REPLICATE);
    REJECT("mesh_ndims -1", t->d.mesh_ndims = -1);
    REJECT("mesh size 0", t->mesh_shape[1] = 0);
    REJECT("mesh size -2", t->mesh_shape[0] = -2; t->mesh_shape[1] = -2);
    REJECT("repeated rank", t->ranks[3] = 1);
    REJECT("repeated rank 0", t->ranks[2] = 0);
    REJECT("negative rank", t->ranks[1] = -1);
    /* no communicator holds rank INT_MAX: min_ranks (an int) would be INT_MAX + 1 */
    REJECT("rank INT_MAX", t->ranks[1] = INT_MAX);
    REJECT("placement names dim 3 of 3", t->place[1].dim = 3);
    REJECT("placement names dim -1", t->place[0].dim = -1);
    REJECT("placement names dim 8", t->place[0].dim = 8);
    REJECT("two mesh dims shard dim 0", t->place[1].dim = 0);
    REJECT("bad placement kind", t->place[1].kind = (relay_placement_kind)7);
    REJECT("bad order", t->d.order = (relay_order)9);
    /* splits on a mesh dim of 3 over n = 5 */
    static const int64_t decreasing[] = {0, 3, 2, 5}, short_end[] = {0, 2, 4, 4}, late_start[] = {1, 2, 3, 5},
                         long_end[] = {0, 2, 3, 6}, negative[] = {-1, 2, 3, 5}, good[] = {0, 2, 2, 5};
#define SPLITS(s) t->d.mesh_ndims = 1; t->mesh_shape[0] = 3; t->place[0].splits = (s)
    {
        tdesc t;
        tdesc_base(&t);
        t.d.mesh_ndims = 1, t.mesh_shape[0] = 3, t.place[0].splits = good;
        check_layout(&t.d, "good splits");
    }
    REJECT("splits not non-decreasing", SPLITS(decreasing));
    REJECT("splits not ending at n", SPLITS(short_end));
    REJECT("splits ending past n", SPLITS(long_end));
    REJECT("splits not starting at 0", SPLITS(late_start));
    REJECT("splits starting below 0", SPLITS(negative));
    REJECT("splits with block 2", SPLITS(good); t->place[0].block = 2);
    REJECT("splits with block -1", SPLITS(good); t->place[0].block = -1);
    REJECT("block -1", t->place[0].block = -1);
    REJECT("block -1 on dim 1", t->place[1].block = -1);
    /* even split of 5 on 2: local extents 3, 2 */
    REJECT("padded below a rank's extent", t->padded[0] = 2; t->d.padded = t->padded);
    REJECT("padded below the unsharded extent", t->padded[2] = 2; t->d.padded = t->padded);
    REJECT("negative padded", t->padded[1] = -1; t->d.padded = t->padded);
    /* block-cyclic 5 on 2 in blocks of 1: 3, 2; padded 2 too small */
    REJECT("padded below a block-cyclic extent", t->place[0].block = 1; t->padded[0] = 2; t->d.padded = t->padded);
    REJECT("NULL shape", t->d.shape = NULL);
    REJECT("NULL mesh_shape", t->d.mesh_shape = NULL);
    REJECT("NULL mesh_ranks", t->d.mesh_ranks = NULL);
    REJECT("NULL placements", t->d.placements = NULL);
    failures += !rejected(NULL, 0, "NULL description");
    {
        tdesc t;
        tdesc_base(&t);
        failures += !rejected(&t.d, 1, "NULL out");
    }
    /* a buffer of more than 2^63 elements */
    REJECT("extents whose product overflows", t->shape[0] = (int64_t)1 << 40; t->shape[1] = (int64_t)1 << 40;
           t->shape[2] = (int64_t)1 << 40);
    REJECT("padding whose product overflows", t->padded[2] = (int64_t)1 << 62; t->padded[1] = 4;
           t->d.padded = t->padded);
    /* at most 2^24 blocks of a block-cyclic cut (nd.h): 2^24 + 1 are refused */
    REJECT("2^24 + 1 blocks of 1", t->d.mesh_ndims = 1; t->mesh_shape[0] = 2; t->place[0].block = 1;
           t->shape[0] = ((int64_t)1 << 24) + 1);
    REJECT("2^24 + 1 blocks of 3", t->d.mesh_ndims = 1; t->mesh_shape[0] = 2; t->place[0].block = 3;
           t->shape[0] = 3 * ((int64_t)1 << 24) + 1);
    if (failures) fail_msg("%d bad descriptions not rejected as they must be", failures);
}

/* The limit on blocks (nd.h: "at most 2^24 blocks") taken at its word: exactly 2^24 blocks
 * are accepted, with the local extents of numroc. */
static void test_block_limit(void **state)
{
    (void)state;
    const int64_t blocks = (int64_t)1 << 24;
    const int64_t half = blocks / 2;
    struct { int64_t n, b, e0, e1; } cases[] = {
        {blocks, 1, half, half}, {3 * blocks, 3, 3 * half, 3 * half},
        {3 * blocks - 2, 3, 3 * half, 3 * (half - 1) + 1}, {blocks - 1, 1, half, half - 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tdesc t;
        one_d(&t, cases[i].n, 2, cases[i].b, NULL);
        t.shape[1] = t.shape[2] = 1;
        char what[96];
        snprintf(what, sizeof what, "n = %lld in blocks of %lld (%lld blocks)", (long long)cases[i].n, (long long)cases[i].b,
                 (long long)((cases[i].n + cases[i].b - 1) / cases[i].b));
        relay_nd_layout *l = NULL;
        relay_status s = relay_nd_layout_create(&l, &t.d);
        if (s != RELAY_OK) fail_msg("%s: %s: %s", what, relay_status_str(s), relay_last_error());
        int64_t e0 = cases[i].e0, e1 = cases[i].e1; /* numroc over 2 coordinates, by hand */
        if (relay_nd_layout_local_elems(l, 0) != e0 || relay_nd_layout_local_elems(l, 1) != e1)
            fail_msg("%s: local elems %lld, %lld; expected %lld, %lld", what, (long long)relay_nd_layout_local_elems(l, 0),
                     (long long)relay_nd_layout_local_elems(l, 1), (long long)e0, (long long)e1);
        relay_nd_layout_free(l);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_by_hand),
        cmocka_unit_test(test_even_chunks),
        cmocka_unit_test(test_block_cyclic),
        cmocka_unit_test(test_splits),
        cmocka_unit_test(test_replicate_and_partial),
        cmocka_unit_test(test_order_and_padding),
        cmocka_unit_test(test_min_ranks_and_ranks_off_the_mesh),
        cmocka_unit_test(test_description_is_copied),
        cmocka_unit_test(test_out_of_range_queries),
        cmocka_unit_test(test_random_layouts),
        cmocka_unit_test(test_rejects_bad_descriptions),
        cmocka_unit_test(test_block_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
