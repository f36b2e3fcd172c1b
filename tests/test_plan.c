/* test_plan.c — the planner checked without MPI.
 *
 * Every plan is replayed serially from its sections alone: each piece of a
 * send lattice is matched with the same piece of the receive lattice at the
 * same place of the peer's message,
 * elements are copied one by one, and then every element of A must hold the
 * B element op() maps to it, written exactly once, with volumes that add up
 * to m*n.  Layout positions come from relay_layout_locate (checked against
 * ScaLAPACK's formulas in test_layout). Also: argument errors, statistics,
 * fingerprints and the section validator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "plan_internal.h"

/* ---- a small deterministic generator of layouts ------------------------ */

static uint64_t rng_state;
static uint64_t next_u64(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int64_t uniform(int64_t lo, int64_t hi) { return lo + (int64_t)(next_u64() % (uint64_t)(hi - lo + 1)); }

static int random_splits(int64_t extent, int64_t *splits)
{
    int nb = 0;
    splits[0] = 0;
    while (splits[nb] < extent) {
        int64_t step = uniform(1, extent < 7 ? extent : extent / 2 + 1);
        splits[nb + 1] = splits[nb] + step < extent ? splits[nb] + step : extent;
        nb++;
    }
    return nb;
}

static relay_layout *random_layout(int nranks, int64_t m, int64_t n)
{
    relay_layout *l = NULL;
    relay_order order = uniform(0, 1) ? RELAY_ROW_MAJOR : RELAY_COL_MAJOR;
    if (uniform(0, 2) == 0) {
        int pr = (int)uniform(1, nranks), pc = (int)uniform(1, nranks / pr);
        int64_t mb = uniform(1, m), nb = uniform(1, n);
        relay_order grid = uniform(0, 1) ? RELAY_ROW_MAJOR : RELAY_COL_MAJOR;
        int rsrc = (int)uniform(0, pr - 1), csrc = (int)uniform(0, pc - 1);
        if (uniform(0, 1)) { /* a ScaLAPACK submatrix: an origin inside the first cycles */
            int64_t i0 = uniform(0, 2 * mb * pr), j0 = uniform(0, 2 * nb * pc), lld[64];
            for (int r = 0; r < pr * pc; r++) lld[r] = i0 + m;
            assert_int_equal(relay_internal_layout_submatrix(&l, m, n, i0, j0, mb, nb, pr, pc, grid, rsrc, csrc, lld),
                             RELAY_OK);
            return l;
        }
        assert_int_equal(relay_layout_block_cyclic(&l, m, n, mb, nb, pr, pc, grid, rsrc, csrc, 0, order), RELAY_OK);
        return l;
    }
    int64_t *rs = malloc((size_t)(m + 1) * sizeof *rs), *cs = malloc((size_t)(n + 1) * sizeof *cs);
    int nbr = random_splits(m, rs), nbc = random_splits(n, cs);
    int *owners = malloc((size_t)nbr * (size_t)nbc * sizeof *owners);
    for (int b = 0; b < nbr * nbc; b++) owners[b] = (int)uniform(0, nranks - 1);
    assert_int_equal(relay_layout_grid(&l, nranks, m, n, nbr, rs, nbc, cs, owners, NULL, NULL, order), RELAY_OK);
    free(rs);
    free(cs);
    free(owners);
    return l;
}

/* ---- serial replay from sections ---------------------------------------- */

typedef struct {
    double **a, **b;     /* per rank */
    int **writes;        /* per rank: how often each A element was written */
} world;

static int64_t side_index(const relay_layout *l, int transposed, int64_t off, int64_t ld, int64_t i, int64_t j)
{
    return off + rl_elem_offset(l->order, ld, transposed ? j : i, transposed ? i : j);
}

static void copy_piece(const relay_plan *p, world *w, int from, int to, int64_t pair, int64_t rows, int64_t cols,
                       int64_t src_off, int64_t src_ld, int64_t dst_off, int64_t dst_ld)
{
    const rl_pair *pr = &p->pairs[pair];
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            int64_t s = side_index(pr->src, rl_op_transposes(pr->op), src_off, src_ld, i, j);
            int64_t d = side_index(pr->dst, 0, dst_off, dst_ld, i, j);
            w->a[to][d] = w->b[from][s];
            w->writes[to][d]++;
        }
}

/* Every piece (i, j) of a lattice, from its place in B to its place in A. */
static void copy_lattice(const relay_plan *p, world *w, int from, int to, const rl_span *sp, const rl_span *rp)
{
    assert_int_equal(sp->pair, rp->pair);
    assert_int_equal(sp->rows, rp->rows);
    assert_int_equal(sp->cols, rp->cols);
    assert_int_equal(sp->count_r, rp->count_r);
    assert_int_equal(sp->count_c, rp->count_c);
    for (int64_t j = 0; j < sp->count_c; j++)
        for (int64_t i = 0; i < sp->count_r; i++)
            copy_piece(p, w, from, to, sp->pair, sp->rows, sp->cols, sp->off + i * sp->step_r + j * sp->step_c, sp->ld,
                       rp->off + i * rp->step_r + j * rp->step_c, rp->ld);
}

static const rl_message *find_recv(const rl_section *s, int peer)
{
    for (int k = 0; k < s->nrecv; k++)
        if (s->recv[k].peer == peer) return &s->recv[k];
    return NULL;
}

static void replay_serially(const relay_plan *p, world *w)
{
    for (int r = 0; r < p->nranks; r++) {
        const rl_section *s = p->sections[r];
        for (int64_t i = 0; i < s->nlocal; i++) {
            const rl_local_span *l = &s->local[i];
            rl_span from = rl_local_half(l, 0), to = rl_local_half(l, 1);
            copy_lattice(p, w, r, r, &from, &to);
        }
        for (int k = 0; k < s->nsend; k++) {
            const rl_message *m = &s->send[k];
            const rl_section *peer = p->sections[m->peer];
            const rl_message *rm = find_recv(peer, r);
            assert_non_null(rm);
            assert_int_equal(rm->count, m->count);
            assert_int_equal(rm->elems, m->elems);
            for (int64_t q = 0; q < m->count; q++)
                copy_lattice(p, w, r, (int)m->peer, &s->send_spans[m->first + q], &peer->recv_spans[rm->first + q]);
        }
    }
}

/* The statistics, computed from structure by the planner, must be what the
 * sections hold: messages, remote bytes, and pieces (sent and local). */
static void check_stats_against_sections(const relay_plan *p)
{
    relay_plan_stats st;
    int64_t messages = 0, remote = 0, pieces = 0, esz = (int64_t)relay_type_size(p->type);
    assert_int_equal(relay_plan_get_stats(p, &st), RELAY_OK);
    for (int r = 0; r < p->nranks; r++) {
        const rl_section *s = p->sections[r];
        messages += s->nsend;
        for (int k = 0; k < s->nsend; k++) remote += s->send[k].elems * esz;
        for (int64_t i = 0; i < s->nsend_spans; i++) pieces += rl_span_pieces(&s->send_spans[i]);
        for (int64_t i = 0; i < s->nlocal; i++) pieces += rl_local_span_pieces(&s->local[i]);
    }
    assert_int_equal(st.messages, messages);
    assert_int_equal(st.bytes_remote, remote);
    assert_int_equal(st.pieces, pieces);
}

/* Each rank's section planned alone is the whole plan's, with the same
 * fingerprint and header (its checksum covers its steps too). */
static void check_rank_plans(const relay_plan *whole, const relay_layout *la, const relay_layout *lb, relay_op op,
                             const relay_plan_options *o)
{
    for (int r = 0; r < whole->nranks; r++) {
        relay_plan *one = NULL;
        assert_int_equal(relay_plan_transform_rank(&one, r, whole->nranks, 1, &la, &lb, &op, whole->type, o), RELAY_OK);
        assert_true(relay_plan_fingerprint(one) == relay_plan_fingerprint(whole));
        assert_int_equal(relay_plan_schedule(one), relay_plan_schedule(whole));
        assert_int_equal(relay_plan_rounds(one), relay_plan_rounds(whole));
        assert_memory_equal(&one->stats, &whole->stats, sizeof one->stats);
        for (int q = 0; q < whole->nranks; q++) assert_true((one->sections[q] != NULL) == (q == r));
        assert_true(one->sections[r]->checksum == whole->sections[r]->checksum);
        relay_plan_free(one);
    }
}

static double b_id(int64_t i, int64_t j) { return (double)(i * 100003 + j + 1); }

/* Plans dst := op(src) for one pair, replays serially and checks every element. */
static void check_pair_plan(int nranks, relay_layout *la, relay_layout *lb, relay_op op)
{
    relay_plan *p = NULL;
    assert_int_equal(relay_plan_transform(&p, nranks, la, lb, op, RELAY_DOUBLE, NULL), RELAY_OK);
    world w = {calloc((size_t)nranks, sizeof(double *)), calloc((size_t)nranks, sizeof(double *)),
               calloc((size_t)nranks, sizeof(int *))};
    for (int r = 0; r < nranks; r++) {
        w.a[r] = calloc((size_t)relay_plan_buffer_elems(p, 1, 0, r) + 1, sizeof(double));
        w.b[r] = calloc((size_t)relay_plan_buffer_elems(p, 0, 0, r) + 1, sizeof(double));
        w.writes[r] = calloc((size_t)relay_plan_buffer_elems(p, 1, 0, r) + 1, sizeof(int));
        assert_int_equal(rl_section_validate(p->sections[r], p), RELAY_OK);
    }
    for (int64_t i = 0; i < lb->m; i++)
        for (int64_t j = 0; j < lb->n; j++) {
            int r;
            int64_t idx;
            assert_int_equal(relay_layout_locate(lb, i, j, &r, &idx), RELAY_OK);
            w.b[r][idx] = b_id(i, j);
        }
    replay_serially(p, &w);
    int t = op != RELAY_OP_N;
    for (int64_t i = 0; i < la->m; i++)
        for (int64_t j = 0; j < la->n; j++) {
            int r;
            int64_t idx;
            assert_int_equal(relay_layout_locate(la, i, j, &r, &idx), RELAY_OK);
            assert_int_equal(w.writes[r][idx], 1);
            assert_true(w.a[r][idx] == (t ? b_id(j, i) : b_id(i, j)));
        }
    relay_plan_stats st;
    assert_int_equal(relay_plan_get_stats(p, &st), RELAY_OK);
    assert_int_equal(st.bytes_total, la->m * la->n * 8);
    assert_true(st.bytes_remote <= st.bytes_total);
    check_stats_against_sections(p);
    check_rank_plans(p, la, lb, op, NULL);
    for (int r = 0; r < nranks; r++) {
        free(w.a[r]);
        free(w.b[r]);
        free(w.writes[r]);
    }
    free(w.a);
    free(w.b);
    free(w.writes);
    relay_plan_free(p);
}

static void test_random_pairs_replay_exactly(void **state)
{
    (void)state;
    for (int c = 0; c < 300; c++) {
        rng_state = 1000 + (uint64_t)c;
        int nranks = (int)uniform(1, 9);
        int64_t m = uniform(1, 40), n = uniform(1, 40);
        relay_op op = (relay_op)uniform(0, 2);
        int t = op != RELAY_OP_N;
        relay_layout *la = random_layout(nranks, m, n), *lb = random_layout(nranks, t ? n : m, t ? m : n);
        check_pair_plan(nranks, la, lb, op);
        relay_layout_free(la);
        relay_layout_free(lb);
    }
}

/* ScaLAPACK submatrices whose origins sit inside blocks on both sides, on
 * grids of several processes each way: the pieces the statistics count are
 * the ones the sections hold (the overlay's periods, a multiple of both
 * cycles, must not cut a piece the block boundaries do not cut). */
static void test_stats_of_submatrices(void **state)
{
    (void)state;
    const struct { int64_t i0, j0, mb, nb; } sides[][2] = {
        {{1, 1, 2, 2}, {1, 3, 2, 2}},
        {{5, 2, 3, 4}, {1, 7, 2, 6}},
        {{3, 0, 4, 4}, {0, 5, 8, 2}},
    };
    int64_t lld[4] = {64, 64, 64, 64};
    for (size_t c = 0; c < sizeof sides / sizeof *sides; c++)
        for (int op = RELAY_OP_N; op <= RELAY_OP_T; op++) {
            relay_layout *l[2];
            for (int k = 0; k < 2; k++)
                assert_int_equal(relay_internal_layout_submatrix(&l[k], 40, 40, sides[c][k].i0, sides[c][k].j0,
                                                                 sides[c][k].mb, sides[c][k].nb, 2, 2, RELAY_ROW_MAJOR,
                                                                 (int)c % 2, 1, lld),
                                 RELAY_OK);
            relay_plan *p;
            assert_int_equal(relay_plan_transform(&p, 4, l[0], l[1], (relay_op)op, RELAY_DOUBLE, NULL), RELAY_OK);
            check_stats_against_sections(p);
            relay_plan_free(p);
            relay_layout_free(l[0]);
            relay_layout_free(l[1]);
        }
}

/* Relabeled plans: the statistics still match the sections, and a rank's
 * own plan finds the same sigma and fingerprint. */
static void test_relabeled_rank_plans(void **state)
{
    (void)state;
    relay_plan_options o;
    relay_plan_options_init(&o);
    for (int c = 0; c < 60; c++) {
        rng_state = 9000 + (uint64_t)c;
        int nranks = (int)uniform(1, 9);
        int64_t m = uniform(1, 40), n = uniform(1, 40);
        relay_layout *la = random_layout(nranks, m, n), *lb = random_layout(nranks, m, n);
        relay_plan *p;
        o.relabel = c % 2 ? RELAY_RELABEL_GREEDY : RELAY_RELABEL_OPTIMAL;
        o.schedule = c % 3 == 0 ? RELAY_SCHED_ALLTOALLV : RELAY_SCHED_AUTO;
        assert_int_equal(relay_plan_transform(&p, nranks, la, lb, RELAY_OP_N, RELAY_DOUBLE, &o), RELAY_OK);
        check_stats_against_sections(p);
        check_rank_plans(p, la, lb, RELAY_OP_N, &o);
        relay_plan_free(p);
        relay_layout_free(la);
        relay_layout_free(lb);
    }
}

/* Rounds come from the transfers the volumes give, not from the sections:
 * a rank's own rounds plan has the whole plan's steps.  A rank out of
 * range is refused. */
static void test_rank_plans_with_rounds(void **state)
{
    (void)state;
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.schedule = RELAY_SCHED_ROUNDS;
    for (int c = 0; c < 40; c++) {
        rng_state = 7000 + (uint64_t)c;
        int nranks = (int)uniform(1, 12);
        int64_t m = uniform(1, 50), n = uniform(1, 50);
        relay_layout *la = random_layout(nranks, m, n), *lb = random_layout(nranks, m, n);
        relay_plan *p;
        o.relabel = c % 3 == 0 ? RELAY_RELABEL_GREEDY : RELAY_RELABEL_NONE;
        assert_int_equal(relay_plan_transform(&p, nranks, la, lb, RELAY_OP_N, RELAY_DOUBLE, &o), RELAY_OK);
        check_rank_plans(p, la, lb, RELAY_OP_N, &o);
        relay_plan_free(p);
        relay_layout_free(la);
        relay_layout_free(lb);
    }
    relay_layout *a;
    relay_plan *p = NULL;
    relay_op op = RELAY_OP_N;
    assert_int_equal(relay_layout_block_cyclic(&a, 10, 10, 2, 2, 2, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    const relay_layout *as = a;
    assert_int_equal(relay_plan_transform_rank(&p, 4, 4, 1, &as, &as, &op, RELAY_DOUBLE, NULL), RELAY_ERR_ARG);
    assert_int_equal(relay_plan_transform_rank(&p, -1, 4, 1, &as, &as, &op, RELAY_DOUBLE, NULL), RELAY_ERR_ARG);
    assert_null(p);
    relay_layout_free(a);
}

static void test_block_cyclic_32_to_128(void **state)
{
    (void)state;
    relay_layout *la, *lb;
    assert_int_equal(relay_layout_block_cyclic(&lb, 300, 257, 32, 32, 2, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_layout_block_cyclic(&la, 300, 257, 128, 128, 1, 4, RELAY_COL_MAJOR, 0, 1, 0, RELAY_ROW_MAJOR), RELAY_OK);
    check_pair_plan(4, la, lb, RELAY_OP_N);
    relay_layout_free(la);
    relay_layout_free(lb);
}

/* How many of a plan's lattices (received, on every rank) travel fused
 * down A's rows without touching there: stacked (lattice_side.c). */
static int64_t stacked_lattices(const relay_plan *p)
{
    int64_t n = 0;
    for (int r = 0; r < p->nranks; r++)
        for (int64_t q = 0; q < p->sections[r]->nrecv_spans; q++) {
            const rl_span *sp = &p->sections[r]->recv_spans[q];
            n += (sp->fused & RL_FUSED_ROWS) && sp->step_r != sp->rows;
        }
    return n;
}

/* n x n of type t from nb x nb to 128 x 128 blocks on 2 x 2 (column-major
 * elements): replayed serially, and its stacked lattices counted. */
static int64_t stacked_in(int64_t n, int64_t nb, relay_op op, relay_type t)
{
    relay_layout *la, *lb;
    relay_plan *p = NULL;
    assert_int_equal(relay_layout_block_cyclic(&lb, n, n, nb, nb, 2, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_layout_block_cyclic(&la, n, n, 128, 128, 2, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    if (t == RELAY_DOUBLE) check_pair_plan(4, la, lb, op);
    assert_int_equal(relay_plan_transform(&p, 4, la, lb, op, t, NULL), RELAY_OK);
    int64_t n_stacked = stacked_lattices(p);
    relay_plan_free(p);
    relay_layout_free(la);
    relay_layout_free(lb);
    return n_stacked;
}

/* Pieces at most 256 bytes down the columns, every other block down A's
 * columns, stack on a copy; not on a transpose (B runs the other way), not
 * 64 doubles long, but 64 floats long they do. */
static void test_short_near_pieces_stack(void **state)
{
    (void)state;
    assert_true(stacked_in(600, 8, RELAY_OP_N, RELAY_DOUBLE) > 0);
    assert_true(stacked_in(600, 32, RELAY_OP_N, RELAY_DOUBLE) > 0);
    assert_int_equal(stacked_in(600, 8, RELAY_OP_T, RELAY_DOUBLE), 0);
    assert_int_equal(stacked_in(600, 64, RELAY_OP_N, RELAY_DOUBLE), 0);
    assert_true(stacked_in(600, 64, RELAY_OP_N, RELAY_FLOAT) > 0);
    assert_int_equal(stacked_in(600, 64, RELAY_OP_N, RELAY_CDOUBLE), 0);
}

/* Identical layouts move nothing between ranks. */
static void test_identical_layouts_stay_local(void **state)
{
    (void)state;
    relay_layout *l;
    relay_plan *p;
    relay_plan_stats st;
    assert_int_equal(relay_layout_block_cyclic(&l, 100, 90, 7, 5, 2, 3, RELAY_ROW_MAJOR, 1, 2, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_plan_transform(&p, 6, l, l, RELAY_OP_N, RELAY_CDOUBLE, NULL), RELAY_OK);
    assert_int_equal(relay_plan_get_stats(p, &st), RELAY_OK);
    assert_int_equal(st.bytes_remote, 0);
    assert_int_equal(st.messages, 0);
    assert_int_equal(st.bytes_total, 100 * 90 * 16);
    relay_plan_free(p);
    relay_layout_free(l);
}

/* A batch sends at most one message per peer, carrying every pair. */
static void test_batch_one_message_per_peer(void **state)
{
    (void)state;
    relay_layout *a, *b;
    relay_plan *single, *batch;
    relay_plan_stats s1, s3;
    assert_int_equal(relay_layout_block_cyclic(&b, 64, 64, 8, 8, 2, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_layout_block_cyclic(&a, 64, 64, 16, 16, 4, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    const relay_layout *as[3] = {a, a, a}, *bs[3] = {b, b, b};
    relay_op ops[3] = {RELAY_OP_N, RELAY_OP_T, RELAY_OP_C};
    assert_int_equal(relay_plan_transform(&single, 4, a, b, RELAY_OP_N, RELAY_FLOAT, NULL), RELAY_OK);
    assert_int_equal(relay_plan_transform_batch(&batch, 4, 3, as, bs, ops, RELAY_FLOAT, NULL), RELAY_OK);
    relay_plan_get_stats(single, &s1);
    relay_plan_get_stats(batch, &s3);
    assert_true(s3.messages <= 4 * 3);
    assert_int_equal(s3.bytes_total, 3 * s1.bytes_total);
    for (int r = 0; r < 4; r++)
        for (int k = 0; k + 1 < batch->sections[r]->nsend; k++)
            assert_true(batch->sections[r]->send[k].peer < batch->sections[r]->send[k + 1].peer);
    relay_plan_free(single);
    relay_plan_free(batch);
    relay_layout_free(a);
    relay_layout_free(b);
}

static void test_fingerprint_is_deterministic(void **state)
{
    (void)state;
    relay_layout *a, *b;
    relay_plan *p1, *p2, *p3;
    assert_int_equal(relay_layout_block_cyclic(&b, 50, 40, 4, 4, 2, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_layout_block_cyclic(&a, 40, 50, 8, 8, 1, 4, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_plan_transform(&p1, 4, a, b, RELAY_OP_T, RELAY_DOUBLE, NULL), RELAY_OK);
    assert_int_equal(relay_plan_transform(&p2, 4, a, b, RELAY_OP_T, RELAY_DOUBLE, NULL), RELAY_OK);
    assert_int_equal(relay_plan_transform(&p3, 4, a, b, RELAY_OP_C, RELAY_DOUBLE, NULL), RELAY_OK);
    assert_true(relay_plan_fingerprint(p1) == relay_plan_fingerprint(p2));
    assert_true(relay_plan_fingerprint(p1) != relay_plan_fingerprint(p3));
    relay_plan_free(p1);
    relay_plan_free(p2);
    relay_plan_free(p3);
    relay_layout_free(a);
    relay_layout_free(b);
}

/* Bad arguments: an error with a message, and *out untouched. */
static void test_bad_arguments(void **state)
{
    (void)state;
    relay_layout *a, *b, *small;
    relay_plan *sentinel = (relay_plan *)&sentinel, *p = sentinel;
    relay_plan_options o;
    assert_int_equal(relay_layout_block_cyclic(&a, 10, 20, 4, 4, 2, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_layout_block_cyclic(&b, 10, 20, 4, 4, 1, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_layout_block_cyclic(&small, 10, 10, 4, 4, 1, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_plan_transform(NULL, 4, a, b, RELAY_OP_N, RELAY_DOUBLE, NULL), RELAY_ERR_ARG);
    assert_int_equal(relay_plan_transform(&p, 0, a, b, RELAY_OP_N, RELAY_DOUBLE, NULL), RELAY_ERR_ARG);
    assert_int_equal(relay_plan_transform(&p, 3, a, b, RELAY_OP_N, RELAY_DOUBLE, NULL), RELAY_ERR_ARG); /* a has 4 ranks */
    assert_int_equal(relay_plan_transform(&p, 4, a, b, RELAY_OP_T, RELAY_DOUBLE, NULL), RELAY_ERR_ARG); /* shapes */
    assert_int_equal(relay_plan_transform(&p, 4, a, small, RELAY_OP_N, RELAY_DOUBLE, NULL), RELAY_ERR_ARG);
    assert_int_equal(relay_plan_transform(&p, 4, a, NULL, RELAY_OP_N, RELAY_DOUBLE, NULL), RELAY_ERR_ARG);
    assert_int_equal(relay_plan_transform(&p, 4, a, b, (relay_op)7, RELAY_DOUBLE, NULL), RELAY_ERR_ARG);
    assert_int_equal(relay_plan_transform(&p, 4, a, b, RELAY_OP_N, (relay_type)9, NULL), RELAY_ERR_ARG);
    relay_plan_options_init(&o);
    o.schedule = (relay_schedule)42;
    assert_int_equal(relay_plan_transform(&p, 4, a, b, RELAY_OP_N, RELAY_DOUBLE, &o), RELAY_ERR_ARG);
    assert_true(strlen(relay_last_error()) > 0);
    assert_ptr_equal(p, sentinel);
    assert_int_equal(relay_plan_transform_batch(&p, 4, 0, NULL, NULL, NULL, RELAY_DOUBLE, NULL), RELAY_ERR_ARG);
    assert_ptr_equal(p, sentinel);
    relay_layout_free(a);
    relay_layout_free(b);
    relay_layout_free(small);
}

/* Checks a rounds plan independently of the validator: every message has a
 * step, sender and receiver agree on it, no rank sends or receives twice in
 * one step, local copies take a step of their own, and the step count is the
 * largest number of transfers a rank sends or receives, its local copies
 * counting as one (the minimum, by König's theorem). */
static void check_rounds(const relay_plan *p)
{
    int P = p->nranks, degree = 0, rounds = relay_plan_rounds(p);
    assert_int_equal(relay_plan_schedule(p), RELAY_SCHED_ROUNDS);
    char *sends = calloc((size_t)P * (size_t)(rounds + 1), 1), *recvs = calloc((size_t)P * (size_t)(rounds + 1), 1);
    for (int r = 0; r < P; r++) {
        const rl_section *s = p->sections[r];
        int self = s->nlocal > 0;
        degree = s->nsend + self > degree ? s->nsend + self : degree;
        degree = s->nrecv + self > degree ? s->nrecv + self : degree;
        if (self) {
            assert_true(s->local_round >= 0 && s->local_round < rounds);
            sends[(size_t)r * (size_t)rounds + (size_t)s->local_round]++;
            recvs[(size_t)r * (size_t)rounds + (size_t)s->local_round]++;
        }
        for (int k = 0; k < s->nsend; k++) {
            int64_t step = s->send_round[k], q = s->send[k].peer;
            assert_true(step >= 0 && step < rounds);
            sends[(size_t)r * (size_t)rounds + (size_t)step]++;
            recvs[(size_t)q * (size_t)rounds + (size_t)step]++;
            const rl_section *peer = p->sections[q];
            int j = 0;
            while (peer->recv[j].peer != r) j++;
            assert_int_equal(peer->recv_round[j], step);
        }
    }
    for (size_t k = 0; k < (size_t)P * (size_t)rounds; k++) assert_true(sends[k] <= 1 && recvs[k] <= 1);
    assert_int_equal(rounds, degree);
    free(sends);
    free(recvs);
}

static void test_rounds_are_minimal_matchings(void **state)
{
    (void)state;
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.schedule = RELAY_SCHED_ROUNDS;
    for (int c = 0; c < 200; c++) {
        rng_state = 5000 + (uint64_t)c;
        int nranks = (int)uniform(1, c < 150 ? 12 : 64);
        int64_t m = uniform(1, 60), n = uniform(1, 60);
        relay_layout *la = random_layout(nranks, m, n), *lb = random_layout(nranks, m, n);
        relay_plan *p;
        assert_int_equal(relay_plan_transform(&p, nranks, la, lb, RELAY_OP_N, RELAY_DOUBLE, &o), RELAY_OK);
        check_rounds(p);
        for (int r = 0; r < nranks; r++) assert_int_equal(rl_section_validate(p->sections[r], p), RELAY_OK);
        relay_plan_free(p);
        relay_layout_free(la);
        relay_layout_free(lb);
    }
}

/* Steps that would make a rank send twice at once, or lie beyond the plan's
 * step count, are refused. */
static void test_validator_rejects_bad_steps(void **state)
{
    (void)state;
    relay_layout *a, *b;
    relay_plan *p;
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.schedule = RELAY_SCHED_ROUNDS;
    assert_int_equal(relay_layout_block_cyclic(&b, 40, 40, 5, 5, 2, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_layout_block_cyclic(&a, 40, 40, 8, 8, 4, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_plan_transform(&p, 4, a, b, RELAY_OP_N, RELAY_DOUBLE, &o), RELAY_OK);
    rl_section *s = p->sections[0];
    assert_true(s->nsend >= 2);
    int64_t saved = s->send_round[1];
    s->send_round[1] = s->send_round[0];
    assert_int_equal(rl_section_validate(s, p), RELAY_ERR_FORMAT);
    s->send_round[1] = p->rounds;
    assert_int_equal(rl_section_validate(s, p), RELAY_ERR_FORMAT);
    s->send_round[1] = saved;
    assert_int_equal(rl_section_validate(s, p), RELAY_OK);
    int64_t *steps = s->send_round;
    s->send_round = NULL;
    assert_int_equal(rl_section_validate(s, p), RELAY_ERR_FORMAT);
    s->send_round = steps;
    relay_plan_free(p);
    relay_layout_free(a);
    relay_layout_free(b);
}

/* The validator is the executor's trust boundary: corruptions are caught. */
static void test_validator_rejects_corruption(void **state)
{
    (void)state;
    relay_layout *a, *b;
    relay_plan *p;
    assert_int_equal(relay_layout_block_cyclic(&b, 30, 30, 4, 4, 2, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_layout_block_cyclic(&a, 30, 30, 8, 8, 1, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), RELAY_OK);
    assert_int_equal(relay_plan_transform(&p, 2, a, b, RELAY_OP_N, RELAY_DOUBLE, NULL), RELAY_OK);
    rl_section *s = p->sections[0];
    assert_true(s->nsend == 1 && s->nrecv == 1 && s->nlocal > 0);
    int64_t saved = s->send_spans[0].off;
    s->send_spans[0].off = s->src_elems[0];
    assert_int_equal(rl_section_validate(s, p), RELAY_ERR_FORMAT);
    s->send_spans[0].off = saved;
    s->recv[0].peer = 0;
    assert_int_equal(rl_section_validate(s, p), RELAY_ERR_FORMAT);
    s->recv[0].peer = 1;
    saved = s->local[0].dst_ld;
    s->local[0].dst_ld = 0;
    assert_int_equal(rl_section_validate(s, p), RELAY_ERR_FORMAT);
    s->local[0].dst_ld = saved;
    s->send[0].elems++;
    assert_int_equal(rl_section_validate(s, p), RELAY_ERR_FORMAT);
    s->send[0].elems--;
    assert_int_equal(rl_section_validate(s, p), RELAY_OK);
    relay_plan_free(p);
    relay_layout_free(a);
    relay_layout_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_pairs_replay_exactly),
        cmocka_unit_test(test_block_cyclic_32_to_128),
        cmocka_unit_test(test_short_near_pieces_stack),
        cmocka_unit_test(test_stats_of_submatrices),
        cmocka_unit_test(test_relabeled_rank_plans),
        cmocka_unit_test(test_rank_plans_with_rounds),
        cmocka_unit_test(test_identical_layouts_stay_local),
        cmocka_unit_test(test_batch_one_message_per_peer),
        cmocka_unit_test(test_fingerprint_is_deterministic),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_validator_rejects_corruption),
        cmocka_unit_test(test_rounds_are_minimal_matchings),
        cmocka_unit_test(test_validator_rejects_bad_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
