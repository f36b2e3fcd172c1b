/* nd_plan.c — the N-D plan object (kind RELAY_PLAN_ND): its pairs,
 * release, the accessors of relay/nd.h and its buffers' sizes. */
#include <string.h>

#include "codec.h"
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

relay_status rl_nd_plan_new(relay_plan **out, int nranks, int count, relay_type type)
{
    relay_plan *p = rl_plan_alloc(nranks, 0);
    rl_nd_plan *nd = calloc(1, sizeof *nd);
    rl_nd_pair *pairs = rl_calloc((size_t)count, sizeof *pairs);
    if (!p || !nd || !pairs) {
        relay_plan_free(p);
        free(nd);
        free(pairs);
        return RL_NOMEM();
    }
    nd->count = count;
    nd->pairs = pairs;
    p->nd = nd;
    p->kind = RELAY_PLAN_ND;
    p->type = type;
    p->schedule = RELAY_SCHED_P2P;
    p->format_major = RELAY_FORMAT_ND_MAJOR; /* the file it makes */
    p->format_minor = RELAY_FORMAT_ND_MINOR;
    *out = p;
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
