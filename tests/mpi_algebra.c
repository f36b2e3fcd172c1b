/* mpi_algebra.c — plans made from plans, replayed (relay/plan.h's
 * relay_plan_compose, relay_plan_invert and relay_plan_concat).
 *
 * Each case draws, from a generator seeded by its number, three random
 * layouts of random shapes (B, A1, A2), two ops, relabelings and
 * schedules, and plans B -> A1 and A1 -> A2, the second from A1 as the
 * first delivers it (relabeled: through relay_plan_dst_layout, or rebuilt
 * by the reference as an explicit grid).  Then:
 *   compose  the composed plan's replay equals the two replays' result
 *            and the serial reference's alpha2*op2(alpha1)*op2(op1(B)) +
 *            beta2*A2; T with C on complex types must be refused instead;
 *   invert   replaying the first plan and then its inverse gives B back,
 *            its gaps untouched;
 *   concat   the first plan and an unrelated one as one batch give each
 *            pair's reference result.
 * Every third case makes its plans from plans decoded for this rank only
 * (the algebra needs only the header). */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "mpi_check.h"
#include "ref_buffer.h"
#include "relay/relay.h"

enum { CASES = 48 };
static const relay_type all_types[] = {RELAY_FLOAT, RELAY_DOUBLE, RELAY_CFLOAT, RELAY_CDOUBLE};
static const relay_op all_ops[] = {RELAY_OP_N, RELAY_OP_T, RELAY_OP_C};

/* ---- a case ------------------------------------------------------------------ */

typedef struct {
    int number;
    relay_type type;
    relay_op op1, op2;
    ref_layout b, a1, a2;   /* A1 and A2 as planned, before relabeling */
    relay_plan_options o1, o2;
    double complex alpha1, alpha2, beta2;
} algebra_case;

static double complex random_scalar(ref_rng *rng, relay_type type)
{
    static const double complex values[] = {1, -1, 2, 0.5, CMPLX(1, 2), CMPLX(0, 1), CMPLX(-0.5, 1)};
    return values[ref_rng_range(rng, 0, ref_type_is_complex(type) ? 6 : 3)];
}

static void random_options(ref_rng *rng, relay_plan_options *o)
{
    relay_plan_options_init(o);
    o->relabel = (relay_relabel)ref_rng_range(rng, 0, 2);
    o->schedule = (relay_schedule)ref_rng_range(rng, 0, 3);
}

static int transposes(relay_op op) { return op != RELAY_OP_N; }

static void random_case(algebra_case *c, int number, int P)
{
    ref_rng rng;
    ref_rng_seed(&rng, 0xa19eb7a0 + (uint64_t)number);
    c->number = number;
    c->type = all_types[ref_rng_range(&rng, 0, 3)];
    c->op1 = all_ops[ref_rng_range(&rng, 0, 2)];
    c->op2 = all_ops[ref_rng_range(&rng, 0, 2)];
    int64_t m = ref_rng_range(&rng, 1, 40), n = ref_rng_range(&rng, 1, 40);
    int64_t m1 = transposes(c->op2) ? n : m, n1 = transposes(c->op2) ? m : n;
    ref_random_layout(&c->a2, &rng, m, n, P);
    ref_random_layout(&c->a1, &rng, m1, n1, P);
    ref_random_layout(&c->b, &rng, transposes(c->op1) ? n1 : m1, transposes(c->op1) ? m1 : n1, P);
    random_options(&rng, &c->o1);
    random_options(&rng, &c->o2);
    c->alpha1 = random_scalar(&rng, c->type);
    c->alpha2 = random_scalar(&rng, c->type);
    c->beta2 = ref_rng_percent(&rng, 50) ? 0 : random_scalar(&rng, c->type);
}

static void case_free(algebra_case *c)
{
    ref_layout_free(&c->b);
    ref_layout_free(&c->a1);
    ref_layout_free(&c->a2);
}

/* op2 after op1 as the reference sees it, or -1 where it is no op. */
static int composed_op(const algebra_case *c)
{
    if (c->op1 == RELAY_OP_N) return (int)c->op2;
    if (c->op2 == RELAY_OP_N) return (int)c->op1;
    return c->op1 == c->op2 || !ref_type_is_complex(c->type) ? (int)RELAY_OP_N : -1;
}

/* ---- plans ------------------------------------------------------------------- */

/* A layout as a plan delivers it: the reference's layout with sigma applied. */
static void delivered(ref_layout *out, const ref_layout *l, const relay_plan *p, int P)
{
    int *sigma = malloc(sizeof *sigma * (size_t)P);
    relay_plan_relabeling(p, sigma);
    ref_layout_relabeled(out, l, sigma, P);
    free(sigma);
}

/* Whether the plan's buffers of pair k on this rank fit those given: a
 * wrong plan must fail the check, not write past them. */
static int buffers_fit(const relay_plan *p, int k, int rank, const ref_buffer *dst, const ref_buffer *src)
{
    int64_t d = relay_plan_buffer_elems(p, 1, k, rank), s = relay_plan_buffer_elems(p, 0, k, rank);
    return d >= 0 && s >= 0 && (d == 0 || d <= dst->size) && (s == 0 || s <= src->size);
}

/* Replays p once (count pairs) over the buffers, alpha and beta converted
 * to the type. */
static int run(const relay_plan *p, int count, ref_buffer *const *dst, ref_buffer *const *src, double complex alpha,
               double complex beta)
{
    int rank, fit = p && relay_plan_count(p) == count;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    void *d[2];
    const void *s[2];
    for (int k = 0; k < count && fit; k++) {
        fit = buffers_fit(p, k, rank, dst[k], src[k]);
        d[k] = dst[k]->data;
        s[k] = src[k]->data;
    }
    if (!fit) return 0;
    union { float f[2]; double d[2]; } a, b;
    if (dst[0]->type == RELAY_FLOAT || dst[0]->type == RELAY_CFLOAT) {
        a.f[0] = (float)creal(alpha), a.f[1] = (float)cimag(alpha);
        b.f[0] = (float)creal(beta), b.f[1] = (float)cimag(beta);
    } else {
        a.d[0] = creal(alpha), a.d[1] = cimag(alpha);
        b.d[0] = creal(beta), b.d[1] = cimag(beta);
    }
    relay_exec *e = NULL;
    int ok = relay_exec_create(&e, p, MPI_COMM_WORLD) == RELAY_OK;
    ok = ok && relay_exec_run(e, d, s, &a, &b) == RELAY_OK;
    relay_exec_free(e);
    return ok;
}

/* ---- the three checks ------------------------------------------------------- */

typedef struct {
    const algebra_case *c;
    int P, rank;
    relay_plan *first, *second;
    ref_layout a1_delivered, a2_delivered;
} chain;

/* Two replays against one composed replay, and both against the reference. */
static void check_compose(const chain *ch, const relay_plan *first, const relay_plan *second)
{
    const algebra_case *c = ch->c;
    relay_plan *both = NULL;
    relay_status st = relay_plan_compose(&both, first, second);
    char what[160];
    int op = composed_op(c);
    if (op < 0) {
        snprintf(what, sizeof what, "case %d: composing %s after %s on complex types is refused", c->number,
                 ref_op_name(c->op2), ref_op_name(c->op1));
        check(st == RELAY_ERR_UNSUPPORTED && !both, what);
        return;
    }
    snprintf(what, sizeof what, "case %d: composed plan (%s after %s, %s) replays as the two plans do", c->number,
             ref_op_name(c->op2), ref_op_name(c->op1), ref_type_name(c->type));
    uint64_t seed_b = 2 * (uint64_t)c->number + 1, seed_a = seed_b + 1;
    ref_buffer b, a1, twice, once;
    ref_buffer_make(&b, &c->b, ch->rank, c->type);
    ref_buffer_make(&a1, &ch->a1_delivered, ch->rank, c->type);
    ref_buffer_make(&twice, &ch->a2_delivered, ch->rank, c->type);
    ref_buffer_make(&once, &ch->a2_delivered, ch->rank, c->type);
    ref_buffer_fill(&b, seed_b);
    ref_buffer_fill(&a1, 0);
    ref_buffer_fill(&twice, c->beta2 != 0 ? seed_a : 0);
    ref_buffer_fill(&once, c->beta2 != 0 ? seed_a : 0);
    double complex alpha = c->alpha2 * (c->op2 == RELAY_OP_C ? conj(c->alpha1) : c->alpha1);
    ref_transform want = {.op = (relay_op)op, .type = c->type, .alpha = alpha, .beta = c->beta2,
                          .read_a = c->beta2 != 0, .seed_b = seed_b, .seed_a = seed_a};
    int ok = st == RELAY_OK && run(ch->first, 1, (ref_buffer *[]){&a1}, (ref_buffer *[]){&b}, c->alpha1, 0);
    ok = ok && run(ch->second, 1, (ref_buffer *[]){&twice}, (ref_buffer *[]){&a1}, c->alpha2, c->beta2);
    ok = ok && run(both, 1, (ref_buffer *[]){&once}, (ref_buffer *[]){&b}, alpha, c->beta2);
    ok = ok && ref_buffer_is(&twice, &want) && ref_buffer_is(&once, &want) && ref_buffer_holds(&b, seed_b);
    check(ok, what);
    relay_plan_free(both);
    ref_buffer_free(&b);
    ref_buffer_free(&a1);
    ref_buffer_free(&twice);
    ref_buffer_free(&once);
}

/* The first plan, then its inverse: B again, its gaps untouched. */
static void check_invert(const chain *ch, const relay_plan *first)
{
    const algebra_case *c = ch->c;
    relay_plan *back = NULL;
    char what[160];
    snprintf(what, sizeof what, "case %d: the inverse of a %s plan moves B back", c->number, ref_op_name(c->op1));
    uint64_t seed_b = 2 * (uint64_t)c->number + 1;
    ref_buffer b, a1, again;
    ref_buffer_make(&b, &c->b, ch->rank, c->type);
    ref_buffer_make(&a1, &ch->a1_delivered, ch->rank, c->type);
    ref_buffer_make(&again, &c->b, ch->rank, c->type);
    ref_buffer_fill(&b, seed_b);
    ref_buffer_fill(&a1, 0);
    ref_buffer_fill(&again, 0);
    int ok = relay_plan_invert(&back, first) == RELAY_OK;
    ok = ok && run(ch->first, 1, (ref_buffer *[]){&a1}, (ref_buffer *[]){&b}, 1, 0);
    ok = ok && run(back, 1, (ref_buffer *[]){&again}, (ref_buffer *[]){&a1}, 1, 0);
    check(ok && ref_buffer_holds(&again, seed_b), what);
    relay_plan_free(back);
    ref_buffer_free(&b);
    ref_buffer_free(&a1);
    ref_buffer_free(&again);
}

/* The first plan and the second (an unrelated pair here: A1 -> A2 read
 * from fresh values) as one batch. */
static void check_concat(const chain *ch, const relay_plan *first, const relay_plan *second)
{
    const algebra_case *c = ch->c;
    relay_plan *batch = NULL;
    char what[160];
    snprintf(what, sizeof what, "case %d: two plans concatenated replay as one batch", c->number);
    uint64_t seed = 4 * (uint64_t)c->number + 1;
    ref_buffer b, a1, a1_src, a2;
    ref_buffer_make(&b, &c->b, ch->rank, c->type);
    ref_buffer_make(&a1, &ch->a1_delivered, ch->rank, c->type);
    ref_buffer_make(&a1_src, &ch->a1_delivered, ch->rank, c->type);
    ref_buffer_make(&a2, &ch->a2_delivered, ch->rank, c->type);
    ref_buffer_fill(&b, seed);
    ref_buffer_fill(&a1, seed + 1);
    ref_buffer_fill(&a1_src, seed + 2);
    ref_buffer_fill(&a2, seed + 3);
    ref_transform want1 = {.op = c->op1, .type = c->type, .alpha = c->alpha1, .beta = c->beta2, .read_a = c->beta2 != 0,
                           .seed_b = seed, .seed_a = seed + 1};
    ref_transform want2 = {.op = c->op2, .type = c->type, .alpha = c->alpha1, .beta = c->beta2, .read_a = c->beta2 != 0,
                            .seed_b = seed + 2, .seed_a = seed + 3};
    int ok = relay_plan_concat(&batch, first, second) == RELAY_OK;
    ok = ok && run(batch, 2, (ref_buffer *[]){&a1, &a2}, (ref_buffer *[]){&b, &a1_src}, c->alpha1, c->beta2);
    check(ok && ref_buffer_is(&a1, &want1) && ref_buffer_is(&a2, &want2), what);
    relay_plan_free(batch);
    ref_buffer_free(&b);
    ref_buffer_free(&a1);
    ref_buffer_free(&a1_src);
    ref_buffer_free(&a2);
}

/* ---- the cases ----------------------------------------------------------------- */

/* Plans the case's chain: the second plan reads A1 as the first delivers
 * it, through relay_plan_dst_layout (even cases) or rebuilt by the
 * reference (odd ones). */
static int plan_chain(chain *ch)
{
    const algebra_case *c = ch->c;
    ch->first = ref_plan_of(ch->P, &c->a1, &c->b, NULL, c->op1, c->type, &c->o1);
    if (!ch->first) return 0;
    delivered(&ch->a1_delivered, &c->a1, ch->first, ch->P);
    const relay_layout *a1 = c->number % 2 ? NULL : relay_plan_dst_layout(ch->first, 0);
    ch->second = ref_plan_of(ch->P, &c->a2, &ch->a1_delivered, a1, c->op2, c->type, &c->o2);
    if (!ch->second) return 0;
    delivered(&ch->a2_delivered, &c->a2, ch->second, ch->P);
    return 1;
}

static void run_case(int number, int P, int rank)
{
    algebra_case c;
    random_case(&c, number, P);
    chain ch = {.c = &c, .P = P, .rank = rank};
    char what[96];
    snprintf(what, sizeof what, "case %d: both plans of the chain are made", number);
    int planned = plan_chain(&ch);
    check(planned, what);
    if (planned) {
        relay_plan *first = number % 3 == 1 ? ref_plan_reloaded(ch.first, rank) : ch.first;
        relay_plan *second = number % 3 == 1 ? ref_plan_reloaded(ch.second, rank) : ch.second;
        check_compose(&ch, first, second);
        check_invert(&ch, first);
        check_concat(&ch, first, second);
        if (first != ch.first) relay_plan_free(first);
        if (second != ch.second) relay_plan_free(second);
        ref_layout_free(&ch.a1_delivered);
        ref_layout_free(&ch.a2_delivered);
    }
    relay_plan_free(ch.first);
    relay_plan_free(ch.second);
    case_free(&c);
}

/* A plan composed with its inverse moves nothing between ranks. */
static void check_round_trip_is_local(int P)
{
    relay_layout *a = NULL, *b = NULL;
    relay_plan *there = NULL, *back = NULL, *both = NULL;
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.relabel = RELAY_RELABEL_OPTIMAL;
    relay_layout_block_cyclic(&a, 64, 48, 8, 4, 1, P, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR);
    relay_layout_block_cyclic(&b, 48, 64, 3, 16, P, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_ROW_MAJOR);
    int ok = relay_plan_transform(&there, P, a, b, RELAY_OP_T, RELAY_DOUBLE, &o) == RELAY_OK;
    ok = ok && relay_plan_invert(&back, there) == RELAY_OK && relay_plan_compose(&both, there, back) == RELAY_OK;
    relay_plan_stats s = {0};
    ok = ok && relay_plan_get_stats(both, &s) == RELAY_OK && s.bytes_remote == 0 && s.messages == 0 &&
         s.bytes_total == 64 * 48 * 8;
    check(ok, "a plan composed with its inverse copies every element in place");
    relay_plan_free(there);
    relay_plan_free(back);
    relay_plan_free(both);
    relay_layout_free(a);
    relay_layout_free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int P, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int number = 0; number < CASES; number++) run_case(number, P, rank);
    check_round_trip_is_local(P);
    int status = check_summary("mpi_algebra");
    MPI_Finalize();
    return status;
}
