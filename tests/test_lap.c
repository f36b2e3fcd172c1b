/* test_lap.c — the relabeling solvers and relabeled plans.
 *
 * Optimality is checked against brute force over all permutations (n <= 8)
 * and against an O(n^3) Hungarian algorithm written here only (n up to
 * 150, sparse and dense); the greedy solver must reach at least half the
 * optimum everywhere.  At plan level: layouts equal up to a permutation of
 * ranks (a cyclic shift among them) must relabel to zero remote bytes, and a
 * node map must keep data on its node when it cannot stay on its rank. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lap.h"
#include "plan_internal.h"

static uint64_t rng;
static uint64_t next_u64(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A random gain matrix, dense as a table and sparse as CSR. */
typedef struct {
    int n;
    int64_t *dense;     /* n*n */
    int64_t *start, *gain;
    int32_t *col;
} matrix;

static matrix random_matrix(int n, int density_percent, int64_t max_gain)
{
    matrix m = {n, calloc((size_t)n * n, sizeof(int64_t)), calloc((size_t)n + 1, sizeof(int64_t)),
                malloc((size_t)n * n * sizeof(int64_t) + 8), malloc((size_t)n * n * sizeof(int32_t) + 4)};
    for (int r = 0; r < n; r++) {
        for (int c = 0; c < n; c++)
            if ((int)(next_u64() % 100) < density_percent) {
                int64_t g = 1 + (int64_t)(next_u64() % (uint64_t)max_gain);
                m.dense[r * n + c] = g;
                m.col[m.start[r + 1]] = c;
                m.gain[m.start[r + 1]++] = g;
            }
        if (r + 1 < n) m.start[r + 2] = m.start[r + 1];
    }
    return m;
}

static void matrix_free(matrix *m)
{
    free(m->dense);
    free(m->start);
    free(m->gain);
    free(m->col);
}

static int64_t dense_gain(const matrix *m, const int32_t *assign)
{
    int64_t g = 0;
    for (int r = 0; r < m->n; r++) g += m->dense[r * m->n + assign[r]];
    return g;
}

/* Brute force over all permutations (Heap's algorithm). */
static int64_t brute_force(const matrix *m)
{
    int n = m->n, c[8] = {0}, i = 0;
    int32_t perm[8];
    for (int k = 0; k < n; k++) perm[k] = k;
    int64_t best = dense_gain(m, perm);
    while (i < n) {
        if (c[i] < i) {
            int j = i % 2 ? c[i] : 0;
            int32_t t = perm[j];
            perm[j] = perm[i];
            perm[i] = t;
            int64_t g = dense_gain(m, perm);
            if (g > best) best = g;
            c[i]++;
            i = 0;
        } else {
            c[i++] = 0;
        }
    }
    return best;
}

/* The classic O(n^3) Hungarian algorithm (potentials, 1-based), minimising
 * cost = W - gain over the dense table. */
static int64_t hungarian(const matrix *m)
{
    int n = m->n;
    int64_t W = 0, INF = INT64_MAX / 4;
    for (int k = 0; k < n * n; k++) if (m->dense[k] > W) W = m->dense[k];
    int64_t *u = calloc((size_t)n + 1, sizeof *u), *v = calloc((size_t)n + 1, sizeof *v), *minv = malloc(((size_t)n + 1) * sizeof *minv);
    int *p = calloc((size_t)n + 1, sizeof *p), *way = calloc((size_t)n + 1, sizeof *way);
    char *used = malloc((size_t)n + 1);
    for (int i = 1; i <= n; i++) {
        p[0] = i;
        int j0 = 0;
        for (int j = 0; j <= n; j++) { minv[j] = INF; used[j] = 0; }
        do {
            used[j0] = 1;
            int i0 = p[j0], j1 = 0;
            int64_t delta = INF;
            for (int j = 1; j <= n; j++)
                if (!used[j]) {
                    int64_t cur = (W - m->dense[(i0 - 1) * n + (j - 1)]) - u[i0] - v[j];
                    if (cur < minv[j]) { minv[j] = cur; way[j] = j0; }
                    if (minv[j] < delta) { delta = minv[j]; j1 = j; }
                }
            for (int j = 0; j <= n; j++)
                if (used[j]) { u[p[j]] += delta; v[j] -= delta; }
                else minv[j] -= delta;
            j0 = j1;
        } while (p[j0] != 0);
        do { int j1 = way[j0]; p[j0] = p[j1]; j0 = j1; } while (j0);
    }
    int32_t *assign = malloc((size_t)n * sizeof *assign);
    for (int j = 1; j <= n; j++) assign[p[j] - 1] = j - 1;
    int64_t g = dense_gain(m, assign);
    free(u); free(v); free(minv); free(p); free(way); free(used); free(assign);
    return g;
}

static int is_permutation(const int32_t *a, int n)
{
    char *seen = calloc((size_t)n, 1);
    int ok = 1;
    for (int r = 0; r < n && ok; r++) {
        ok = a[r] >= 0 && a[r] < n && !seen[a[r]];
        if (ok) seen[a[r]] = 1;
    }
    free(seen);
    return ok;
}

/* Solves with both solvers, checks permutations, reported gains and the 2x bound. */
static int64_t solve_both(const matrix *m, int64_t *greedy_gain)
{
    rl_gain_matrix g = {m->n, m->start, m->col, m->gain};
    int32_t *opt = malloc((size_t)m->n * sizeof *opt + 4), *gr = malloc((size_t)m->n * sizeof *gr + 4);
    assert_int_equal(rl_lap_optimal(&g, opt), RELAY_OK);
    assert_int_equal(rl_lap_greedy(&g, gr), RELAY_OK);
    assert_true(is_permutation(opt, m->n));
    assert_true(is_permutation(gr, m->n));
    int64_t go = dense_gain(m, opt);
    *greedy_gain = dense_gain(m, gr);
    assert_int_equal(rl_lap_gain(&g, opt), go);
    assert_true(2 * *greedy_gain >= go);
    assert_true(*greedy_gain <= go);
    free(opt);
    free(gr);
    return go;
}

static void test_optimal_matches_brute_force(void **state)
{
    (void)state;
    for (int c = 0; c < 400; c++) {
        rng = 7000 + (uint64_t)c;
        int n = 1 + (int)(next_u64() % 8);
        matrix m = random_matrix(n, 10 + (int)(next_u64() % 91), c % 3 ? 1000 : 3);
        int64_t greedy;
        assert_int_equal(solve_both(&m, &greedy), brute_force(&m));
        matrix_free(&m);
    }
}

static void test_optimal_matches_hungarian(void **state)
{
    (void)state;
    for (int c = 0; c < 60; c++) {
        rng = 9000 + (uint64_t)c;
        int n = 9 + (int)(next_u64() % 142);
        matrix m = random_matrix(n, c % 2 ? 100 : 3 + (int)(next_u64() % 10), c % 4 ? 1000000 : 5);
        int64_t greedy;
        assert_int_equal(solve_both(&m, &greedy), hungarian(&m));
        matrix_free(&m);
    }
}

/* A cyclic shift of ranks: x's data all sits on x+1.  Pair swaps can fix at
 * most half of it; any-permutation solvers fix all of it. */
static void test_cyclic_shift_is_fully_recovered(void **state)
{
    (void)state;
    int n = 7;
    matrix m = {n, calloc((size_t)n * n, sizeof(int64_t)), calloc((size_t)n + 1, sizeof(int64_t)),
                malloc((size_t)n * sizeof(int64_t)), malloc((size_t)n * sizeof(int32_t))};
    for (int r = 0; r < n; r++) {
        m.dense[r * n + (r + 1) % n] = 100;
        m.col[r] = (r + 1) % n;
        m.gain[r] = 100;
        m.start[r + 1] = r + 1;
    }
    int64_t greedy;
    assert_int_equal(solve_both(&m, &greedy), 700);
    assert_int_equal(greedy, 700);
    matrix_free(&m);
}

static relay_layout *shifted_grid(int nranks, int shift)
{
    int64_t rs[] = {0, 10, 25, 40}, cs[] = {0, 7, 30};
    int owners[6];
    for (int b = 0; b < 6; b++) owners[b] = (b * 5 + shift) % nranks;
    relay_layout *l;
    assert_int_equal(relay_layout_grid(&l, nranks, 40, 30, 3, rs, 2, cs, owners, NULL, NULL, RELAY_COL_MAJOR), RELAY_OK);
    return l;
}

/* Identical layouts up to a permutation of ranks relabel to zero remote bytes. */
static void test_permuted_layouts_become_local(void **state)
{
    (void)state;
    for (int mode = RELAY_RELABEL_GREEDY; mode <= RELAY_RELABEL_OPTIMAL; mode++) {
        relay_layout *a = shifted_grid(6, 0), *b = shifted_grid(6, 1);
        relay_plan_options o;
        relay_plan *p;
        relay_plan_stats st;
        relay_plan_options_init(&o);
        o.relabel = (relay_relabel)mode;
        assert_int_equal(relay_plan_transform(&p, 6, a, b, RELAY_OP_N, RELAY_DOUBLE, &o), RELAY_OK);
        assert_int_equal(relay_plan_get_stats(p, &st), RELAY_OK);
        assert_int_equal(st.bytes_remote, 0);
        assert_true(st.bytes_remote_identity > 0);
        assert_int_equal(st.messages, 0);
        /* The relabeled destination layout puts every block where B has it. */
        const relay_layout *ra = relay_plan_dst_layout(p, 0);
        for (int64_t i = 0; i < 40; i += 3)
            for (int64_t j = 0; j < 30; j += 4) {
                int ra_rank, b_rank;
                int64_t idx;
                relay_layout_locate(ra, i, j, &ra_rank, &idx);
                relay_layout_locate(b, i, j, &b_rank, &idx);
                assert_int_equal(ra_rank, b_rank);
            }
        relay_plan_free(p);
        relay_layout_free(a);
        relay_layout_free(b);
    }
}

/* Block-cyclic: a row-major grid numbering to a column-major one is a
 * permutation of ranks, so optimal relabeling removes all traffic. */
static void test_grid_order_change_becomes_local(void **state)
{
    (void)state;
    relay_layout *a, *b;
    relay_plan_options o;
    relay_plan *p;
    relay_plan_stats st;
    assert_int_equal(relay_layout_block_cyclic(&b, 100, 100, 10, 10, 2, 3, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_layout_block_cyclic(&a, 100, 100, 10, 10, 2, 3, RELAY_COL_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    relay_plan_options_init(&o);
    o.relabel = RELAY_RELABEL_OPTIMAL;
    assert_int_equal(relay_plan_transform(&p, 6, a, b, RELAY_OP_N, RELAY_DOUBLE, &o), RELAY_OK);
    relay_plan_get_stats(p, &st);
    assert_int_equal(st.bytes_remote, 0);
    /* Ranks (0,1), (0,2), (1,0), (1,1) are renumbered; they hold 15, 15, 20 and
     * 15 blocks of 10 x 10 (process column 0 has 4 of the 10 block columns). */
    assert_int_equal(st.bytes_remote_identity, (15 + 15 + 20 + 15) * 100 * 8);
    relay_plan_free(p);
    relay_layout_free(a);
    relay_layout_free(b);
}

/* Ranks 0,1 on node 0 and 2,3 on node 1.  Logical rank 0's data is split
 * between ranks 2 (60%) and 3 (40%), logical 1's between 1 (55%) and 0
 * (45%)... Construct it with a grid: without node awareness the optimum
 * may cross nodes; with a heavy inter-node weight it keeps each logical
 * rank on the node holding its data. */
static void test_node_aware_prefers_the_node(void **state)
{
    (void)state;
    /* B: 4 column blocks of sizes 6,4,5,5 owned by 2,3,1,0 ... A: 2 column
     * blocks [0,10) owned by 0 and [10,20) owned by 1, plus 2 empty owners. */
    int64_t rs[] = {0, 10}, bcs[] = {0, 6, 10, 15, 20}, acs[] = {0, 10, 15, 18, 20};
    int bown[] = {2, 3, 1, 0}, aown[] = {0, 1, 2, 3};
    relay_layout *a, *b;
    assert_int_equal(relay_layout_grid(&b, 4, 10, 20, 1, rs, 4, bcs, bown, NULL, NULL, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_layout_grid(&a, 4, 10, 20, 1, rs, 4, acs, aown, NULL, NULL, RELAY_COL_MAJOR), RELAY_OK);
    int nodes[] = {0, 0, 1, 1};
    relay_plan_options o;
    relay_plan *p;
    int sigma[4];
    relay_plan_options_init(&o);
    o.relabel = RELAY_RELABEL_OPTIMAL;
    o.node_of_rank = nodes;
    o.inter_node_weight = 10;
    assert_int_equal(relay_plan_transform(&p, 4, a, b, RELAY_OP_N, RELAY_FLOAT, &o), RELAY_OK);
    assert_int_equal(relay_plan_relabeling(p, sigma), RELAY_OK);
    /* Logical 0 ([0,10): 60 on rank 2, 40 on rank 3) must land on node 1. */
    assert_true(nodes[sigma[0]] == 1);
    assert_true(is_permutation((int32_t *)sigma, 4));
    relay_plan_free(p);
    relay_layout_free(a);
    relay_layout_free(b);
}

static relay_layout *random_block_cyclic(int64_t m, int64_t n, int nranks)
{
    relay_layout *l;
    int pr = 1 + (int)(next_u64() % (uint64_t)nranks), pc = 1 + (int)(next_u64() % (uint64_t)(nranks / pr));
    assert_int_equal(relay_layout_block_cyclic(&l, m, n, 1 + (int64_t)(next_u64() % (uint64_t)m),
                                               1 + (int64_t)(next_u64() % (uint64_t)n), pr, pc,
                                               (relay_order)(next_u64() % 2), (int)(next_u64() % (uint64_t)pr),
                                               (int)(next_u64() % (uint64_t)pc), 0, RELAY_COL_MAJOR),
                     RELAY_OK);
    return l;
}

/* The volumes behind relabeling (computed by formula for block-cyclic
 * pairs) must agree with the sections (built piece by piece): the
 * identity's remote bytes are the unrelabeled plan's, and relabeling never
 * moves more. */
static void test_volumes_agree_with_sections(void **state)
{
    (void)state;
    for (int c = 0; c < 200; c++) {
        rng = 11000 + (uint64_t)c;
        int nranks = 1 + (int)(next_u64() % 12);
        int64_t m = 1 + (int64_t)(next_u64() % 90), n = 1 + (int64_t)(next_u64() % 90);
        relay_op op = (relay_op)(next_u64() % 3);
        int t = op != RELAY_OP_N;
        relay_layout *a = random_block_cyclic(m, n, nranks), *b = random_block_cyclic(t ? n : m, t ? m : n, nranks);
        relay_plan_options o;
        relay_plan *plain, *relabeled;
        relay_plan_stats s0, s1;
        relay_plan_options_init(&o);
        assert_int_equal(relay_plan_transform(&plain, nranks, a, b, op, RELAY_CFLOAT, &o), RELAY_OK);
        o.relabel = c % 2 ? RELAY_RELABEL_OPTIMAL : RELAY_RELABEL_GREEDY;
        assert_int_equal(relay_plan_transform(&relabeled, nranks, a, b, op, RELAY_CFLOAT, &o), RELAY_OK);
        relay_plan_get_stats(plain, &s0);
        relay_plan_get_stats(relabeled, &s1);
        assert_int_equal(s1.bytes_remote_identity, s0.bytes_remote);
        assert_true(s1.bytes_remote <= s0.bytes_remote);
        assert_int_equal(s1.bytes_total, s0.bytes_total);
        relay_plan_free(plain);
        relay_plan_free(relabeled);
        relay_layout_free(a);
        relay_layout_free(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_optimal_matches_brute_force),
        cmocka_unit_test(test_optimal_matches_hungarian),
        cmocka_unit_test(test_cyclic_shift_is_fully_recovered),
        cmocka_unit_test(test_permuted_layouts_become_local),
        cmocka_unit_test(test_grid_order_change_becomes_local),
        cmocka_unit_test(test_node_aware_prefers_the_node),
        cmocka_unit_test(test_volumes_agree_with_sections),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
