/* hsumma_cli.c — `relay-plan hsumma`: a SUMMA / HSUMMA product plan.
 *
 *   relay-plan hsumma --grid SxT --shape MxNxK [--groups IxJ|auto]
 *       [--block b] [--outer-block B] [--dist checkerboard|cyclic:NB]
 *       [--type s|d|c|z] [--alpha A --beta B] [--bcast vdg|binomial] -o FILE
 *
 * Reference: docs/cli.md; the algorithm: include/relay/hsumma.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsumma_cli.h"
#include "plan_output.h"
#include "progress.h"
#include "relay/relay.h"

const char hsumma_help_text[] =
    "    relay-plan hsumma --grid SxT --shape MxNxK [--groups IxJ|auto] [--block b]\n"
    "                      [--outer-block B] [--dist checkerboard|cyclic:NB] [--type s|d|c|z]\n"
    "                      [--alpha A --beta B] [--bcast vdg|binomial] -o FILE\n"
    "\n"
    "    Plans C := alpha A B + beta C (A M x K, B K x N) on an S x T grid of S*T ranks with\n"
    "    hierarchical SUMMA (paper 002): the grid is arranged in I x J groups; each outer step\n"
    "    broadcasts B columns of A and rows of B between groups, each inner step b of them\n"
    "    inside the groups.  1x1 and SxT groups are plain SUMMA.  Replay with relay-run\n"
    "    (--verify checks C against a serial product), inspect with relay-dump.\n"
    "\n"
    "    --grid SxT       the process grid; rank r is at row r / T, column r % T\n"
    "    --shape MxNxK    C is M x N, the inner dimension K\n"
    "    --groups IxJ     I divides S, J divides T; auto (default) chooses them by the cost\n"
    "                     model of section IV: now with --alpha and --beta, otherwise when\n"
    "                     relay-run binds the plan, from a ping-pong measurement\n"
    "    --block b        the inner block (default 64)\n"
    "    --outer-block B  the outer block, at least b (default b)\n"
    "    --dist D         checkerboard (default: one contiguous block per rank) or cyclic:NB\n"
    "                     (ScaLAPACK block-cyclic with NB x NB blocks)\n"
    "    --type s|d|c|z   element type (default d)\n"
    "    --alpha A        network latency in seconds, for the model\n"
    "    --beta B         seconds per byte, for the model\n"
    "    --bcast MODEL    the model's broadcast: vdg (Van de Geijn, default) or binomial\n"
    "    -o, --output FILE  the plan file to write\n";

typedef struct {
    relay_hsumma_params p;
    const char *output;
    int help, have_grid, have_shape;
} hsumma_request;

enum { OPT_GRID, OPT_SHAPE, OPT_GROUPS, OPT_BLOCK, OPT_OUTER, OPT_DIST, OPT_TYPE, OPT_ALPHA, OPT_BETA, OPT_BCAST, OPT_O,
       OPT_OUTPUT, OPT_HELP, OPT_H, OPT_COUNT };
static const cli_option hsumma_options[OPT_COUNT] = {
    {"--grid", 1},  {"--shape", 1}, {"--groups", 1}, {"--block", 1}, {"--outer-block", 1}, {"--dist", 1}, {"--type", 1},
    {"--alpha", 1}, {"--beta", 1},  {"--bcast", 1},  {"-o", 1},      {"--output", 1},      {"--help", 0}, {"-h", 0},
};
static const char *const type_names[] = {"s", "d", "c", "z"};
static const char *const bcast_names[] = {"vdg", "binomial"};

/* "AxB" or "AxBxC": count positive integers (at most max each). */
static int parse_dims(const char *text, const char *what, int count, int64_t max, int64_t *out, cli_error *e)
{
    char buf[128];
    if (strlen(text) >= sizeof buf) return cli_fail(e, CLI_USAGE, "%s: '%s' is too long", what, text);
    strcpy(buf, text);
    char *rest = buf;
    for (int i = 0; i < count; i++) {
        char *x = i + 1 < count ? strchr(rest, 'x') : NULL;
        if (i + 1 < count && !x) return cli_fail(e, CLI_USAGE, "%s: '%s' is not %s", what, text, count == 2 ? "AxB" : "AxBxC");
        if (x) *x = '\0';
        if (cli_parse_int(rest, what, count == 3 ? 0 : 1, max, &out[i], e)) return e->status;
        rest = x ? x + 1 : rest;
    }
    return CLI_OK;
}

static int parse_seconds(const char *text, const char *what, double *out, cli_error *e)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !(v > 0 && v < 1e3)) return cli_fail(e, CLI_USAGE, "%s: '%s' is not a positive time", what, text);
    *out = v;
    return CLI_OK;
}

static int parse_dist(const char *text, relay_hsumma_params *p, cli_error *e)
{
    if (strcmp(text, "checkerboard") == 0) {
        p->dist = RELAY_HSUMMA_CHECKERBOARD;
        return CLI_OK;
    }
    if (strncmp(text, "cyclic:", 7) != 0)
        return cli_fail(e, CLI_USAGE, "--dist: '%s' is neither checkerboard nor cyclic:NB", text);
    p->dist = RELAY_HSUMMA_BLOCK_CYCLIC;
    return cli_parse_int(text + 7, "--dist cyclic block", 1, (int64_t)1 << 40, &p->dist_block, e);
}

static int apply_option(hsumma_request *r, int id, const char *value, cli_error *e)
{
    int64_t v[3];
    int choice = 0, status = CLI_OK;
    relay_hsumma_params *p = &r->p;
    switch (id) {
    case OPT_GRID:
        if (!(status = parse_dims(value, "--grid", 2, 1 << 24, v, e))) {
            p->grid_rows = (int)v[0];
            p->grid_cols = (int)v[1];
            r->have_grid = 1;
        }
        return status;
    case OPT_SHAPE:
        if (!(status = parse_dims(value, "--shape", 3, (int64_t)1 << 40, v, e))) {
            p->m = v[0];
            p->n = v[1];
            p->k = v[2];
            r->have_shape = 1;
        }
        return status;
    case OPT_GROUPS:
        if (strcmp(value, "auto") == 0) return p->group_rows = p->group_cols = 0, CLI_OK;
        if (!(status = parse_dims(value, "--groups", 2, 1 << 24, v, e))) {
            p->group_rows = (int)v[0];
            p->group_cols = (int)v[1];
        }
        return status;
    case OPT_BLOCK: return cli_parse_int(value, "--block", 1, (int64_t)1 << 40, &p->inner_block, e);
    case OPT_OUTER: return cli_parse_int(value, "--outer-block", 1, (int64_t)1 << 40, &p->outer_block, e);
    case OPT_DIST: return parse_dist(value, p, e);
    case OPT_TYPE:
        if (!(status = cli_parse_choice(value, "--type", type_names, 4, &choice, e))) p->type = (relay_type)choice;
        return status;
    case OPT_ALPHA: return parse_seconds(value, "--alpha", &p->network.alpha, e);
    case OPT_BETA: return parse_seconds(value, "--beta", &p->network.beta, e);
    case OPT_BCAST:
        if (!(status = cli_parse_choice(value, "--bcast", bcast_names, 2, &choice, e))) p->network.bcast = (relay_bcast_model)choice;
        return status;
    case OPT_O:
    case OPT_OUTPUT: r->output = value; return CLI_OK;
    default: r->help = 1; return CLI_OK;
    }
}

static int parse_hsumma_args(int argc, char **argv, hsumma_request *r, cli_error *e)
{
    *r = (hsumma_request){0};
    relay_hsumma_params_init(&r->p, 0, 0, 0, 1, 1, RELAY_DOUBLE);
    r->p.outer_block = 0; /* default: b */
    cli_scanner s = cli_scan(argc, argv, 2);
    const char *value;
    for (int i; (i = cli_next(&s, hsumma_options, OPT_COUNT, &value, e)) != CLI_END;) {
        if (i == CLI_BAD) return e->status;
        if (i == CLI_POSITIONAL) return cli_fail(e, CLI_USAGE, "unexpected argument '%s' (see --help)", value);
        if (apply_option(r, i, value, e)) return e->status;
    }
    if (r->help) return CLI_OK;
    if (!r->have_grid) return cli_fail(e, CLI_USAGE, "missing --grid SxT (see --help)");
    if (!r->have_shape) return cli_fail(e, CLI_USAGE, "missing --shape MxNxK (see --help)");
    if (!r->output) return cli_fail(e, CLI_USAGE, "missing -o FILE (see --help)");
    if ((r->p.network.alpha > 0) != (r->p.network.beta > 0)) return cli_fail(e, CLI_USAGE, "give --alpha and --beta together");
    if (!r->p.outer_block) r->p.outer_block = r->p.inner_block;
    return CLI_OK;
}

static int run_hsumma(const void *request, cli_error *e)
{
    const hsumma_request *r = request;
    relay_plan *plan = NULL;
    int status = check_output_path(r->output, e);
    progress pr;
    progress_start(&pr, "relay-plan: planning");
    relay_status st = status ? RELAY_OK : relay_plan_hsumma(&plan, &r->p);
    double seconds = progress_stop(&pr);
    return finish_plan(status, st, plan, r->output, seconds, e);
}

int hsumma_main(int argc, char **argv, void (*print_help)(void))
{
    hsumma_request r;
    cli_error e;
    int status = parse_hsumma_args(argc, argv, &r, &e);
    return run_subcommand(status, r.help, print_help, run_hsumma, &r, &e);
}
