/* planner_internal.h — what the planner's files share. */
#ifndef RELAY_PLANNER_INTERNAL_H
#define RELAY_PLANNER_INTERNAL_H

#include "volumes.h"

/* Checks plan options against a plan of nranks ranks. */
relay_status rl_check_options(const relay_plan_options *o, int nranks);

/* The plan keeps its own copies of the layouts, over its rank count
 * (pairs[k].op, .dst and .src; .dst_relabeled comes with sigma). */
relay_status rl_plan_copy_layouts(relay_plan *p, const relay_layout *const *dst, const relay_layout *const *src,
                                  const relay_op *ops);

/* relay_plan_transform_batch with sigma given instead of chosen: the plan
 * delivers A's blocks of rank r to sigma[r] (nranks entries, a
 * permutation); opts->relabel is the mode the plan records.  For plan
 * algebra (algebra.c), whose results follow the relabelings of the plans
 * they come from. */
relay_status rl_plan_transform_sigma(relay_plan **out, int nranks, int count, const relay_layout *const *dst,
                                     const relay_layout *const *src, const relay_op *ops, relay_type type,
                                     const relay_plan_options *opts, const int32_t *sigma);

/* Layouts as plan algebra needs them (layout_restate.c).  A layout without
 * rank maps storing l's elements where l does: a copy of l when it has
 * none, else an explicit grid of its blocks with their owners mapped
 * (RELAY_ERR_UNSUPPORTED past 2^22 blocks). */
relay_status rl_layout_restate(relay_layout **out, const relay_layout *l);
/* Whether a and b store every element at the same rank and index (1) or
 * not (0), by their block-cyclic formulas or block by block; -1 where
 * neither tells (over 2^22 blocks that are not the same formulas). */
int rl_layout_same_storage(const relay_layout *a, const relay_layout *b);

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

/* The transfers of one replay as a graph: for each sender y (CSR by
 * sender), the ranks it sends to in increasing order, itself included when
 * it copies locally, and each transfer's step in a rounds schedule (-1
 * before one is given).  Derived from the volumes and sigma, so a rank
 * that builds only its own section schedules every rank's transfers. */
typedef struct {
    int n;
    int64_t *start;          /* n + 1 */
    int32_t *to;
    int64_t *step;
} rl_transfers;

/* The graph of the volumes v (rows by logical receiver) under the
 * relabeling sigma, every step -1 (transfers.c). */
relay_status rl_transfers_build(rl_transfers *t, const rl_volumes *v, const int32_t *sigma);
void rl_transfers_free(rl_transfers *t);

/* The transfer from y to x, or -1. */
int64_t rl_transfer_find(const rl_transfers *t, int y, int x);

/* Gives the transfers ReSHAPE's steps when p's single pair is a block-cyclic
 * resize in the paper's setting and the table is contention-free and covers
 * every transfer (*applied then 1, p->rounds set). */
relay_status rl_reshape_schedule(relay_plan *p, rl_transfers *t, int *applied);

/* Resolves the requested schedule (auto by the rule in schedule.c) and, for
 * rounds, gives every transfer its step, from the volumes between ranks
 * (volumes.h, logical receivers) and p's sigma and stats.  Sections are
 * not needed: rl_schedule_sections then copies the steps into those the
 * plan holds.  *t is filled for rounds (else empty); free it with
 * rl_transfers_free. */
relay_status rl_schedule_plan(relay_plan *p, relay_schedule requested, const rl_volumes *v, rl_transfers *t);
relay_status rl_schedule_sections(relay_plan *p, const rl_transfers *t);

#endif
