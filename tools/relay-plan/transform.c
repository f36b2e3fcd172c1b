/* transform.c — `relay-plan transform`: a plan of A := alpha op(B) + beta A
 * between two layouts, with optional relabeling and a message schedule;
 * between two N-D layouts (nd: specs) a plan of A := alpha permute(B) +
 * beta A (relay_plan_nd), the axes reordered by --perm, replicas of A
 * receiving as --replicas says.  --schedule predicted picks the schedule
 * that a simulation on the --machine model finds fastest (relay/predict.h)
 * and records the predictions as the plan's tuning.
 *
 *   relay-plan transform --ranks P --from SPEC --to SPEC [--op N|T|C] [--perm P0,P1,..]
 *       [--replicas auto|direct|forward] [--type s|d|c|z] [--relabel none|greedy|optimal]
 *       [--schedule auto|p2p|rounds|alltoallv|neighbor | --schedule predicted --machine M]
 *       [--ranks-per-node K | --node-map FILE] [--node-weight W] [--max-buffer BYTES] -o FILE
 *
 * Reference: docs/cli.md; the layout specs: plan.h. */
#define _POSIX_C_SOURCE 200809L /* PATH_MAX */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "plan.h"

const char transform_help[] =
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
    "      nd:SHAPE:mesh=MESH[@RANKS][:place=P,P,..][:order=C|F][:pad=AxBx..]\n"
    "          an N-D array (SHAPE: 1 to 8 extents joined by x) on a mesh of 1 to 4 dimensions\n"
    "          (MESH: sizes joined by x) over RANKS in mesh order, the last mesh dimension\n"
    "          fastest (ranges and ranks joined by commas: 4-7, 0,2,4,6, 0-3,8-11; default\n"
    "          0 to size-1); one placement per mesh dimension: S<k> shards array dimension k\n"
    "          in even chunks, S<k>/b<B> block-cyclic in blocks of B, S<k>/<s0>|<s1>|..|<sp>\n"
    "          at the p+1 split points from 0 to the extent (quote the spec in a shell), R\n"
    "          replicates, P holds partial sums (sources only); default S0,S1,..; local\n"
    "          order C (last dimension fastest, default) or F; pad: padded local extents\n"
    "          (0: tight).  Both layouts nd: or neither.\n"
    "\n"
    "OPTIONS\n"
    "    --ranks P        ranks of the plan (1 to 2147483647); the layouts may use fewer\n"
    "    --from SPEC      layout of the source matrix B\n"
    "    --to SPEC        layout of the destination matrix A\n"
    "    --op N|T|C       op(B): identity (default), transpose, conjugate transpose; for nd:\n"
    "                     layouts T permutes the axes (default: reversed) and C conjugates too\n"
    "    --perm P0,P1,..  nd: layouts: A's dimension k is B's dimension Pk (numpy's\n"
    "                     transpose axes); implies --op T unless --op is given\n"
    "    --replicas auto|direct|forward  nd: layouts: how the replicas of a replicated A\n"
    "                     receive: each from the sources (direct), or one replica of each group\n"
    "                     receives and passes the elements down a binomial tree (forward), or\n"
    "                     what leaves the busiest rank fewer bytes (auto, default)\n"
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
    "                     (one MPI_Alltoallv), neighbor (one neighbourhood alltoallv on a\n"
    "                     graph of the messages), or auto (default: alltoallv when nearly\n"
    "                     all rank pairs exchange small messages, else p2p), or predicted:\n"
    "                     the fastest of them on the --machine model, by simulation\n"
    "    --machine M      with --schedule predicted: a machine relay ships (fat-tree,\n"
    "                     dragonfly-aries, torus-bgp, laptop) or a machine file; every\n"
    "                     schedule the plan can replay is predicted there (as relay-dump\n"
    "                     --predict does), the fastest becomes the plan's schedule, and\n"
    "                     the predictions are kept as the plan's tuning for jobs of the\n"
    "                     machine's ranks per node (relay-dump shows them)\n"
    "    --max-buffer BYTES  a memory cap: each rank's pack and receive buffers hold at most\n"
    "                     BYTES (at least one element; each rounded up to 64): the replay runs\n"
    "                     in rounds, each step's message in chunks of at most BYTES, one chunk\n"
    "                     sent and one received at a time (--schedule auto or rounds)\n"
    "    -o, --output FILE  the plan file to write\n"
    "    -h, --help       print this help and exit\n"
    "    Options take their value as the next argument or after '=' (--ranks=4).\n";

typedef struct {
    int64_t ranks, ranks_per_node, max_buffer;
    const char *from, *to, *output, *node_map;
    int op, type, relabel, schedule; /* indices of the cli_*_words: the enum values; op -1 until given */
    int replicas;                    /* relay_replicas, -1 until given */
    int predicted;                   /* --schedule predicted */
    const char *machine;             /* --machine */
    double node_weight;
    int perm[RELAY_ND_MAX_DIMS], nperm; /* --perm, nperm 0 when not given */
} transform_request;

static int parse_node_weight(void *request, const char *text, cli_error *e)
{
    transform_request *r = request;
    char *end;
    double w = strtod(text, &end);
    if (end == text || *end || !(w >= 1.0 && w <= 1000.0))
        return cli_fail(e, CLI_USAGE, "--node-weight: '%s' is not a number from 1 to 1000", text);
    r->node_weight = w;
    return CLI_OK;
}

/* A schedule's word, or "predicted". */
static int parse_schedule(void *request, const char *text, cli_error *e)
{
    transform_request *r = request;
    r->predicted = !strcmp(text, "predicted");
    r->schedule = RELAY_SCHED_AUTO;
    return r->predicted ? CLI_OK : cli_parse_keyword(text, "--schedule (or predicted)", cli_schedule_words, &r->schedule, e);
}

/* "P0,P1,..": 1 to 8 axes. */
static int parse_perm(void *request, const char *text, cli_error *e)
{
    transform_request *r = request;
    r->nperm = 0;
    for (const char *item = text;; item++) {
        char digits[32];
        size_t len = strcspn(item, ",");
        int64_t axis;
        if (r->nperm == RELAY_ND_MAX_DIMS) return cli_fail(e, CLI_USAGE, "--perm: more than %d axes in '%s'", RELAY_ND_MAX_DIMS, text);
        snprintf(digits, sizeof digits, "%.*s", (int)(len < sizeof digits - 1 ? len : sizeof digits - 1), item);
        if (cli_parse_int(digits, "--perm", 0, RELAY_ND_MAX_DIMS - 1, &axis, e)) return e->status;
        r->perm[r->nperm++] = (int)axis;
        item += len;
        if (!*item) return CLI_OK;
    }
}

#define AT(field) offsetof(transform_request, field)
static const cli_option transform_options[] = {
    CLI_INT("--ranks", AT(ranks), 1, 2147483647),
    CLI_TEXT("--from", AT(from)),
    CLI_TEXT("--to", AT(to)),
    CLI_KEYWORD("--op", AT(op), cli_op_words),
    CLI_CUSTOM("--perm", parse_perm),
    CLI_KEYWORD("--replicas", AT(replicas), cli_replicas_words),
    CLI_KEYWORD("--type", AT(type), cli_type_words),
    CLI_KEYWORD("--relabel", AT(relabel), cli_relabel_words),
    CLI_CUSTOM("--schedule", parse_schedule),
    CLI_TEXT("--machine", AT(machine)),
    CLI_TEXT("-o", AT(output)),
    CLI_TEXT("--output", AT(output)),
    CLI_INT("--ranks-per-node", AT(ranks_per_node), 1, 2147483647),
    CLI_TEXT("--node-map", AT(node_map)),
    CLI_CUSTOM("--node-weight", parse_node_weight),
    CLI_INT("--max-buffer", AT(max_buffer), 1, INT64_MAX),
    CLI_END,
};
#undef AT

/* The options that must be there, and that exclude each other. */
static int check_request(const transform_request *r, cli_error *e)
{
    if (!r->ranks) return cli_fail(e, CLI_USAGE, "missing --ranks P (see --help)");
    if (!r->from) return cli_fail(e, CLI_USAGE, "missing --from SPEC, the layout of B (see --help)");
    if (!r->to) return cli_fail(e, CLI_USAGE, "missing --to SPEC, the layout of A (see --help)");
    if (!r->output) return cli_fail(e, CLI_USAGE, "missing -o FILE (see --help)");
    if (r->ranks_per_node && r->node_map) return cli_fail(e, CLI_USAGE, "give --ranks-per-node or --node-map, not both");
    if (nd_spec_is(r->from) != nd_spec_is(r->to))
        return cli_fail(e, CLI_USAGE, "--from and --to must both be nd: layouts or neither (%s is, %s is not)",
                        nd_spec_is(r->from) ? "--from" : "--to", nd_spec_is(r->from) ? "--to" : "--from");
    if (r->nperm && !nd_spec_is(r->from)) return cli_fail(e, CLI_USAGE, "--perm goes with nd: layouts (a matrix transposes with --op T)");
    if (r->replicas >= 0 && !nd_spec_is(r->from)) return cli_fail(e, CLI_USAGE, "--replicas goes with nd: layouts (a matrix has one owner per block)");
    if (r->machine && !r->predicted) return cli_fail(e, CLI_USAGE, "--machine goes with --schedule predicted");
    if (r->predicted && !r->machine)
        return cli_fail(e, CLI_USAGE, "--schedule predicted needs --machine M (a machine relay ships, or a machine file)");
    if (r->predicted && nd_spec_is(r->from)) return cli_fail(e, CLI_USAGE, "--schedule predicted: only matrix plans are predicted, not nd: layouts");
    return CLI_OK;
}

/* ---- the work ----------------------------------------------------------- */

/* The layouts of a request: two matrix layouts, or two N-D ones. */
typedef struct {
    relay_layout *dst, *src;
    relay_nd_layout *nd_dst, *nd_src;
} request_layouts;

static int build_layout(const transform_request *r, const char *option, const char *spec, relay_layout **out,
                        relay_nd_layout **nd, cli_error *e)
{
    int status = nd_spec_is(spec) ? nd_spec_parse(spec, r->ranks, nd, e) : layout_spec_parse(spec, out, e);
    if (status) cli_prefix(e, option);
    return status;
}

static int build_layouts(const transform_request *r, request_layouts *l, cli_error *e)
{
    if (build_layout(r, "--from", r->from, &l->src, &l->nd_src, e) || build_layout(r, "--to", r->to, &l->dst, &l->nd_dst, e))
        return e->status;
    if (r->nperm && r->nperm != relay_nd_layout_ndims(l->nd_dst))
        return cli_fail(e, CLI_USAGE, "--perm names %d axes; the layouts have %d dimensions", r->nperm, relay_nd_layout_ndims(l->nd_dst));
    return CLI_OK;
}

static void free_layouts(request_layouts *l)
{
    relay_layout_free(l->src);
    relay_layout_free(l->dst);
    relay_nd_layout_free(l->nd_src);
    relay_nd_layout_free(l->nd_dst);
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

/* The planner's options: relabeling, schedule, the node map (or NULL) and
 * the memory cap.  --schedule predicted plans with rounds first, so that
 * the plan can be replayed, and predicted, with every schedule. */
static relay_plan_options plan_options(const transform_request *r, const int *nodes)
{
    relay_plan_options opts;
    relay_plan_options_init(&opts);
    opts.relabel = (relay_relabel)r->relabel;
    opts.schedule = r->predicted ? RELAY_SCHED_ROUNDS : (relay_schedule)r->schedule; /* rounds: every schedule predicted */
    opts.node_of_rank = nodes;
    opts.max_buffer_bytes = r->max_buffer;
    if (r->replicas >= 0) opts.replicas = (relay_replicas)r->replicas;
    if (nodes) opts.inter_node_weight = r->node_weight;
    return opts;
}

/* relay_plan_nd for N-D layouts (perm NULL without --perm: as op says),
 * relay_plan_transform for matrices. */
static relay_status call_planner(const transform_request *r, const request_layouts *l, const relay_plan_options *opts,
                                 relay_plan **plan)
{
    if (l->nd_dst)
        return relay_plan_nd(plan, (int)r->ranks, l->nd_dst, l->nd_src, (relay_op)r->op, r->nperm ? r->perm : NULL,
                             (relay_type)r->type, opts);
    return relay_plan_transform(plan, (int)r->ranks, l->dst, l->src, (relay_op)r->op, (relay_type)r->type, opts);
}

/* A tuning without its rounds choice (for a plan replanned without
 * rounds, which cannot replay it), best still the fastest. */
static void without_rounds(relay_tuning *t)
{
    relay_schedule best = t->choices[t->best].schedule;
    int n = 0;
    for (int k = 0; k < t->ntimed; k++) {
        if (t->choices[k].schedule == RELAY_SCHED_ROUNDS) continue;
        if (t->choices[k].schedule == best) t->best = n;
        t->choices[n++] = t->choices[k];
    }
    t->ntimed = n;
}

/* "FILE: predicted on MACHINE (F to K ranks per node): p2p 1.2 ms, ...; schedule p2p". */
static void print_predicted(const char *path, const relay_tuning *t)
{
    printf("%s: predicted on %s (%d", path, t->machine, t->ranks_per_node_min);
    if (t->ranks_per_node_max != t->ranks_per_node_min) printf(" to %d", t->ranks_per_node_max);
    printf(" ranks per node):");
    for (int k = 0; k < t->ntimed; k++)
        printf("%s %s %.6f ms", k ? "," : "", cli_schedule_words[t->choices[k].schedule], t->choices[k].seconds * 1e3);
    printf("; schedule %s\n", cli_schedule_words[t->choices[t->best].schedule]);
}

/* --schedule predicted: *plan, made with rounds, predicted with every
 * schedule on the machine file machine; replanned with the fastest unless
 * that is rounds (its steps would be dead weight), so that every job
 * replays it; the predictions kept as the plan's tuning. */
static relay_status plan_predicted(const transform_request *r, const request_layouts *l, relay_plan_options *opts,
                                   const char *machine, relay_plan **plan)
{
    relay_tuning t;
    relay_status st = predicted_tuning(*plan, machine, &t);
    if (st) return st;
    print_predicted(r->output, &t);
    relay_schedule best = t.choices[t.best].schedule;
    if (best != relay_plan_schedule(*plan)) {
        relay_plan_free(*plan);
        *plan = NULL;
        opts->schedule = best;
        st = call_planner(r, l, opts, plan);
        without_rounds(&t);
    }
    return st ? st : relay_plan_set_tuning(*plan, &t);
}

/* Plans, predicting the schedule where machine (a machine file) is given. */
static int plan_layouts(const transform_request *r, const request_layouts *l, const char *machine, cli_error *e)
{
    int *nodes;
    int status = node_map(r, &nodes, e);
    if (!status) {
        relay_plan_options opts = plan_options(r, nodes);
        relay_plan *plan = NULL;
        progress planning;
        start_planning(&planning);
        relay_status st = call_planner(r, l, &opts, &plan);
        if (!st && machine) st = plan_predicted(r, l, &opts, machine, &plan);
        /* RELAY_ERR_ARG here means layouts that do not fit each other or the rank count;
         * RELAY_ERR_UNSUPPORTED an option the planner refuses for them. */
        status = finish_plan(&planning, st, plan, r->output, e);
    }
    free(nodes);
    return status;
}

int plan_transform(int argc, char **argv, int *help, cli_error *e)
{
    transform_request r = {.op = -1, .replicas = -1, .type = RELAY_DOUBLE, .node_weight = 4.0};
    if (cli_parse_options(argc, argv, 2, transform_options, &r, help, e)) return e->status;
    if (*help) return CLI_OK;
    if (check_request(&r, e)) return e->status;
    if (r.op < 0) r.op = r.nperm ? RELAY_OP_T : RELAY_OP_N;
    char machine[PATH_MAX + 64];
    if (r.predicted && predicted_machine(r.machine, machine, sizeof machine, e)) return e->status;
    request_layouts l = {0};
    int status = build_layouts(&r, &l, e);
    if (!status) status = check_output_path(r.output, e);
    if (!status) status = plan_layouts(&r, &l, r.predicted ? machine : NULL, e);
    free_layouts(&l);
    return status;
}
