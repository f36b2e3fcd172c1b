/* hsumma.c — `relay-plan hsumma`: a SUMMA / HSUMMA product plan.
 *
 *   relay-plan hsumma --grid SxT --shape MxNxK [--groups IxJ|auto]
 *       [--block b] [--outer-block B] [--dist checkerboard|cyclic:NB]
 *       [--type s|d|c|z] [--alpha A --beta B] [--bcast vdg|binomial] -o FILE
 *
 * Reference: docs/cli.md; the algorithm: include/relay/hsumma.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "plan.h"

const char hsumma_help[] =
    "    relay-plan hsumma --grid SxT --shape MxNxK [--groups IxJ|auto] [--block b]\n"
    "                      [--outer-block B] [--dist checkerboard|cyclic:NB] [--type s|d|c|z]\n"
    "                      [--alpha A --beta B] [--bcast vdg|binomial] -o FILE\n"
    "\n"
    "    Plans C := alpha A B + beta C (A M x K, B K x N) on an S x T grid of S*T ranks with\n"
    "    hierarchical SUMMA (HSUMMA, Quintin, Hasanov and Lastovetsky): the grid is arranged\n"
    "    in I x J groups; each outer step broadcasts B columns of A and rows of B between\n"
    "    groups, each inner step b of them inside the groups.  1x1 and SxT groups are plain\n"
    "    SUMMA.  Replay with relay-run (--verify checks C against a serial product), inspect\n"
    "    with relay-dump.\n"
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
    int have_grid, have_shape;
    int type, bcast; /* indices of cli_type_words and cli_bcast_words: the enum values */
} hsumma_request;

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

/* ---- the options that fill the parameters --------------------------------- */

static int parse_grid(void *request, const char *text, cli_error *e)
{
    hsumma_request *r = request;
    int64_t v[2];
    if (parse_dims(text, "--grid", 2, 1 << 24, v, e)) return e->status;
    r->p.grid_rows = (int)v[0];
    r->p.grid_cols = (int)v[1];
    r->have_grid = 1;
    return CLI_OK;
}

static int parse_shape(void *request, const char *text, cli_error *e)
{
    hsumma_request *r = request;
    int64_t v[3];
    if (parse_dims(text, "--shape", 3, (int64_t)1 << 40, v, e)) return e->status;
    r->p.m = v[0];
    r->p.n = v[1];
    r->p.k = v[2];
    r->have_shape = 1;
    return CLI_OK;
}

static int parse_groups(void *request, const char *text, cli_error *e)
{
    hsumma_request *r = request;
    int64_t v[2] = {0, 0}; /* auto */
    if (strcmp(text, "auto") != 0 && parse_dims(text, "--groups", 2, 1 << 24, v, e)) return e->status;
    r->p.group_rows = (int)v[0];
    r->p.group_cols = (int)v[1];
    return CLI_OK;
}

static int parse_dist(void *request, const char *text, cli_error *e)
{
    relay_hsumma_params *p = &((hsumma_request *)request)->p;
    if (strcmp(text, "checkerboard") == 0) {
        p->dist = RELAY_HSUMMA_CHECKERBOARD;
        return CLI_OK;
    }
    if (strncmp(text, "cyclic:", 7) != 0)
        return cli_fail(e, CLI_USAGE, "--dist: '%s' is neither checkerboard nor cyclic:NB", text);
    p->dist = RELAY_HSUMMA_BLOCK_CYCLIC;
    return cli_parse_int(text + 7, "--dist cyclic block", 1, (int64_t)1 << 40, &p->dist_block, e);
}

static int parse_alpha(void *request, const char *text, cli_error *e)
{
    return parse_seconds(text, "--alpha", &((hsumma_request *)request)->p.network.alpha, e);
}

static int parse_beta(void *request, const char *text, cli_error *e)
{
    return parse_seconds(text, "--beta", &((hsumma_request *)request)->p.network.beta, e);
}

#define AT(field) offsetof(hsumma_request, field)
static const cli_option hsumma_options[] = {
    CLI_CUSTOM("--grid", parse_grid),
    CLI_CUSTOM("--shape", parse_shape),
    CLI_CUSTOM("--groups", parse_groups),
    CLI_INT("--block", AT(p.inner_block), 1, (int64_t)1 << 40),
    CLI_INT("--outer-block", AT(p.outer_block), 1, (int64_t)1 << 40),
    CLI_CUSTOM("--dist", parse_dist),
    CLI_KEYWORD("--type", AT(type), cli_type_words),
    CLI_CUSTOM("--alpha", parse_alpha),
    CLI_CUSTOM("--beta", parse_beta),
    CLI_KEYWORD("--bcast", AT(bcast), cli_bcast_words),
    CLI_TEXT("-o", AT(output)),
    CLI_TEXT("--output", AT(output)),
    CLI_END,
};
#undef AT

/* The options that must be there, and the defaults that follow others. */
static int complete_request(hsumma_request *r, cli_error *e)
{
    if (!r->have_grid) return cli_fail(e, CLI_USAGE, "missing --grid SxT (see --help)");
    if (!r->have_shape) return cli_fail(e, CLI_USAGE, "missing --shape MxNxK (see --help)");
    if (!r->output) return cli_fail(e, CLI_USAGE, "missing -o FILE (see --help)");
    if ((r->p.network.alpha > 0) != (r->p.network.beta > 0)) return cli_fail(e, CLI_USAGE, "give --alpha and --beta together");
    if (!r->p.outer_block) r->p.outer_block = r->p.inner_block;
    r->p.type = (relay_type)r->type;
    r->p.network.bcast = (relay_bcast_model)r->bcast;
    return CLI_OK;
}

int plan_hsumma(int argc, char **argv, int *help, cli_error *e)
{
    hsumma_request r = {.type = RELAY_DOUBLE, .bcast = RELAY_BCAST_VAN_DE_GEIJN};
    relay_hsumma_params_init(&r.p, 0, 0, 0, 1, 1, RELAY_DOUBLE);
    r.p.outer_block = 0; /* default: b */
    if (cli_parse_options(argc, argv, 2, hsumma_options, &r, help, e)) return e->status;
    if (*help) return CLI_OK;
    if (complete_request(&r, e) || check_output_path(r.output, e)) return e->status;
    relay_plan *plan = NULL;
    progress planning;
    start_planning(&planning);
    relay_status st = relay_plan_hsumma(&plan, &r.p);
    return finish_plan(&planning, st, plan, r.output, e);
}
