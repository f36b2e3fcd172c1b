/* relay_plan_cli.c — relay-plan: builds a plan offline (no MPI) and writes
 * it to a plan file that relay-dump inspects and relay-run replays.
 *
 *   relay-plan transform --ranks P --from SPEC --to SPEC [--op N|T|C]
 *       [--type s|d|c|z] [--relabel none|greedy|optimal]
 *       [--schedule auto|p2p|rounds|alltoallv] -o FILE
 *
 *   relay-plan bmmc ...     (bmmc_cli.c)
 *   relay-plan hsumma ...   (hsumma_cli.c)
 *
 * Reference: docs/cli.md. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bmmc_cli.h"
#include "hsumma_cli.h"
#include "cli_util.h"
#include "layout_spec.h"
#include "plan_output.h"
#include "progress.h"
#include "relay/relay.h"

static const char program[] = "relay-plan";

static const char help_text[] =
    "NAME\n"
    "    relay-plan - build a relay redistribution plan offline and write it to a file\n"
    "\n"
    "SYNOPSIS\n"
    "    relay-plan transform --ranks P --from SPEC --to SPEC [--op N|T|C] [--type s|d|c|z]\n"
    "                         [--relabel none|greedy|optimal] [--schedule auto|p2p|rounds|alltoallv]\n"
    "                         [--ranks-per-node K | --node-map FILE] [--node-weight W] -o FILE\n"
    "    relay-plan bmmc --ranks P (--perm NAMES [--bits N] | --matrix COLS) [...] -o FILE\n"
    "    relay-plan hsumma --grid SxT --shape MxNxK [--groups IxJ|auto] [...] -o FILE\n"
    "    relay-plan --help\n"
    "\n"
    "DESCRIPTION\n"
    "    Plans A := alpha * op(B) + beta * A on P ranks without MPI and writes the plan to FILE\n"
    "    (atomically: a failed run leaves no file).  B's layout is --from, A's is --to; B is\n"
    "    n x m when op transposes.  Replay the plan with `mpiexec -n P relay-run FILE`, inspect\n"
    "    it with `relay-dump FILE`.  Prints one summary line on stdout.  When stderr is a\n"
    "    terminal, planning or writing that takes longer than a second shows a progress line.\n"
    "\n"
    "    Layout specs:\n"
    "      bc:MxN:MBxNB:PRxPC[:grid=row|col][:elem=col|row][:src=R,C]\n"
    "          ScaLAPACK block-cyclic: M x N matrix, MB x NB blocks, PR x PC process grid\n"
    "          numbered row-major (grid=row, default) or column-major, element order\n"
    "          column-major (elem=col, default) or row-major, block (0,0) on process (R,C)\n"
    "          (default 0,0), smallest legal local leading dimension.\n"
    "      json:PATH\n"
    "          a custom grid layout read from the JSON file PATH:\n"
    "          {\"nranks\":4, \"m\":M, \"n\":N, \"row_splits\":[0,..,M], \"col_splits\":[0,..,N],\n"
    "           \"owners\":[one rank per block, row-major over blocks], \"order\":\"col\"|\"row\",\n"
    "           \"offsets\":[..], \"lds\":[..]}   (order, offsets and lds optional)\n"
    "\n"
    "OPTIONS\n"
    "    --ranks P        ranks of the plan (1 to 2147483647); the layouts may use fewer\n"
    "    --from SPEC      layout of the source matrix B\n"
    "    --to SPEC        layout of the destination matrix A\n"
    "    --op N|T|C       op(B): identity (default), transpose, conjugate transpose\n"
    "    --type s|d|c|z   element type: float, double (default), complex float, complex double\n"
    "    --relabel MODE   process relabeling: none (default), greedy (a 2-approximation) or\n"
    "                     optimal (an exact linear assignment); A's blocks of rank j then go\n"
    "                     to rank sigma(j), chosen to minimise the bytes that cross ranks\n"
    "    --ranks-per-node K  ranks r with equal r / K share a node: relabeling then also\n"
    "                     prefers keeping data on its node (node-aware cost)\n"
    "    --node-map FILE  the node of every rank, as P whitespace-separated integers\n"
    "    --node-weight W  cost of a byte between nodes relative to one within a node\n"
    "                     (default 4, from 1 to 1000); with --ranks-per-node or --node-map\n"
    "    --schedule S     message schedule: p2p (all messages at once, unpacked as they\n"
    "                     land), rounds (contention-free steps: each rank sends to one and\n"
    "                     receives from one rank per step, max-degree steps), alltoallv\n"
    "                     (one MPI_Alltoallv), or auto (default: alltoallv when nearly all\n"
    "                     rank pairs exchange small messages, else p2p)\n"
    "    -o, --output FILE  the plan file to write\n"
    "    -h, --help       print this help and exit\n"
    "    Options take their value as the next argument or after '=' (--ranks=4).\n"
    "\n";

static const char help_tail[] =
    "EXIT STATUS\n"
    "    0  the plan was written\n"
    "    1  a layout file, planning or writing failed\n"
    "    2  the command line is wrong (unknown option, missing or bad value, bad layout spec,\n"
    "       layouts or groups that do not fit together, an unknown plan kind)\n"
    "    Errors are one line on stderr.\n"
    "\n"
    "EXAMPLES\n"
    "    relay-plan transform --ranks 4 --from bc:4096x4096:32x32:1x4 \\\n"
    "        --to bc:4096x4096:128x128:2x2 --op T -o t.plan\n"
    "    relay-plan transform --ranks 4 --from json:b.json --to bc:100x60:8x8:2x2 -o g.plan\n"
    "    relay-plan bmmc --ranks 8 --perm transpose:1024x512 -o t.plan\n"
    "    relay-plan bmmc --ranks 4 --perm bit-reversal,gray-code --bits 20 --rank-bits minor -o b.plan\n"
    "    relay-plan hsumma --grid 2x4 --shape 1024x1024x1024 --groups 2x2 --block 64 -o h.plan\n"
    "\n"
    "SEE ALSO\n"
    "    relay-dump(1), relay-run(1), docs/cli.md\n";

static void print_help(void)
{
    fputs(help_text, stdout);
    fputs("BMMC PLANS\n", stdout);
    fputs(bmmc_help_text, stdout);
    fputs("\n", stdout);
    fputs("HSUMMA PLANS\n", stdout);
    fputs(hsumma_help_text, stdout);
    fputs("\n", stdout);
    fputs(help_tail, stdout);
}

typedef struct {
    int64_t ranks;
    const char *from, *to, *output;
    relay_op op;
    relay_type type;
    relay_plan_options opts;
    int64_t ranks_per_node;
    const char *node_map;
    double node_weight;
    int help;
} transform_request;

/* ---- the command line --------------------------------------------------- */

/* The options, in the order of their ids. */
enum { OPT_RANKS, OPT_FROM, OPT_TO, OPT_OP, OPT_TYPE, OPT_RELABEL, OPT_SCHEDULE, OPT_O, OPT_OUTPUT, OPT_HELP, OPT_H,
       OPT_RANKS_PER_NODE, OPT_NODE_MAP, OPT_NODE_WEIGHT };
static const cli_option transform_options[] = {
    {"--ranks", 1}, {"--from", 1},     {"--to", 1}, {"--op", 1},     {"--type", 1}, {"--relabel", 1},
    {"--schedule", 1}, {"-o", 1},      {"--output", 1}, {"--help", 0}, {"-h", 0},
    {"--ranks-per-node", 1}, {"--node-map", 1}, {"--node-weight", 1},
};

/* Keywords, in the order of the enum values they stand for. */
static const char *const op_names[] = {"N", "T", "C"};
static const char *const type_names[] = {"s", "d", "c", "z"};
static const char *const relabel_names[] = {"none", "greedy", "optimal"};
static const char *const schedule_names[] = {"auto", "p2p", "rounds", "alltoallv"};

static int parse_weight(const char *text, double *out, cli_error *e)
{
    char *end;
    double w = strtod(text, &end);
    if (end == text || *end || !(w >= 1.0 && w <= 1000.0))
        return cli_fail(e, CLI_USAGE, "--node-weight: '%s' is not a number from 1 to 1000", text);
    *out = w;
    return CLI_OK;
}

/* Applies one option with its value. */
static int apply_option(transform_request *r, int id, const char *value, cli_error *e)
{
    int choice = 0, status = CLI_OK;
    switch (id) {
    case OPT_RANKS: return cli_parse_int(value, "--ranks", 1, 2147483647, &r->ranks, e);
    case OPT_FROM: r->from = value; return CLI_OK;
    case OPT_TO: r->to = value; return CLI_OK;
    case OPT_O:
    case OPT_OUTPUT: r->output = value; return CLI_OK;
    case OPT_HELP:
    case OPT_H: r->help = 1; return CLI_OK;
    case OPT_RANKS_PER_NODE: return cli_parse_int(value, "--ranks-per-node", 1, 2147483647, &r->ranks_per_node, e);
    case OPT_NODE_MAP: r->node_map = value; return CLI_OK;
    case OPT_NODE_WEIGHT: return parse_weight(value, &r->node_weight, e);
    case OPT_OP:
        if (!(status = cli_parse_choice(value, "--op", op_names, 3, &choice, e))) r->op = (relay_op)choice;
        return status;
    case OPT_TYPE:
        if (!(status = cli_parse_choice(value, "--type", type_names, 4, &choice, e))) r->type = (relay_type)choice;
        return status;
    case OPT_RELABEL:
        if (!(status = cli_parse_choice(value, "--relabel", relabel_names, 3, &choice, e)))
            r->opts.relabel = (relay_relabel)choice;
        return status;
    default:
        if (!(status = cli_parse_choice(value, "--schedule", schedule_names, 4, &choice, e)))
            r->opts.schedule = (relay_schedule)choice;
        return status;
    }
}

static int parse_transform_args(int argc, char **argv, transform_request *r, cli_error *e)
{
    *r = (transform_request){.op = RELAY_OP_N, .type = RELAY_DOUBLE, .node_weight = 4.0};
    relay_plan_options_init(&r->opts);
    cli_scanner s = cli_scan(argc, argv, 2);
    const char *value;
    int nopts = (int)(sizeof transform_options / sizeof *transform_options);
    for (int i; (i = cli_next(&s, transform_options, nopts, &value, e)) != CLI_END;) {
        if (i == CLI_BAD) return e->status;
        if (i == CLI_POSITIONAL) return cli_fail(e, CLI_USAGE, "unexpected argument '%s' (see --help)", value);
        if (apply_option(r, i, value, e)) return e->status;
    }
    if (r->help) return CLI_OK;
    if (!r->ranks) return cli_fail(e, CLI_USAGE, "missing --ranks P (see --help)");
    if (!r->from) return cli_fail(e, CLI_USAGE, "missing --from SPEC, the layout of B (see --help)");
    if (!r->to) return cli_fail(e, CLI_USAGE, "missing --to SPEC, the layout of A (see --help)");
    if (!r->output) return cli_fail(e, CLI_USAGE, "missing -o FILE (see --help)");
    if (r->ranks_per_node && r->node_map) return cli_fail(e, CLI_USAGE, "give --ranks-per-node or --node-map, not both");
    return CLI_OK;
}

/* ---- the work ----------------------------------------------------------- */

static int build_layout(const char *option, const char *spec, relay_layout **out, cli_error *e)
{
    int status = layout_spec_parse(spec, out, e);
    if (status) cli_prefix(e, option);
    return status;
}

/* Reads P node indices (whitespace-separated) from path. */
static int read_node_map(const char *path, int *nodes, int64_t ranks, cli_error *e)
{
    FILE *f = fopen(path, "r");
    if (!f) return cli_fail(e, CLI_FAILED, "--node-map: cannot open '%s': %s", path, strerror(errno));
    int64_t n = 0;
    long long v;
    int status = CLI_OK;
    while (!status && fscanf(f, "%lld", &v) == 1) {
        if (n >= ranks || v < 0 || v >= ranks)
            status = cli_fail(e, CLI_FAILED, "--node-map: '%s' has more than %lld entries or a node outside [0, %lld)",
                              path, (long long)ranks, (long long)ranks);
        else nodes[n++] = (int)v;
    }
    if (!status && (!feof(f) || n != ranks))
        status = cli_fail(e, CLI_FAILED, "--node-map: '%s' must hold exactly %lld integers", path, (long long)ranks);
    fclose(f);
    return status;
}

/* The node of every rank, when a node map was asked for (NULL otherwise). */
static int node_map(const transform_request *r, int **nodes, cli_error *e)
{
    *nodes = NULL;
    if (!r->ranks_per_node && !r->node_map) return CLI_OK;
    *nodes = malloc((size_t)r->ranks * sizeof **nodes);
    if (!*nodes) return cli_fail(e, CLI_FAILED, "out of memory for the node map");
    if (r->node_map) return read_node_map(r->node_map, *nodes, r->ranks, e);
    for (int64_t k = 0; k < r->ranks; k++) (*nodes)[k] = (int)(k / r->ranks_per_node);
    return CLI_OK;
}

static int make_plan(const transform_request *r, const relay_layout *dst, const relay_layout *src,
                     relay_plan **plan, double *seconds, cli_error *e)
{
    int *nodes;
    int status = node_map(r, &nodes, e);
    if (status) {
        free(nodes);
        return status;
    }
    relay_plan_options opts = r->opts;
    opts.node_of_rank = nodes;
    if (nodes) opts.inter_node_weight = r->node_weight;
    progress pr;
    progress_start(&pr, "relay-plan: planning");
    relay_status st = relay_plan_transform(plan, (int)r->ranks, dst, src, r->op, r->type, &opts);
    *seconds = progress_stop(&pr);
    free(nodes);
    /* RELAY_ERR_ARG here means layouts that do not fit each other or the rank count. */
    return st ? cli_fail_relay(e, st == RELAY_ERR_ARG ? CLI_USAGE : CLI_FAILED, st, "cannot plan") : CLI_OK;
}

static int run_transform(const void *request, cli_error *e)
{
    const transform_request *r = request;
    relay_layout *src = NULL, *dst = NULL;
    relay_plan *plan = NULL;
    double plan_s = 0;
    int status = build_layout("--from", r->from, &src, e);
    if (!status) status = build_layout("--to", r->to, &dst, e);
    if (!status) status = check_output_path(r->output, e);
    if (!status) status = make_plan(r, dst, src, &plan, &plan_s, e);
    if (!status) status = save_plan(plan, r->output, e);
    if (!status) print_summary(plan, r->output, plan_s);
    relay_plan_free(plan);
    relay_layout_free(src);
    relay_layout_free(dst);
    return status;
}

static int transform_main(int argc, char **argv, void (*help)(void))
{
    transform_request r;
    cli_error e;
    int status = parse_transform_args(argc, argv, &r, &e);
    return run_subcommand(status, r.help, help, run_transform, &r, &e);
}

/* The plan kinds and their subcommands. */
static const struct {
    const char *name;
    int (*main)(int argc, char **argv, void (*print_help)(void));
} commands[] = {{"transform", transform_main}, {"bmmc", bmmc_main}, {"hsumma", hsumma_main}};

int main(int argc, char **argv)
{
    cli_error e;
    const char *kind = argc > 1 ? argv[1] : NULL;
    if (kind && (strcmp(kind, "--help") == 0 || strcmp(kind, "-h") == 0)) {
        print_help();
        return CLI_OK;
    }
    for (size_t i = 0; kind && i < sizeof commands / sizeof *commands; i++)
        if (strcmp(kind, commands[i].name) == 0) return commands[i].main(argc, argv, print_help);
    if (!kind) cli_fail(&e, CLI_USAGE, "missing the plan kind: transform, bmmc or hsumma (see --help)");
    else cli_fail(&e, CLI_USAGE, "unknown plan kind '%s': expected transform, bmmc or hsumma (see --help)", kind);
    cli_report(program, &e);
    return e.status;
}
