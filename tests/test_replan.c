/* test_replan.c — trusting a section read from bytes in O(lattices)
 * (plan_format/lattice/replan.c).
 *
 * On random transforms (fixed seeds: block-cyclic and grid layouts with
 * gaps and padding, op N/T/C, resizes, batches, relabeling, every schedule,
 * memory caps), every rank's section decoded from the plan's bytes must be
 * recognised as the one its header plans; so must the sections of plans
 * made by the plan algebra (compose, invert, concat), shipped as bytes.
 * Every way a section can lie consistently with its sizes (a lattice
 * shifted, two lattices swapped, a piece count or step changed, a local
 * lattice's destination moved, elements moved from one message to
 * another) must make it not planned, so that the executor checks it
 * element by element (tests/mpi_lying_plans.c and tests/hostile/ check
 * that those lies are then refused). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "plan_internal.h"
#include "reference.h"
#include "replan.h"

enum { CASES = 300, MAX_RANKS = 6, MAX_PAIRS = 3 };

static ref_rng rng;

/* ---- random plans ------------------------------------------------------ */

static relay_layout *random_layout(int64_t m, int64_t n, int max_ranks)
{
    ref_layout r;
    relay_layout *l;
    ref_random_layout(&r, &rng, m, n, max_ranks);
    assert_int_equal(ref_build_relay_layout(&r, &l), RELAY_OK);
    ref_layout_free(&r);
    return l;
}

static relay_plan_options random_options(void)
{
    static const relay_relabel relabels[] = {RELAY_RELABEL_NONE, RELAY_RELABEL_GREEDY, RELAY_RELABEL_OPTIMAL};
    static const relay_schedule schedules[] = {RELAY_SCHED_AUTO, RELAY_SCHED_P2P, RELAY_SCHED_ROUNDS,
                                               RELAY_SCHED_ALLTOALLV, RELAY_SCHED_NEIGHBOR};
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.relabel = relabels[ref_rng_range(&rng, 0, 2)];
    o.schedule = schedules[ref_rng_range(&rng, 0, 4)];
    if (ref_rng_percent(&rng, 20)) {
        o.schedule = RELAY_SCHED_ROUNDS;
        o.max_buffer_bytes = 64 * ref_rng_range(&rng, 1, 8);
    }
    return o;
}

/* A batch of 1..MAX_PAIRS random pairs over nranks ranks. */
static relay_plan *random_plan(int nranks)
{
    int count = (int)ref_rng_range(&rng, 1, MAX_PAIRS);
    relay_layout *dst[MAX_PAIRS], *src[MAX_PAIRS];
    relay_op ops[MAX_PAIRS];
    for (int k = 0; k < count; k++) {
        int64_t m = ref_rng_range(&rng, 1, 40), n = ref_rng_range(&rng, 1, 40);
        ops[k] = (relay_op)ref_rng_range(&rng, 0, 2);
        int t = ops[k] != RELAY_OP_N;
        dst[k] = random_layout(m, n, nranks);
        src[k] = random_layout(t ? n : m, t ? m : n, nranks);
    }
    relay_plan_options o = random_options();
    relay_type type = ops[0] == RELAY_OP_C ? RELAY_CDOUBLE : RELAY_DOUBLE;
    relay_plan *p;
    relay_status st = relay_plan_transform_batch(&p, nranks, count, (const relay_layout *const *)dst,
                                                 (const relay_layout *const *)src, ops, type, &o);
    assert_int_equal(st, RELAY_OK);
    for (int k = 0; k < count; k++) {
        relay_layout_free(dst[k]);
        relay_layout_free(src[k]);
    }
    return p;
}

/* p as a job reads it: encoded, decoded with every section. */
static relay_plan *shipped(const relay_plan *p)
{
    void *buf;
    size_t len;
    relay_plan *q;
    assert_int_equal(relay_plan_encode(p, &buf, &len), RELAY_OK);
    assert_int_equal(relay_plan_decode(&q, buf, len, -1), RELAY_OK);
    free(buf);
    assert_true(q->from_bytes);
    return q;
}

static int is_planned(const relay_plan *p, int rank)
{
    int planned = -1;
    assert_int_equal(rl_section_is_planned(p, rank, &planned), RELAY_OK);
    return planned;
}

static void assert_every_rank_planned(const relay_plan *p)
{
    for (int r = 0; r < p->nranks; r++)
        if (!is_planned(p, r)) fail_msg("rank %d's section of a shipped plan is not recognised as planned", r);
}

/* ---- lies ---------------------------------------------------------------- */

/* Each lie changes one field of a section that the sizes validation
 * (plan_format/validate.c) does not pin; 0 where the section has nothing
 * for it to change. */
typedef int (*lie)(rl_section *s);

static int shift_send_lattice(rl_section *s)
{
    if (!s->nsend_spans) return 0;
    s->send_spans[ref_rng_range(&rng, 0, s->nsend_spans - 1)].off++;
    return 1;
}

static int shift_recv_lattice(rl_section *s)
{
    if (!s->nrecv_spans) return 0;
    s->recv_spans[ref_rng_range(&rng, 0, s->nrecv_spans - 1)].off++;
    return 1;
}

static int swap_recv_lattices(rl_section *s)
{
    for (int64_t i = 0; i + 1 < s->nrecv_spans; i++)
        if (memcmp(&s->recv_spans[i], &s->recv_spans[i + 1], sizeof *s->recv_spans)) {
            rl_span t = s->recv_spans[i];
            s->recv_spans[i] = s->recv_spans[i + 1];
            s->recv_spans[i + 1] = t;
            return 1;
        }
    return 0;
}

static int change_piece_step(rl_section *s)
{
    for (int64_t i = 0; i < s->nsend_spans; i++)
        if (s->send_spans[i].count_r > 1) {
            s->send_spans[i].step_r++;
            return 1;
        }
    return 0;
}

static int move_local_destination(rl_section *s)
{
    if (!s->nlocal) return 0;
    s->local[ref_rng_range(&rng, 0, s->nlocal - 1)].dst_off++;
    return 1;
}

static int swap_local_sides(rl_section *s)
{
    for (int64_t i = 0; i < s->nlocal; i++)
        if (s->local[i].src_off != s->local[i].dst_off) {
            int64_t t = s->local[i].src_off;
            s->local[i].src_off = s->local[i].dst_off;
            s->local[i].dst_off = t;
            return 1;
        }
    return 0;
}

/* One element fewer in one message, one more in another. */
static int move_elements_between_messages(rl_section *s)
{
    if (s->nsend < 2) return 0;
    s->send[0].elems--;
    s->send[1].elems++;
    return 1;
}

static const lie lies[] = {shift_send_lattice,     shift_recv_lattice, swap_recv_lattices,
                           change_piece_step,      move_local_destination, swap_local_sides,
                           move_elements_between_messages};
enum { LIES = sizeof lies / sizeof *lies };

/* ---- tests --------------------------------------------------------------- */

static void shipped_sections_are_planned(void **state)
{
    (void)state;
    ref_rng_seed(&rng, 36001);
    for (int c = 0; c < CASES; c++) {
        relay_plan *p = random_plan((int)ref_rng_range(&rng, 1, MAX_RANKS));
        relay_plan *q = shipped(p);
        assert_every_rank_planned(q);
        relay_plan_free(q);
        relay_plan_free(p);
    }
}

/* Sections of one rank alone, as relay_plan_load(path, rank) keeps. */
static void one_rank_sections_are_planned(void **state)
{
    (void)state;
    ref_rng_seed(&rng, 36002);
    for (int c = 0; c < CASES / 3; c++) {
        relay_plan *p = random_plan((int)ref_rng_range(&rng, 1, MAX_RANKS));
        void *buf;
        size_t len;
        assert_int_equal(relay_plan_encode(p, &buf, &len), RELAY_OK);
        for (int r = 0; r < p->nranks; r++) {
            relay_plan *q;
            assert_int_equal(relay_plan_decode(&q, buf, len, r), RELAY_OK);
            assert_true(is_planned(q, r));
            relay_plan_free(q);
        }
        free(buf);
        relay_plan_free(p);
    }
}

static void algebra_sections_are_planned(void **state)
{
    (void)state;
    ref_rng_seed(&rng, 36003);
    int composed = 0;
    for (int c = 0; c < CASES / 3; c++) {
        int nranks = (int)ref_rng_range(&rng, 1, MAX_RANKS);
        relay_plan *p = random_plan(nranks), *y = random_plan(nranks), *inv, *cat, *both;
        assert_int_equal(relay_plan_invert(&inv, p), RELAY_OK);
        relay_plan *q = shipped(inv);
        assert_every_rank_planned(q);
        relay_plan_free(q);
        if (relay_plan_type(p) == relay_plan_type(y) && relay_plan_concat(&cat, p, y) == RELAY_OK) {
            q = shipped(cat);
            assert_every_rank_planned(q);
            relay_plan_free(q);
            relay_plan_free(cat);
        }
        if (relay_plan_compose(&both, p, inv) == RELAY_OK) {
            composed++;
            q = shipped(both);
            assert_every_rank_planned(q);
            relay_plan_free(q);
            relay_plan_free(both);
        }
        relay_plan_free(inv);
        relay_plan_free(y);
        relay_plan_free(p);
    }
    assert_true(composed > CASES / 6); /* the compositions were tried, not all refused */
}

static void lying_sections_are_not_planned(void **state)
{
    (void)state;
    ref_rng_seed(&rng, 36004);
    int told[LIES] = {0};
    for (int c = 0; c < CASES; c++) {
        relay_plan *p = random_plan((int)ref_rng_range(&rng, 2, MAX_RANKS));
        relay_plan *q = shipped(p);
        int rank = (int)ref_rng_range(&rng, 0, q->nranks - 1);
        for (int k = 0; k < LIES; k++) {
            rl_section *s;
            assert_int_equal(rl_section_clone(&s, q->sections[rank], q->count), RELAY_OK);
            rl_section *truth = q->sections[rank];
            q->sections[rank] = s;
            if (lies[k](s)) {
                told[k]++;
                if (is_planned(q, rank)) fail_msg("lie %d on rank %d of case %d passes as planned", k, rank, c);
            }
            q->sections[rank] = truth;
            rl_section_free(s);
        }
        relay_plan_free(q);
        relay_plan_free(p);
    }
    for (int k = 0; k < LIES; k++)
        if (told[k] < 10) fail_msg("lie %d was told only %d times", k, told[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shipped_sections_are_planned),
        cmocka_unit_test(one_rank_sections_are_planned),
        cmocka_unit_test(algebra_sections_are_planned),
        cmocka_unit_test(lying_sections_are_not_planned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
