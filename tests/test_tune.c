/* test_tune.c — the order relay_exec_tune times its choices in
 * (balanced_order.h) and the choice it keeps (tune_pick.c).
 *
 * The order is checked by counting: every round a permutation, and over a
 * cycle (n rounds, 2n for odd n) each choice at each position equally often
 * and right after each other one equally often.  The pick (the lowest
 * median, the first on a tie) is checked on hand-picked times and on random
 * times with ties against a reference written here from the rule's words:
 * medians by counting, not by sorting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "balanced_order.h"
#include "relay/exec.h"
#include "tune_pick.h"

enum { MOST_CHOICES = 8, MOST_REPLAYS = 15 };

/* ---- the order ---------------------------------------------------------------- */

static void test_order_is_balanced(void **state)
{
    (void)state;
    for (int n = 1; n <= MOST_CHOICES; n++) {
        int cycle = n % 2 ? 2 * n : n;
        int at[MOST_CHOICES][MOST_CHOICES] = {{0}}, follows[MOST_CHOICES][MOST_CHOICES] = {{0}};
        for (int r = 0; r < 3 * cycle; r++) {
            int seen[MOST_CHOICES] = {0}, previous = -1;
            for (int s = 0; s < n; s++) {
                int k = rl_balanced_order(r, s, n);
                assert_true(k >= 0 && k < n);
                assert_int_equal(seen[k]++, 0);
                if (r < cycle) {
                    at[k][s]++;
                    if (previous >= 0) follows[previous][k]++;
                }
                previous = k;
            }
        }
        int each_position = cycle / n, each_pair = n > 1 ? cycle * (n - 1) / (n * (n - 1)) : 0;
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                assert_int_equal(at[a][b], each_position);
                assert_int_equal(follows[a][b], a == b ? 0 : each_pair);
            }
    }
}

/* ---- the pick: the rule's words, written again ------------------------------------ */

/* The smallest of v[0..n-1] that at least `rank` of them do not exceed. */
static double nearest_rank(const double *v, int n, int rank)
{
    double best = 0;
    int found = 0;
    for (int i = 0; i < n; i++) {
        int at_most = 0;
        for (int j = 0; j < n; j++) at_most += v[j] <= v[i];
        if (at_most >= rank && (!found || v[i] < best)) best = v[i], found = 1;
    }
    return best;
}

static double reference_median(const double *v, int n)
{
    return n % 2 ? nearest_rank(v, n, n / 2 + 1) : 0.5 * (nearest_rank(v, n, n / 2) + nearest_rank(v, n, n / 2 + 1));
}

/* The lowest median, the first on a tie. */
static int reference_pick(const double *times, int n, int replays)
{
    int best = 0;
    for (int k = 1; k < n; k++)
        if (reference_median(times + k * replays, replays) < reference_median(times + best * replays, replays)) best = k;
    return best;
}

static int pick(const double *times, int n, int replays)
{
    double medians[MOST_CHOICES];
    int best = rl_tune_pick(times, n, replays, medians);
    for (int k = 0; k < n; k++) assert_true(medians[k] == reference_median(times + k * replays, replays));
    return best;
}

/* ---- hand-picked times ------------------------------------------------------------- */

static void test_the_lowest_median_wins_not_the_lowest_time(void **state)
{
    (void)state;
    /* the second has the single fastest replay, the third the lowest median */
    const double times[] = {90, 95, 100, 92, 98, /* */ 10, 200, 200, 200, 90, /* */ 80, 82, 480, 85, 300};
    assert_int_equal(pick(times, 3, 5), 2);
}

static void test_an_even_count_takes_the_middle_two(void **state)
{
    (void)state;
    /* medians 5.5 and 6: the lower middle alone (5) would tie, the upper (6) favour neither */
    const double times[] = {1, 5, 6, 100, /* */ 2, 6, 6, 7};
    double medians[2];
    assert_int_equal(rl_tune_pick(times, 2, 4, medians), 0);
    assert_true(medians[0] == 5.5 && medians[1] == 6);
}

static void test_the_first_on_a_tie(void **state)
{
    (void)state;
    const double times[] = {9, 9, 9, /* */ 4, 5, 4, /* */ 4, 4, 4};
    assert_int_equal(pick(times, 3, 3), 1);
}

static void test_one_replay_keeps_the_fastest(void **state)
{
    (void)state;
    const double times[] = {3, 2, 1, 1};
    assert_int_equal(pick(times, 4, 1), 2);
    assert_int_equal(pick(times, 1, 1), 0);
}

static void test_the_most_replays(void **state)
{
    (void)state;
    static double times[2 * RELAY_TUNE_MAX_REPLAYS];
    for (int r = 0; r < RELAY_TUNE_MAX_REPLAYS; r++) {
        times[r] = 2 + (r % 7);                               /* median 5 */
        times[RELAY_TUNE_MAX_REPLAYS + r] = r < 499 ? 1 : 50; /* median 50 */
    }
    assert_int_equal(pick(times, 2, RELAY_TUNE_MAX_REPLAYS), 0);
    times[RELAY_TUNE_MAX_REPLAYS + 499] = 1; /* median (1 + 50) / 2 */
    assert_int_equal(pick(times, 2, RELAY_TUNE_MAX_REPLAYS), 0);
    times[RELAY_TUNE_MAX_REPLAYS + 500] = 1; /* median 1 */
    assert_int_equal(pick(times, 2, RELAY_TUNE_MAX_REPLAYS), 1);
}

/* ---- random times ------------------------------------------------------------------ */

static uint64_t rng = 36;
static uint64_t next_u64(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Random tunings: a choice's times from a few values (ties) or spread
 * around its own level, some swinging now and then. */
static void test_random_times_match_the_reference(void **state)
{
    (void)state;
    int kept[MOST_CHOICES] = {0};
    for (int trial = 0; trial < 20000; trial++) {
        int n = 1 + (int)(next_u64() % MOST_CHOICES), replays = 1 + (int)(next_u64() % MOST_REPLAYS);
        double times[MOST_CHOICES * MOST_REPLAYS];
        for (int k = 0; k < n; k++) {
            double level = 50 + (double)(next_u64() % 60), swing = next_u64() % 3 ? 1 : 5;
            for (int r = 0; r < replays; r++) {
                double t = trial % 2 ? (double)(next_u64() % 4) : level * (1 + 0.2 * (double)(next_u64() % 100) / 100);
                times[k * replays + r] = next_u64() % 5 ? t : t * swing;
            }
        }
        int best = pick(times, n, replays);
        assert_int_equal(best, reference_pick(times, n, replays));
        kept[best]++;
    }
    for (int k = 0; k < MOST_CHOICES; k++) assert_true(kept[k] > 100); /* every place can win */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_is_balanced),
        cmocka_unit_test(test_the_lowest_median_wins_not_the_lowest_time),
        cmocka_unit_test(test_an_even_count_takes_the_middle_two),
        cmocka_unit_test(test_the_first_on_a_tie),
        cmocka_unit_test(test_one_replay_keeps_the_fastest),
        cmocka_unit_test(test_the_most_replays),
        cmocka_unit_test(test_random_times_match_the_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
