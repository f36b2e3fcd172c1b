/* dump_steps.h — relay-dump's view of a rounds schedule: what each rank does
 * in each communication step, and whether the schedule is contention-free. */
#ifndef RELAY_DUMP_STEPS_H
#define RELAY_DUMP_STEPS_H

#include <stdio.h>

#include "json_out.h"
#include "plan_internal.h"

/* One transfer of a step: a message from -> to, or a local copy (from == to). */
typedef struct {
    int64_t step;
    int32_t from, to;
} step_transfer;

typedef struct {
    step_transfer *t;        /* by step, then sender */
    int64_t n;
    int contention_free;     /* every rank sends <= 1 and receives <= 1 per step,
                                and sender and receiver agree on each step */
} step_view;

/* Builds the view from every section (all must be loaded); 0 on success,
 * -1 when out of memory. */
int step_view_build(step_view *v, const relay_plan *p);
void step_view_free(step_view *v);

/* The text block of the summary (up to 16 steps, 12 transfers a step). */
void step_view_print(const step_view *v, const relay_plan *p, FILE *out);

/* "contention_free", "superblock" (block-cyclic pairs) and "steps":
 * [{"step", "copies": [ranks], "sends": [[from, to], ...]}]. */
void step_view_json(json_writer *w, const step_view *v, const relay_plan *p);

#endif
