/* algebra.c — `relay-plan compose|invert|concat`: plans made from plan
 * files by relay_plan_compose, relay_plan_invert and relay_plan_concat.
 *
 *   relay-plan compose AB.plan BC.plan -o AC.plan
 *   relay-plan invert AB.plan -o BA.plan
 *   relay-plan concat X.plan Y.plan -o XY.plan
 *
 * Each reads its plans' headers (and rank 0's section, which it does not
 * need), plans the result and writes it like any plan.  Reference:
 * docs/cli.md; the semantics: include/relay/plan.h. */
#include <stddef.h>

#include "options.h"
#include "plan.h"

const char algebra_help[] =
    "    relay-plan compose FIRST SECOND -o FILE\n"
    "    relay-plan invert PLAN -o FILE\n"
    "    relay-plan concat X Y -o FILE\n"
    "\n"
    "    compose: FIRST moves B into A1 and SECOND moves A1 (as FIRST delivers it) into A2;\n"
    "    FILE moves B into A2 directly, each element once (ops composed: T after T is N;\n"
    "    relabeled as SECOND relabels; BMMC plans by Lemma 1).  Replay it with alpha =\n"
    "    alpha2 * op2(alpha1) for what the two replays give with beta1 = 0.\n"
    "    invert: FILE moves the data back, from A as PLAN delivers it to B.\n"
    "    concat: X's and Y's pairs as one batch on the same ranks: one message per peer.\n"
    "    The result takes the schedule both plans have, else auto.  HSUMMA plans have no\n"
    "    algebra.\n"
    "\n"
    "    -o, --output FILE  the plan file to write\n";

typedef struct {
    const char *first, *second, *output;
} algebra_request;

#define AT(field) offsetof(algebra_request, field)
static const cli_option one_plan[] = {
    CLI_FILE("plan file", AT(first)),
    CLI_TEXT("-o", AT(output)),
    CLI_TEXT("--output", AT(output)),
    CLI_END,
};
static const cli_option two_plans[] = {
    CLI_FILE("first plan file", AT(first)),
    CLI_FILE("second plan file", AT(second)),
    CLI_TEXT("-o", AT(output)),
    CLI_TEXT("--output", AT(output)),
    CLI_END,
};
#undef AT

typedef relay_status (*plan_operation)(relay_plan **out, const relay_plan *x, const relay_plan *y);

static relay_status invert_first(relay_plan **out, const relay_plan *x, const relay_plan *unused)
{
    (void)unused;
    return relay_plan_invert(out, x);
}

/* The plan files' headers, read whole: nothing of a section is needed. */
static int load_plans(const char *const *paths, int n, relay_plan **plans, cli_error *e)
{
    for (int i = 0; i < n; i++) {
        relay_status st = relay_plan_load(&plans[i], paths[i], 0);
        if (st) return cli_fail_relay(e, st == RELAY_ERR_ARG ? CLI_USAGE : CLI_FAILED, st, paths[i]);
    }
    return CLI_OK;
}

/* Reads the command line of an operation on nplans plans, applies it and
 * writes the result. */
static int plan_from_plans(int argc, char **argv, int *help, cli_error *e, int nplans, plan_operation operate)
{
    algebra_request r = {0};
    if (cli_parse_options(argc, argv, 2, nplans == 1 ? one_plan : two_plans, &r, help, e)) return e->status;
    if (*help) return CLI_OK;
    if (!r.output) return cli_fail(e, CLI_USAGE, "missing -o FILE (see --help)");
    const char *paths[] = {r.first, r.second};
    relay_plan *plans[2] = {NULL, NULL}, *result = NULL;
    int status = check_output_path(r.output, e);
    if (!status) status = load_plans(paths, nplans, plans, e);
    if (!status) {
        progress planning;
        start_planning(&planning);
        relay_status st = operate(&result, plans[0], plans[nplans - 1]);
        status = finish_plan(&planning, st, result, r.output, e);
    }
    relay_plan_free(plans[0]);
    relay_plan_free(plans[1]);
    return status;
}

int plan_compose(int argc, char **argv, int *help, cli_error *e)
{
    return plan_from_plans(argc, argv, help, e, 2, relay_plan_compose);
}

int plan_invert(int argc, char **argv, int *help, cli_error *e) { return plan_from_plans(argc, argv, help, e, 1, invert_first); }

int plan_concat(int argc, char **argv, int *help, cli_error *e)
{
    return plan_from_plans(argc, argv, help, e, 2, relay_plan_concat);
}
