/* nd_plan.c — the body of an N-D plan (kind RELAY_PLAN_ND, plan.c makes
 * the plan around it): its pairs and node map, their copy and release,
 * the accessors of relay/nd.h and its buffers' sizes. */
#include <string.h>

#include "error.h"
#include "plan_internal.h"

void rl_nd_plan_free(rl_nd_plan *nd)
{
    if (!nd) return;
    for (int k = 0; nd->pairs && k < nd->count; k++) {
        relay_nd_layout_free(nd->pairs[k].dst);
        relay_nd_layout_free(nd->pairs[k].src);
    }
    free(nd->pairs);
    free(nd->node_of_rank);
    free(nd);
}

rl_nd_plan *rl_nd_plan_body(int count)
{
    rl_nd_plan *nd = calloc(1, sizeof *nd);
    rl_nd_pair *pairs = rl_calloc((size_t)count, sizeof *pairs);
    if (!nd || !pairs) {
        free(nd);
        free(pairs);
        return NULL;
    }
    nd->count = count;
    nd->pairs = pairs;
    return nd;
}

relay_status rl_nd_plan_body_copy(rl_nd_plan *to, const rl_nd_plan *from, int nranks)
{
    relay_status st = RELAY_OK;
    for (int k = 0; !st && k < from->count; k++) {
        rl_nd_pair *pair = &to->pairs[k];
        *pair = (rl_nd_pair){.op = from->pairs[k].op, .forward = from->pairs[k].forward};
        memcpy(pair->perm, from->pairs[k].perm, sizeof pair->perm);
        if (!(st = rl_nd_layout_clone(&pair->dst, from->pairs[k].dst))) st = rl_nd_layout_clone(&pair->src, from->pairs[k].src);
    }
    if (st || !from->node_of_rank) return st;
    if (!(to->node_of_rank = rl_malloc_array((size_t)nranks, sizeof *to->node_of_rank))) return RL_NOMEM();
    memcpy(to->node_of_rank, from->node_of_rank, (size_t)nranks * sizeof *to->node_of_rank);
    return RELAY_OK;
}

int rl_nd_plan_replicated(const rl_nd_plan *nd)
{
    for (int k = 0; k < nd->count; k++)
        if (rl_nd_replicas(nd->pairs[k].dst) > 1) return 1;
    return 0;
}

int rl_nd_plan_forwards(const rl_nd_plan *nd)
{
    for (int k = 0; k < nd->count; k++)
        if (nd->pairs[k].forward) return 1;
    return 0;
}

static const rl_nd_pair *nd_pair_at(const relay_plan *p, int index)
{
    if (!p || !p->nd) {
        rl_fail(RELAY_ERR_ARG, "not an N-D plan");
        return NULL;
    }
    if (index < 0 || index >= p->nd->count) {
        rl_fail(RELAY_ERR_ARG, "pair index %d is not in [0, %d)", index, p->nd->count);
        return NULL;
    }
    return &p->nd->pairs[index];
}

const relay_nd_layout *relay_plan_nd_dst(const relay_plan *p, int index)
{
    const rl_nd_pair *pr = nd_pair_at(p, index);
    return pr ? pr->dst : NULL;
}

const relay_nd_layout *relay_plan_nd_src(const relay_plan *p, int index)
{
    const rl_nd_pair *pr = nd_pair_at(p, index);
    return pr ? pr->src : NULL;
}

relay_status relay_plan_nd_perm(const relay_plan *p, int index, int *perm)
{
    const rl_nd_pair *pr = nd_pair_at(p, index);
    if (!pr) return RELAY_ERR_ARG;
    if (!perm) return rl_fail(RELAY_ERR_ARG, "relay_plan_nd_perm: perm is NULL");
    for (int k = 0; k < pr->dst->ndims; k++) perm[k] = pr->perm[k];
    return RELAY_OK;
}

int64_t rl_nd_plan_buffer_elems(const relay_plan *p, int is_dst, int index, int rank)
{
    const rl_nd_pair *pr = nd_pair_at(p, index);
    if (!pr) return -1;
    if (rank < 0 || rank >= p->nranks) {
        rl_fail(RELAY_ERR_ARG, "rank %d is not in [0, %d)", rank, p->nranks);
        return -1;
    }
    return relay_nd_layout_local_elems(is_dst ? pr->dst : pr->src, rank);
}
