/* test_algebra.c — plan algebra without MPI: what relay_plan_compose,
 * relay_plan_invert and relay_plan_concat refuse (and that a refusal
 * leaves *out alone), BMMC plans composed by Lemma 1, and relabeled
 * layouts planned again.  The replays of composed, inverted and
 * concatenated plans are mpi_algebra's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "relay/relay.h"

static relay_plan *const UNTOUCHED = (relay_plan *)&UNTOUCHED;

static relay_layout *bc(int64_t m, int64_t n, int64_t mb, int64_t nb, int nprow, int npcol, int csrc)
{
    relay_layout *l = NULL;
    assert_int_equal(relay_layout_block_cyclic(&l, m, n, mb, nb, nprow, npcol, RELAY_ROW_MAJOR, 0, csrc, 0, RELAY_COL_MAJOR),
                     RELAY_OK);
    return l;
}

static relay_plan *transform(int nranks, const relay_layout *dst, const relay_layout *src, relay_op op, relay_type type,
                             relay_relabel relabel)
{
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.relabel = relabel;
    relay_plan *p = NULL;
    assert_int_equal(relay_plan_transform(&p, nranks, dst, src, op, type, &o), RELAY_OK);
    return p;
}

static relay_plan *bmmc(const relay_bmmc *perm, int p)
{
    relay_plan *plan = NULL;
    assert_int_equal(relay_plan_bmmc(&plan, perm, p, perm->n - p, 8), RELAY_OK);
    return plan;
}

/* Asserts that a call failed with `want` and left *out as it was. */
static void assert_refused(relay_status got, relay_status want, relay_plan *out)
{
    assert_int_equal(got, want);
    assert_ptr_equal(out, UNTOUCHED);
    assert_true(strlen(relay_last_error()) > 0);
}

static void test_refusals_leave_out_alone(void **state)
{
    (void)state;
    relay_layout *a = bc(24, 16, 4, 4, 1, 2, 0), *b = bc(16, 24, 4, 4, 2, 1, 0), *a3 = bc(24, 16, 4, 4, 1, 3, 0);
    relay_plan *t = transform(2, a, b, RELAY_OP_T, RELAY_DOUBLE, RELAY_RELABEL_NONE);
    relay_plan *t3 = transform(3, a3, b, RELAY_OP_T, RELAY_DOUBLE, RELAY_RELABEL_NONE);
    relay_plan *tz = transform(2, a, b, RELAY_OP_T, RELAY_CDOUBLE, RELAY_RELABEL_NONE);
    relay_plan *not_chained = transform(2, b, b, RELAY_OP_N, RELAY_DOUBLE, RELAY_RELABEL_NONE);
    relay_bmmc perm;
    relay_bmmc_bit_reversal(&perm, 6);
    relay_plan *m = bmmc(&perm, 1), *h = NULL, *out = UNTOUCHED;
    relay_hsumma_params hp;
    relay_hsumma_params_init(&hp, 8, 8, 8, 1, 2, RELAY_DOUBLE);
    hp.group_rows = hp.group_cols = 1;
    assert_int_equal(relay_plan_hsumma(&h, &hp), RELAY_OK);

    assert_refused(relay_plan_compose(&out, NULL, t), RELAY_ERR_ARG, out);
    assert_refused(relay_plan_invert(NULL, t), RELAY_ERR_ARG, out);
    assert_refused(relay_plan_concat(&out, t, NULL), RELAY_ERR_ARG, out);
    assert_refused(relay_plan_compose(&out, t, m), RELAY_ERR_MISMATCH, out);
    assert_refused(relay_plan_compose(&out, h, h), RELAY_ERR_UNSUPPORTED, out);
    assert_refused(relay_plan_invert(&out, h), RELAY_ERR_UNSUPPORTED, out);
    assert_refused(relay_plan_concat(&out, m, m), RELAY_ERR_UNSUPPORTED, out);
    assert_refused(relay_plan_concat(&out, t, t3), RELAY_ERR_MISMATCH, out);
    assert_refused(relay_plan_concat(&out, t, tz), RELAY_ERR_MISMATCH, out);
    /* t delivers A (24 x 16 on 1 x 2); not_chained reads a 16 x 24 matrix. */
    assert_refused(relay_plan_compose(&out, t, not_chained), RELAY_ERR_MISMATCH, out);
    assert_non_null(strstr(relay_last_error(), "not the layout the first plan delivers"));

    relay_plan *pairs[] = {t, t3, tz, not_chained, m, h};
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) relay_plan_free(pairs[i]);
    relay_layout_free(a);
    relay_layout_free(a3);
    relay_layout_free(b);
}

/* T and C together conjugate without transposing: refused for complex
 * types, N for real ones (where C is T). */
static void test_transpose_with_conjugate_transpose(void **state)
{
    (void)state;
    relay_layout *a = bc(24, 16, 4, 4, 1, 2, 0), *b = bc(16, 24, 4, 4, 2, 1, 0);
    relay_plan *tz = transform(2, a, b, RELAY_OP_T, RELAY_CFLOAT, RELAY_RELABEL_NONE);
    relay_plan *cz = transform(2, b, a, RELAY_OP_C, RELAY_CFLOAT, RELAY_RELABEL_NONE);
    relay_plan *td = transform(2, a, b, RELAY_OP_T, RELAY_FLOAT, RELAY_RELABEL_NONE);
    relay_plan *cd = transform(2, b, a, RELAY_OP_C, RELAY_FLOAT, RELAY_RELABEL_NONE);
    relay_plan *out = UNTOUCHED;
    assert_refused(relay_plan_compose(&out, tz, cz), RELAY_ERR_UNSUPPORTED, out);
    assert_int_equal(relay_plan_compose(&out, td, cd), RELAY_OK);
    relay_plan_stats s;
    assert_int_equal(relay_plan_get_stats(out, &s), RELAY_OK);
    assert_int_equal(s.bytes_remote, 0); /* B -> A -> B: every element back in place */
    relay_plan_free(out);
    out = UNTOUCHED;
    assert_int_equal(relay_plan_compose(&out, cz, tz), RELAY_ERR_UNSUPPORTED);
    relay_plan_free(tz);
    relay_plan_free(cz);
    relay_plan_free(td);
    relay_plan_free(cd);
    relay_layout_free(a);
    relay_layout_free(b);
}

static void assert_same_bmmc(const relay_plan *p, const relay_bmmc *want)
{
    relay_bmmc_info info;
    assert_int_equal(relay_plan_bmmc_info(p, &info), RELAY_OK);
    for (uint64_t x = 0; x < (uint64_t)1 << want->n; x++) assert_int_equal(relay_bmmc_apply(&info.perm, x), relay_bmmc_apply(want, x));
}

static void test_bmmc_compose_and_invert(void **state)
{
    (void)state;
    relay_bmmc first, second, both, back;
    relay_bmmc_transpose(&first, 3, 4);
    relay_bmmc_gray_code(&second, 7);
    second.complement = 0x25;
    relay_plan *p1 = bmmc(&first, 2), *p2 = bmmc(&second, 2), *out = NULL;
    assert_int_equal(relay_plan_compose(&out, p1, p2), RELAY_OK);
    relay_bmmc_compose(&both, &first, &second);
    assert_same_bmmc(out, &both);
    relay_plan_free(out);
    assert_int_equal(relay_plan_invert(&out, p2), RELAY_OK);
    relay_bmmc_inverse(&back, &second);
    assert_same_bmmc(out, &back);
    relay_plan_free(out);
    relay_plan *other_ranks = bmmc(&second, 3);
    out = UNTOUCHED;
    assert_refused(relay_plan_compose(&out, p1, other_ranks), RELAY_ERR_MISMATCH, out);
    relay_plan_free(other_ranks);
    relay_plan_free(p1);
    relay_plan_free(p2);
}

/* A relabeled plan's destination layout can be planned from, and the two
 * plans compose; its inverse reads that layout too.  The optimal
 * relabeling of a 1 x 2 grid shifted by one process column swaps the ranks. */
static void test_relabeled_layouts_chain(void **state)
{
    (void)state;
    relay_layout *a = bc(32, 40, 4, 4, 1, 2, 1), *b = bc(32, 40, 4, 4, 1, 2, 0), *c = bc(40, 32, 8, 8, 2, 1, 0);
    relay_plan *ab = transform(2, a, b, RELAY_OP_N, RELAY_DOUBLE, RELAY_RELABEL_OPTIMAL);
    int sigma[2];
    relay_plan_relabeling(ab, sigma);
    assert_int_equal(sigma[0], 1);
    relay_plan *bc_ = transform(2, c, relay_plan_dst_layout(ab, 0), RELAY_OP_T, RELAY_DOUBLE, RELAY_RELABEL_NONE);
    relay_plan *ac = NULL, *ba = NULL, *back = NULL;
    assert_int_equal(relay_plan_compose(&ac, ab, bc_), RELAY_OK);
    assert_int_equal(relay_plan_invert(&ba, ab), RELAY_OK);
    relay_plan_stats s;
    assert_int_equal(relay_plan_get_stats(ab, &s), RELAY_OK);
    assert_int_equal(s.bytes_remote, 0); /* the relabeling made the shift local */
    assert_int_equal(relay_plan_compose(&back, ab, ba), RELAY_OK);
    assert_int_equal(relay_plan_get_stats(back, &s), RELAY_OK);
    assert_int_equal(s.bytes_remote, 0);
    assert_int_equal(s.bytes_total, 32 * 40 * 8);
    relay_plan *plans[] = {ab, bc_, ac, ba, back};
    for (size_t i = 0; i < sizeof plans / sizeof *plans; i++) relay_plan_free(plans[i]);
    relay_layout_free(a);
    relay_layout_free(b);
    relay_layout_free(c);
}

/* A relabeled layout of more blocks than a grid restates is refused, and
 * one with sigma the identity is planned as it was given. */
static void test_restating_is_bounded(void **state)
{
    (void)state;
    int64_t n = ((int64_t)1 << 22) + 2;
    relay_layout *a = bc(1, n, 1, 1, 1, 2, 1), *b = bc(1, n, 1, 1, 1, 2, 0);
    relay_plan *ab = transform(2, a, b, RELAY_OP_N, RELAY_FLOAT, RELAY_RELABEL_OPTIMAL), *out = UNTOUCHED;
    assert_refused(relay_plan_invert(&out, ab), RELAY_ERR_UNSUPPORTED, out);
    assert_non_null(strstr(relay_last_error(), "too large to restate"));
    relay_plan *same = transform(2, b, b, RELAY_OP_N, RELAY_FLOAT, RELAY_RELABEL_NONE), *back = NULL;
    assert_int_equal(relay_plan_invert(&back, same), RELAY_OK);
    /* ... and such layouts chain by their formulas, not block by block. */
    assert_int_equal(relay_plan_compose(&out, same, back), RELAY_OK);
    relay_plan_stats s;
    assert_int_equal(relay_plan_get_stats(out, &s), RELAY_OK);
    assert_int_equal(s.bytes_remote, 0);
    relay_plan_free(out);
    relay_plan_free(back);
    relay_plan_free(ab);
    relay_plan_free(same);
    relay_layout_free(a);
    relay_layout_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refusals_leave_out_alone),
        cmocka_unit_test(test_transpose_with_conjugate_transpose),
        cmocka_unit_test(test_bmmc_compose_and_invert),
        cmocka_unit_test(test_relabeled_layouts_chain),
        cmocka_unit_test(test_restating_is_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
