/* test_bmmc.c — BMMC permutations by planning alone (Cormen's BMMC paper).
 *
 * The constructors must be the permutations their names say, checked index
 * by index against their definitions; composition and inverse must follow
 * Lemma 1.  On random nonsingular matrices and every rank-bit position f,
 * the factors must multiply back to the permutation (in processor-major
 * coordinates) with the structure section 4 promises, and Lemma 3 must
 * hold of the permutation itself, counted serially: each rank sends to
 * exactly 2^r ranks, N / (2^r P) elements each, where r is the rank of the
 * lower-left block, computed here independently.  Singular matrices and
 * bad arguments are refused with a message.  Plans round-trip through the
 * codec in a few hundred bytes, and a decoder refuses factors that do not
 * multiply to the permutation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "plan_internal.h"
#include "reference.h"
#include "relay/bmmc.h"

/* ---- the constructors against their definitions ------------------------- */

static void expect_permutation(const relay_bmmc *m, uint64_t (*want)(uint64_t x, int n, int param), int param)
{
    for (uint64_t x = 0; x < 1ull << m->n; x++) {
        uint64_t got = ref_bmmc_target(m->columns, m->complement, m->n, x);
        if (got != want(x, m->n, param)) fail_msg("n = %d, x = %llu: got %llu, want %llu", m->n, (unsigned long long)x,
                                                  (unsigned long long)got, (unsigned long long)want(x, m->n, param));
        assert_int_equal(relay_bmmc_apply(m, x), got);
    }
}

static uint64_t want_identity(uint64_t x, int n, int param) { return x; }
static uint64_t want_vector_reversal(uint64_t x, int n, int param) { return (1ull << n) - 1 - x; }
static uint64_t want_gray(uint64_t x, int n, int param) { return x ^ (x >> 1); }
static uint64_t want_bit_reversal(uint64_t x, int n, int param)
{
    uint64_t y = 0;
    for (int i = 0; i < n; i++) y |= (x >> i & 1) << (n - 1 - i);
    return y;
}
static uint64_t want_shuffle(uint64_t x, int n, int param)
{
    uint64_t last = (1ull << n) - 1;
    return x == last ? last : 2 * x % last;
}
static uint64_t want_unshuffle(uint64_t x, int n, int param)
{
    return x >> 1 | (x & 1) << (n - 1); /* the inverse of y = 2x mod (N-1): rotate right */
}
/* Element (i, j) of a column-major 2^a x 2^b matrix, at i + 2^a j, goes to
 * (j, i) of the 2^b x 2^a transpose, at j + 2^b i. */
static uint64_t want_transpose(uint64_t x, int n, int a)
{
    uint64_t rows = 1ull << a, i = x % rows, j = x / rows;
    return j + (1ull << (n - a)) * i;
}

static void test_constructors(void **state)
{
    relay_bmmc m;
    for (int n = 1; n <= 9; n++) {
        assert_int_equal(relay_bmmc_identity(&m, n), RELAY_OK);
        expect_permutation(&m, want_identity, 0);
        assert_int_equal(relay_bmmc_vector_reversal(&m, n), RELAY_OK);
        expect_permutation(&m, want_vector_reversal, 0);
        assert_int_equal(relay_bmmc_gray_code(&m, n), RELAY_OK);
        expect_permutation(&m, want_gray, 0);
        assert_int_equal(relay_bmmc_bit_reversal(&m, n), RELAY_OK);
        expect_permutation(&m, want_bit_reversal, 0);
        assert_int_equal(relay_bmmc_shuffle(&m, n), RELAY_OK);
        expect_permutation(&m, want_shuffle, 0);
        assert_int_equal(relay_bmmc_unshuffle(&m, n), RELAY_OK);
        expect_permutation(&m, want_unshuffle, 0);
        for (int a = 0; a <= n; a++) {
            assert_int_equal(relay_bmmc_transpose(&m, a, n - a), RELAY_OK);
            expect_permutation(&m, want_transpose, a);
        }
    }
    assert_int_equal(relay_bmmc_identity(&m, 0), RELAY_ERR_ARG);
    assert_int_equal(relay_bmmc_bit_reversal(&m, RELAY_BMMC_MAX_BITS + 1), RELAY_ERR_ARG);
    assert_int_equal(relay_bmmc_transpose(&m, -1, 3), RELAY_ERR_ARG);
    assert_int_equal(relay_bmmc_gray_code(NULL, 3), RELAY_ERR_ARG);
}

static void random_perm(ref_rng *r, int n, relay_bmmc *m)
{
    memset(m, 0, sizeof *m);
    m->n = n;
    ref_bmmc_random(r, n, m->columns);
    m->complement = ref_rng_next(r) & ((1ull << n) - 1);
    assert_true(ref_bmmc_nonsingular(m->columns, n));
}

/* Lemma 1: composition applies the first then the second; the inverse undoes. */
static void test_compose_and_inverse(void **state)
{
    ref_rng r;
    ref_rng_seed(&r, 7);
    for (int trial = 0; trial < 200; trial++) {
        int n = (int)ref_rng_range(&r, 1, 12);
        relay_bmmc a, b, ab, inv, id;
        random_perm(&r, n, &a);
        random_perm(&r, n, &b);
        assert_int_equal(relay_bmmc_compose(&ab, &a, &b), RELAY_OK);
        assert_int_equal(relay_bmmc_inverse(&inv, &a), RELAY_OK);
        assert_int_equal(relay_bmmc_compose(&id, &a, &inv), RELAY_OK);
        for (int k = 0; k < 64; k++) {
            uint64_t x = ref_rng_next(&r) & ((1ull << n) - 1);
            uint64_t ya = ref_bmmc_target(a.columns, a.complement, n, x);
            assert_int_equal(ref_bmmc_target(ab.columns, ab.complement, n, x), ref_bmmc_target(b.columns, b.complement, n, ya));
            assert_int_equal(ref_bmmc_target(inv.columns, inv.complement, n, ya), x);
            assert_int_equal(ref_bmmc_target(id.columns, id.complement, n, x), x);
        }
    }
    relay_bmmc a, b;
    relay_bmmc_identity(&a, 4);
    relay_bmmc_identity(&b, 5);
    assert_int_equal(relay_bmmc_compose(&a, &a, &b), RELAY_ERR_ARG);
    a.columns[3] = a.columns[2];
    assert_int_equal(relay_bmmc_inverse(&b, &a), RELAY_ERR_ARG);
    assert_non_null(strstr(relay_last_error(), "singular"));
}

/* ---- factoring and Lemma 3 ------------------------------------------------- */

/* The rank bits of an index in the actual layout (bits f .. f+p-1). */
static uint64_t rank_of_index(uint64_t x, int p, int f) { return x >> f & ((1ull << p) - 1); }

/* The rank over GF(2) of A's rows f..f+p-1 restricted to the columns outside
 * them: the lower-left block in processor-major coordinates. */
static int lower_left_rank(const relay_bmmc *m, int p, int f)
{
    uint64_t vecs[64];
    int count = 0, rank = 0;
    for (int j = 0; j < m->n; j++)
        if (j < f || j >= f + p) vecs[count++] = rank_of_index(m->columns[j], p, f);
    for (int bit = 0; bit < p; bit++) {
        int piv = rank;
        while (piv < count && !(vecs[piv] >> bit & 1)) piv++;
        if (piv == count) continue;
        uint64_t t = vecs[rank]; vecs[rank] = vecs[piv]; vecs[piv] = t;
        for (int i = 0; i < count; i++)
            if (i != rank && (vecs[i] >> bit & 1)) vecs[i] ^= vecs[rank];
        rank++;
    }
    return rank;
}

/* Lemma 3 counted element by element: every source rank sends to 2^r
 * ranks, N / (2^r P) elements each. */
static void expect_lemma3(const relay_bmmc *m, int p, int f, int r)
{
    int n = m->n, P = 1 << p;
    int64_t *count = calloc((size_t)P, sizeof *count);
    assert_non_null(count);
    for (int src = 0; src < P; src++) {
        memset(count, 0, (size_t)P * sizeof *count);
        for (uint64_t x = 0; x < 1ull << n; x++)
            if ((int)rank_of_index(x, p, f) == src) count[rank_of_index(ref_bmmc_target(m->columns, m->complement, n, x), p, f)]++;
        int targets = 0;
        for (int t = 0; t < P; t++) {
            if (!count[t]) continue;
            targets++;
            assert_int_equal(count[t], (1ll << n) / ((1ll << r) * P));
        }
        assert_int_equal(targets, 1 << r);
    }
    free(count);
}

/* y = V (W x) ^ c_v in processor-major coordinates must be A's permutation
 * in the actual layout, W must keep every element on its rank, and V's
 * lower-left block must be zero but for its last r columns. */
static void expect_factors(const relay_bmmc_info *info)
{
    int n = info->n, p = info->p, f = info->f, off = n - p;
    for (uint64_t xpm = 0; xpm < 1ull << n; xpm++) {
        uint64_t wx = ref_bmmc_target(info->w.columns, 0, n, xpm);
        assert_int_equal(wx >> off, xpm >> off);
        uint64_t ypm = ref_bmmc_target(info->v.columns, info->v.complement, n, wx);
        /* processor-major (offset o, rank k) is actual: low f bits of o, then k, then o's rest */
        uint64_t xa = (xpm & ((1ull << f) - 1)) | (xpm >> off) << f | (xpm >> f & ((1ull << (off - f)) - 1)) << (f + p);
        uint64_t ya = ref_bmmc_target(info->perm.columns, info->perm.complement, n, xa);
        uint64_t ya_pm = (ya & ((1ull << f) - 1)) | (ya >> (f + p)) << f | rank_of_index(ya, p, f) << off;
        assert_int_equal(ypm, ya_pm);
    }
    for (int j = 0; j < off - info->rank; j++) assert_int_equal(info->v.columns[j] >> off, 0);
}

static void test_factors_and_lemma3(void **state)
{
    ref_rng r;
    ref_rng_seed(&r, 2026);
    int ranks_seen[8] = {0};
    for (int trial = 0; trial < 300; trial++) {
        int n = (int)ref_rng_range(&r, 1, 11), p = (int)ref_rng_range(&r, 0, n < 4 ? n : 4), f = (int)ref_rng_range(&r, 0, n - p);
        relay_bmmc m;
        relay_plan *plan;
        relay_bmmc_info info;
        random_perm(&r, n, &m);
        assert_int_equal(relay_plan_bmmc(&plan, &m, p, f, 8), RELAY_OK);
        assert_int_equal(relay_plan_get_kind(plan), RELAY_PLAN_BMMC);
        assert_int_equal(relay_plan_nranks(plan), 1 << p);
        assert_int_equal(relay_plan_bmmc_info(plan, &info), RELAY_OK);
        assert_int_equal(info.rank, lower_left_rank(&m, p, f));
        ranks_seen[info.rank]++;
        expect_factors(&info);
        expect_lemma3(&m, p, f, info.rank);
        relay_plan_free(plan);
    }
    for (int k = 0; k <= 4; k++) assert_true(ranks_seen[k] > 0); /* every partner count met */
}

/* Hand-picked: bit reversal of 2^6 on 4 ranks processor-major sends every
 * rank's elements round robin to all 4 (r = 2); the identity and a Gray
 * code on the rank bits only need r = 0 and no message. */
static void test_hand_picked(void **state)
{
    relay_bmmc m;
    relay_plan *plan;
    relay_bmmc_info info;
    relay_plan_stats st;
    relay_bmmc_bit_reversal(&m, 6);
    assert_int_equal(relay_plan_bmmc(&plan, &m, 2, 4, 8), RELAY_OK);
    relay_plan_bmmc_info(plan, &info);
    assert_int_equal(info.rank, 2);
    relay_plan_get_stats(plan, &st);
    assert_int_equal(st.messages, 4 * 3);
    assert_int_equal(st.bytes_remote, 64 * 8 * 3 / 4);
    relay_plan_free(plan);
    relay_bmmc_identity(&m, 6);
    m.complement = 0x30; /* ranks swap 0<->3, 1<->2: one message each, r = 0 */
    assert_int_equal(relay_plan_bmmc(&plan, &m, 2, 4, 8), RELAY_OK);
    relay_plan_bmmc_info(plan, &info);
    assert_int_equal(info.rank, 0);
    relay_plan_get_stats(plan, &st);
    assert_int_equal(st.messages, 4);
    assert_int_equal(st.bytes_remote, 64 * 8);
    relay_plan_free(plan);
    /* y_4 = x_4 ^ x_0: half of each rank's elements go to rank k ^ 1 (r = 1,
     * one message per rank); with complement bit 5 as well, none stays. */
    relay_bmmc_identity(&m, 6);
    m.columns[0] |= 1ull << 4;
    for (int c = 0; c < 2; c++) {
        m.complement = c ? 0x20 : 0;
        assert_int_equal(relay_plan_bmmc(&plan, &m, 2, 4, 8), RELAY_OK);
        relay_plan_bmmc_info(plan, &info);
        assert_int_equal(info.rank, 1);
        relay_plan_get_stats(plan, &st);
        assert_int_equal(st.messages, c ? 8 : 4);
        assert_int_equal(st.bytes_remote, c ? 512 : 256);
        relay_plan_free(plan);
    }
}

static void test_bad_arguments(void **state)
{
    relay_bmmc m;
    relay_plan *plan = (relay_plan *)&m; /* must stay untouched */
    relay_bmmc_identity(&m, 8);
    m.columns[5] = m.columns[1];
    assert_int_equal(relay_plan_bmmc(&plan, &m, 2, 0, 8), RELAY_ERR_ARG);
    assert_non_null(strstr(relay_last_error(), "singular"));
    assert_ptr_equal(plan, (relay_plan *)&m);
    relay_bmmc_identity(&m, 8);
    assert_int_equal(relay_plan_bmmc(&plan, &m, 9, 0, 8), RELAY_ERR_ARG);
    assert_int_equal(relay_plan_bmmc(&plan, &m, 3, 6, 8), RELAY_ERR_ARG);
    assert_int_equal(relay_plan_bmmc(&plan, &m, 3, -1, 8), RELAY_ERR_ARG);
    assert_int_equal(relay_plan_bmmc(&plan, &m, 3, 0, 0), RELAY_ERR_ARG);
    relay_bmmc_identity(&m, 62);
    assert_int_equal(relay_plan_bmmc(&plan, &m, 2, 0, 2), RELAY_ERR_ARG); /* 2^63 bytes */
    assert_int_equal(relay_plan_bmmc(&plan, &m, 24, 0, 1), RELAY_OK);     /* 2^62 bytes: a plan, never bound here */
    relay_plan_free(plan);
    plan = (relay_plan *)&m;
    relay_bmmc_identity(&m, 8);
    m.columns[2] |= 1ull << 9;
    assert_int_equal(relay_plan_bmmc(&plan, &m, 3, 0, 8), RELAY_ERR_ARG);
    relay_bmmc_identity(&m, 8);
    m.complement = 1ull << 8;
    assert_int_equal(relay_plan_bmmc(&plan, &m, 3, 0, 8), RELAY_ERR_ARG);
    assert_int_equal(relay_plan_bmmc(NULL, &m, 3, 0, 8), RELAY_ERR_ARG);
    assert_ptr_equal(plan, (relay_plan *)&m);
    relay_bmmc_info info;
    relay_plan *t;
    relay_layout *l;
    assert_int_equal(relay_layout_block_cyclic(&l, 4, 4, 2, 2, 1, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_plan_transform(&t, 1, l, l, RELAY_OP_N, RELAY_DOUBLE, NULL), RELAY_OK);
    assert_int_equal(relay_plan_bmmc_info(t, &info), RELAY_ERR_ARG);
    relay_plan_free(t);
    relay_layout_free(l);
}

/* ---- plan files ------------------------------------------------------------ */

static void test_codec_round_trip(void **state)
{
    ref_rng r;
    ref_rng_seed(&r, 40);
    relay_bmmc m;
    relay_plan *plan, *back;
    relay_bmmc_info a, b;
    void *buf;
    size_t len;
    random_perm(&r, 40, &m);
    assert_int_equal(relay_plan_bmmc(&plan, &m, 16, 5, 16), RELAY_OK);
    assert_int_equal(relay_plan_encode(plan, &buf, &len), RELAY_OK);
    print_message("n = 40, p = 16: the plan takes %zu bytes\n", len);
    assert_true(len < 768); /* O(n) words: two 40 x 40 bit matrices and a few fields */
    for (int rank = -1; rank < 2; rank++) {
        assert_int_equal(relay_plan_decode(&back, buf, len, rank), RELAY_OK);
        assert_int_equal(relay_plan_fingerprint(back), relay_plan_fingerprint(plan));
        relay_plan_bmmc_info(plan, &a);
        relay_plan_bmmc_info(back, &b);
        assert_memory_equal(&a, &b, sizeof a);
        relay_plan_free(back);
    }
    for (size_t cut = 0; cut < len; cut += 7) assert_int_not_equal(relay_plan_decode(&back, buf, cut, -1), RELAY_OK);
    free(buf);
    /* Factors without the structure the executor relies on: the decoder
     * must refuse them even when every checksum is right (a hostile file
     * recomputes them). */
    const struct {
        int w, col;
        uint64_t flip;
        const char *why;
    } tamper[] = {
        {1, 0, 1ull << 30, "moves elements between ranks"},  /* W's lower-left block */
        {0, 0, 1ull << 39, "not reduced"},                   /* V's lower-left block */
        {0, 30, 0, "singular"},                              /* V's column 30 := column 31 */
    };
    for (size_t t = 0; t < sizeof tamper / sizeof *tamper; t++) {
        rl_bmmc saved = *plan->bmmc;
        rl_gf2 *f = tamper[t].w ? &plan->bmmc->w : &plan->bmmc->v;
        f->col[tamper[t].col] = tamper[t].flip ? f->col[tamper[t].col] ^ tamper[t].flip : f->col[tamper[t].col + 1];
        rl_bmmc_from_factors(plan->bmmc);
        plan->fingerprint = rl_plan_hash(plan);
        assert_int_equal(relay_plan_encode(plan, &buf, &len), RELAY_OK);
        assert_int_equal(relay_plan_decode(&back, buf, len, -1), RELAY_ERR_FORMAT);
        if (!strstr(relay_last_error(), tamper[t].why)) fail_msg("case %zu: %s", t, relay_last_error());
        free(buf);
        *plan->bmmc = saved;
    }
    relay_plan_free(plan);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constructors),     cmocka_unit_test(test_compose_and_inverse),
        cmocka_unit_test(test_factors_and_lemma3), cmocka_unit_test(test_hand_picked),
        cmocka_unit_test(test_bad_arguments),    cmocka_unit_test(test_codec_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
