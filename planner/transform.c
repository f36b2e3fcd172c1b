/* transform.c — planning A := alpha*op(B) + beta*A (COSTA, Algorithms 2-3).
 *
 * A plan is built in five steps, none of which visits a piece of a
 * block-cyclic pair:
 *   1. the volumes between ranks, separable per dimension (volumes.c);
 *   2. sigma, when relabeling, from those volumes (relabel.c), and A's
 *      layout handed to it;
 *   3. the statistics, from the volumes and the grids (stats.c);
 *   4. the schedule (schedule.c): resolved, and for rounds a step for
 *      every transfer the volumes give;
 *   5. the sections: each rank's lattices (section.c), every rank's or, for
 *      relay_plan_transform_rank, the calling rank's alone, with their
 *      steps; then the fingerprint, which covers the header only, so that
 *      both ways of planning agree on it. */
#include <string.h>

#include "error.h"
#include "relabel.h"
#include "planner_internal.h"
#include "section.h"
#include "stats.h"

/* ---- the whole plan --------------------------------------------------- */

static relay_status check_transform_args(relay_plan **out, int nranks, int count, const relay_layout *const *dst,
                                         const relay_layout *const *src, const relay_op *ops, relay_type type,
                                         const relay_plan_options *o)
{
    if (!out) return rl_fail(RELAY_ERR_ARG, "transform plan: out is NULL");
    if (nranks <= 0) return rl_fail(RELAY_ERR_ARG, "transform plan: nranks = %d must be positive", nranks);
    if (count <= 0) return rl_fail(RELAY_ERR_ARG, "transform plan: count = %d must be positive", count);
    if (!dst || !src || !ops) return rl_fail(RELAY_ERR_ARG, "transform plan: NULL layout or op array");
    if (relay_type_size(type) == 0) return rl_fail(RELAY_ERR_ARG, "transform plan: invalid element type %d", (int)type);
    int64_t bytes = 0; /* every volume and statistic is a part of this */
    for (int k = 0; k < count; k++) {
        const relay_layout *a = dst[k], *b = src[k];
        if (!a || !b) return rl_fail(RELAY_ERR_ARG, "transform plan: pair %d has a NULL layout", k);
        int64_t elems, pair_bytes;
        if (rl_mul_overflows(a->m, a->n, &elems) || rl_mul_overflows(elems, (int64_t)relay_type_size(type), &pair_bytes) ||
            rl_add_overflows(bytes, pair_bytes, &bytes))
            return rl_fail(RELAY_ERR_ARG, "transform plan: pair %d takes the bytes the plan moves beyond 2^63 - 1", k);
        if (ops[k] != RELAY_OP_N && ops[k] != RELAY_OP_T && ops[k] != RELAY_OP_C)
            return rl_fail(RELAY_ERR_ARG, "transform plan: pair %d has an invalid op %d", k, (int)ops[k]);
        int t = rl_op_transposes(ops[k]);
        if ((t ? b->n : b->m) != a->m || (t ? b->m : b->n) != a->n)
            return rl_fail(RELAY_ERR_ARG, "transform plan: pair %d: A is %lld x %lld but op(B) is %lld x %lld", k,
                           (long long)a->m, (long long)a->n, (long long)(t ? b->n : b->m), (long long)(t ? b->m : b->n));
        if (a->nranks > nranks || b->nranks > nranks)
            return rl_fail(RELAY_ERR_ARG, "transform plan: pair %d has a layout over %d ranks, more than %d", k,
                           a->nranks > b->nranks ? a->nranks : b->nranks, nranks);
    }
    relay_status st = rl_check_options(o, nranks);
    if (!st && o->max_buffer_bytes && o->max_buffer_bytes < (int64_t)relay_type_size(type))
        return rl_fail(RELAY_ERR_ARG, "plan options: max_buffer_bytes = %lld is below one element (%zu bytes)",
                       (long long)o->max_buffer_bytes, relay_type_size(type));
    return st;
}

/* The plan's own copy of l over its ranks.  A relabeled layout (another
 * plan's destination) is restated without its rank map (layout_restate.c). */
static relay_status copy_layout(relay_layout **out, const relay_layout *l, int nranks)
{
    relay_status st = rl_layout_restate(out, l);
    if (!st) rl_layout_widen(*out, nranks);
    return st;
}

relay_status rl_plan_copy_layouts(relay_plan *p, const relay_layout *const *dst, const relay_layout *const *src,
                                  const relay_op *ops)
{
    for (int k = 0; k < p->count; k++) {
        p->pairs[k].op = ops[k];
        relay_status st = copy_layout(&p->pairs[k].dst, dst[k], p->nranks);
        if (!st) st = copy_layout(&p->pairs[k].src, src[k], p->nranks);
        if (st) return st;
    }
    return RELAY_OK;
}

/* Takes sigma as given (plan algebra), or chooses it (the identity without
 * relabeling), and hands A's blocks to it. */
static relay_status relabel_destinations(relay_plan *p, const relay_plan_options *o, const int32_t *sigma,
                                         const rl_volumes *v)
{
    if (sigma) memcpy(p->sigma, sigma, (size_t)p->nranks * sizeof *p->sigma);
    else if (o->relabel != RELAY_RELABEL_NONE) {
        relay_status st = rl_relabel(v, o, p->sigma, NULL);
        if (st) return st;
    }
    for (int k = 0; k < p->count; k++) {
        relay_status st = rl_layout_relabel(&p->pairs[k].dst_relabeled, p->pairs[k].dst, p->sigma, p->nranks);
        if (st) return st;
    }
    return RELAY_OK;
}

/* Every rank's section, ranks in parallel, from one batch of overlays. */
static relay_status plan_sections(relay_plan *p, const rl_batch *b)
{
    relay_status st = RELAY_OK;
#pragma omp parallel for schedule(dynamic, 1) if (p->nranks >= RL_PARALLEL_RANKS)
    for (int r = 0; r < p->nranks; r++) {
        relay_status mine = rl_batch_section(b, r, &p->sections[r]);
        if (mine) {
#pragma omp atomic write
            st = mine;
        }
    }
    /* rl_fail's message is thread-local: name the failure on this thread too. */
    return st ? rl_fail(st, "transform plan: building a rank's section failed (%s)", relay_status_str(st)) : RELAY_OK;
}

/* Steps 2-3: sigma and A's relabeled layouts, statistics. */
static relay_status plan_header(relay_plan *p, const relay_plan_options *o, const int32_t *sigma, const rl_volumes *v)
{
    relay_status st = relabel_destinations(p, o, sigma, v);
    if (!st) rl_transform_stats(p, v);
    return st;
}

/* Step 5: the sections of every rank (only_rank < 0) or of one, with the
 * steps of a rounds schedule. */
static relay_status plan_sections_of(relay_plan *p, int only_rank, const rl_transfers *t)
{
    rl_batch *b;
    relay_status st = rl_batch_create(&b, p->pairs, p->count, p->type);
    if (st) return st;
    st = only_rank < 0 ? plan_sections(p, b) : rl_batch_section(b, only_rank, &p->sections[only_rank]);
    rl_batch_free(b);
    return st ? st : rl_schedule_sections(p, t);
}

static relay_status plan_steps(relay_plan *p, int only_rank, const relay_plan_options *o, const int32_t *sigma)
{
    rl_volumes v;
    rl_transfers t = {0};
    relay_status st = rl_volumes_compute(&v, p);
    if (st) return st;
    st = plan_header(p, o, sigma, &v);
    if (!st) st = rl_schedule_plan(p, o->schedule, &v, &t);
    rl_volumes_free(&v);
    if (!st) st = plan_sections_of(p, only_rank, &t);
    rl_transfers_free(&t);
    return st;
}

/* The plan of every rank (only_rank < 0) or of one; sigma NULL: chosen as
 * opts say, else taken (opts' relabeling mode is then only recorded). */
static relay_status plan_batch(relay_plan **out, int only_rank, int nranks, int count, const relay_layout *const *dst,
                               const relay_layout *const *src, const relay_op *ops, relay_type type,
                               const relay_plan_options *opts, const int32_t *sigma)
{
    relay_plan_options defaults;
    relay_plan_options_init(&defaults);
    const relay_plan_options *o = opts ? opts : &defaults;
    relay_status st = check_transform_args(out, nranks, count, dst, src, ops, type, o);
    if (st) return st;
    relay_plan *p = rl_plan_alloc(nranks, count);
    if (!p) return RL_NOMEM();
    p->kind = RELAY_PLAN_TRANSFORM;
    p->type = type;
    p->relabel = o->relabel;
    p->max_buffer_bytes = o->max_buffer_bytes;
    st = rl_plan_copy_layouts(p, dst, src, ops);
    if (!st) st = plan_steps(p, only_rank, o, sigma);
    if (st) {
        relay_plan_free(p);
        return st;
    }
    p->fingerprint = rl_plan_hash(p);
    *out = p;
    return RELAY_OK;
}

relay_status relay_plan_transform_batch(relay_plan **out, int nranks, int count,
        const relay_layout *const *dst, const relay_layout *const *src, const relay_op *ops,
        relay_type type, const relay_plan_options *opts)
{
    return plan_batch(out, -1, nranks, count, dst, src, ops, type, opts, NULL);
}

relay_status relay_plan_transform_rank(relay_plan **out, int rank, int nranks, int count,
        const relay_layout *const *dst, const relay_layout *const *src, const relay_op *ops,
        relay_type type, const relay_plan_options *opts)
{
    if (rank < 0 || rank >= nranks)
        return rl_fail(RELAY_ERR_ARG, "transform plan of one rank: rank %d is not in [0, %d)", rank, nranks);
    return plan_batch(out, rank, nranks, count, dst, src, ops, type, opts, NULL);
}

relay_status relay_plan_transform(relay_plan **out, int nranks, const relay_layout *dst,
        const relay_layout *src, relay_op op, relay_type type, const relay_plan_options *opts)
{
    return relay_plan_transform_batch(out, nranks, 1, &dst, &src, &op, type, opts);
}

relay_status rl_plan_transform_sigma(relay_plan **out, int nranks, int count, const relay_layout *const *dst,
                                     const relay_layout *const *src, const relay_op *ops, relay_type type,
                                     const relay_plan_options *opts, const int32_t *sigma)
{
    return plan_batch(out, -1, nranks, count, dst, src, ops, type, opts, sigma);
}
