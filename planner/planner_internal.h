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

/* ReSHAPE's superblock schedule (reshape.c) for block-cyclic resizing from a
 * pr x pc to a qr x qc grid. */
typedef struct {
    int pr, pc, qr, qc;
    int64_t R, C;            /* superblock: lcm(pr, qr) x lcm(pc, qc) blocks */
    int64_t steps;           /* (R*C) / (pr*pc) */
    int32_t *transfer;       /* C_Transfer: steps x pr*pc, the destination of source p in step s */
    int64_t copies, sends;   /* cells of a superblock that stay on their rank / move */
    int contention_free;     /* no rank receives twice in a step (C_Recv is defined) */
} rl_reshape;
relay_status rl_reshape_table(rl_reshape **out, int pr, int pc, int qr, int qc);
int rl_reshape_contention_free(const rl_reshape *rs);
void rl_reshape_free(rl_reshape *rs);

/* Gives a rounds plan ReSHAPE's steps when its single pair is a block-cyclic
 * resize in the paper's setting and the table is contention-free (*applied
 * then 1); needs the step lists allocated. */
relay_status rl_reshape_schedule(relay_plan *p, int *applied);

/* Resolves the requested schedule (auto by the rule in schedule.c) and, for
 * rounds, gives every message its step.  Needs the sections and stats. */
relay_status rl_schedule_plan(relay_plan *p, relay_schedule requested);

#endif
