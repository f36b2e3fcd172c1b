/* planner_internal.h — what the planner's files share. */
#ifndef RELAY_PLANNER_INTERNAL_H
#define RELAY_PLANNER_INTERNAL_H

#include "plan_internal.h"

/* Checks plan options against a plan of nranks ranks. */
relay_status rl_check_options(const relay_plan_options *o, int nranks);

#endif
