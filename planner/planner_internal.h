/* planner_internal.h — what the planner's files share. */
#ifndef RELAY_PLANNER_INTERNAL_H
#define RELAY_PLANNER_INTERNAL_H

#include "plan_internal.h"

/* Checks plan options against a plan of nranks ranks. */
relay_status rl_check_options(const relay_plan_options *o, int nranks);

/* The plan keeps its own copies of the layouts, over its rank count
 * (pairs[k].op, .dst and .src; .dst_relabeled comes with sigma). */
relay_status rl_plan_copy_layouts(relay_plan *p, const relay_layout *const *dst, const relay_layout *const *src,
                                  const relay_op *ops);

/* Resolves the requested schedule (auto by the rule in schedule.c) and, for
 * rounds, gives every message its step.  Needs the sections and stats. */
relay_status rl_schedule_plan(relay_plan *p, relay_schedule requested);

#endif
