/* plan_output.h — what every relay-plan subcommand does with its plan:
 * check the output path before planning, write the file atomically, and
 * print the one summary line. */
#ifndef RELAY_PLAN_OUTPUT_H
#define RELAY_PLAN_OUTPUT_H

#include "cli_util.h"
#include "relay/plan.h"

/* Fails before planning (which may take minutes) when path cannot be created. */
int check_output_path(const char *path, cli_error *e);
int save_plan(const relay_plan *plan, const char *path, cli_error *e);
/* "FILE: P ranks, ... planned in S s, file B bytes": stdout. */
void print_summary(const relay_plan *plan, const char *path, double plan_s);

#endif
