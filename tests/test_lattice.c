/* test_lattice.c — the 1-D overlay of block-cyclic distributions as
 * progressions of runs (plan_format/lattice/bc_runs.c).
 *
 * Every result is checked index by index against brute force: the owner
 * and local index of every global index by the serial reference's
 * INDXG2P / INDXG2L (reference.c, independent of relay), on thousands of
 * random cases with fixed seeds (dimensions starting at an origin inside
 * the distributed one, as ScaLAPACK submatrices do, among them) and on
 * hand-picked edge cases.  Regular
 * cases (COSTA's Figure 3) must compress to the proven number of
 * progressions (a side on one process, with one progression per target
 * process), and a 10^12-long dimension must take no time, which an
 * O(n) enumeration could not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "bc_runs.h"
#include "reference.h"

static ref_rng rng;
static int64_t uniform(int64_t lo, int64_t hi) { return ref_rng_range(&rng, lo, hi); }

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- the reference: one global index at a time ---------------------------- */

static int ref_owner(const rl_bc_dim *d, int64_t i) { return ref_indxg2p(d->o + i, d->b, d->s, d->P); }

/* ref_indxg2l multiplies b*P; when that passes int64, every index lies in
 * the first cycle, where P does not matter. */
static int64_t ref_local(const rl_bc_dim *d, int64_t i)
{
    return ref_indxg2l(d->o + i, d->b, d->b > INT64_MAX / d->P ? 1 : d->P);
}

/* The block holding index i; a dimension on one process is one block (its
 * local indices are the global ones). */
static int64_t block_of(const rl_bc_dim *d, int64_t i) { return d->P == 1 ? 0 : (d->o + i) / d->b; }

static int starts_block(const rl_bc_dim *d, int64_t i) { return i == 0 || block_of(d, i) != block_of(d, i - 1); }

/* Where runs may start: at a block boundary of either side (and 0). */
static int may_cut(const rl_bc_dim *f, const rl_bc_dim *t, int64_t i) { return starts_block(f, i) || starts_block(t, i); }

/* Runs of the reference: maximal intervals inside one block of each side. */
static int64_t ref_runs(const rl_bc_dim *f, const rl_bc_dim *t)
{
    int64_t runs = 0;
    for (int64_t i = 0; i < f->n; i++) runs += may_cut(f, t, i);
    return runs;
}

static int before(const rl_run_lattice *p, const rl_run_lattice *q)
{
    if (p->from != q->from) return p->from < q->from;
    if (p->to != q->to) return p->to < q->to;
    return p->g0 < q->g0;
}

/* The whole contract for run k of lattice r; marks its indices in covered. */
static void check_run(const rl_bc_dim *f, const rl_bc_dim *t, const rl_run_lattice *r, int64_t k, char *covered)
{
    int64_t n = f->n, g = r->g0 + k * r->gstride, end = g + r->len;
    assert_true(g >= 0 && end <= n);
    /* one block of each side, and cut only at block boundaries */
    assert_true(block_of(f, g) == block_of(f, end - 1) && block_of(t, g) == block_of(t, end - 1));
    assert_true(may_cut(f, t, g));
    assert_true(end == n || may_cut(f, t, end));
    for (int64_t e = 0; e < r->len; e++) {
        int64_t i = g + e;
        assert_false(covered[i]);
        covered[i] = 1;
        assert_int_equal(ref_owner(f, i), r->from);
        assert_int_equal(ref_owner(t, i), r->to);
        assert_int_equal(ref_local(f, i), r->src0 + k * r->src_stride + e);
        assert_int_equal(ref_local(t, i), r->dst0 + k * r->dst_stride + e);
    }
}

/* Checks rl_bc_runs(f, t) against the reference; returns the progressions. */
static int64_t check_case(rl_bc_dim f, rl_bc_dim t)
{
    rl_run_lattice *r = NULL;
    int64_t nr = -1;
    assert_int_equal(rl_bc_runs(&f, &t, &r, &nr), RELAY_OK);
    char *covered = calloc((size_t)f.n + 1, 1);
    for (int64_t j = 0; j < nr; j++) {
        assert_true(r[j].count >= 1 && r[j].len >= 1);
        if (r[j].count == 1) assert_true(r[j].gstride == 0 && r[j].src_stride == 0 && r[j].dst_stride == 0);
        if (j > 0) assert_true(before(&r[j - 1], &r[j]));
        for (int64_t k = 0; k < r[j].count; k++) check_run(&f, &t, &r[j], k, covered);
    }
    for (int64_t i = 0; i < f.n; i++) assert_true(covered[i]);
    assert_true(nr <= ref_runs(&f, &t));
    free(covered);
    free(r);
    return nr;
}

static rl_bc_dim dim(int64_t n, int64_t b, int P, int s) { return (rl_bc_dim){n, b, P, s, 0}; }

/* The same, starting at index o of the distributed dimension. */
static rl_bc_dim dim_at(int64_t n, int64_t b, int P, int s, int64_t o) { return (rl_bc_dim){n, b, P, s, o}; }

/* ---- random cases ------------------------------------------------------------ */

/* Every other one starts at an origin within its first cycles. */
static rl_bc_dim random_dim(int64_t n, int64_t max_b, int max_p)
{
    int P = (int)uniform(1, max_p);
    int64_t b = uniform(1, max_b);
    return dim_at(n, b, P, (int)uniform(0, P - 1), uniform(0, 1) ? uniform(0, 3 * b * P) : 0);
}

/* Block sizes up to 70 (periods mostly longer than n), small ones (many
 * full periods and a tail), and multiples of each other. */
static void test_random(void **state)
{
    (void)state;
    ref_rng_seed(&rng, 15);
    int64_t progressions = 0, runs = 0;
    for (int c = 0; c < 3000; c++) {
        int64_t n = uniform(0, 5000);
        rl_bc_dim f, t;
        switch (c % 3) {
        case 0:
            f = random_dim(n, 70, 9);
            t = random_dim(n, 70, 9);
            break;
        case 1:
            f = random_dim(n, 8, 4);
            t = random_dim(n, 8, 4);
            break;
        default:
            f = random_dim(n, 16, 9);
            t = f;
            t.b = f.b * uniform(1, 6);
            t.P = (int)uniform(1, 9);
            t.s = (int)uniform(0, t.P - 1);
            if (c % 2) {
                rl_bc_dim x = f;
                f = t;
                t = x;
            }
        }
        progressions += check_case(f, t);
        runs += ref_runs(&f, &t);
    }
    printf("random: %lld runs in %lld progressions\n", (long long)runs, (long long)progressions);
}

/* ---- hand-picked cases --------------------------------------------------------- */

static void test_hand_picked(void **state)
{
    (void)state;
    const rl_bc_dim cases[][2] = {
        {dim(0, 3, 2, 1), dim(0, 5, 3, 0)},          /* empty */
        {dim(1, 1, 1, 0), dim(1, 1, 1, 0)},          /* one element */
        {dim(103, 10, 3, 0), dim(103, 7, 2, 1)},     /* n not a multiple of b */
        {dim(50, 64, 3, 2), dim(50, 80, 4, 3)},      /* b > n on both sides */
        {dim(50, 64, 3, 2), dim(50, 7, 4, 3)},       /* b > n on one side */
        {dim(1000, 6, 1, 0), dim(1000, 9, 1, 0)},    /* P = 1 */
        {dim(1000, 6, 4, 3), dim(1000, 6, 4, 1)},    /* b1 = b2, s differs */
        {dim(1000, 6, 4, 2), dim(1000, 6, 4, 2)},    /* identical */
        {dim(4000, 6, 4, 1), dim(4000, 8, 3, 2)},    /* b1 P1 = b2 P2 */
        {dim(4000, 7, 3, 1), dim(4000, 11, 5, 4)},   /* coprime block sizes */
        {dim(5000, 1, 7, 3), dim(5000, 1, 5, 2)},    /* single elements */
        {dim(4999, 3, 2, 1), dim(4999, 2, 3, 2)},    /* interleaved phases */
        {dim(4999, 5, 9, 8), dim(4999, 4, 9, 0)},
        {dim(5000, ((int64_t)1 << 40) + 1, 3, 1), dim(5000, ((int64_t)1 << 40) - 1, 5, 2)}, /* lcm overflows */
        {dim(5000, 3, 2, 1), dim(5000, ((int64_t)1 << 62) + 1, 2, 1)},                    /* b*P overflows */
        {dim_at(1000, 6, 4, 1, 5), dim(1000, 6, 4, 1)},       /* a submatrix: the first block is partial */
        {dim_at(1000, 6, 4, 1, 24), dim_at(1000, 8, 3, 2, 3)}, /* origins a cycle in, and inside a block */
        {dim_at(999, 1, 5, 4, 7), dim_at(999, 32, 2, 1, 100)},
        {dim_at(5000, 3, 2, 1, ((int64_t)1 << 62) - 1), dim(5000, 7, 3, 0)},             /* origin past b*P cycles */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) check_case(cases[c][0], cases[c][1]);
}

/* The identity: each process's blocks are one progression, plus a partial
 * last block. */
static void test_identity_compresses(void **state)
{
    (void)state;
    for (int s = 0; s < 4; s++) {
        rl_bc_dim d = dim(4000 + 3 * s, 6, 4, s);
        int64_t nr = check_case(d, d);
        assert_true(nr <= 4 + 1);
    }
}

/* A side on one process is one block: against P target processes each
 * target process gets one progression of whole target blocks (plus, when
 * the target's origin cuts its first block, the head, and a partial last
 * block), and two sides on one process are one run, whatever the blocks.
 * Also the other way round. */
static void expect_one_per_process(rl_bc_dim one, rl_bc_dim many, int from_one, int64_t most)
{
    int64_t nr = from_one ? check_case(one, many) : check_case(many, one);
    if (nr > most) fail_msg("%lld progressions, at most %lld expected", (long long)nr, (long long)most);
}

static void test_one_process_is_one_block(void **state)
{
    (void)state;
    for (int from_one = 0; from_one < 2; from_one++) {
        expect_one_per_process(dim(4096, 32, 1, 0), dim(4096, 128, 2, 1), from_one, 2);
        expect_one_per_process(dim(4000, 32, 1, 0), dim(4000, 128, 2, 1), from_one, 3);
        expect_one_per_process(dim(100000, 7, 1, 0), dim(100000, 100, 8, 5), from_one, 8 + 1);
        expect_one_per_process(dim_at(4096, 32, 1, 0, 9), dim_at(4096, 128, 2, 1, 50), from_one, 2 + 2);
    }
    rl_run_lattice *r;
    int64_t nr;
    rl_bc_dim f = dim_at(1000, 6, 1, 0, 5), t = dim(1000, 9, 1, 0);
    assert_int_equal(check_case(f, t), 1);
    assert_int_equal(rl_bc_runs(&f, &t, &r, &nr), RELAY_OK);
    assert_true(r[0].len == 1000 && r[0].src0 == 5 && r[0].dst0 == 0);
    free(r);
}

/* ---- compression on COSTA's Figure 3 -------------------------------------------- */

static int64_t *pair_counts(const rl_run_lattice *r, int64_t nr, int pf, int pt)
{
    int64_t *per = calloc((size_t)pf * (size_t)pt, sizeof *per);
    for (int64_t j = 0; j < nr; j++) per[r[j].from * pt + r[j].to]++;
    return per;
}

/* 1 -> 10000 on 10 processes each: the period is n, and each pair's
 * single elements sit in one target block at source stride 10. */
static void test_costa_block_one(void **state)
{
    (void)state;
    rl_bc_dim f = dim(100000, 1, 10, 0), t = dim(100000, 10000, 10, 0);
    assert_int_equal(check_case(f, t), 100);
    rl_run_lattice *r;
    int64_t nr;
    assert_int_equal(rl_bc_runs(&f, &t, &r, &nr), RELAY_OK);
    for (int64_t j = 0; j < nr; j++) {
        assert_int_equal(r[j].count, 1000);
        assert_true(r[j].len == 1 && r[j].gstride == 10 && r[j].src_stride == 1 && r[j].dst_stride == 10);
    }
    free(r);
}

/* 32 -> 128 with P processes on both sides, n a multiple of 32: one
 * progression per pair that meets.  Proof: b_to P = 4 b_from P, so the
 * period is L = 128 P, in which each target process holds one block, made
 * of 4 whole source blocks of 4 distinct processes (P >= 4): every pair
 * has at most one run per period, all runs have length 32, and the runs
 * of the tail are whole source blocks, each the next element of its
 * pair's progression (stride L).  With n not a multiple of 32 the last,
 * shorter run would add one progression: at most 2 per pair. */
static void check_aligned(int64_t n, int P, int s_from, int s_to, int check_indices, int64_t *total)
{
    rl_bc_dim f = dim(n, 32, P, s_from), t = dim(n, 128, P, s_to);
    double t0 = seconds();
    rl_run_lattice *r;
    int64_t nr;
    assert_int_equal(rl_bc_runs(&f, &t, &r, &nr), RELAY_OK);
    double dt = seconds() - t0;
    int64_t *per = pair_counts(r, nr, P, P), covered = 0;
    for (int64_t c = 0; c < (int64_t)P * P; c++) assert_true(per[c] <= (n % 32 ? 2 : 1));
    for (int64_t j = 0; j < nr; j++) covered += r[j].len * r[j].count;
    assert_int_equal(covered, n);
    printf("32 -> 128, P = %d, n = %lld: %lld progressions in %.3f ms\n", P, (long long)n, (long long)nr, dt * 1e3);
    free(per);
    free(r);
    if (check_indices) check_case(f, t);
    *total = nr;
}

static void test_costa_aligned(void **state)
{
    (void)state;
    int64_t nr;
    check_aligned(100000, 64, 0, 0, 1, &nr);
    assert_int_equal(nr, 64 * 4);
    check_aligned(100000, 64, 17, 40, 1, &nr);
    assert_int_equal(nr, 64 * 4);
    check_aligned(100000 + 7, 64, 3, 5, 1, &nr);
    check_aligned(1000000, 256, 0, 0, 1, &nr);
    assert_int_equal(nr, 256 * 4);
}

/* n = 10^12: 1.95 * 10^9 periods of 512, one progression per pair, far
 * faster than any walk over the blocks.  First and last element of every
 * progression are checked against the reference. */
static void test_huge_dimension(void **state)
{
    (void)state;
    int64_t n = 1000000000000, nr;
    double t0 = seconds();
    check_aligned(n, 4, 1, 2, 0, &nr);
    assert_true(seconds() - t0 < 1.0);
    assert_int_equal(nr, 16);
    rl_bc_dim f = dim(n, 32, 4, 1), t = dim(n, 128, 4, 2);
    rl_run_lattice *r;
    assert_int_equal(rl_bc_runs(&f, &t, &r, &nr), RELAY_OK);
    for (int64_t j = 0; j < nr; j++) {
        assert_int_equal(r[j].count, n / 512);
        for (int64_t k = 0; k < r[j].count; k += r[j].count - 1)
            for (int64_t e = 0; e < r[j].len; e += r[j].len - 1) {
                int64_t i = r[j].g0 + k * r[j].gstride + e;
                assert_int_equal(ref_owner(&f, i), r[j].from);
                assert_int_equal(ref_owner(&t, i), r[j].to);
                assert_int_equal(ref_local(&f, i), r[j].src0 + k * r[j].src_stride + e);
                assert_int_equal(ref_local(&t, i), r[j].dst0 + k * r[j].dst_stride + e);
            }
    }
    free(r);
}

/* ---- refusals ---------------------------------------------------------------------- */

static void expect_refusal(rl_bc_dim f, rl_bc_dim t, const char *words)
{
    rl_run_lattice sentinel, *r = &sentinel;
    int64_t nr = -7;
    assert_int_equal(rl_bc_runs(&f, &t, &r, &nr), RELAY_ERR_ARG);
    assert_ptr_equal(r, &sentinel);
    assert_int_equal(nr, -7);
    if (!strstr(relay_last_error(), words)) fail_msg("message \"%s\" lacks \"%s\"", relay_last_error(), words);
}

static void test_refusals(void **state)
{
    (void)state;
    rl_bc_dim ok = dim(100, 4, 2, 0);
    expect_refusal(dim(-1, 4, 2, 0), dim(-1, 4, 2, 0), "negative");
    expect_refusal(ok, dim(100, 0, 2, 0), "block size");
    expect_refusal(dim(100, 4, 0, 0), ok, "processes");
    expect_refusal(dim(100, 4, 2, 2), ok, "outside [0, 2)");
    expect_refusal(ok, dim(100, 4, 2, -1), "outside [0, 2)");
    expect_refusal(ok, dim(101, 4, 2, 0), "differ");
    /* a period longer than n, of 2^40 single elements */
    int64_t big = (int64_t)1 << 40;
    expect_refusal(dim(big, 1, 2, 0), dim(big, big / 2 + 1, 2, 0), "2^31");
    /* the period overflows: the whole of n is one period, of 2^62 runs */
    expect_refusal(dim(INT64_MAX, 2, 3, 0), dim(INT64_MAX, ((int64_t)1 << 61) - 1, 5, 0), "2^31");
    rl_run_lattice *r;
    int64_t nr;
    assert_int_equal(rl_bc_runs(NULL, &ok, &r, &nr), RELAY_ERR_ARG);
    assert_int_equal(rl_bc_runs(&ok, &ok, NULL, &nr), RELAY_ERR_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_hand_picked),
        cmocka_unit_test(test_identity_compresses),
        cmocka_unit_test(test_one_process_is_one_block),
        cmocka_unit_test(test_costa_block_one),
        cmocka_unit_test(test_costa_aligned),
        cmocka_unit_test(test_huge_dimension),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
