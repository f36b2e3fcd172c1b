/* test_reshape.c — ReSHAPE's schedule against the paper (003, Table 2), by
 * planning alone.
 *
 * For every (P, Q) expansion of Table 2 on the nearly-square grids of
 * Table 1, a matrix of exactly one superblock (R x C blocks) is planned
 * with the rounds schedule over max(P, Q) ranks, and the plan must show the
 * paper's columns: communication steps (the plan's rounds), local copies
 * (ranks that copy locally) and remote sends (messages).  The steps must
 * also be the paper's C_Transfer table itself: rank p's transfer in step s
 * goes to C_Transfer(s, p).  Shrinks, whose tables cannot be contention-free
 * (a rank must receive more cells than there are steps), fall back to the
 * minimum-step colouring, which must still give every rank at most one
 * transfer per step.  Larger matrices with partial superblocks keep the
 * table's step count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "planner_internal.h"

typedef struct {
    int p, q, steps, copies, sends;
} table2_row;

/* Table 2, nearly-square columns (the 10/5 of the last two rows is the
 * nearly-square/skewed pair of step counts; 10 is the nearly-square one). */
static const table2_row table2[] = {
    {2, 4, 2, 2, 2},     {4, 6, 3, 3, 9},      {4, 8, 2, 2, 6},      {6, 9, 3, 6, 12},    {8, 16, 2, 8, 8},
    {9, 12, 4, 6, 30},   {12, 16, 4, 12, 36},  {16, 20, 5, 10, 70},  {20, 25, 5, 20, 80}, {25, 30, 6, 15, 135},
    {25, 40, 8, 7, 193}, {30, 36, 6, 30, 150}, {36, 48, 4, 12, 132}, {4, 20, 10, 2, 38},  {8, 40, 10, 8, 72},
};

/* Table 1's nearly-square grid of p ranks. */
static void nearly_square(int p, int *rows, int *cols)
{
    static const int grids[][3] = {{2, 1, 2}, {4, 2, 2}, {6, 2, 3},  {8, 2, 4},  {9, 3, 3},  {12, 3, 4}, {16, 4, 4},
                                   {20, 4, 5}, {25, 5, 5}, {30, 5, 6}, {36, 6, 6}, {40, 5, 8}, {48, 6, 8}};
    for (size_t k = 0; k < sizeof grids / sizeof *grids; k++)
        if (grids[k][0] == p) {
            *rows = grids[k][1];
            *cols = grids[k][2];
            return;
        }
    fail_msg("no nearly-square grid for %d ranks", p);
}

static relay_plan *plan_resize(int pr, int pc, int qr, int qc, int64_t brows, int64_t bcols)
{
    relay_layout *from, *to;
    relay_plan *p;
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.schedule = RELAY_SCHED_ROUNDS;
    int P = pr * pc, Q = qr * qc;
    assert_int_equal(relay_layout_block_cyclic(&from, 2 * brows, 2 * bcols, 2, 2, pr, pc, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_layout_block_cyclic(&to, 2 * brows, 2 * bcols, 2, 2, qr, qc, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_plan_transform(&p, P > Q ? P : Q, to, from, RELAY_OP_N, RELAY_DOUBLE, &o), RELAY_OK);
    relay_layout_free(from);
    relay_layout_free(to);
    for (int r = 0; r < relay_plan_nranks(p); r++) assert_int_equal(rl_section_validate(p->sections[r], p), RELAY_OK);
    return p;
}

static int step_of_message(const rl_section *s, int64_t peer)
{
    for (int k = 0; k < s->nsend; k++)
        if (s->send[k].peer == peer) return (int)s->send_round[k];
    return -1;
}

static void test_table2_expansions(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof table2 / sizeof *table2; t++) {
        const table2_row *row = &table2[t];
        int pr = 1, pc = 1, qr = 1, qc = 1;
        nearly_square(row->p, &pr, &pc);
        nearly_square(row->q, &qr, &qc);
        rl_reshape *rs;
        assert_int_equal(rl_reshape_table(&rs, pr, pc, qr, qc), RELAY_OK);
        assert_int_equal(rs->steps, row->steps);
        assert_int_equal(rs->copies, row->copies);
        assert_int_equal(rs->sends, row->sends);
        assert_true(rs->contention_free);

        relay_plan *p = plan_resize(pr, pc, qr, qc, rs->R, rs->C);
        relay_plan_stats st;
        relay_plan_get_stats(p, &st);
        int copying = 0;
        for (int r = 0; r < p->nranks; r++) copying += p->sections[r]->nlocal > 0;
        assert_int_equal(relay_plan_rounds(p), row->steps);
        assert_int_equal(copying, row->copies);
        assert_int_equal(st.messages, row->sends);
        for (int64_t s = 0; s < rs->steps; s++)
            for (int src = 0; src < row->p; src++) {
                int dst = rs->transfer[s * row->p + src];
                const rl_section *sec = p->sections[src];
                assert_int_equal(dst == src ? sec->local_round : step_of_message(sec, dst), s);
            }
        relay_plan_free(p);
        rl_reshape_free(rs);
    }
}

/* The reverse moves: no table can be contention-free, the colouring takes
 * over with the minimum number of steps, (R*C)/Q. */
static void test_shrinks_fall_back_to_colouring(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof table2 / sizeof *table2; t++) {
        const table2_row *row = &table2[t];
        if (row->q > 16) continue; /* keeps the unit test quick */
        int pr = 1, pc = 1, qr = 1, qc = 1;
        nearly_square(row->q, &pr, &pc);
        nearly_square(row->p, &qr, &qc);
        rl_reshape *rs;
        assert_int_equal(rl_reshape_table(&rs, pr, pc, qr, qc), RELAY_OK);
        assert_false(rs->contention_free);
        relay_plan *p = plan_resize(pr, pc, qr, qc, rs->R, rs->C);
        assert_int_equal(relay_plan_rounds(p), rs->R * rs->C / (qr * qc));
        relay_plan_free(p);
        rl_reshape_free(rs);
    }
}

/* Matrices of several superblocks and a partial one keep the table's steps. */
static void test_partial_superblocks(void **state)
{
    (void)state;
    relay_plan *p = plan_resize(2, 2, 2, 3, 2 * 2 + 1, 3 * 6 + 4);
    assert_int_equal(relay_plan_rounds(p), 3);
    relay_plan_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table2_expansions),
        cmocka_unit_test(test_shrinks_fall_back_to_colouring),
        cmocka_unit_test(test_partial_superblocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
