/* test_bc_lattice.c — a block-cyclic transform's pieces as 2-D lattices
 * (planner/bc_lattice.c) against the pieces today's planner emits.
 *
 * On hundreds of random block-cyclic pairs (both grid orders and element
 * orders, rsrc/csrc, lld, op N/T/C, resizes P -> Q, relabeling, batches of
 * two) the plan of relay_plan_transform and the lattices of every rank's
 * send and receive side are compared element by element: each side's
 * pieces are expanded to the A elements they carry, found from the offset
 * alone by ScaLAPACK's INDXL2G (so the comparison ignores how pieces are
 * cut and merged), and every A element must have the same (sender,
 * receiver, source offset) and (sender, receiver, destination offset) in
 * both.  Messages must have the same peers and sizes.  Two regular cases
 * assert how few lattices a message needs, one of them (COSTA's Figure 3,
 * 10^8 pieces per rank) without expanding anything. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "bc_lattice.h"
#include "reference.h"

static ref_rng rng;
static int relabeled_cases, resized_cases;   /* coverage of the random cases */
static int64_t uniform(int64_t lo, int64_t hi) { return ref_rng_range(&rng, lo, hi); }

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- the reference: from a local offset back to the global element ------ */

/* ScaLAPACK's INDXL2G, 0-based: the global index of local index l on
 * process p. */
static int64_t indxl2g(int64_t l, int64_t b, int p, int src, int P)
{
    return l / b * b * P + (int64_t)((p - src + P) % P) * b + l % b;
}

/* The global (row, col) stored at offset o of base rank `base`'s buffer. */
static void global_of(const ref_bc_params *d, int base, int64_t ld, int64_t o, int64_t *row, int64_t *col)
{
    int pr = d->grid_order == RELAY_ROW_MAJOR ? base / d->npcol : base % d->nprow;
    int pc = d->grid_order == RELAY_ROW_MAJOR ? base % d->npcol : base / d->nprow;
    int64_t lr = d->elem_order == RELAY_COL_MAJOR ? o % ld : o / ld;
    int64_t lc = d->elem_order == RELAY_COL_MAJOR ? o / ld : o % ld;
    *row = indxl2g(lr, d->mb, pr, d->rsrc, d->nprow);
    *col = indxl2g(lc, d->nb, pc, d->csrc, d->npcol);
}

static int64_t offset_in(relay_order o, int64_t ld, int64_t r, int64_t c)
{
    return o == RELAY_COL_MAJOR ? r + c * ld : r * ld + c;
}

/* ---- where every A element travels, as one side sees it ---------------- */

typedef struct { int64_t sender, receiver, off; } route;

typedef struct {
    ref_bc_params a, b;      /* A's layout (logical ranks) and B's */
    relay_op op;
    route *send, *recv;      /* per A element (row-major), as pieces say */
} pair_record;

typedef struct {
    int count, nranks;
    pair_record pr[2];
    int *unsigma;            /* rank -> logical rank of A it holds, or -1 */
} case_record;

static void record_init(case_record *c)
{
    for (int k = 0; k < c->count; k++) {
        size_t n = (size_t)(c->pr[k].a.m * c->pr[k].a.n) + 1;
        c->pr[k].send = malloc(n * sizeof(route));
        c->pr[k].recv = malloc(n * sizeof(route));
        memset(c->pr[k].send, 0xff, n * sizeof(route));
        memset(c->pr[k].recv, 0xff, n * sizeof(route));
    }
}

static void record_free(case_record *c)
{
    for (int k = 0; k < c->count; k++) {
        free(c->pr[k].send);
        free(c->pr[k].recv);
    }
}

/* Records the elements of one side's half of a piece; `self` is the rank
 * holding the buffer, `peer` the other end.  Returns the A element of the
 * piece's first element (row-major index), which lattices check. */
static int64_t record_half(case_record *c, int64_t self, int64_t peer, const rl_piece *pc, int receiving)
{
    pair_record *p = &c->pr[pc->pair];
    int t = p->op != RELAY_OP_N;
    int64_t first = -1;
    for (int64_t jj = 0; jj < pc->cols; jj++)
        for (int64_t ii = 0; ii < pc->rows; ii++) {
            int64_t row, col, o;
            if (receiving) {
                o = pc->off + offset_in(p->a.elem_order, pc->ld, ii, jj);
                global_of(&p->a, c->unsigma[self], pc->ld, o, &row, &col);
            } else {
                int64_t br, bc;
                o = pc->off + offset_in(p->b.elem_order, pc->ld, t ? jj : ii, t ? ii : jj);
                global_of(&p->b, (int)self, pc->ld, o, &br, &bc);
                row = t ? bc : br;
                col = t ? br : bc;
            }
            assert_true(row >= 0 && row < p->a.m && col >= 0 && col < p->a.n);
            int64_t g = row * p->a.n + col;
            if (ii == 0 && jj == 0) first = g;
            route *r = &(receiving ? p->recv : p->send)[g];
            assert_int_equal(r->sender, -1);   /* every element once per side */
            *r = (route){receiving ? peer : self, receiving ? self : peer, o};
        }
    return first;
}

static void record_local(case_record *c, int64_t rank, const rl_local_piece *lp)
{
    rl_piece send = {lp->pair, lp->rows, lp->cols, lp->src_off, lp->src_ld};
    rl_piece recv = {lp->pair, lp->rows, lp->cols, lp->dst_off, lp->dst_ld};
    record_half(c, rank, rank, &send, 0);
    record_half(c, rank, rank, &recv, 1);
}

/* ---- the plan's pieces and the lattices' ----------------------------------- */

static void record_plan(case_record *c, const relay_plan *p)
{
    for (int r = 0; r < p->nranks; r++) {
        const rl_section *s = p->sections[r];
        for (int32_t m = 0; m < s->nsend; m++)
            for (int64_t q = 0; q < s->send[m].count; q++)
                record_half(c, r, s->send[m].peer, &s->send_pieces[s->send[m].first + q], 0);
        for (int32_t m = 0; m < s->nrecv; m++)
            for (int64_t q = 0; q < s->recv[m].count; q++)
                record_half(c, r, s->recv[m].peer, &s->recv_pieces[s->recv[m].first + q], 1);
        for (int64_t q = 0; q < s->nlocal; q++) record_local(c, r, &s->local[q]);
    }
}

/* Expands a lattice through rl_lattice_expand and checks each piece's
 * first element is at the A place the lattice names. */
static void record_lattice(case_record *c, int64_t self, int64_t peer, const rl_lattice *l, int receiving)
{
    int64_t n = rl_lattice_npieces(l), acols = c->pr[l->pair].a.n;
    rl_piece *pieces = malloc((size_t)n * sizeof *pieces);
    rl_lattice_expand(l, receiving, pieces);
    for (int64_t q = 0; q < n; q++) {
        int64_t i = q % l->count_r, j = q / l->count_r;
        int64_t g = record_half(c, self, peer, &pieces[q], receiving);
        assert_int_equal(g, (l->r0 + i * l->grs) * acols + l->c0 + j * l->gcs);
    }
    free(pieces);
}

static void record_local_lattice(case_record *c, int64_t rank, const rl_lattice *l)
{
    int64_t n = rl_lattice_npieces(l);
    rl_local_piece *pieces = malloc((size_t)n * sizeof *pieces);
    rl_lattice_expand_local(l, pieces);
    for (int64_t q = 0; q < n; q++) record_local(c, rank, &pieces[q]);
    free(pieces);
}

/* Lattices l[0..n) in the canonical order (pair, c0, r0). */
static void in_canonical_order(const rl_lattice *l, int64_t n)
{
    for (int64_t q = 1; q < n; q++) {
        const rl_lattice *x = &l[q - 1], *y = &l[q];
        assert_true(x->pair < y->pair || (x->pair == y->pair && (x->c0 < y->c0 || (x->c0 == y->c0 && x->r0 < y->r0))));
    }
}

/* A side's messages have the plan's peers and sizes, their lattices in
 * canonical order. */
static void same_messages(const rl_lattice_side *side, const rl_message *msgs, int32_t nmsg)
{
    assert_int_equal(side->nmsg, nmsg);
    for (int32_t m = 0; m < nmsg; m++) {
        assert_int_equal(side->msgs[m].peer, msgs[m].peer);
        assert_int_equal(side->msgs[m].elems, msgs[m].elems);
        in_canonical_order(&side->lattices[side->msgs[m].first], side->msgs[m].count);
    }
}

/* The lattices y sends x one pair at a time (rl_bc_lattices) are the
 * lattices of y's message to x. */
static void same_as_rank_pairs(const relay_plan *p, int y, const rl_lattice_side *side)
{
    for (int32_t m = 0; m < side->nmsg; m++) {
        int64_t total = 0;
        for (int k = 0; k < p->count; k++) {
            rl_lattice *l;
            int64_t nl;
            assert_int_equal(rl_bc_lattices(&p->pairs[k], k, y, (int)side->msgs[m].peer, &l, &nl), RELAY_OK);
            for (int64_t q = 0; q < nl; q++)
                assert_memory_equal(&l[q], &side->lattices[side->msgs[m].first + total + q], sizeof *l);
            total += nl;
            free(l);
        }
        assert_int_equal(total, side->msgs[m].count);
    }
}

/* rl_bc_section_lattices (its own overlay) gives the same side as the
 * shared overlay. */
static void same_side_alone(const relay_plan *p, int rank, const rl_lattice_side *shared)
{
    rl_lattice_side alone;
    assert_int_equal(rl_bc_section_lattices(p->pairs, p->count, rank, 1, &alone), RELAY_OK);
    assert_int_equal(alone.nmsg, shared->nmsg);
    assert_int_equal(alone.nlattices, shared->nlattices);
    assert_int_equal(alone.nlocal, shared->nlocal);
    assert_memory_equal(alone.lattices, shared->lattices, (size_t)alone.nlattices * sizeof *alone.lattices);
    assert_memory_equal(alone.local, shared->local, (size_t)alone.nlocal * sizeof *alone.local);
    rl_lattice_side_free(&alone);
}

/* Records every rank's lattices, from one overlay shared by all ranks
 * (odd ranks' send sides also one rank at a time, which must agree);
 * returns how many there are. */
static int64_t record_lattices(case_record *c, const relay_plan *p)
{
    int64_t total = 0;
    rl_bc_overlay *ov;
    assert_int_equal(rl_bc_overlay_create(&ov, p->pairs, p->count), RELAY_OK);
    for (int r = 0; r < p->nranks; r++) {
        const rl_section *s = p->sections[r];
        rl_lattice_side send, recv;
        assert_int_equal(rl_bc_overlay_side(ov, r, 1, &send), RELAY_OK);
        assert_int_equal(rl_bc_overlay_side(ov, r, 0, &recv), RELAY_OK);
        if (r % 2) same_side_alone(p, r, &send);
        same_messages(&send, s->send, s->nsend);
        same_messages(&recv, s->recv, s->nrecv);
        same_as_rank_pairs(p, r, &send);
        for (int32_t m = 0; m < send.nmsg; m++)
            for (int64_t q = 0; q < send.msgs[m].count; q++)
                record_lattice(c, r, send.msgs[m].peer, &send.lattices[send.msgs[m].first + q], 0);
        for (int32_t m = 0; m < recv.nmsg; m++)
            for (int64_t q = 0; q < recv.msgs[m].count; q++)
                record_lattice(c, r, recv.msgs[m].peer, &recv.lattices[recv.msgs[m].first + q], 1);
        in_canonical_order(send.local, send.nlocal);
        for (int64_t q = 0; q < send.nlocal; q++) record_local_lattice(c, r, &send.local[q]);
        assert_int_equal(recv.nlocal, 0);
        total += send.nlattices + send.nlocal;
        rl_lattice_side_free(&send);
        rl_lattice_side_free(&recv);
    }
    rl_bc_overlay_free(ov);
    return total;
}

/* Every A element travels once, the same way in plan and lattices, and the
 * plan's two sides agree on its sender and receiver. */
static void compare(const case_record *plan, const case_record *lat)
{
    for (int k = 0; k < plan->count; k++) {
        const pair_record *p = &plan->pr[k], *l = &lat->pr[k];
        for (int64_t g = 0; g < p->a.m * p->a.n; g++) {
            assert_true(p->send[g].sender >= 0 && p->recv[g].sender >= 0);
            assert_int_equal(p->send[g].sender, p->recv[g].sender);
            assert_int_equal(p->send[g].receiver, p->recv[g].receiver);
            assert_memory_equal(&p->send[g], &l->send[g], sizeof(route));
            assert_memory_equal(&p->recv[g], &l->recv[g], sizeof(route));
        }
    }
}

/* ---- random cases ---------------------------------------------------------------- */

static relay_order random_order(void) { return uniform(0, 1) ? RELAY_ROW_MAJOR : RELAY_COL_MAJOR; }

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

static void random_pair(pair_record *pr, int64_t m, int64_t n)
{
    pr->op = (relay_op)uniform(0, 2);
    pr->a = random_bc(m, n);
    pr->b = pr->op == RELAY_OP_N ? random_bc(m, n) : random_bc(n, m);
}

static int ranks_of(const ref_bc_params *d) { return d->nprow * d->npcol; }

/* One random case; returns its lattices and adds its plan pieces. */
static int64_t random_case(int count, relay_relabel relabel, int64_t *pieces)
{
    case_record plan = {.count = count}, lat;
    int64_t m = uniform(1, 300), n = uniform(1, 300);
    for (int k = 0; k < count; k++) {
        random_pair(&plan.pr[k], m, n);
        int most = ranks_of(&plan.pr[k].a) > ranks_of(&plan.pr[k].b) ? ranks_of(&plan.pr[k].a) : ranks_of(&plan.pr[k].b);
        if (most > plan.nranks) plan.nranks = most;
    }
    plan.nranks += (int)uniform(0, 1);   /* sometimes a rank with nothing */
    relay_layout *dst[2], *src[2];
    relay_op ops[2];
    for (int k = 0; k < count; k++) {
        dst[k] = make_layout(&plan.pr[k].a);
        src[k] = make_layout(&plan.pr[k].b);
        ops[k] = plan.pr[k].op;
    }
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.relabel = relabel;
    relay_plan *p;
    assert_int_equal(relay_plan_transform_batch(&p, plan.nranks, count, (const relay_layout *const *)dst,
                                                (const relay_layout *const *)src, ops, RELAY_DOUBLE, &o),
                     RELAY_OK);
    int *sigma = malloc((size_t)plan.nranks * sizeof *sigma), *unsigma = malloc((size_t)plan.nranks * sizeof *unsigma);
    assert_int_equal(relay_plan_relabeling(p, sigma), RELAY_OK);
    for (int r = 0; r < plan.nranks; r++) unsigma[r] = -1;
    for (int j = 0; j < plan.nranks; j++) unsigma[sigma[j]] = j;
    for (int j = 0; j < plan.nranks; j++)
        if (sigma[j] != j) {
            relabeled_cases++;
            break;
        }
    resized_cases += ranks_of(&plan.pr[0].a) != ranks_of(&plan.pr[0].b);
    plan.unsigma = unsigma;
    lat = plan;
    record_init(&plan);
    record_init(&lat);
    record_plan(&plan, p);
    int64_t lattices = record_lattices(&lat, p);
    compare(&plan, &lat);
    relay_plan_stats stats;
    assert_int_equal(relay_plan_get_stats(p, &stats), RELAY_OK);
    *pieces += stats.pieces;
    record_free(&plan);
    record_free(&lat);
    free(sigma);
    free(unsigma);
    relay_plan_free(p);
    for (int k = 0; k < count; k++) {
        relay_layout_free(dst[k]);
        relay_layout_free(src[k]);
    }
    return lattices;
}

static void test_random_pairs(void **state)
{
    (void)state;
    ref_rng_seed(&rng, 1515);
    int64_t lattices = 0, pieces = 0;
    const relay_relabel modes[] = {RELAY_RELABEL_NONE, RELAY_RELABEL_GREEDY, RELAY_RELABEL_OPTIMAL};
    for (int c = 0; c < 450; c++) lattices += random_case(c % 5 == 4 ? 2 : 1, modes[c % 3], &pieces);
    printf("450 random block-cyclic cases (%d relabeled, %d resized): %lld lattices for %lld plan pieces\n",
           relabeled_cases, resized_cases, (long long)lattices, (long long)pieces);
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
    rl_lattice_side s;
    double t0 = seconds();
    assert_int_equal(rl_bc_section_lattices(pair, 1, 0, 1, &s), RELAY_OK);
    side_count n = {s.nlattices + s.nlocal, 0, 0, (seconds() - t0) * 1e3};
    for (int32_t m = 0; m < s.nmsg; m++)
        if (s.msgs[m].count > n.most_per_message) n.most_per_message = s.msgs[m].count;
    for (int64_t q = 0; q < s.nlattices; q++) n.pieces += rl_lattice_npieces(&s.lattices[q]);
    for (int64_t q = 0; q < s.nlocal; q++) n.pieces += rl_lattice_npieces(&s.local[q]);
    rl_lattice_side_free(&s);
    return n;
}

/* 32 x 32 -> 128 x 128 blocks, 2 x 2 -> 2 x 2, n = 4000: in each period
 * of 256 indices a target process's block is 4 source blocks of processes
 * 0 1 0 1, so per dimension a pair of processes meets in 2 progressions
 * (offsets 0 and 64 of the block, stride 256), which the tail extends: a
 * message is 2 x 2 lattices, against the plan's ~1000 pieces. */
static void test_regular(void **state)
{
    (void)state;
    ref_bc_params b = {4000, 4000, 32, 32, 2, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR};
    ref_bc_params a = {4000, 4000, 128, 128, 2, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR};
    relay_layout *lb = make_layout(&b), *la = make_layout(&a);
    relay_plan *p;
    assert_int_equal(relay_plan_transform(&p, 4, la, lb, RELAY_OP_N, RELAY_DOUBLE, NULL), RELAY_OK);
    side_count n = count_send_side(&p->pairs[0]);
    const rl_section *s = p->sections[0];
    printf("32 -> 128 blocks, 2 x 2, n = 4000: rank 0 sends %lld lattices (at most %lld per message) "
           "in %.3f ms; the plan has %lld pieces there (after merging)\n",
           (long long)n.lattices, (long long)n.most_per_message, n.ms, (long long)(s->nsend_pieces + s->nlocal));
    assert_int_equal(n.most_per_message, 4);
    assert_int_equal(n.pieces, 63 * 63);   /* rank 0's B blocks, each inside one A block */
    relay_plan_free(p);
    relay_layout_free(la);
    relay_layout_free(lb);
}

/* COSTA's Figure 3: b = 1 on a 10 x 10 grid to blocks of 10^4, n = 10^5.
 * Rank 0 holds 10^8 single elements, each a piece of its own; they are
 * 100 lattices (one per peer, itself included) of 1000 x 1000 pieces. */
static void test_costa_block_one(void **state)
{
    (void)state;
    ref_bc_params b = {100000, 100000, 1, 1, 10, 10, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR};
    ref_bc_params a = {100000, 100000, 10000, 10000, 10, 10, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR};
    relay_layout *lb = make_layout(&b), *la = make_layout(&a);
    rl_pair pair = {RELAY_OP_N, la, la, lb};
    side_count n = count_send_side(&pair);
    printf("Figure 3, b = 1 -> 10^4 on 10 x 10, n = 10^5: rank 0 sends %lld lattices (%lld per message) "
           "covering %lld pieces, in %.3f ms\n",
           (long long)n.lattices, (long long)n.most_per_message, (long long)n.pieces, n.ms);
    assert_int_equal(n.lattices, 100);
    assert_int_equal(n.most_per_message, 1);
    assert_int_equal(n.pieces, (int64_t)100000000);
    assert_true(n.ms < 1000.0);
    relay_layout_free(la);
    relay_layout_free(lb);
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
    rl_lattice_side s;
    assert_int_equal(rl_bc_section_lattices(&mixed, 1, 0, 1, &s), RELAY_ERR_ARG);
    assert_non_null(strstr(relay_last_error(), "not block-cyclic"));
    assert_int_equal(rl_bc_section_lattices(&good, 1, 2, 0, &s), RELAY_ERR_ARG);
    assert_non_null(strstr(relay_last_error(), "outside"));
    rl_lattice *l;
    int64_t nl;
    assert_int_equal(rl_bc_lattices(&good, 0, 0, -1, &l, &nl), RELAY_ERR_ARG);
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
