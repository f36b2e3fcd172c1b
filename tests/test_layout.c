/* test_layout.c — cmocka unit tests of relay's layouts against the serial reference.
 *
 * For hand-picked and random block-cyclic and grid layouts, block-cyclic
 * layouts with a leading dimension per rank (relay_layout_block_cyclic_lds)
 * and ScaLAPACK submatrices (relay_internal_layout_submatrix), every element's
 * owner and local index (relay_layout_locate) and every rank's buffer size
 * (relay_layout_local_elems) must equal the reference's.  Every bad argument
 * of the constructors must return RELAY_ERR_ARG, leave *out untouched and set
 * relay_last_error(); each bad call runs in a fresh thread, whose thread-local
 * message starts empty, so a stale message cannot pass for a new one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "layout_internal.h"
#include "reference.h"
#include "relay/relay.h"

enum { RANDOM_LAYOUTS = 300, MAX_RANKS = 9 };

/* ---- comparing relay's layout with the reference -------------------------------- */

/* relay_layout_local_shape against the reference's ScaLAPACK formulas:
 * numroc's rows and columns at the recipe's lld (or the smallest legal),
 * 0 x 0 where a rank holds nothing; RELAY_ERR_UNSUPPORTED for grids. */
static int local_shape_matches(const relay_layout *l, const ref_layout *r)
{
    for (int rank = 0; rank <= r->nranks; rank++) {
        int64_t rows = -1, cols = -1, ld = -1, want_rows = 0, want_cols = 0, want_ld = 0;
        relay_status st = relay_layout_local_shape(l, rank, &rows, &cols, &ld);
        if (r->kind != REF_BLOCK_CYCLIC) {
            if (st == RELAY_ERR_UNSUPPORTED) continue;
            print_error("%s: local_shape of a grid layout gave %s\n", r->desc, relay_status_str(st));
            return 0;
        }
        const ref_bc_params *p = &r->bc;
        if (rank < r->nranks && ref_local_elems(r, rank)) {
            int pr = p->grid_order == RELAY_ROW_MAJOR ? rank / p->npcol : rank % p->nprow;
            int pc = p->grid_order == RELAY_ROW_MAJOR ? rank % p->npcol : rank / p->nprow;
            want_rows = ref_numroc(p->m, p->mb, pr, p->rsrc, p->nprow);
            want_cols = ref_numroc(p->n, p->nb, pc, p->csrc, p->npcol);
            int64_t inner = p->elem_order == RELAY_COL_MAJOR ? want_rows : want_cols;
            want_ld = p->lld ? p->lld : inner;
        }
        if (st != RELAY_OK || rows != want_rows || cols != want_cols || ld != want_ld) {
            print_error("%s: local_shape(rank %d) = %s %lld x %lld at ld %lld, expected %lld x %lld at %lld\n", r->desc,
                        rank, relay_status_str(st), (long long)rows, (long long)cols, (long long)ld,
                        (long long)want_rows, (long long)want_cols, (long long)want_ld);
            return 0;
        }
    }
    return 1;
}

/* Prints the first difference and returns 0, or returns 1 if none. */
static int layout_matches(const relay_layout *l, const ref_layout *r)
{
    if (relay_layout_nranks(l) != r->nranks || relay_layout_rows(l) != r->m
        || relay_layout_cols(l) != r->n) {
        print_error("%s: nranks/rows/cols %d/%lld/%lld, expected %d/%lld/%lld\n", r->desc,
                    relay_layout_nranks(l), (long long)relay_layout_rows(l),
                    (long long)relay_layout_cols(l), r->nranks, (long long)r->m, (long long)r->n);
        return 0;
    }
    if (!local_shape_matches(l, r)) return 0;
    for (int rank = -1; rank <= r->nranks; rank++) {
        int64_t want = rank < 0 || rank == r->nranks ? 0 : ref_local_elems(r, rank);
        int64_t got = relay_layout_local_elems(l, rank);
        if (got != want) {
            print_error("%s: local_elems(rank %d) = %lld, expected %lld\n", r->desc, rank,
                        (long long)got, (long long)want);
            return 0;
        }
    }
    for (int64_t i = 0; i < r->m; i++) {
        for (int64_t j = 0; j < r->n; j++) {
            int want_rank, got_rank = -1;
            int64_t want_index, got_index = -1;
            ref_locate(r, i, j, &want_rank, &want_index);
            relay_status s = relay_layout_locate(l, i, j, &got_rank, &got_index);
            if (s != RELAY_OK || got_rank != want_rank || got_index != want_index) {
                print_error("%s: locate(%lld, %lld) = %s rank %d index %lld, expected rank %d "
                            "index %lld\n", r->desc, (long long)i, (long long)j,
                            relay_status_str(s), got_rank, (long long)got_index, want_rank,
                            (long long)want_index);
                return 0;
            }
        }
    }
    return 1;
}

/* Whether rl_layout_element_at answers (i, j) at position k of rank's buffer
 * (hit), or nothing (i < 0), printing the first wrong answer. */
static int element_at_says(const rl_buffer_map *map, int rank, int64_t k, int64_t i, int64_t j)
{
    int64_t gi = -1, gj = -1;
    int hit = rl_layout_element_at(map, k, &gi, &gj);
    if (i < 0 ? !hit : hit && gi == i && gj == j) return 1;
    print_error("rank %d: element_at(%lld) = %d (%lld, %lld), expected %s(%lld, %lld)\n", rank, (long long)k, hit,
                (long long)gi, (long long)gj, i < 0 ? "none " : "", (long long)i, (long long)j);
    return 0;
}

/* The run rl_layout_element_run finds at position k (element (i, j)) ends
 * on the element it says: run - 1 further down (column-major) or across. */
static int run_ends_right(const relay_layout *l, const rl_buffer_map *map, int rank, int64_t k, int64_t i, int64_t j)
{
    int64_t gi, gj, run;
    int down = l->order == RELAY_COL_MAJOR;
    if (!rl_layout_element_run(map, k, &gi, &gj, &run) || run < 1) return 0;
    return element_at_says(map, rank, k + run - 1, i + (down ? run - 1 : 0), j + (down ? 0 : run - 1));
}

/* rl_layout_element_at inverts relay_layout_locate on one rank: each of its
 * elements' positions gives the element back, every other position of its
 * buffer (and those just outside) holds none, runs end where they say,
 * and the map counts the elements. */
static int element_at_inverts_locate_on(const relay_layout *l, int rank)
{
    int64_t size = relay_layout_local_elems(l, rank), held = 0;
    char *hit = calloc((size_t)size + 1, 1);
    rl_buffer_map *map = NULL;
    int ok = hit && rl_buffer_map_new(&map, l, rank) == RELAY_OK;
    for (int64_t i = 0; ok && i < relay_layout_rows(l); i++)
        for (int64_t j = 0; ok && j < relay_layout_cols(l); j++) {
            int r;
            int64_t k;
            relay_layout_locate(l, i, j, &r, &k);
            if (r != rank) continue;
            held++;
            hit[k] = 1;
            ok = element_at_says(map, rank, k, i, j) && run_ends_right(l, map, rank, k, i, j);
        }
    for (int64_t k = -1; ok && k <= size; k++)
        if (k < 0 || k == size || !hit[k]) ok = element_at_says(map, rank, k, -1, -1);
    if (ok && held != rl_buffer_map_elems(map)) {
        print_error("rank %d holds %lld elements, its map says %lld\n", rank, (long long)held, (long long)rl_buffer_map_elems(map));
        ok = 0;
    }
    rl_buffer_map_free(map);
    free(hit);
    return ok;
}

/* ... on every rank, of the layout and of a copy whose ranks are relabeled
 * in reverse onto one rank more (so that rank 0 holds nothing). */
static int element_at_inverts_locate(const relay_layout *l)
{
    int n = relay_layout_nranks(l), ok = 1;
    int32_t *sigma = malloc((size_t)n * sizeof *sigma);
    for (int r = 0; r < n; r++) sigma[r] = n - r;
    relay_layout *relabeled = NULL;
    relay_status st = rl_layout_relabel(&relabeled, l, sigma, n + 1);
    free(sigma);
    if (st != RELAY_OK) return 0;
    for (int r = 0; ok && r < n; r++) ok = element_at_inverts_locate_on(l, r);
    for (int r = 0; ok && r <= n; r++) ok = element_at_inverts_locate_on(relabeled, r);
    relay_layout_free(relabeled);
    return ok;
}

/* The block boundaries a block-cyclic layout computes are ScaLAPACK's: from
 * 0 to the extent, strictly increasing, each block at most b long and each
 * inner boundary on a multiple of b of the distributed dimension (the
 * layout starting at its index origin).  Prints the first wrong one. */
static int splits_are_blocks_of(const relay_layout *l, int rows, int64_t extent, int64_t b, int64_t origin)
{
    int nblocks = rows ? l->nbr : l->nbc;
    for (int k = 0; k <= nblocks; k++) {
        int64_t s = rows ? rl_layout_row_split(l, k) : rl_layout_col_split(l, k);
        int64_t prev = k ? (rows ? rl_layout_row_split(l, k - 1) : rl_layout_col_split(l, k - 1)) : 0;
        int inner = k > 0 && k < nblocks;
        if ((k == 0 && s != 0) || (k == nblocks && s != extent) || (k > 0 && (s <= prev || s - prev > b)) ||
            (inner && (origin + s) % b != 0)) {
            print_error("%s boundary %d of %d is %lld after %lld (extent %lld, blocks of %lld from %lld)\n",
                        rows ? "row" : "column", k, nblocks, (long long)s, (long long)prev, (long long)extent, (long long)b,
                        (long long)origin);
            return 0;
        }
    }
    return 1;
}

static int block_cyclic_splits_are_right(const relay_layout *l)
{
    if (l->kind != RL_LAYOUT_BLOCK_CYCLIC) return 1;
    return splits_are_blocks_of(l, 1, l->m, l->bc.mb, l->bc.i0) && splits_are_blocks_of(l, 0, l->n, l->bc.nb, l->bc.j0);
}

/* Builds relay's layout from the reference's recipe and compares; 1 if equal. */
static int relay_agrees_with(const ref_layout *r)
{
    relay_layout *l = NULL;
    relay_status s = ref_build_relay_layout(r, &l);
    if (s != RELAY_OK) {
        print_error("%s: rejected with %s: %s\n", r->desc, relay_status_str(s), relay_last_error());
        return 0;
    }
    int ok = layout_matches(l, r) && element_at_inverts_locate(l) && block_cyclic_splits_are_right(l);
    relay_layout_free(l);
    return ok;
}

/* Checks a reference layout and frees it; counts a disagreement in *failures. */
static void check_and_free(ref_layout *r, int *failures)
{
    *failures += !relay_agrees_with(r);
    ref_layout_free(r);
}

/* ---- the reference itself -------------------------------------------------------- */

/* Every element sits exactly where ref_locate says in its owner's local map. */
static void test_reference_is_self_consistent(void **state)
{
    (void)state;
    ref_rng rng;
    ref_rng_seed(&rng, 1);
    for (int c = 0; c < 100; c++) {
        ref_layout r;
        ref_random_layout(&r, &rng, ref_rng_range(&rng, 1, 30), ref_rng_range(&rng, 1, 30), 6);
        int64_t **maps = malloc(sizeof *maps * (size_t)r.nranks);
        int64_t stored = 0;
        for (int rank = 0; rank < r.nranks; rank++) {
            maps[rank] = ref_local_map(&r, rank);
            for (int64_t k = 0; k < ref_local_elems(&r, rank); k++)
                stored += maps[rank][k] >= 0;
        }
        assert_int_equal(stored, r.m * r.n);
        for (int64_t i = 0; i < r.m; i++) {
            for (int64_t j = 0; j < r.n; j++) {
                int rank;
                int64_t index;
                ref_locate(&r, i, j, &rank, &index);
                assert_in_range(rank, 0, r.nranks - 1);
                assert_in_range(index, 0, ref_local_elems(&r, rank) - 1);
                assert_int_equal(maps[rank][index], i * r.n + j);
            }
        }
        for (int rank = 0; rank < r.nranks; rank++)
            free(maps[rank]);
        free(maps);
        ref_layout_free(&r);
    }
}

/* numroc, indxg2p and indxg2l on a case worked by hand: 10 rows in blocks of 3
 * over 3 process rows starting at process 1 — blocks 0..3 on processes 1, 2, 0, 1. */
static void test_scalapack_formulas_by_hand(void **state)
{
    (void)state;
    assert_int_equal(ref_numroc(10, 3, 0, 1, 3), 3);
    assert_int_equal(ref_numroc(10, 3, 1, 1, 3), 4);
    assert_int_equal(ref_numroc(10, 3, 2, 1, 3), 3);
    assert_int_equal(ref_indxg2p(9, 3, 1, 3), 1);
    assert_int_equal(ref_indxg2l(9, 3, 3), 3);
    assert_int_equal(ref_indxg2p(7, 3, 1, 3), 0);
    assert_int_equal(ref_indxg2l(7, 3, 3), 1);
    assert_int_equal(ref_grid_rank(RELAY_ROW_MAJOR, 2, 3, 1, 2), 5);
    assert_int_equal(ref_grid_rank(RELAY_COL_MAJOR, 2, 3, 1, 2), 5);
    assert_int_equal(ref_grid_rank(RELAY_COL_MAJOR, 2, 3, 1, 0), 1);
}

/* ---- block-cyclic layouts -------------------------------------------------------- */

#define R RELAY_ROW_MAJOR
#define C RELAY_COL_MAJOR

static const ref_bc_params hand_picked_block_cyclic[] = {
    /* m    n    mb   nb  pr pc grid rsrc csrc lld elem */
    {300, 257, 32, 32, 2, 2, R, 0, 0, 0, C},
    {300, 257, 128, 128, 2, 3, C, 1, 2, 0, R},
    {61, 37, 7, 5, 3, 2, R, 2, 1, 0, C},
    {61, 37, 7, 5, 3, 2, C, 2, 1, 40, C},   /* lld larger than the 21 local rows */
    {61, 37, 7, 5, 3, 2, R, 0, 1, 30, R},   /* lld larger than the 20 local cols */
    {24, 24, 4, 4, 2, 3, R, 1, 0, 12, C},   /* lld exactly the largest local row count */
    {5, 4, 8, 8, 2, 2, R, 1, 1, 0, C},      /* mb > m: only process (1, 1) owns anything */
    {1, 200, 1, 16, 1, 4, R, 0, 3, 0, R},   /* 1 x n */
    {200, 1, 16, 1, 4, 1, C, 2, 0, 0, C},   /* m x 1 */
    {1, 1, 1, 1, 1, 1, R, 0, 0, 0, C},
    {17, 19, 1, 1, 3, 3, C, 1, 2, 0, R},
    {100, 100, 10, 10, 1, 1, R, 0, 0, 0, C},
    {33, 45, 4, 6, 4, 2, C, 3, 1, 0, R},
    {7, 50, 3, 7, 5, 1, R, 4, 0, 0, C},     /* more process rows than block rows */
};

#undef R
#undef C

static void test_block_cyclic_hand_picked(void **state)
{
    (void)state;
    int failures = 0;
    size_t count = sizeof hand_picked_block_cyclic / sizeof hand_picked_block_cyclic[0];
    for (size_t c = 0; c < count; c++) {
        ref_layout r;
        ref_layout_block_cyclic(&r, &hand_picked_block_cyclic[c]);
        check_and_free(&r, &failures);
    }
    assert_int_equal(failures, 0);
}

static void test_block_cyclic_random(void **state)
{
    (void)state;
    int failures = 0;
    ref_rng rng;
    ref_rng_seed(&rng, 2);
    for (int c = 0; c < RANDOM_LAYOUTS; c++) {
        ref_bc_params p;
        ref_random_bc_params(&rng, ref_rng_range(&rng, 1, 50), ref_rng_range(&rng, 1, 50),
                             (int)ref_rng_range(&rng, 1, MAX_RANKS), &p);
        ref_layout r;
        ref_layout_block_cyclic(&r, &p);
        check_and_free(&r, &failures);
    }
    assert_int_equal(failures, 0);
}

/* ---- ScaLAPACK submatrices (relay_internal_layout_submatrix) ---------------------- */

/* A block-cyclic matrix's m x n submatrix at (i0, j0), each rank's part
 * stored at its own ld, lds[rank], in element order `elems`. */
typedef struct {
    int64_t m, n, i0, j0, mb, nb;
    int pr, pc, rsrc, csrc;
    relay_order grid, elems;
    int64_t lds[9];
} bc_case;

/* Every element of c's submatrix, in layout l, where the reference's
 * INDXG2P and INDXG2L put it; each rank's buffer ends right after its last
 * element. */
static void check_elements(const relay_layout *l, const bc_case *c)
{
    int64_t last[9] = {0};
    for (int64_t i = 0; i < c->m; i++)
        for (int64_t j = 0; j < c->n; j++) {
            int row = ref_indxg2p(c->i0 + i, c->mb, c->rsrc, c->pr), col = ref_indxg2p(c->j0 + j, c->nb, c->csrc, c->pc);
            int want = c->grid == RELAY_ROW_MAJOR ? row * c->pc + col : col * c->pr + row, rank;
            int64_t li = ref_indxg2l(c->i0 + i, c->mb, c->pr), lj = ref_indxg2l(c->j0 + j, c->nb, c->pc), index;
            int64_t expect = c->elems == RELAY_COL_MAJOR ? li + lj * c->lds[want] : li * c->lds[want] + lj;
            assert_int_equal(relay_layout_locate(l, i, j, &rank, &index), RELAY_OK);
            assert_int_equal(rank, want);
            assert_int_equal(index, expect);
            if (expect + 1 > last[want]) last[want] = expect + 1;
        }
    for (int r = 0; r < c->pr * c->pc; r++) assert_int_equal(relay_layout_local_elems(l, r), last[r]);
    assert_true(element_at_inverts_locate(l));
    assert_true(block_cyclic_splits_are_right(l));
}

/* Random block sizes (1 to 9) and grid (1 to 3 by 1 to 3) for c, drawn in
 * this order. */
static void random_grid(ref_rng *rng, bc_case *c)
{
    c->mb = ref_rng_range(rng, 1, 9);
    c->nb = ref_rng_range(rng, 1, 9);
    c->pr = (int)ref_rng_range(rng, 1, 3);
    c->pc = (int)ref_rng_range(rng, 1, 3);
}

/* A random submatrix of an M x N block-cyclic matrix, each rank at its own
 * lld (its smallest plus 0 to 2), checked element by element. */
static void check_submatrix(ref_rng *rng)
{
    int64_t M = ref_rng_range(rng, 1, 60), N = ref_rng_range(rng, 1, 60);
    bc_case c = {.elems = RELAY_COL_MAJOR};
    random_grid(rng, &c);
    c.rsrc = (int)ref_rng_range(rng, 0, c.pr - 1);
    c.csrc = (int)ref_rng_range(rng, 0, c.pc - 1);
    c.grid = ref_rng_range(rng, 0, 1) ? RELAY_ROW_MAJOR : RELAY_COL_MAJOR;
    c.i0 = ref_rng_range(rng, 0, M - 1);
    c.j0 = ref_rng_range(rng, 0, N - 1);
    c.m = ref_rng_range(rng, 0, M - c.i0);
    c.n = ref_rng_range(rng, 0, N - c.j0);
    for (int r = 0; r < c.pr * c.pc; r++) {
        int row = c.grid == RELAY_ROW_MAJOR ? r / c.pc : r % c.pr;
        int64_t rows = ref_numroc(M, c.mb, row, c.rsrc, c.pr);
        c.lds[r] = (rows > 1 ? rows : 1) + ref_rng_range(rng, 0, 2);
    }
    relay_layout *l;
    assert_int_equal(relay_internal_layout_submatrix(&l, c.m, c.n, c.i0, c.j0, c.mb, c.nb, c.pr, c.pc, c.grid, c.rsrc,
                                                     c.csrc, c.lds), RELAY_OK);
    check_elements(l, &c);
    relay_layout_free(l);
}

static void test_submatrix_random(void **state)
{
    (void)state;
    ref_rng rng;
    ref_rng_seed(&rng, 16);
    for (int c = 0; c < RANDOM_LAYOUTS; c++) check_submatrix(&rng);
}

/* An lld below a rank's local rows is refused; one where the rank holds
 * nothing of the submatrix is not looked at. */
static void test_submatrix_lld(void **state)
{
    (void)state;
    relay_layout *l = NULL;
    int64_t lld[2] = {5, 4}; /* 10 rows in blocks of 2 over 2 process rows: 6 and 4 local rows below row 10 */
    assert_int_equal(relay_internal_layout_submatrix(&l, 8, 3, 2, 0, 2, 2, 2, 1, RELAY_ROW_MAJOR, 0, 0, lld), RELAY_ERR_ARG);
    assert_null(l);
    int64_t only_first[2] = {6, 0}; /* rows 0..1 live on process row 0 alone */
    assert_int_equal(relay_internal_layout_submatrix(&l, 2, 3, 0, 0, 2, 2, 2, 1, RELAY_ROW_MAJOR, 0, 0, only_first), RELAY_OK);
    assert_int_equal(relay_layout_local_elems(l, 1), 0);
    relay_layout_free(l);
}

/* ---- grid layouts ---------------------------------------------------------------- */

static void check_random_grids(uint64_t seed, int explicit_offsets)
{
    int failures = 0;
    ref_rng rng;
    ref_rng_seed(&rng, seed);
    for (int c = 0; c < RANDOM_LAYOUTS; c++) {
        ref_layout r;
        ref_random_grid(&r, &rng, ref_rng_range(&rng, 1, 50), ref_rng_range(&rng, 1, 50),
                        (int)ref_rng_range(&rng, 1, MAX_RANKS), explicit_offsets);
        check_and_free(&r, &failures);
    }
    assert_int_equal(failures, 0);
}

static void test_grid_packed_random(void **state)
{
    (void)state;
    check_random_grids(3, 0);
}

static void test_grid_explicit_random(void **state)
{
    (void)state;
    check_random_grids(4, 1);
}

/* A grid given ScaLAPACK's own offsets and lds: the blocks of a rank interleave
 * in memory (their address ranges overlap) but share no element. */
static void test_grid_with_block_cyclic_storage(void **state)
{
    (void)state;
    int failures = 0;
    size_t count = sizeof hand_picked_block_cyclic / sizeof hand_picked_block_cyclic[0];
    for (size_t c = 0; c < count; c++) {
        ref_layout bc, grid;
        ref_layout_block_cyclic(&bc, &hand_picked_block_cyclic[c]);
        ref_layout_grid(&grid, bc.nranks, bc.m, bc.n, bc.nbr, bc.row_splits, bc.nbc,
                        bc.col_splits, bc.owners, bc.offsets, bc.lds, bc.order);
        check_and_free(&grid, &failures);
        ref_layout_free(&bc);
    }
    assert_int_equal(failures, 0);
}

/* ---- rejected arguments ---------------------------------------------------------- */

static char sentinel_storage;
#define SENTINEL_LAYOUT ((relay_layout *)(void *)&sentinel_storage)

/* One call of relay, made in a fresh thread, and what it left behind. */
typedef struct {
    relay_status (*invoke)(void *args, relay_layout **out);
    void *args;
    int null_out;
    int message_empty_before;
    relay_status status;
    int out_untouched;
    int message_set;
} fresh_call;

static int run_fresh_call(void *arg)
{
    fresh_call *c = arg;
    const char *before = relay_last_error();
    c->message_empty_before = before && before[0] == '\0';
    relay_layout *out = SENTINEL_LAYOUT;
    c->status = c->invoke(c->args, c->null_out ? NULL : &out);
    c->out_untouched = out == SENTINEL_LAYOUT;
    const char *after = relay_last_error();
    c->message_set = after && after[0] != '\0';
    if (c->status == RELAY_OK && out != SENTINEL_LAYOUT)
        relay_layout_free(out);
    return 0;
}

/* Returns 1 if the call was rejected as it must be; prints why not otherwise. */
static int rejected(relay_status (*invoke)(void *, relay_layout **), void *args, int null_out,
                    const char *what)
{
    fresh_call c = {.invoke = invoke, .args = args, .null_out = null_out};
    thrd_t thread;
    if (thrd_create(&thread, run_fresh_call, &c) != thrd_success)
        fail_msg("cannot start a thread");
    thrd_join(thread, NULL);
    const char *problem = !c.message_empty_before ? "relay_last_error() not \"\" in a new thread"
                        : c.status != RELAY_ERR_ARG ? relay_status_str(c.status)
                        : !c.out_untouched ? "*out changed"
                        : !c.message_set ? "relay_last_error() empty"
                        : NULL;
    if (problem)
        print_error("%s: expected RELAY_ERR_ARG, untouched *out and a message; got: %s\n", what,
                    problem);
    return problem == NULL;
}

static relay_status invoke_block_cyclic(void *args, relay_layout **out)
{
    return ref_build_relay_block_cyclic(args, out);
}

/* Valid: 10 rows in blocks of 2 over 2 process rows from row 1 (local rows 6 and 4),
 * 7 columns in blocks of 3 over 3 process columns from column 2 (local cols 3, 1, 3). */
static const ref_bc_params valid_block_cyclic = {10, 7, 2, 3, 2, 3, RELAY_ROW_MAJOR, 1, 2, 0,
                                                 RELAY_COL_MAJOR};

#define REJECT_BC(base, field, value)                                                        \
    do {                                                                                     \
        ref_bc_params p_ = (base);                                                           \
        p_.field = (value);                                                                  \
        failures += !rejected(invoke_block_cyclic, &p_, 0, #base ": " #field " = " #value);  \
    } while (0)

static void test_block_cyclic_rejects_bad_arguments(void **state)
{
    (void)state;
    int failures = 0;
    ref_bc_params valid_row_major = valid_block_cyclic, accepted[3];
    valid_row_major.elem_order = RELAY_ROW_MAJOR;
    accepted[0] = valid_block_cyclic;
    accepted[1] = valid_block_cyclic;
    accepted[1].lld = 6;
    accepted[2] = valid_row_major;
    accepted[2].lld = 3;
    for (int c = 0; c < 3; c++) {
        ref_layout r;
        ref_layout_block_cyclic(&r, &accepted[c]);
        check_and_free(&r, &failures);
    }

    ref_bc_params p = valid_block_cyclic;
    failures += !rejected(invoke_block_cyclic, &p, 1, "block_cyclic: out = NULL");
    REJECT_BC(valid_block_cyclic, m, -1);
    REJECT_BC(valid_block_cyclic, n, -1);
    REJECT_BC(valid_block_cyclic, mb, 0);
    REJECT_BC(valid_block_cyclic, mb, -2);
    REJECT_BC(valid_block_cyclic, nb, 0);
    REJECT_BC(valid_block_cyclic, nprow, 0);
    REJECT_BC(valid_block_cyclic, nprow, -1);
    REJECT_BC(valid_block_cyclic, npcol, 0);
    REJECT_BC(valid_block_cyclic, grid_order, (relay_order)2);
    REJECT_BC(valid_block_cyclic, grid_order, (relay_order)-1);
    REJECT_BC(valid_block_cyclic, rsrc, -1);
    REJECT_BC(valid_block_cyclic, rsrc, 2);
    REJECT_BC(valid_block_cyclic, csrc, -1);
    REJECT_BC(valid_block_cyclic, csrc, 3);
    REJECT_BC(valid_block_cyclic, lld, -1);
    REJECT_BC(valid_block_cyclic, lld, 5);
    REJECT_BC(valid_block_cyclic, elem_order, (relay_order)2);
    REJECT_BC(valid_row_major, lld, 2);
    assert_int_equal(failures, 0);
}

/* ---- a leading dimension per rank (relay_layout_block_cyclic_lds) ---------------- */

/* A random block-cyclic matrix whose ranks each store at their own ld
 * (their smallest, max(1, local rows or columns), plus 0 to 2), in either
 * element order, checked element by element.  lds that are each rank's
 * smallest make relay_layout_block_cyclic's layout of lld 0. */
static void check_lds(ref_rng *rng)
{
    bc_case c = {0};
    c.m = ref_rng_range(rng, 0, 60);
    c.n = ref_rng_range(rng, 0, 60);
    random_grid(rng, &c);
    c.rsrc = (int)ref_rng_range(rng, 0, c.pr - 1);
    c.csrc = (int)ref_rng_range(rng, 0, c.pc - 1);
    c.grid = ref_rng_range(rng, 0, 1) ? RELAY_ROW_MAJOR : RELAY_COL_MAJOR;
    c.elems = ref_rng_range(rng, 0, 1) ? RELAY_ROW_MAJOR : RELAY_COL_MAJOR;
    int padded = (int)ref_rng_range(rng, 0, 1);
    for (int r = 0; r < c.pr * c.pc; r++) {
        int row = c.grid == RELAY_ROW_MAJOR ? r / c.pc : r % c.pr, col = c.grid == RELAY_ROW_MAJOR ? r % c.pc : r / c.pr;
        int64_t inner = c.elems == RELAY_COL_MAJOR ? ref_numroc(c.m, c.mb, row, c.rsrc, c.pr)
                                                   : ref_numroc(c.n, c.nb, col, c.csrc, c.pc);
        c.lds[r] = (inner > 1 ? inner : 1) + (padded ? ref_rng_range(rng, 0, 2) : 0);
    }
    relay_layout *l;
    assert_int_equal(relay_layout_block_cyclic_lds(&l, c.m, c.n, c.mb, c.nb, c.pr, c.pc, c.grid, c.rsrc, c.csrc, c.lds,
                                                   c.elems), RELAY_OK);
    check_elements(l, &c);
    if (!padded) assert_true(!l->bc.lds_given && l->bc.lld == 0);
    relay_layout_free(l);
}

static void test_lds_random(void **state)
{
    (void)state;
    ref_rng rng;
    ref_rng_seed(&rng, 17);
    for (int c = 0; c < RANDOM_LAYOUTS; c++) check_lds(&rng);
}

/* valid_block_cyclic's matrix (10 x 7 on 2 x 3, local rows 4 on process
 * row 0 and 6 on process row 1) at the leading dimensions args points to
 * (6 of them, row-major grid ranks), or NULL. */
static relay_status invoke_lds(void *args, relay_layout **out)
{
    return relay_layout_block_cyclic_lds(out, 10, 7, 2, 3, 2, 3, RELAY_ROW_MAJOR, 1, 2, args, RELAY_COL_MAJOR);
}

/* Descriptors' own LLDs, each rank's smallest, are relay_layout_block_cyclic's
 * layout of lld 0 and one lld for all is its layout of that lld: plan files
 * hold both.  Padded per rank, the layout's plans are refused by plan files,
 * saying why.  An ld below a rank's rows, one not positive, none: refused. */
static void test_lds_hand_picked(void **state)
{
    (void)state;
    int64_t smallest[6] = {4, 4, 4, 6, 6, 6}, shared[6] = {7, 7, 7, 7, 7, 7}, padded[6] = {5, 4, 4, 6, 8, 6};
    relay_layout *l;
    assert_int_equal(invoke_lds(smallest, &l), RELAY_OK);
    assert_true(!l->bc.lds_given && l->bc.lld == 0);
    relay_layout_free(l);
    assert_int_equal(invoke_lds(shared, &l), RELAY_OK);
    assert_true(!l->bc.lds_given && l->bc.lld == 7);
    relay_layout_free(l);

    assert_int_equal(invoke_lds(padded, &l), RELAY_OK);
    relay_plan *p;
    void *bytes;
    size_t len;
    assert_int_equal(relay_plan_transform(&p, 6, l, l, RELAY_OP_N, RELAY_DOUBLE, NULL), RELAY_OK);
    assert_int_equal(relay_plan_encode(p, &bytes, &len), RELAY_ERR_ARG);
    assert_non_null(strstr(relay_last_error(), "a leading dimension per rank"));
    relay_plan_free(p);
    relay_layout_free(l);

    int failures = 0;
    int64_t below_rows[6] = {3, 4, 4, 6, 6, 6}, below_shared[6] = {5, 5, 5, 5, 5, 5}, zero[6] = {4, 4, 4, 6, 6, 0},
            negative[6] = {4, -4, 4, 6, 6, 6};
    failures += !rejected(invoke_lds, below_rows, 0, "lds: rank 0's 3 below its 4 rows");
    failures += !rejected(invoke_lds, below_shared, 0, "lds: 5 for all, below process row 1's 6 rows");
    failures += !rejected(invoke_lds, zero, 0, "lds: 0 for rank 5");
    failures += !rejected(invoke_lds, negative, 0, "lds: -4 for rank 1");
    failures += !rejected(invoke_lds, NULL, 0, "lds: NULL");
    failures += !rejected(invoke_lds, smallest, 1, "lds: out = NULL");
    assert_int_equal(failures, 0);
}

/* The arguments of relay_layout_grid, arrays inline so a copy can be altered. */
typedef struct {
    int nranks;
    int64_t m, n;
    int nbr, nbc;
    int64_t row_splits[3], col_splits[3];
    int owners[4];
    int64_t offsets[4], lds[4];
    int no_row_splits, no_col_splits, no_owners, no_offsets, no_lds;
    relay_order order;
} grid_args;

static relay_status invoke_grid(void *args, relay_layout **out)
{
    const grid_args *a = args;
    return relay_layout_grid(out, a->nranks, a->m, a->n, a->nbr,
                             a->no_row_splits ? NULL : a->row_splits, a->nbc,
                             a->no_col_splits ? NULL : a->col_splits,
                             a->no_owners ? NULL : a->owners, a->no_offsets ? NULL : a->offsets,
                             a->no_lds ? NULL : a->lds, a->order);
}

/* Valid: 5 x 4 cut at row 2 and column 1, blocks 2x1, 2x3, 3x1, 3x3 on ranks
 * 0, 2, 2, 1.  Rank 2's block 1 (ld 3) touches 0,1,3,4,6,7 and block 2 touches 8,9,10. */
static const grid_args valid_grid = {
    .nranks = 3, .m = 5, .n = 4, .nbr = 2, .nbc = 2,
    .row_splits = {0, 2, 5}, .col_splits = {0, 1, 4}, .owners = {0, 2, 2, 1},
    .offsets = {0, 0, 8, 1}, .lds = {2, 3, 3, 4}, .order = RELAY_COL_MAJOR,
};
/* The same blocks stored row-major: ld at least the block's column count. */
static const grid_args valid_grid_row_major = {
    .nranks = 3, .m = 5, .n = 4, .nbr = 2, .nbc = 2,
    .row_splits = {0, 2, 5}, .col_splits = {0, 1, 4}, .owners = {0, 2, 2, 1},
    .offsets = {0, 0, 6, 0}, .lds = {1, 3, 1, 3}, .order = RELAY_ROW_MAJOR,
};

#define REJECT_GRID(base, change)                                                      \
    do {                                                                               \
        grid_args a_ = (base);                                                         \
        a_.change;                                                                     \
        failures += !rejected(invoke_grid, &a_, 0, #base ": " #change);                \
    } while (0)

static void check_valid_grid(const grid_args *a, int *failures)
{
    ref_layout r;
    ref_layout_grid(&r, a->nranks, a->m, a->n, a->nbr, a->row_splits, a->nbc, a->col_splits,
                    a->owners, a->no_offsets ? NULL : a->offsets, a->no_offsets ? NULL : a->lds,
                    a->order);
    check_and_free(&r, failures);
}

static void test_grid_rejects_bad_arguments(void **state)
{
    (void)state;
    int failures = 0;
    grid_args packed = valid_grid;
    packed.no_offsets = packed.no_lds = 1;
    check_valid_grid(&valid_grid, &failures);
    check_valid_grid(&valid_grid_row_major, &failures);
    check_valid_grid(&packed, &failures);

    grid_args a = valid_grid;
    failures += !rejected(invoke_grid, &a, 1, "grid: out = NULL");
    REJECT_GRID(valid_grid, nranks = 0);
    REJECT_GRID(valid_grid, nranks = -1);
    REJECT_GRID(valid_grid, m = -1);
    REJECT_GRID(valid_grid, n = -1);
    REJECT_GRID(valid_grid, m = 6);
    REJECT_GRID(valid_grid, n = 3);
    REJECT_GRID(valid_grid, nbr = 0);
    REJECT_GRID(valid_grid, nbr = -1);
    REJECT_GRID(valid_grid, nbc = 0);
    REJECT_GRID(valid_grid, no_row_splits = 1);
    REJECT_GRID(valid_grid, no_col_splits = 1);
    REJECT_GRID(valid_grid, no_owners = 1);
    REJECT_GRID(valid_grid, row_splits[0] = 1);
    REJECT_GRID(valid_grid, row_splits[1] = 0);
    REJECT_GRID(valid_grid, row_splits[1] = 5);
    REJECT_GRID(valid_grid, row_splits[1] = 6);
    REJECT_GRID(valid_grid, row_splits[2] = 4);
    REJECT_GRID(valid_grid, row_splits[2] = 6);
    REJECT_GRID(valid_grid, col_splits[0] = -1);
    REJECT_GRID(valid_grid, col_splits[1] = 4);
    REJECT_GRID(valid_grid, col_splits[2] = 3);
    REJECT_GRID(valid_grid, owners[1] = -1);
    REJECT_GRID(valid_grid, owners[1] = 3);
    REJECT_GRID(valid_grid, offsets[0] = -1);
    REJECT_GRID(valid_grid, offsets[2] = 7);      /* shares element 7 with block 1 */
    REJECT_GRID(valid_grid, offsets[2] = 0);      /* same start as block 1 */
    REJECT_GRID(valid_grid, lds[0] = 1);          /* block 0 has 2 rows */
    REJECT_GRID(valid_grid, lds[3] = 2);          /* block 3 has 3 rows */
    REJECT_GRID(valid_grid, lds[0] = 0);
    REJECT_GRID(valid_grid, lds[0] = -2);
    REJECT_GRID(valid_grid, no_lds = 1);          /* offsets without lds */
    REJECT_GRID(valid_grid, no_offsets = 1);      /* lds without offsets */
    REJECT_GRID(valid_grid, order = (relay_order)2);
    REJECT_GRID(valid_grid, order = (relay_order)-1);
    REJECT_GRID(valid_grid_row_major, lds[1] = 2); /* block 1 has 3 columns */
    REJECT_GRID(valid_grid_row_major, lds[0] = 0);
    REJECT_GRID(valid_grid_row_major, offsets[3] = -1);
    REJECT_GRID(valid_grid_row_major, offsets[2] = 5); /* shares element 5 with block 1 */
    REJECT_GRID(packed, owners[0] = 3);
    assert_int_equal(failures, 0);
}

/* relay_layout_locate of an element outside the matrix. */
typedef struct {
    const relay_layout *layout;
    int64_t i, j;
    int rank;
    int64_t index;
} locate_args;

static relay_status invoke_locate(void *args, relay_layout **out)
{
    (void)out;
    locate_args *a = args;
    return relay_layout_locate(a->layout, a->i, a->j, &a->rank, &a->index);
}

static void test_out_of_range_queries(void **state)
{
    (void)state;
    relay_layout *l = NULL;
    assert_int_equal(ref_build_relay_block_cyclic(&valid_block_cyclic, &l), RELAY_OK);
    assert_int_equal(relay_layout_local_elems(l, -1), 0);
    assert_int_equal(relay_layout_local_elems(l, 6), 0);
    assert_int_equal(relay_layout_local_elems(l, 1000), 0);
    const int64_t outside[][2] = {{-1, 0}, {10, 0}, {0, -1}, {0, 7}, {10, 7}};
    int failures = 0;
    for (size_t c = 0; c < sizeof outside / sizeof outside[0]; c++) {
        locate_args a = {.layout = l, .i = outside[c][0], .j = outside[c][1], .rank = -77,
                         .index = -77};
        char what[64];
        snprintf(what, sizeof what, "locate(%lld, %lld) of a 10 x 7 layout",
                 (long long)a.i, (long long)a.j);
        failures += !rejected(invoke_locate, &a, 0, what);
    }
    relay_layout_free(l);
    assert_int_equal(failures, 0);
}

/* The headers do not say whether an empty matrix is valid: it must not crash,
 * and a layout that is built owns nothing anywhere. */
static void check_empty_layout(relay_status s, relay_layout *l, int nranks)
{
    if (s != RELAY_OK)
        return;
    for (int rank = 0; rank < nranks; rank++)
        assert_int_equal(relay_layout_local_elems(l, rank), 0);
    relay_layout_free(l);
}

static void test_empty_matrices(void **state)
{
    (void)state;
    const ref_bc_params empty_bc[] = {
        {0, 5, 2, 2, 2, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR},
        {5, 0, 2, 2, 2, 2, RELAY_COL_MAJOR, 1, 1, 0, RELAY_ROW_MAJOR},
        {0, 0, 1, 1, 1, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR},
    };
    for (size_t c = 0; c < sizeof empty_bc / sizeof empty_bc[0]; c++) {
        relay_layout *l = NULL;
        relay_status s = ref_build_relay_block_cyclic(&empty_bc[c], &l);
        check_empty_layout(s, l, 4);
    }
    const int64_t no_rows[] = {0}, cols[] = {0, 1, 4};
    const int no_owners[1] = {0};
    relay_layout *l = NULL;
    relay_status s = relay_layout_grid(&l, 2, 0, 4, 0, no_rows, 2, cols, no_owners, NULL, NULL,
                                       RELAY_COL_MAJOR);
    check_empty_layout(s, l, 2);
}

/* Sizes near 2^63: every sum and product of them is
 * checked, so a layout is refused or has exactly the blocks its sizes give:
 * never wrapped splits, never a sanitizer report. */
static void test_extreme_sizes_do_not_overflow(void **state)
{
    (void)state;
    const int64_t big[] = {INT64_MAX, INT64_MAX - 1, INT64_MAX / 2 + 1, (int64_t)1 << 62, 5};
    for (size_t i = 0; i < sizeof big / sizeof *big; i++)
        for (size_t j = 0; j < sizeof big / sizeof *big; j++) {
            relay_layout *l = NULL;
            int64_t m = big[i], mb = big[j];
            if (relay_layout_block_cyclic(&l, m, 1, mb, 1, 1, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR) != RELAY_OK) continue;
            assert_int_equal(l->nbr, m / mb + (m % mb != 0));
            assert_true(block_cyclic_splits_are_right(l));
            relay_layout_free(l);
        }
    /* A packed grid block of 2^40 x 2^40 elements does not fit a buffer. */
    relay_layout *g = NULL;
    int64_t splits[] = {0, (int64_t)1 << 40};
    int owners[] = {0};
    assert_int_equal(relay_layout_grid(&g, 1, splits[1], splits[1], 1, splits, 1, splits, owners, NULL, NULL, RELAY_COL_MAJOR),
                     RELAY_ERR_ARG);
    assert_null(g);
}

/* A block-cyclic layout holds per-rank sizes, not
 * its blocks, so 2^31 - 1 one-row blocks cost O(ranks) and answer
 * queries at the far end; 2^31 blocks are refused in one line. */
static void test_block_count_costs_no_memory(void **state)
{
    (void)state;
    relay_layout *l = NULL;
    int64_t m = INT32_MAX, index;
    int rank;
    assert_int_equal(relay_layout_block_cyclic(&l, m, 3, 1, 2, 4, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_null(l->row_splits);
    assert_int_equal(l->nbr, INT32_MAX);
    assert_int_equal(rl_layout_row_split(l, l->nbr - 1), m - 1);
    assert_int_equal(rl_layout_row_split(l, l->nbr), m);
    assert_int_equal(relay_layout_locate(l, m - 1, 2, &rank, &index), RELAY_OK);
    assert_int_equal(rank, (int)((m - 1) % 4));
    assert_int_equal(index, (m - 1) / 4 + 2 * ((m + 3) / 4)); /* rank 2 holds ceil(m / 4) rows */
    relay_layout_free(l);
    l = NULL;
    assert_int_equal(relay_layout_block_cyclic(&l, (int64_t)1 << 40, 1, 1, 1, 4, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR),
                     RELAY_ERR_ARG);
    assert_null(l);
    assert_non_null(strstr(relay_last_error(), "more than 2^31 block rows"));
}

/* ---- overlap of a rank's blocks ----------------------------------------------- */

enum { OVERLAP_BLOCKS = 9, OVERLAP_SPACE = 256 };

/* A small grid layout on one rank with explicit, typically interleaved storage. */
typedef struct {
    int64_t m, n, row_splits[4], col_splits[4], offsets[OVERLAP_BLOCKS], lds[OVERLAP_BLOCKS];
    int nbr, nbc, owners[OVERLAP_BLOCKS];
    relay_order order;
} overlap_case;

static relay_status build_overlap_case(const overlap_case *c, relay_layout **out)
{
    return relay_layout_grid(out, 1, c->m, c->n, c->nbr, c->row_splits, c->nbc, c->col_splits,
                             c->owners, c->offsets, c->lds, c->order);
}

/* The reference: mark every element of every block in a bitmap; 1 when one is marked twice. */
static int brute_force_overlap(const overlap_case *c)
{
    unsigned char used[OVERLAP_SPACE] = {0};
    for (int bi = 0; bi < c->nbr; bi++)
        for (int bj = 0; bj < c->nbc; bj++) {
            int b = bi * c->nbc + bj;
            for (int64_t i = 0; i < c->row_splits[bi + 1] - c->row_splits[bi]; i++)
                for (int64_t j = 0; j < c->col_splits[bj + 1] - c->col_splits[bj]; j++) {
                    int64_t at = c->offsets[b] + (c->order == RELAY_COL_MAJOR ? i + j * c->lds[b] : i * c->lds[b] + j);
                    assert_true(at < OVERLAP_SPACE);
                    if (used[at]++) return 1;
                }
        }
    return 0;
}

static void random_splits(ref_rng *rng, int64_t *splits, int *count, int64_t *extent)
{
    *count = (int)ref_rng_range(rng, 1, 3);
    splits[0] = 0;
    for (int k = 0; k < *count; k++) splits[k + 1] = splits[k] + ref_rng_range(rng, 1, 4);
    *extent = splits[*count];
}

/* Blocks of up to 4 x 4 at offsets 0..24, ld their inner count plus 0..3, all
 * blocks one ld (same_ld) or each its own. */
static void random_overlap_case(ref_rng *rng, int same_ld, overlap_case *c)
{
    memset(c, 0, sizeof *c);
    c->order = ref_rng_percent(rng, 50) ? RELAY_COL_MAJOR : RELAY_ROW_MAJOR;
    random_splits(rng, c->row_splits, &c->nbr, &c->m);
    random_splits(rng, c->col_splits, &c->nbc, &c->n);
    int64_t shared_ld = 4 + ref_rng_range(rng, 0, 3);
    for (int b = 0; b < c->nbr * c->nbc; b++) {
        int64_t rows = c->row_splits[b / c->nbc + 1] - c->row_splits[b / c->nbc];
        int64_t cols = c->col_splits[b % c->nbc + 1] - c->col_splits[b % c->nbc];
        int64_t inner = c->order == RELAY_COL_MAJOR ? rows : cols;
        c->lds[b] = same_ld ? shared_ld : inner + ref_rng_range(rng, 0, 3);
        c->offsets[b] = ref_rng_range(rng, 0, 24);
    }
}

/* relay refuses exactly the layouts whose blocks share an element, with the overlap line. */
static int overlap_verdict_matches(const overlap_case *c)
{
    relay_layout *l = NULL;
    relay_status st = build_overlap_case(c, &l);
    relay_layout_free(l);
    if (brute_force_overlap(c))
        return st == RELAY_ERR_ARG && strstr(relay_last_error(), "two blocks of rank 0 overlap in its buffer");
    return st == RELAY_OK;
}

static void check_random_overlaps(uint64_t seed, int same_ld)
{
    ref_rng rng;
    ref_rng_seed(&rng, seed);
    int overlapping = 0, disjoint = 0, wrong = 0;
    for (int k = 0; k < 20000; k++) {
        overlap_case c;
        random_overlap_case(&rng, same_ld, &c);
        int expected = brute_force_overlap(&c);
        overlapping += expected;
        disjoint += !expected;
        if (!overlap_verdict_matches(&c) && wrong++ < 5)
            print_error("case %d: relay's verdict differs from the bitmap's (overlap %d)\n", k, expected);
    }
    assert_int_equal(wrong, 0);
    assert_true(overlapping > 1000 && disjoint > 1000); /* both verdicts are tested, many times */
}

static void test_overlap_random_same_ld(void **state)
{
    (void)state;
    check_random_overlaps(17, 1);
}

static void test_overlap_random_different_lds(void **state)
{
    (void)state;
    check_random_overlaps(18, 0);
}

/* Hand-picked: ScaLAPACK-like interleaving, runs that touch, off-by-one overlaps. */
static void test_overlap_hand_picked(void **state)
{
    (void)state;
    const overlap_case cases[] = {
        /* 3 block rows of 2, 3, 1 rows and 2 columns interleaved in one column of ld 6: disjoint */
        {6, 2, {0, 2, 5, 6}, {0, 2}, {0, 2, 5}, {6, 6, 6}, 3, 1, {0}, RELAY_COL_MAJOR},
        /* the same, the third block one element early: overlaps the second's last row */
        {6, 2, {0, 2, 5, 6}, {0, 2}, {0, 2, 4}, {6, 6, 6}, 3, 1, {0}, RELAY_COL_MAJOR},
        /* the same, ld 5 (one less than the rows): column 0's last row meets column 1's first */
        {6, 2, {0, 2, 5, 6}, {0, 2}, {0, 2, 5}, {5, 5, 5}, 3, 1, {0}, RELAY_COL_MAJOR},
        /* two 2 x 3 blocks in adjacent column pairs of one ld 4 buffer, touching: disjoint */
        {2, 6, {0, 2}, {0, 3, 6}, {0, 12}, {4, 4}, 1, 2, {0}, RELAY_COL_MAJOR},
        /* row-major, second block one row early: overlaps */
        {4, 2, {0, 2, 4}, {0, 2}, {0, 2}, {2, 2}, 2, 1, {0}, RELAY_ROW_MAJOR},
        /* row-major, rows of 2 at ld 3 and rows of 1 at ld 3 filling the gaps: disjoint */
        {2, 3, {0, 2}, {0, 2, 3}, {0, 2}, {3, 3}, 1, 2, {0}, RELAY_ROW_MAJOR},
        /* different lds: evens (ld 2) and the odd 1, 5, 9 (ld 4): disjoint; then 8 shared */
        {1, 9, {0, 1}, {0, 6, 9}, {0, 1}, {2, 4}, 1, 2, {0}, RELAY_COL_MAJOR},
        {1, 9, {0, 1}, {0, 6, 9}, {0, 0}, {2, 4}, 1, 2, {0}, RELAY_COL_MAJOR},
    };
    const int expected[] = {0, 1, 1, 0, 1, 0, 0, 1};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        assert_int_equal(brute_force_overlap(&cases[k]), expected[k]);
        assert_true(overlap_verdict_matches(&cases[k]));
    }
}

/* Two 1 x cols blocks of rank 0, the first at the even, the second at the
 * odd elements of one buffer (ld 2), or the second at ld 3. */
static relay_status interleaved_pair(int64_t cols, int64_t second_ld)
{
    int64_t rows[] = {0, 1}, col_splits[] = {0, cols, 2 * cols}, offsets[] = {0, 1}, lds[] = {2, second_ld};
    int owners[] = {0, 0};
    relay_layout *l = NULL;
    relay_status st = relay_layout_grid(&l, 1, 1, 2 * cols, 1, rows, 2, col_splits, owners, offsets, lds, RELAY_COL_MAJOR);
    relay_layout_free(l);
    return st;
}

/* Interleaved blocks of 2^28 and 2^40 columns sharing ld cost O(1) to check
 * (the former took 8 GB and minutes; under ASan its allocation would abort).
 * With lds 2 and 3 and 2^26 columns, even the shorter walk has 2^27 / 3 runs. */
static void test_overlap_check_costs_no_memory(void **state)
{
    (void)state;
    assert_int_equal(interleaved_pair((int64_t)1 << 28, 2), RELAY_OK);
    assert_int_equal(interleaved_pair((int64_t)1 << 40, 2), RELAY_OK);
    assert_int_equal(interleaved_pair((int64_t)1 << 26, 3), RELAY_ERR_ARG);
    assert_non_null(strstr(relay_last_error(), "blocks (0, 0) and (0, 1) of rank 0 interleave with different leading "
                                               "dimensions past the layout's 2^24 runs; relay cannot check them for overlap"));
    assert_int_equal(interleaved_pair((int64_t)1 << 20, 3), RELAY_ERR_ARG); /* element 4: column 2 of one, 1 of the other */
    assert_non_null(strstr(relay_last_error(), "two blocks of rank 0 overlap"));
}

/* The walk's budget is the layout's, not each rank's: 128 ranks, each with
 * two blocks interleaved at lds 2 and 4 that walk 2^23 runs, took 11 s to
 * accept under ASan (a plan file of 4 KB); now the third rank's pair is past
 * the budget and the layout is refused at once. */
static void test_interleave_budget_is_the_layouts(void **state)
{
    (void)state;
    enum { RANKS = 128 };
    int64_t cols = (int64_t)1 << 24, rows[] = {0, 1}, col_splits[2 * RANKS + 1], offsets[2 * RANKS], lds[2 * RANKS];
    int owners[2 * RANKS];
    for (int k = 0; k <= 2 * RANKS; k++) col_splits[k] = k * cols;
    for (int k = 0; k < 2 * RANKS; k++) {
        owners[k] = k / 2;
        offsets[k] = k % 2;
        lds[k] = k % 2 ? 4 : 2;
    }
    relay_layout *l = NULL;
    relay_status st = relay_layout_grid(&l, RANKS, 1, 2 * RANKS * cols, 1, rows, 2 * RANKS, col_splits, owners, offsets, lds,
                                        RELAY_COL_MAJOR);
    assert_int_equal(st, RELAY_ERR_ARG);
    assert_null(l);
    assert_non_null(strstr(relay_last_error(), "blocks (0, 4) and (0, 5) of rank 2 interleave with different leading "
                                               "dimensions past the layout's 2^24 runs"));
    st = relay_layout_grid(&l, 2, 1, 4 * cols, 1, rows, 4, col_splits, owners, offsets, lds, RELAY_COL_MAJOR);
    assert_int_equal(st, RELAY_OK); /* two ranks' walks fit */
    relay_layout_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_is_self_consistent),
        cmocka_unit_test(test_interleave_budget_is_the_layouts),
        cmocka_unit_test(test_scalapack_formulas_by_hand),
        cmocka_unit_test(test_block_cyclic_hand_picked),
        cmocka_unit_test(test_block_cyclic_random),
        cmocka_unit_test(test_submatrix_random),
        cmocka_unit_test(test_submatrix_lld),
        cmocka_unit_test(test_lds_random),
        cmocka_unit_test(test_lds_hand_picked),
        cmocka_unit_test(test_grid_packed_random),
        cmocka_unit_test(test_grid_explicit_random),
        cmocka_unit_test(test_grid_with_block_cyclic_storage),
        cmocka_unit_test(test_block_cyclic_rejects_bad_arguments),
        cmocka_unit_test(test_grid_rejects_bad_arguments),
        cmocka_unit_test(test_out_of_range_queries),
        cmocka_unit_test(test_empty_matrices),
        cmocka_unit_test(test_extreme_sizes_do_not_overflow),
        cmocka_unit_test(test_block_count_costs_no_memory),
        cmocka_unit_test(test_overlap_random_same_ld),
        cmocka_unit_test(test_overlap_random_different_lds),
        cmocka_unit_test(test_overlap_hand_picked),
        cmocka_unit_test(test_overlap_check_costs_no_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
