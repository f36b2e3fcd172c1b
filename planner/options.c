/* options.c — validating relay_plan_options before any planning starts. */
#include "error.h"
#include "planner_internal.h"

relay_status rl_check_options(const relay_plan_options *o, int nranks)
{
    if (o->relabel != RELAY_RELABEL_NONE && o->relabel != RELAY_RELABEL_GREEDY && o->relabel != RELAY_RELABEL_OPTIMAL)
        return rl_fail(RELAY_ERR_ARG, "plan options: invalid relabeling mode %d", (int)o->relabel);
    if (o->schedule < RELAY_SCHED_AUTO || o->schedule > RELAY_SCHED_NEIGHBOR)
        return rl_fail(RELAY_ERR_ARG, "plan options: invalid schedule %d", (int)o->schedule);
    if (o->replicas < RELAY_REPLICAS_AUTO || o->replicas > RELAY_REPLICAS_FORWARD)
        return rl_fail(RELAY_ERR_ARG, "plan options: invalid replicas mode %d", (int)o->replicas);
    if (o->max_buffer_bytes < 0)
        return rl_fail(RELAY_ERR_ARG, "plan options: max_buffer_bytes = %lld is negative", (long long)o->max_buffer_bytes);
    if (o->max_buffer_bytes && o->schedule != RELAY_SCHED_AUTO && o->schedule != RELAY_SCHED_ROUNDS)
        return rl_fail(RELAY_ERR_ARG, "plan options: a memory cap (max_buffer_bytes) replays in rounds; schedule %d is not "
                                      "auto (0) or rounds (2)", (int)o->schedule);
    if (o->node_of_rank) {
        for (int r = 0; r < nranks; r++)
            if (o->node_of_rank[r] < 0 || o->node_of_rank[r] >= nranks)
                return rl_fail(RELAY_ERR_ARG, "plan options: node_of_rank[%d] = %d is not a node index in [0, %d)", r,
                               o->node_of_rank[r], nranks);
        if (!(o->inter_node_weight >= 1.0 && o->inter_node_weight <= 1000.0))
            return rl_fail(RELAY_ERR_ARG, "plan options: inter_node_weight = %g must be in [1, 1000]", o->inter_node_weight);
    }
    return RELAY_OK;
}
