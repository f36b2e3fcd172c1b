/* relabel.h — choosing sigma, the process relabeling of a plan. */
#ifndef RELAY_RELABEL_H
#define RELAY_RELABEL_H

#include "volumes.h"

typedef struct {
    int64_t remote_identity;   /* bytes crossing ranks with sigma = identity */
    int64_t remote;            /* bytes crossing ranks with the chosen sigma */
    int64_t gain;              /* the solver's objective at sigma */
} rl_relabel_result;

/* Computes sigma (v->n entries) from the volumes of a plan's pairs with the
 * solver o->relabel names (greedy or optimal) and o's cost. */
relay_status rl_relabel(const rl_volumes *v, const relay_plan_options *o, int32_t *sigma, rl_relabel_result *res);

#endif
