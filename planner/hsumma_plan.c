/* hsumma_plan.c — planning SUMMA and HSUMMA products (the HSUMMA paper).
 *
 * An HSUMMA plan is its parameters (plan_format/hsumma_dist.c derives the rest);
 * planning checks them and settles the groups: as given, by the cost model
 * when the caller supplies the network's alpha and beta, or left to
 * relay_exec_create, which measures the network it runs on. */
#include "error.h"
#include "hsumma_dist.h"

relay_status relay_plan_hsumma(relay_plan **out, const relay_hsumma_params *params)
{
    if (!out || !params) return rl_fail(RELAY_ERR_ARG, "relay_plan_hsumma: NULL argument");
    relay_status st = rl_hsumma_check(params, RELAY_ERR_ARG);
    if (st) return st;
    relay_hsumma_params p = *params;
    relay_hsumma_groups_from from = RELAY_GROUPS_GIVEN;
    if (!p.group_rows) {
        from = p.network.alpha > 0 && p.network.beta > 0 ? RELAY_GROUPS_MODEL : RELAY_GROUPS_AT_BIND;
        if (from == RELAY_GROUPS_MODEL) st = relay_hsumma_best_groups(&p, &p.network, &p.group_rows, &p.group_cols);
    }
    return st ? st : rl_hsumma_plan_new(out, &p, from);
}
