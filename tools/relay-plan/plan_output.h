/* plan_output.h — what every relay-plan subcommand does with its plan:
 * check the output path before planning, write the file atomically, print
 * the one summary line, and report errors. */
#ifndef RELAY_PLAN_OUTPUT_H
#define RELAY_PLAN_OUTPUT_H

#include "cli_util.h"
#include "relay/plan.h"

/* Fails before planning (which may take minutes) when path cannot be created. */
int check_output_path(const char *path, cli_error *e);
int save_plan(const relay_plan *plan, const char *path, cli_error *e);
/* "FILE: P ranks, ... planned in S s, file B bytes": stdout. */
void print_summary(const relay_plan *plan, const char *path, double plan_s);

/* After planning (status: the steps before it; st: the planner's): a
 * failed plan (RELAY_ERR_ARG: the request does not hold together, exit 2),
 * else the file and the summary line.  Frees plan. */
int finish_plan(int status, relay_status st, relay_plan *plan, const char *path, double plan_s, cli_error *e);

/* Every subcommand's last step once its options are parsed (status): print
 * the help when asked, else run the request, and report any error. */
int run_subcommand(int status, int help, void (*print_help)(void), int (*run)(const void *request, cli_error *e),
                   const void *request, cli_error *e);

#endif
