/* test_bc_lattice.c — a block-cyclic transform's pieces as 2-D lattices
 * (plan_format/lattice/bc_lattice.c, through the batches of
 * plan_format/lattice/section.c) against ScaLAPACK's index arithmetic, in
 * this file.
 *
 * On hundreds of random block-cyclic batches (blocks from 1 up, both grid
 * orders and element orders, rsrc/csrc, lld, op N/T/C, resizes P -> Q,
 * relabeling greedy and optimal, batches of several pairs) every rank's
 * send and receive sides are expanded here piece by piece, element by
 * element (lattice_check.c).  Each element's offset is taken back to the
 * global element it holds by ScaLAPACK's INDXL2G, which must be the A
 * element the lattice names; its buffer's leading dimension and both ranks
 * must be the ones ScaLAPACK's formulas give; and every element of every A
 * must be carried exactly once by its sender and once by its receiver.
 * Both ends of a message must list the same lattices, the plan's sections
 * must be the sides' halves, and a rank's sides from a batch of its own
 * must equal those from the shared one.  Two regular cases assert how few
 * lattices a message needs, one of them (COSTA's Figure 3, 10^8 pieces per
 * rank) without expanding anything. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "bc_lattice.h"
#include "lattice_check.h"
#include "reference.h"

enum { MAX_PAIRS = 3 };

static ref_rng rng;
static int relabeled_cases, resized_cases;   /* coverage of the random cases */
static int64_t uniform(int64_t lo, int64_t hi) { return ref_rng_range(&rng, lo, hi); }

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- the reference: ScaLAPACK's index arithmetic ----------------------------- */

/* ScaLAPACK's INDXL2G, 0-based: the global index of local index l on
 * process p. */
static int64_t indxl2g(int64_t l, int64_t b, int p, int src, int P)
{
    return l / b * b * P + (int64_t)((p - src + P) % P) * b + l % b;
}

static void coords_of(const ref_bc_params *d, int base, int *pr, int *pc)
{
    *pr = d->grid_order == RELAY_ROW_MAJOR ? base / d->npcol : base % d->nprow;
    *pc = d->grid_order == RELAY_ROW_MAJOR ? base % d->npcol : base / d->nprow;
}

/* The global (row, col) stored at offset o of base rank `base`'s buffer. */
static void global_of(const ref_bc_params *d, int base, int64_t ld, int64_t o, int64_t *row, int64_t *col)
{
    int pr, pc;
    coords_of(d, base, &pr, &pc);
    int64_t lr = d->elem_order == RELAY_COL_MAJOR ? o % ld : o / ld;
    int64_t lc = d->elem_order == RELAY_COL_MAJOR ? o / ld : o % ld;
    *row = indxl2g(lr, d->mb, pr, d->rsrc, d->nprow);
    *col = indxl2g(lc, d->nb, pc, d->csrc, d->npcol);
}

/* The leading dimension of base rank `base`'s buffer: lld, or the smallest
 * legal one (its local row count, column count when row-major; at least 1). */
static int64_t ld_of(const ref_bc_params *d, int base)
{
    int pr, pc;
    coords_of(d, base, &pr, &pc);
    int64_t inner = d->elem_order == RELAY_COL_MAJOR ? ref_numroc(d->m, d->mb, pr, d->rsrc, d->nprow)
                                                     : ref_numroc(d->n, d->nb, pc, d->csrc, d->npcol);
    return d->lld ? d->lld : inner > 1 ? inner : 1;
}

/* The base rank holding global element (row, col). */
static int owner_of(const ref_bc_params *d, int64_t row, int64_t col)
{
    return ref_grid_rank(d->grid_order, d->nprow, d->npcol, ref_indxg2p(row, d->mb, d->rsrc, d->nprow),
                         ref_indxg2p(col, d->nb, d->csrc, d->npcol));
}

static int ranks_of(const ref_bc_params *d) { return d->nprow * d->npcol; }

/* ---- a case: its layouts as ScaLAPACK describes them, and what sides carry ---- */

typedef struct {
    ref_bc_params a, b;      /* A's layout (logical ranks) and B's */
    relay_op op;
} pair_params;

typedef struct {
    int count, nranks;
    pair_params pr[MAX_PAIRS];
    const int *sigma;        /* logical rank of A -> rank holding its blocks */
    int *unsigma;            /* rank -> logical rank of A it holds, or -1 */
    lc_routes routes;
} bc_case;

/* An element a side carries: the global element at its offset (INDXL2G,
 * at the reference's ld) must be the one the lattice names. */
static void check_element(const lc_element *e, void *vc)
{
    bc_case *c = vc;
    const pair_params *p = &c->pr[e->pair];
    int64_t row, col;
    if (e->receiving) {
        int base = c->unsigma[e->self];
        assert_true(base >= 0 && base < ranks_of(&p->a));
        assert_int_equal(e->ld, ld_of(&p->a, base));
        global_of(&p->a, base, e->ld, e->off, &row, &col);
    } else {
        int t = p->op != RELAY_OP_N;
        int64_t br, bc;
        assert_true(e->self < ranks_of(&p->b));
        assert_int_equal(e->ld, ld_of(&p->b, (int)e->self));
        global_of(&p->b, (int)e->self, e->ld, e->off, &br, &bc);
        row = t ? bc : br;
        col = t ? br : bc;
    }
    assert_int_equal(row, e->row);
    assert_int_equal(col, e->col);
    lc_routes_record(&c->routes, e);
}

/* Every element went from its B owner to the rank holding its A owner's
 * blocks. */
static void check_ranks(const bc_case *c)
{
    for (int k = 0; k < c->count; k++) {
        const pair_params *p = &c->pr[k];
        int t = p->op != RELAY_OP_N;
        for (int64_t row = 0; row < p->a.m; row++)
            for (int64_t col = 0; col < p->a.n; col++) {
                const lc_route *r = &c->routes.send[k][row * p->a.n + col];
                assert_int_equal(r->sender, owner_of(&p->b, t ? col : row, t ? row : col));
                assert_int_equal(r->receiver, c->sigma[owner_of(&p->a, row, col)]);
            }
    }
}

/* Every rank's sides of the plan's batch, checked; returns their lattices. */
static int64_t check_sides(bc_case *c, const relay_plan *p)
{
    lc_sides sides;
    lc_sides_build(&sides, p->pairs, p->count, p->nranks);
    lc_check_form(&sides);
    lc_check_ends(&sides);
    lc_check_plan(&sides, p);
    for (int r = 1; r < p->nranks; r += 2) lc_check_alone(&sides, p->pairs, p->count, r);
    lc_routes_init(&c->routes, p->pairs, p->count);
    lc_walk(&sides, p->pairs, check_element, c);
    lc_routes_check_complete(&c->routes);
    check_ranks(c);
    lc_routes_free(&c->routes);
    int64_t lattices = 0;
    for (int r = 0; r < p->nranks; r++) lattices += lc_send_lattices(&sides, r);
    lc_sides_free(&sides);
    return lattices;
}

/* ---- random cases ---------------------------------------------------------------- */

static relay_order random_order(void) { return uniform(0, 1) ? RELAY_ROW_MAJOR : RELAY_COL_MAJOR; }

/* Blocks from 1 up; lld given in a third of the draws. */
static ref_bc_params random_bc(int64_t m, int64_t n)
{
    ref_bc_params d = {m, n, uniform(1, 40), uniform(1, 40), (int)uniform(1, 3), (int)uniform(1, 3), random_order(),
                       0, 0, 0, random_order()};
    d.rsrc = (int)uniform(0, d.nprow - 1);
    d.csrc = (int)uniform(0, d.npcol - 1);
    if (uniform(0, 2) == 0) {
        int64_t need = d.elem_order == RELAY_COL_MAJOR ? ref_numroc(m, d.mb, d.rsrc, d.rsrc, d.nprow)
                                                       : ref_numroc(n, d.nb, d.csrc, d.csrc, d.npcol);
        d.lld = (need > 1 ? need : 1) + uniform(0, 5);
    }
    return d;
}

static relay_layout *make_layout(const ref_bc_params *d)
{
    relay_layout *l;
    assert_int_equal(relay_layout_block_cyclic(&l, d->m, d->n, d->mb, d->nb, d->nprow, d->npcol, d->grid_order,
                                               d->rsrc, d->csrc, d->lld, d->elem_order),
                     RELAY_OK);
    return l;
}

static void random_pair(pair_params *pr, int64_t m, int64_t n)
{
    pr->op = (relay_op)uniform(0, 2);
    pr->a = random_bc(m, n);
    pr->b = pr->op == RELAY_OP_N ? random_bc(m, n) : random_bc(n, m);
}

/* The plan of the case's batch, relabeled as asked. */
static relay_plan *plan_case(const bc_case *c, relay_relabel relabel)
{
    relay_layout *dst[MAX_PAIRS], *src[MAX_PAIRS];
    relay_op ops[MAX_PAIRS];
    for (int k = 0; k < c->count; k++) {
        dst[k] = make_layout(&c->pr[k].a);
        src[k] = make_layout(&c->pr[k].b);
        ops[k] = c->pr[k].op;
    }
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.relabel = relabel;
    relay_plan *p;
    assert_int_equal(relay_plan_transform_batch(&p, c->nranks, c->count, (const relay_layout *const *)dst,
                                                (const relay_layout *const *)src, ops, RELAY_DOUBLE, &o),
                     RELAY_OK);
    for (int k = 0; k < c->count; k++) {
        relay_layout_free(dst[k]);
        relay_layout_free(src[k]);
    }
    return p;
}

/* One random batch of `count` pairs; returns its lattices. */
static int64_t random_case(int count, relay_relabel relabel)
{
    bc_case c = {.count = count};
    int64_t m = uniform(1, 300), n = uniform(1, 300);
    for (int k = 0; k < count; k++) {
        random_pair(&c.pr[k], m, n);
        int most = ranks_of(&c.pr[k].a) > ranks_of(&c.pr[k].b) ? ranks_of(&c.pr[k].a) : ranks_of(&c.pr[k].b);
        if (most > c.nranks) c.nranks = most;
    }
    c.nranks += (int)uniform(0, 1);   /* sometimes a rank with nothing */
    relay_plan *p = plan_case(&c, relabel);
    int *sigma = malloc((size_t)c.nranks * sizeof *sigma), *unsigma = malloc((size_t)c.nranks * sizeof *unsigma);
    assert_int_equal(relay_plan_relabeling(p, sigma), RELAY_OK);
    for (int r = 0; r < c.nranks; r++) unsigma[r] = -1;
    for (int j = 0; j < c.nranks; j++) unsigma[sigma[j]] = j;
    for (int j = 0; j < c.nranks; j++)
        if (sigma[j] != j) {
            relabeled_cases++;
            break;
        }
    resized_cases += ranks_of(&c.pr[0].a) != ranks_of(&c.pr[0].b);
    c.sigma = sigma;
    c.unsigma = unsigma;
    int64_t lattices = check_sides(&c, p);
    free(sigma);
    free(unsigma);
    relay_plan_free(p);
    return lattices;
}

static void test_random_pairs(void **state)
{
    (void)state;
    ref_rng_seed(&rng, 1515);
    int64_t lattices = 0;
    const relay_relabel modes[] = {RELAY_RELABEL_NONE, RELAY_RELABEL_GREEDY, RELAY_RELABEL_OPTIMAL};
    for (int c = 0; c < 450; c++) lattices += random_case(c % 5 == 4 ? (int)uniform(2, MAX_PAIRS) : 1, modes[c % 3]);
    printf("450 random block-cyclic cases (%d relabeled, %d resized): %lld lattices\n", relabeled_cases,
           resized_cases, (long long)lattices);
    assert_true(relabeled_cases > 50 && resized_cases > 200);
}

/* ---- regular cases ------------------------------------------------------------------ */

typedef struct {
    int64_t lattices, most_per_message, pieces;
    double ms;
} side_count;

/* Rank 0's send side of pair (A, B), without expanding anything. */
static side_count count_send_side(const rl_pair *pair)
{
    rl_batch *b;
    rl_lattice_side s;
    double t0 = seconds();
    assert_int_equal(rl_batch_create(&b, pair, 1, RELAY_DOUBLE), RELAY_OK);
    assert_int_equal(rl_batch_side(b, 0, 1, &s), RELAY_OK);
    side_count n = {s.nlattices + s.nlocal, 0, 0, (seconds() - t0) * 1e3};
    for (int32_t m = 0; m < s.nmsg; m++)
        if (s.msgs[m].count > n.most_per_message) n.most_per_message = s.msgs[m].count;
    for (int64_t q = 0; q < s.nlattices; q++) n.pieces += rl_lattice_npieces(&s.lattices[q]);
    for (int64_t q = 0; q < s.nlocal; q++) n.pieces += rl_lattice_npieces(&s.local[q]);
    rl_lattice_side_free(&s);
    rl_batch_free(b);
    return n;
}

/* Rank 0's send side of B := A as block-cyclic layouts b -> a, counted and
 * printed under `name`. */
static side_count count_case(const char *name, ref_bc_params b, ref_bc_params a)
{
    relay_layout *lb = make_layout(&b), *la = make_layout(&a);
    rl_pair pair = {RELAY_OP_N, la, la, lb};
    side_count n = count_send_side(&pair);
    printf("%s: rank 0 sends %lld lattices (at most %lld per message) covering %lld pieces, in %.3f ms\n", name,
           (long long)n.lattices, (long long)n.most_per_message, (long long)n.pieces, n.ms);
    relay_layout_free(la);
    relay_layout_free(lb);
    return n;
}

/* 32 x 32 -> 128 x 128 blocks, 2 x 2 -> 2 x 2, n = 4000: in each period
 * of 256 indices a target process's block is 4 source blocks of processes
 * 0 1 0 1, so per dimension a pair of processes meets in 2 progressions
 * (offsets 0 and 64 of the block, stride 256), which the tail extends: a
 * message is 2 x 2 lattices, for ~1000 pieces. */
static void test_regular(void **state)
{
    (void)state;
    side_count n = count_case("32 -> 128 blocks, 2 x 2, n = 4000",
                              (ref_bc_params){4000, 4000, 32, 32, 2, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR},
                              (ref_bc_params){4000, 4000, 128, 128, 2, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR});
    assert_int_equal(n.most_per_message, 4);
    assert_int_equal(n.pieces, 63 * 63);   /* rank 0's B blocks, each inside one A block */
}

/* COSTA's Figure 3: b = 1 on a 10 x 10 grid to blocks of 10^4, n = 10^5.
 * Rank 0 holds 10^8 single elements, each a piece of its own; they are
 * 100 lattices (one per peer, itself included) of 1000 x 1000 pieces.
 * How fast they are found is bench/lattice_scale's to measure. */
static void test_costa_block_one(void **state)
{
    (void)state;
    side_count n = count_case("Figure 3, b = 1 -> 10^4 on 10 x 10, n = 10^5",
                              (ref_bc_params){100000, 100000, 1, 1, 10, 10, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR},
                              (ref_bc_params){100000, 100000, 10000, 10000, 10, 10, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR});
    assert_int_equal(n.lattices, 100);
    assert_int_equal(n.most_per_message, 1);
    assert_int_equal(n.pieces, (int64_t)100000000);
}

/* ---- refusals -------------------------------------------------------------------------- */

static void test_refusals(void **state)
{
    (void)state;
    relay_layout *bc, *grid;
    ref_bc_params d = {10, 10, 3, 3, 1, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR};
    bc = make_layout(&d);
    int64_t splits[] = {0, 10};
    int owner = 0;
    assert_int_equal(relay_layout_grid(&grid, 2, 10, 10, 1, splits, 1, splits, &owner, NULL, NULL, RELAY_COL_MAJOR), RELAY_OK);
    rl_pair mixed = {RELAY_OP_N, grid, grid, bc}, good = {RELAY_OP_N, bc, bc, bc};
    rl_bc_pair_overlay ov;
    assert_int_equal(rl_bc_pair_overlay_init(&ov, &mixed, 0), RELAY_ERR_ARG);
    assert_non_null(strstr(relay_last_error(), "not block-cyclic"));
    rl_bc_pair_overlay_free(&ov);
    assert_int_equal(rl_bc_pair_overlay_init(&ov, &good, 0), RELAY_OK);
    rl_lattice_list list = {0};
    assert_int_equal(rl_bc_side_lattices(&ov, &good, 0, 2, 1, &list), RELAY_ERR_ARG);
    assert_non_null(strstr(relay_last_error(), "outside"));
    assert_int_equal(rl_bc_side_lattices(&ov, &good, 0, -1, 0, &list), RELAY_ERR_ARG);
    assert_int_equal(list.n, 0);
    free(list.v);
    rl_bc_pair_overlay_free(&ov);
    relay_layout_free(bc);
    relay_layout_free(grid);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_pairs),
        cmocka_unit_test(test_regular),
        cmocka_unit_test(test_costa_block_one),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
