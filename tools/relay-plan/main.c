/* main.c — relay-plan: builds a plan offline (no MPI) and writes it to a plan
 * file that relay-dump inspects and relay-run replays.
 *
 *   relay-plan transform ...   (transform.c)
 *   relay-plan bmmc ...        (bmmc.c)
 *   relay-plan hsumma ...      (hsumma.c)
 *   relay-plan compose|invert|concat PLAN... (algebra.c)
 *
 * The first argument names the plan kind; each kind reads its own options.
 * Reference: docs/cli.md. */
#include <stdio.h>
#include <string.h>

#include "plan.h"

static const char program[] = "relay-plan";

static const char help_head[] =
    "NAME\n"
    "    relay-plan - build a relay redistribution plan offline and write it to a file\n"
    "\n"
    "SYNOPSIS\n"
    "    relay-plan transform --ranks P --from SPEC --to SPEC [--op N|T|C] [--type s|d|c|z]\n"
    "                         [--perm P0,P1,..] [--replicas auto|direct|forward]\n"
    "                         [--relabel none|greedy|optimal]\n"
    "                         [--schedule auto|p2p|rounds|alltoallv|neighbor]\n"
    "                         [--ranks-per-node K | --node-map FILE] [--node-weight W] -o FILE\n"
    "    relay-plan bmmc --ranks P (--perm NAMES [--bits N] | --matrix COLS) [...] -o FILE\n"
    "    relay-plan hsumma --grid SxT --shape MxNxK [--groups IxJ|auto] [...] -o FILE\n"
    "    relay-plan index --ranks P --move broadcast|sum (--owners F --holders F --items N |\n"
    "                     --halo NXxNY:PXxPY[:W]) [...] -o FILE\n"
    "    relay-plan compose FIRST SECOND -o FILE | invert PLAN -o FILE | concat X Y -o FILE\n"
    "    relay-plan --help\n"
    "\n"
    "DESCRIPTION\n"
    "    Plans A := alpha * op(B) + beta * A on P ranks without MPI and writes the plan to FILE\n"
    "    (atomically: a failed run leaves no file).  B's layout is --from, A's is --to; B is\n"
    "    n x m when op transposes.  Between N-D layouts (nd: specs) it plans\n"
    "    A := alpha * permute(B) + beta * A, A's dimension k being B's dimension --perm[k].\n"
    "    Replay the plan with `mpiexec -n P relay-run FILE`, inspect it with\n"
    "    `relay-dump FILE`.  Prints one summary line on stdout.  When stderr is a\n"
    "    terminal, planning or writing that takes longer than a second shows a progress line.\n"
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
    "    relay-plan transform --ranks 8 --from nd:512x512x512:mesh=4x2:place=S0,S1 \\\n"
    "        --to nd:512x512x512:mesh=4x2:place=S1,S2 --perm 2,0,1 -o pencil.plan\n"
    "    relay-plan bmmc --ranks 8 --perm transpose:1024x512 -o t.plan\n"
    "    relay-plan bmmc --ranks 4 --perm bit-reversal,gray-code --bits 20 --rank-bits minor -o b.plan\n"
    "    relay-plan hsumma --grid 2x4 --shape 1024x1024x1024 --groups 2x2 --block 64 -o h.plan\n"
    "    relay-plan compose ab.plan bc.plan -o ac.plan\n"
    "\n"
    "SEE ALSO\n"
    "    relay-dump(1), relay-run(1), docs/cli.md\n";

/* The plan kinds: their subcommand, and their part of the help under its
 * heading (transform's options come first, without one). */
static const struct {
    const char *name;
    int (*plan)(int argc, char **argv, int *help, cli_error *e);
    const char *heading, *help;
} kinds[] = {
    {"transform", plan_transform, NULL, transform_help},
    {"bmmc", plan_bmmc, "BMMC PLANS\n", bmmc_help},
    {"hsumma", plan_hsumma, "HSUMMA PLANS\n", hsumma_help},
    {"index", plan_index, "INDEX PLANS\n", index_help},
    {"compose", plan_compose, "PLANS FROM PLANS\n", algebra_help},
    {"invert", plan_invert, NULL, NULL},
    {"concat", plan_concat, NULL, NULL},
};
enum { NKINDS = sizeof kinds / sizeof *kinds };

static void print_help(void)
{
    fputs(help_head, stdout);
    for (int k = 0; k < NKINDS; k++) {
        if (!kinds[k].help) continue; /* told under the heading before it */
        if (kinds[k].heading) fputs(kinds[k].heading, stdout);
        fputs(kinds[k].help, stdout);
        fputs("\n", stdout);
    }
    fputs(help_tail, stdout);
}

/* Runs the subcommand of the kind argv[1] names. */
static int plan_kind(int argc, char **argv, cli_error *e)
{
    const char *kind = argc > 1 ? argv[1] : NULL;
    if (!kind) return cli_fail(e, CLI_USAGE, "missing the plan kind: transform, bmmc, hsumma, index, compose, invert or concat (see --help)");
    for (int k = 0; k < NKINDS; k++) {
        if (strcmp(kind, kinds[k].name) != 0) continue;
        int help, status = kinds[k].plan(argc, argv, &help, e);
        if (!status && help) print_help();
        return status;
    }
    return cli_fail(e, CLI_USAGE, "unknown plan kind '%s': expected transform, bmmc, hsumma, index, compose, invert or concat (see --help)", kind);
}

int main(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        print_help();
        return CLI_OK;
    }
    cli_error e;
    int status = plan_kind(argc, argv, &e);
    if (status) cli_report(program, &e);
    return status;
}
