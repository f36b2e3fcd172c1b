/* hsumma_fields.c — an HSUMMA plan's parameters as the plan file's integer
 * fields (docs/plan-format.md), and back, checked: the codec writes and
 * reads these, and the fingerprint hashes them. */
#include <string.h>

#include "error.h"
#include "hsumma_check.h"
#include "hsumma_fields.h"

const char *const rl_hsumma_keys[RL_HS_INTS] = {"m", "n", "k", "grid_rows", "grid_cols", "group_rows", "group_cols",
                                                "inner_block", "outer_block", "dist", "dist_block", "bcast", "groups_from"};

void rl_hsumma_to_ints(const rl_hsumma *h, int64_t *v)
{
    const relay_hsumma_params *p = &h->params;
    int64_t f[RL_HS_INTS] = {p->m, p->n, p->k, p->grid_rows, p->grid_cols, p->group_rows, p->group_cols, p->inner_block,
                             p->outer_block, p->dist, p->dist_block, p->network.bcast, h->groups_from};
    memcpy(v, f, sizeof f);
}

relay_status rl_hsumma_from_ints(rl_hsumma *h, const int64_t *v, relay_type type, double alpha, double beta, int64_t nranks)
{
    relay_hsumma_params *p = &h->params;
    *p = (relay_hsumma_params){.m = v[RL_HS_M], .n = v[RL_HS_N], .k = v[RL_HS_K], .grid_rows = (int)v[RL_HS_GRID_ROWS],
                               .grid_cols = (int)v[RL_HS_GRID_COLS], .group_rows = (int)v[RL_HS_GROUP_ROWS],
                               .group_cols = (int)v[RL_HS_GROUP_COLS], .inner_block = v[RL_HS_INNER],
                               .outer_block = v[RL_HS_OUTER], .dist = (relay_hsumma_dist)v[RL_HS_DIST],
                               .dist_block = v[RL_HS_DIST_BLOCK], .type = type,
                               .network = {alpha, beta, (relay_bcast_model)v[RL_HS_BCAST]}};
    h->groups_from = (relay_hsumma_groups_from)v[RL_HS_GROUPS_FROM];
    relay_status st = rl_hsumma_check(p, RELAY_ERR_FORMAT);
    if (st) return st;
    if ((int64_t)p->grid_rows * p->grid_cols != nranks)
        return rl_fail(RELAY_ERR_FORMAT, "HSUMMA plan's %d x %d grid is not its %lld ranks", p->grid_rows, p->grid_cols,
                       (long long)nranks);
    if (p->dist == RELAY_HSUMMA_CHECKERBOARD && p->dist_block != 0)
        return rl_fail(RELAY_ERR_FORMAT, "HSUMMA plan is checkerboard but has a block-cyclic block (%lld)", (long long)p->dist_block);
    int model = h->groups_from == RELAY_GROUPS_MODEL;
    if ((h->groups_from == RELAY_GROUPS_AT_BIND) != (p->group_rows == 0) || h->groups_from < RELAY_GROUPS_GIVEN ||
        h->groups_from > RELAY_GROUPS_AUTOTUNE || (model && !(p->network.alpha > 0 && p->network.beta > 0)))
        return rl_fail(RELAY_ERR_FORMAT, "HSUMMA plan's groups (%d x %d) and their origin (%d) disagree", p->group_rows,
                       p->group_cols, (int)h->groups_from);
    return RELAY_OK;
}

