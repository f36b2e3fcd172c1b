/* main.c — relay-dump: what a plan file moves.
 *
 *   relay-dump FILE [--json] [--rank R] [--svg OUT.svg] [--limit N] [--stats STATS]
 *              [--predict MACHINE]
 *
 * Reads the options, loads the plan (only one rank's section for --rank
 * alone) and hands it to dump_plan (inspect/views.c), which writes the
 * view of its kind to stdout, or for --predict to dump_predict
 * (predict.c, or predict_none.c in a build without SimGrid).  Links
 * relay_exec only: no planner.  Reference: docs/cli.md. */
#include <limits.h>
#include <stdio.h>

#include "dump.h"
#include "options.h"
#include "predict.h"

static const char program[] = "relay-dump";

static const char help_text[] =
    "NAME\n"
    "    relay-dump - show what a relay plan file moves\n"
    "\n"
    "SYNOPSIS\n"
    "    relay-dump FILE [--json] [--rank R] [--svg OUT.svg] [--limit N] [--stats STATS]\n"
    "    relay-dump FILE --predict MACHINE [--json]\n"
    "    relay-dump --help\n"
    "\n"
    "DESCRIPTION\n"
    "    Reads a plan file written by relay-plan (or relay_plan_save) and prints, by default, a\n"
    "    summary: kind, ranks, element type, op(s), the layouts, the relabeling sigma, the\n"
    "    volumes (bytes moved in total, bytes crossing ranks with sigma and with the identity,\n"
    "    messages, pieces and the lattices that hold them), a per-rank table (abbreviated to\n"
    "    the first and last ranks plus min/median/max above 32 ranks) and the 10 largest\n"
    "    rank-to-rank messages.  Volumes are counted from the plan's per-rank sections, whose\n"
    "    messages are lists of piece lattices: count_r x count_c equal pieces at constant\n"
    "    steps.  Sizes are in bytes.\n"
    "    For a BMMC plan: the permutation's matrix A and complement, its factors V and W in\n"
    "    processor-major coordinates, the rank r of V's lower-left block (2^r partners per\n"
    "    rank), the volumes, and the partners of rank 0 (--rank R: of rank R).\n"
    "    For an HSUMMA plan: the product, the grid and its groups (and where they came from),\n"
    "    the blocks and steps, the volumes (a broadcast counted once per receiving rank), the\n"
    "    cost model's time for every grouping when the plan carries network parameters, and\n"
    "    rank 0's place and traffic (--rank R: rank R's).\n"
    "    For an N-D plan (relay-plan transform with nd: layouts): per pair its op and axis\n"
    "    permutation and both layouts (shape, mesh and its ranks, placements, replicas and\n"
    "    partial pieces, order, padding, and the nd: spec that rebuilds it), the node map,\n"
    "    the volumes and the per-rank table, each rank's transfers derived from the plan's\n"
    "    header as the executor derives them, for the ranks shown while deriving them takes\n"
    "    at most 2^25 steps (the volumes are the plan's statistics, as the file states them,\n"
    "    unless every rank was derived);\n"
    "    --rank R: that rank's buffers and mesh places, its local transfers and its messages\n"
    "    to and from each peer (per transfer: pair, elements, bytes, runs per A dimension,\n"
    "    the source replica it is read from, the replica of A that passed it on, the partial\n"
    "    piece it carries).  --svg is not drawn for N-D plans.\n"
    "    For an index plan (relay-plan index): the move (broadcast or sum), the items and\n"
    "    their elements, the volumes, the runs the planner found (runs, runs of runs, listed\n"
    "    items), the per-rank table and rank 0's messages (--rank R: rank R's, from its\n"
    "    section alone): per peer its items and segments, each a run (outer x inner items\n"
    "    from a slot at two steps to a slot at two steps) or listed items.\n"
    "\n"
    "OPTIONS\n"
    "    --json         print one JSON object instead: format_version, kind, ranks, type, op,\n"
    "                   relabel, sigma, schedule, rounds, bytes_total, bytes_remote,\n"
    "                   bytes_remote_identity, messages, pieces, lattices (transform plans),\n"
    "                   fingerprint, pairs and per_rank [{rank, send_bytes, recv_bytes,\n"
    "                   send_msgs, recv_msgs, local_bytes}]; see docs/cli.md\n"
    "    --rank R       show one rank's section instead: its buffer sizes per pair, its local\n"
    "                   lattices (both sides: B and A) and its messages to and from each peer\n"
    "                   (pieces, bytes, and each lattice: pair, piece rows x cols, counts,\n"
    "                   offset, steps, ld; text shows 64 lattices per list); with --json as\n"
    "                   one object with every lattice.  Reads only that section of the file.\n"
    "    --limit N      lists of --json (per_rank, sigma, steps, mesh ranks), BMMC partner\n"
    "                   lists and N-D messages (--rank) hold their first N entries (default\n"
    "                   4096; 0: all); *_left_out keys say how many were left out.  Work and\n"
    "                   output stay bounded by what is printed.\n"
    "    --svg OUT.svg  also write a heat map of the bytes each rank sends to each rank (sender\n"
    "                   rows, receiver columns, log colour scale, rank-local copies on the\n"
    "                   diagonal; above 256 ranks, 256 x 256 bins of consecutive ranks)\n"
    "    --stats STATS  what mpiexec -n P relay-run FILE --stats STATS measured: the slowest\n"
    "                   ranks and messages (milliseconds per replay: packing, waiting,\n"
    "                   unpacking), after the summary or as the \"stats\" object of --json; with\n"
    "                   --svg the measured map (seconds on each sender-receiver pair) is drawn\n"
    "                   beside the volume one.  STATS must come from this plan (fingerprint)\n"
    "    --predict MACHINE\n"
    "                   instead of the summary, predict how long one replay of a plan\n"
    "                   (transform, BMMC, HSUMMA or N-D) takes on MACHINE, by a flow-level\n"
    "                   SimGrid simulation (one actor per rank: pack, messages over the\n"
    "                   machine's network, unpack; HSUMMA: its broadcasts and gemms): the\n"
    "                   replay time (the slowest rank's) with the plan's schedule, its 8\n"
    "                   slowest ranks and messages, and the time with every schedule the\n"
    "                   plan can be replayed with (p2p, rounds for a plan made with rounds,\n"
    "                   alltoallv, neighbor; BMMC and HSUMMA: auto, their one way; N-D:\n"
    "                   p2p); HSUMMA adds the communication and computation times, groups\n"
    "                   and steps.  With --json as the \"prediction\" object.\n"
    "                   MACHINE is a machine file, or one relay installs: fat-tree,\n"
    "                   torus-bgp, dragonfly-aries, laptop.  A transform plan of over\n"
    "                   20,000 messages on a node, star or fat-tree machine is simulated\n"
    "                   by relay's own engine instead, the same model solved in batches of\n"
    "                   events (a 65,536-rank plan in minutes); RELAY_PREDICT_ENGINE=simgrid\n"
    "                   or =fluid chooses.  Fails in a build without SimGrid.  See\n"
    "                   docs/cli.md\n"
    "    -h, --help     print this help and exit\n"
    "\n"
    "EXIT STATUS\n"
    "    0  success\n"
    "    1  the plan file cannot be read or is not a valid plan, its byte counts exceed\n"
    "       2^63 - 1, OUT.svg cannot be written, STATS is not this plan's timings, or\n"
    "       the prediction failed (or relay was built without SimGrid)\n"
    "    2  the command line is wrong (unknown option, missing or bad value, not one FILE,\n"
    "       a rank that the plan does not have, a MACHINE that is no machine file)\n"
    "    Errors are one line on stderr; OUT.svg is written atomically or not at all.\n"
    "\n"
    "EXAMPLES\n"
    "    relay-dump t.plan\n"
    "    relay-dump t.plan --json | python3 -m json.tool\n"
    "    relay-dump t.plan --rank 3\n"
    "    relay-dump t.plan --svg t.svg\n"
    "    relay-dump t.plan --stats t.csv --svg t.svg\n"
    "    relay-dump t.plan --predict fat-tree\n"
    "\n"
    "SEE ALSO\n"
    "    relay-plan(1), relay-run(1), docs/cli.md, docs/plan-format.md\n";

#define AT(field) offsetof(dump_request, field)
static const cli_option dump_options[] = {
    CLI_FILE("plan FILE", AT(path)),
    CLI_FLAG("--json", AT(json)),
    CLI_INT("--rank", AT(rank), 0, INT_MAX),
    CLI_TEXT("--svg", AT(svg)),
    CLI_INT("--limit", AT(limit), 0, INT64_MAX),
    CLI_TEXT("--stats", AT(stats)),
    CLI_TEXT("--predict", AT(predict)),
    CLI_END,
};
#undef AT

static int load_plan(const dump_request *r, relay_plan **p, cli_error *e)
{
    /* --rank alone reads one section; anything else needs them all. */
    int section = r->rank >= 0 && !r->svg ? (int)r->rank : -1;
    relay_status st = relay_plan_load(p, r->path, section);
    if (st) return cli_fail_relay(e, st == RELAY_ERR_ARG ? CLI_USAGE : CLI_FAILED, st, r->path);
    if (r->rank >= (*p)->nranks)
        return cli_fail(e, CLI_USAGE, "--rank %lld: the plan has ranks 0 to %d", (long long)r->rank, (*p)->nranks - 1);
    return CLI_OK;
}

/* --predict MACHINE, which goes alone with FILE and --json. */
static int predict(const dump_request *r, const relay_plan *p, cli_error *e)
{
    if (r->rank >= 0 || r->svg || r->stats)
        return cli_fail(e, CLI_USAGE, "--predict goes with FILE and --json alone, not with --rank, --svg or --stats");
    if (relay_plan_get_kind(p) == RELAY_PLAN_INDEX)
        return cli_fail(e, CLI_USAGE, "--predict: index plans are not replayed by this relay yet, so not predicted");
    return dump_predict(r, p, e);
}

static int dump(const dump_request *r, cli_error *e)
{
    relay_plan *p = NULL;
    int status = load_plan(r, &p, e);
    if (!status) status = r->predict ? predict(r, p, e) : dump_plan(r, p, e);
    relay_plan_free(p);
    return status;
}

int main(int argc, char **argv)
{
    dump_request r = {.rank = -1, .limit = DUMP_DEFAULT_LIMIT, .out = stdout};
    cli_error e;
    int help;
    int status = cli_parse_options(argc, argv, 1, dump_options, &r, &help, &e);
    if (!status && help) {
        fputs(help_text, stdout);
        return CLI_OK;
    }
    if (!status) status = dump(&r, &e);
    if (status) cli_report(program, &e);
    return status;
}
