/* transform_case.c — the transform case the replaying tests share: made,
 * planned, relabeled and computed by the reference (transform_case.h). */
#include <stdio.h>

#include "transform_case.h"

/* ---- a case ---- */

void case_init(transform_case *tc, const char *name, int nranks, relay_type type, double complex alpha,
               double complex beta)
{
    *tc = (transform_case){.nranks = nranks, .type = type, .alpha = alpha, .beta = beta,
                           .relabel = RELAY_RELABEL_NONE, .schedule = RELAY_SCHED_AUTO};
    snprintf(tc->name, sizeof tc->name, "%s", name);
}

void case_add_pair(transform_case *tc, ref_layout dst, ref_layout src, relay_op op)
{
    tc->dst[tc->count] = dst;
    tc->src[tc->count] = src;
    tc->ops[tc->count] = op;
    tc->count++;
    tc->batched = tc->count > 1;
}

void case_add_random_pair(transform_case *tc, ref_rng *rng, relay_op op, int64_t m, int64_t n)
{
    ref_layout dst, src;
    ref_random_layout(&dst, rng, m, n, tc->nranks);
    ref_random_layout(&src, rng, op == RELAY_OP_N ? m : n, op == RELAY_OP_N ? n : m, tc->nranks);
    case_add_pair(tc, dst, src, op);
}

void case_free(transform_case *tc)
{
    for (int k = 0; k < tc->count; k++) {
        ref_layout_free(&tc->dst[k]);
        ref_layout_free(&tc->src[k]);
    }
}

void case_print_pairs(const transform_case *tc, const char *indent)
{
    for (int k = 0; k < tc->count; k++)
        printf("%spair %d op %s\n%s  A: %s\n%s  B: %s\n", indent, k, ref_op_name(tc->ops[k]), indent,
               tc->dst[k].desc, indent, tc->src[k].desc);
}

/* ---- its plan ---- */

/* relay's layouts of every pair (NULL where none was built); on a refusal,
 * why names the layout. */
static relay_status build_layouts(const transform_case *tc, relay_layout **dst, relay_layout **src, char *why,
                                  size_t why_size)
{
    for (int k = 0; k < tc->count; k++) dst[k] = src[k] = NULL;
    for (int k = 0; k < tc->count; k++) {
        const ref_layout *both[2] = {&tc->dst[k], &tc->src[k]};
        relay_layout **out[2] = {&dst[k], &src[k]};
        for (int side = 0; side < 2; side++) {
            relay_status s = ref_build_relay_layout(both[side], out[side]);
            if (s != RELAY_OK) {
                snprintf(why, why_size, "layout %s rejected: %s: %s", both[side]->desc, relay_status_str(s),
                         relay_last_error());
                return s;
            }
        }
    }
    return RELAY_OK;
}

static void free_layouts(int count, relay_layout **dst, relay_layout **src)
{
    for (int k = 0; k < count; k++) {
        relay_layout_free(dst[k]);
        relay_layout_free(src[k]);
    }
}

static relay_status plan_pairs(const transform_case *tc, relay_layout *const *dst, relay_layout *const *src,
                               relay_plan **plan)
{
    relay_plan_options opts;
    relay_plan_options_init(&opts);
    opts.relabel = tc->relabel;
    opts.schedule = tc->schedule;
    opts.max_buffer_bytes = tc->max_buffer_bytes;
    if (!tc->batched) return relay_plan_transform(plan, tc->nranks, dst[0], src[0], tc->ops[0], tc->type, &opts);
    return relay_plan_transform_batch(plan, tc->nranks, tc->count, (const relay_layout *const *)dst,
                                      (const relay_layout *const *)src, tc->ops, tc->type, &opts);
}

relay_status case_plan(const transform_case *tc, relay_plan **plan, char *why, size_t why_size)
{
    relay_layout *dst[CASE_MAX_PAIRS], *src[CASE_MAX_PAIRS];
    *plan = NULL;
    relay_status s = build_layouts(tc, dst, src, why, why_size);
    if (s == RELAY_OK && (s = plan_pairs(tc, dst, src, plan)) != RELAY_OK) {
        snprintf(why, why_size, "planning failed: %s: %s", relay_status_str(s), relay_last_error());
        *plan = NULL;
    }
    free_layouts(tc->count, dst, src);
    return s;
}

void case_relabel_dst(const transform_case *tc, const int *sigma, ref_layout *dst_ref)
{
    for (int k = 0; k < tc->count; k++) ref_layout_relabeled(&dst_ref[k], &tc->dst[k], sigma, tc->nranks);
}

void case_free_dst(const transform_case *tc, ref_layout *dst_ref)
{
    for (int k = 0; k < tc->count; k++) ref_layout_free(&dst_ref[k]);
}

/* ---- what the reference says ---- */

ref_transform case_pair_transform(const transform_case *tc, int k, double complex alpha, double complex beta,
                                  uint64_t seed)
{
    alpha = tc->alpha_null ? 1 : alpha;
    beta = tc->beta_null ? 0 : beta;
    return (ref_transform){.op = tc->ops[k], .type = tc->type, .alpha = alpha, .beta = beta, .read_a = beta != 0,
                           .seed_b = seed, .seed_a = seed + 1};
}

void case_fill(const ref_transform *t, ref_buffer *a, ref_buffer *b)
{
    ref_buffer_fill(b, t->seed_b);
    ref_buffer_fill(a, t->read_a ? t->seed_a : 0);
}

/* ---- building cases ---- */

const relay_type case_types[4] = {RELAY_FLOAT, RELAY_DOUBLE, RELAY_CFLOAT, RELAY_CDOUBLE};
const relay_op case_ops[3] = {RELAY_OP_N, RELAY_OP_T, RELAY_OP_C};
const char *const case_schedule_names[5] = {"auto", "p2p", "rounds", "alltoallv", "neighbor"};

ref_layout case_block_cyclic(ref_bc_params p)
{
    ref_layout l;
    ref_layout_block_cyclic(&l, &p);
    return l;
}

ref_layout case_bc(int64_t m, int64_t n, int64_t mb, int64_t nb, int nprow, int npcol, relay_order elem_order)
{
    return case_block_cyclic((ref_bc_params){m, n, mb, nb, nprow, npcol, RELAY_ROW_MAJOR, 0, 0, 0, elem_order});
}

void case_grid_shape(int nranks, int *nprow, int *npcol)
{
    *nprow = 1;
    for (int d = 1; d * d <= nranks; d++)
        if (nranks % d == 0) *nprow = d;
    *npcol = nranks / *nprow;
}

int64_t case_random_extent(ref_rng *rng)
{
    return ref_rng_percent(rng, 5) ? ref_rng_range(rng, 100, 200) : ref_rng_range(rng, 1, 60);
}

double complex case_random_scalar(ref_rng *rng, relay_type type)
{
    static const double complex values[] = {0, 1, -1, 2, 0.5, -0.5, CMPLX(1, 2), CMPLX(0, 1), CMPLX(-0.5, 1)};
    return values[ref_rng_range(rng, 0, ref_type_is_complex(type) ? 8 : 5)];
}
