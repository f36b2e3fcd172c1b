/* plan.h — what the files of relay-plan share: the subcommand of each plan
 * kind (transform.c, bmmc.c, hsumma.c, index.c) and of plan algebra (algebra.c),
 * called by main.c; --schedule predicted (predicted.c); layouts from the
 * command line (layout_spec.c, N-D ones in nd_spec.c); writing the plan file and its summary line
 * (output.c); and the progress line (progress.c). */
#ifndef RELAY_PLAN_TOOL_H
#define RELAY_PLAN_TOOL_H

#include <pthread.h>

#include "cli.h"
#include "relay/relay.h"

/* ---- the plan kinds ------------------------------------------------------ */

/* Each kind's part of the help: transform's options, the BMMC PLANS,
 * HSUMMA PLANS, INDEX PLANS and PLANS FROM PLANS sections. */
extern const char transform_help[], bmmc_help[], hsumma_help[], index_help[], algebra_help[];

/* `relay-plan KIND ...` (argv[1] is KIND): reads the options from argv[2],
 * then plans and writes the plan file, unless --help was given (*help set:
 * nothing else done). */
int plan_transform(int argc, char **argv, int *help, cli_error *e);
int plan_bmmc(int argc, char **argv, int *help, cli_error *e);
int plan_hsumma(int argc, char **argv, int *help, cli_error *e);
int plan_index(int argc, char **argv, int *help, cli_error *e);
/* `relay-plan compose|invert|concat` (algebra.c): plans from plan files. */
int plan_compose(int argc, char **argv, int *help, cli_error *e);
int plan_invert(int argc, char **argv, int *help, cli_error *e);
int plan_concat(int argc, char **argv, int *help, cli_error *e);

/* ---- layout specs (layout_spec.c) ---------------------------------------- */

/*   bc:MxN:MBxNB:PRxPC[:grid=row|col][:elem=col|row][:src=R,C]
 *       a ScaLAPACK block-cyclic layout (relay_layout_block_cyclic, lld 0);
 *       defaults grid=row, elem=col, src=0,0.
 *   json:PATH
 *       a custom grid layout read from a JSON file of exactly this shape
 *       (offsets, lds and order optional; order "col" or "row"):
 *       {"nranks":4, "m":..., "n":..., "row_splits":[...], "col_splits":[...],
 *        "owners":[...], "order":"col", "offsets":[...], "lds":[...]}
 * The grammar is documented for users in docs/cli.md.
 *
 * Builds the layout a spec describes.  On failure *out is untouched and e
 * says why: CLI_USAGE for a malformed spec, CLI_FAILED for a layout file
 * that cannot be read or is not a valid layout. */
int layout_spec_parse(const char *spec, relay_layout **out, cli_error *e);

/* What the spec parsers share: cuts text in place at every sep (returns
 * the number of fields, or -1 when there are more than max), and puts
 * "bad layout spec 'SPEC'" in front of an error. */
int spec_split_fields(char *text, char sep, char **fields, int max);
void spec_prefix(cli_error *e, const char *spec);

/* ---- N-D layout specs (nd_spec.c) ---------------------------------------- */

/*   nd:SHAPE:mesh=MESH[@RANKS][:place=P,P,..][:order=C|F][:pad=AxBx..]
 *       an N-D layout (relay_nd_layout_create): SHAPE 1 to 8 extents joined
 *       by x; MESH 1 to 4 sizes joined by x, over RANKS in mesh order
 *       (ranges and single ranks joined by commas: 4-7, 0,2,4,6, 0-3,8-11;
 *       default 0 .. size-1); one placement per mesh dimension: S<k> (shard
 *       array dimension k evenly), S<k>/b<B> (block-cyclic, block B),
 *       S<k>/<s0>|<s1>|..|<sp> (split points, p+1 of them from 0 to the
 *       extent), R (replicate), P (partial); default S0,S1,..; order C
 *       (default) or F; pad: padded local extents, one per dimension (0:
 *       tight).  The keys after SHAPE come in any order, each once.
 * The grammar is documented for users in docs/cli.md. */
int nd_spec_is(const char *spec);
/* Builds the layout; mesh ranks must lie below nranks (the plan's ranks).
 * CLI_USAGE for a malformed spec or a layout relay refuses. */
int nd_spec_parse(const char *spec, int64_t nranks, relay_nd_layout **out, cli_error *e);

/* ---- --schedule predicted (predicted.c; predicted_none.c without SimGrid) - */

/* The machine file --machine names (cli_machine_file); without SimGrid,
 * CLI_FAILED: relay was built without it.  Called before planning. */
int predicted_machine(const char *machine, char *path, size_t size, cli_error *e);

/* relay_predict_tuning of plan on the machine file path: every schedule
 * the plan can be replayed with, predicted, as a tuning (relay/plan.h). */
relay_status predicted_tuning(const relay_plan *plan, const char *path, relay_tuning *t);

/* ---- the progress line (progress.c) -------------------------------------- */

/* A progress line on stderr for a step that takes longer than a second
 * ("relay-plan: planning... 3 s", then "relay-plan: planning... done
 * (3.4 s)"), shown only when stderr is a terminal.  A watcher thread wakes
 * once a second until the step stops. */
typedef struct {
    const char *what;
    double start;            /* monotonic seconds */
    int watching;            /* the watcher thread runs */
    int shown;               /* the line is on the terminal */
    int done;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
} progress;

void progress_start(progress *p, const char *what);

/* Ends the step; returns its duration in seconds. */
double progress_stop(progress *p);

/* ---- the plan file (output.c) -------------------------------------------- */

/* Fails before planning (which may take minutes) when path cannot be created. */
int check_output_path(const char *path, cli_error *e);

/* Starts the progress line of the planning step. */
void start_planning(progress *planning);

/* Ends the planning step (st: the planner's status): a failed plan
 * (RELAY_ERR_ARG: the request does not hold together, exit 2), else the
 * plan file, written atomically, and the summary line "FILE: P ranks, ...
 * planned in S s, file B bytes" on stdout.  Frees plan. */
int finish_plan(progress *planning, relay_status st, relay_plan *plan, const char *path, cli_error *e);

#endif
