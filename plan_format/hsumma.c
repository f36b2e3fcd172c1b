/* hsumma.c — the HSUMMA plan object: a new plan from checked parameters
 * (its statistics and fingerprint), and the public queries of an HSUMMA
 * plan — its parameters and step counts, and the layouts of A, B and C.
 * What the parameters imply is derived in hsumma_dist.c; the cost model
 * that chooses the groups is hsumma_model.c. */
#include "error.h"
#include "hsumma_dist.h"

relay_status rl_hsumma_plan_new(relay_plan **out, const relay_hsumma_params *params, relay_hsumma_groups_from from)
{
    relay_status st = rl_hsumma_check(params, RELAY_ERR_ARG);
    if (st) return st;
    relay_plan *p = rl_plan_alloc(params->grid_rows * params->grid_cols, 0);
    rl_hsumma *h = p ? calloc(1, sizeof *h) : NULL;
    if (!h) {
        relay_plan_free(p);
        return RL_NOMEM();
    }
    h->params = *params;
    if (h->params.dist == RELAY_HSUMMA_CHECKERBOARD) h->params.dist_block = 0;
    h->groups_from = from;
    p->hsumma = h;
    p->kind = RELAY_PLAN_HSUMMA;
    p->type = params->type;
    p->schedule = RELAY_SCHED_P2P;
    int64_t outer, inner;
    rl_hsumma_stats(&h->params, &p->stats, &outer, &inner);
    p->rounds = (int32_t)(outer + inner);
    p->fingerprint = rl_plan_hash(p);
    *out = p;
    return RELAY_OK;
}

/* ---- the public queries -------------------------------------------------- */

relay_status relay_hsumma_params_init(relay_hsumma_params *p, int64_t m, int64_t n, int64_t k, int grid_rows, int grid_cols,
                                      relay_type type)
{
    if (!p) return rl_fail(RELAY_ERR_ARG, "relay_hsumma_params_init: params is NULL");
    *p = (relay_hsumma_params){.m = m, .n = n, .k = k, .grid_rows = grid_rows, .grid_cols = grid_cols, .inner_block = 64,
                               .outer_block = 64, .dist = RELAY_HSUMMA_CHECKERBOARD, .dist_block = 64, .type = type,
                               .network = {0, 0, RELAY_BCAST_VAN_DE_GEIJN}};
    return RELAY_OK;
}

static const rl_hsumma *hsumma_of(const relay_plan *p, const char *what)
{
    if (!p || !p->hsumma) rl_fail(RELAY_ERR_ARG, "%s: %s", what, p ? "not an HSUMMA plan" : "plan is NULL");
    return p ? p->hsumma : NULL;
}

relay_status relay_plan_hsumma_info(const relay_plan *p, relay_hsumma_info *info)
{
    const rl_hsumma *h = hsumma_of(p, "relay_plan_hsumma_info");
    if (!h || !info) return h ? rl_fail(RELAY_ERR_ARG, "relay_plan_hsumma_info: info is NULL") : RELAY_ERR_ARG;
    relay_plan_stats unused;
    info->params = h->params;
    info->groups_from = h->groups_from;
    rl_hsumma_stats(&h->params, &unused, &info->outer_steps, &info->inner_steps);
    return RELAY_OK;
}

/* A checkerboard dimension's split points, leaving out empty trailing parts. */
static int checkerboard_splits(const rl_dim *d, int64_t *splits)
{
    int n = 0;
    splits[0] = 0;
    for (int i = 0; i < d->parts; i++)
        if (rl_dim_local_len(d, i) > 0) splits[++n] = rl_dim_part_start(d, i + 1);
    return n;
}

static relay_status checkerboard_layout(int nranks, const rl_dim *rows, const rl_dim *cols, relay_layout **out)
{
    int64_t *rs = rl_malloc_array((size_t)rows->parts + 1, sizeof *rs), *cs = rl_malloc_array((size_t)cols->parts + 1, sizeof *cs);
    int *owners = rl_malloc_array((size_t)rows->parts * (size_t)cols->parts, sizeof *owners);
    relay_status st = rs && cs && owners ? RELAY_OK : RL_NOMEM();
    if (!st) {
        int nbr = checkerboard_splits(rows, rs), nbc = checkerboard_splits(cols, cs);
        for (int i = 0; i < nbr; i++)
            for (int j = 0; j < nbc; j++) owners[i * nbc + j] = i * cols->parts + j;
        st = relay_layout_grid(out, nranks, rows->len, cols->len, nbr, rs, nbc, cs, owners, NULL, NULL, RELAY_COL_MAJOR);
    }
    free(rs);
    free(cs);
    free(owners);
    return st;
}

relay_status relay_plan_hsumma_layout(const relay_plan *p, int which, relay_layout **out)
{
    const rl_hsumma *h = hsumma_of(p, "relay_plan_hsumma_layout");
    if (!h) return RELAY_ERR_ARG;
    if (!out || which < 0 || which > 2) return rl_fail(RELAY_ERR_ARG, "relay_plan_hsumma_layout: which must be 0 (A), 1 (B) or 2 (C)");
    const relay_hsumma_params *hp = &h->params;
    rl_hsumma_dims d;
    rl_hsumma_dims_of(hp, &d);
    const rl_dim *rows = which == 1 ? &d.kb : &d.m, *cols = which == 0 ? &d.ka : &d.n;
    if (hp->dist == RELAY_HSUMMA_BLOCK_CYCLIC)
        return relay_layout_block_cyclic(out, rows->len, cols->len, hp->dist_block, hp->dist_block, hp->grid_rows, hp->grid_cols,
                                         RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR);
    return checkerboard_layout(p->nranks, rows, cols, out);
}

