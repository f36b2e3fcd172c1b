/* index.c — `relay-plan index`: a broadcast or a sum between index layouts
 * (relay/index.h), from index files or a 2-D halo generator.
 *
 *   relay-plan index --ranks P --move broadcast|sum
 *       (--owners FILE --holders FILE --items N | --halo NXxNY:PXxPY[:W])
 *       [--item-elems K] [--type s|d|c|z] -o FILE
 *
 * Reference: docs/cli.md. */
#define _POSIX_C_SOURCE 200809L /* getline, strtok_r */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "plan.h"

const char index_help[] =
    "    relay-plan index --ranks P --move broadcast|sum\n"
    "                     (--owners FILE --holders FILE --items N | --halo NXxNY:PXxPY[:W])\n"
    "                     [--item-elems K] [--type s|d|c|z] -o FILE\n"
    "\n"
    "    Plans a move between two index layouts of N items of K elements each: broadcast\n"
    "    copies each item from its owner to every slot that holds it (a ghost update); sum\n"
    "    adds every holder slot into its item's owner slot, in (rank, slot) order, the same\n"
    "    bits on every replay.  The plan lists each rank's messages as runs of slots (see\n"
    "    relay-dump); this relay plans, saves and reads it but does not replay it yet.\n"
    "\n"
    "    --ranks P        ranks of the plan (with --halo: default PX*PY)\n"
    "    --move M         broadcast (owners to holders) or sum (holders into owners)\n"
    "    --owners FILE    who owns each item (every item at most once); --holders FILE: who\n"
    "                     holds copies.  Lines 'R: ITEMS', rank R's items in its storage\n"
    "                     order, each an item I or a run START:LENGTH:STRIDE; a rank on no\n"
    "                     line holds nothing; '#' starts a comment\n"
    "    --items N        items in the index space (with --owners and --holders)\n"
    "    --halo NXxNY:PXxPY[:W]\n"
    "                     generate the layouts instead: an NX x NY grid of items numbered row\n"
    "                     by row on a PX x PY mesh of blocks (rank a*PY + b holds block (a, b));\n"
    "                     each rank owns its block and holds it widened by W (default 1) on\n"
    "                     every side within the grid, both stored row by row\n"
    "    --item-elems K   elements per item (default 1)\n"
    "    --type s|d|c|z   element type (default d)\n"
    "    -o, --output FILE  the plan file to write\n";

typedef struct {
    int64_t ranks, items, item_elems;
    int move, type;
    const char *owners, *holders, *halo, *output;
} index_request;

static const char *const move_words[] = {"broadcast", "sum", NULL};

#define AT(field) offsetof(index_request, field)
static const cli_option index_options[] = {
    CLI_INT("--ranks", AT(ranks), 1, 1 << 24),
    CLI_KEYWORD("--move", AT(move), move_words),
    CLI_TEXT("--owners", AT(owners)),
    CLI_TEXT("--holders", AT(holders)),
    CLI_INT("--items", AT(items), 0, (int64_t)1 << 56),
    CLI_TEXT("--halo", AT(halo)),
    CLI_INT("--item-elems", AT(item_elems), 1, (int64_t)1 << 56),
    CLI_KEYWORD("--type", AT(type), cli_type_words),
    CLI_TEXT("-o", AT(output)),
    CLI_TEXT("--output", AT(output)),
    CLI_END,
};
#undef AT

/* ---- index files ------------------------------------------------------------ */

/* A growing list of runs. */
typedef struct {
    relay_index_run *v;
    int64_t n, cap;
} run_list;

static int push_run(run_list *l, relay_index_run run, cli_error *e)
{
    if (l->n == l->cap) {
        int64_t cap = l->cap ? 2 * l->cap : 64;
        relay_index_run *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v) return cli_fail(e, CLI_FAILED, "out of memory");
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = run;
    return CLI_OK;
}

/* One token: an item I or a run START:LENGTH:STRIDE. */
static int parse_token(const char *tok, relay_index_run *run)
{
    char *end;
    errno = 0;
    run->start = strtoll(tok, &end, 10);
    run->length = 1;
    run->stride = 0;
    if (*end == ':') {
        run->length = strtoll(end + 1, &end, 10);
        if (*end != ':') return 0;
        run->stride = strtoll(end + 1, &end, 10);
    }
    return !errno && end != tok && *end == '\0';
}

/* Line `R: TOKENS` of path: rank R's runs, given to l (each rank once). */
static int read_line(char *line, const char *path, int lineno, relay_index_layout *l, unsigned char *seen, cli_error *e)
{
    char *hash = strchr(line, '#'), *colon, *save = NULL;
    if (hash) *hash = '\0';
    if (strspn(line, " \t\r\n") == strlen(line)) return CLI_OK;
    long rank = strtol(line, &colon, 10);
    if (colon == line || *colon != ':' || rank < 0 || rank >= relay_index_layout_nranks(l))
        return cli_fail(e, CLI_USAGE, "%s:%d: expected 'R: ITEMS' with R a rank below %d", path, lineno, relay_index_layout_nranks(l));
    if (seen[rank]++) return cli_fail(e, CLI_USAGE, "%s:%d: rank %ld has a line already", path, lineno, rank);
    run_list runs = {0};
    int status = CLI_OK;
    for (char *tok = strtok_r(colon + 1, " \t\r\n", &save); tok && !status; tok = strtok_r(NULL, " \t\r\n", &save)) {
        relay_index_run run;
        status = parse_token(tok, &run) ? push_run(&runs, run, e)
                                        : cli_fail(e, CLI_USAGE, "%s:%d: '%s' is neither an item nor START:LENGTH:STRIDE", path,
                                                   lineno, tok);
    }
    relay_status st = status ? RELAY_OK : relay_index_layout_set_runs(l, (int)rank, runs.n, runs.v);
    if (st) status = cli_fail_relay(e, CLI_USAGE, st, path);
    free(runs.v);
    return status;
}

static int read_index_file(const char *path, relay_index_layout *l, cli_error *e)
{
    FILE *f = fopen(path, "r");
    if (!f) return cli_fail(e, CLI_FAILED, "cannot open %s: %s", path, strerror(errno));
    unsigned char *seen = calloc((size_t)relay_index_layout_nranks(l), 1);
    char *line = NULL;
    size_t cap = 0;
    int status = seen ? CLI_OK : cli_fail(e, CLI_FAILED, "out of memory");
    for (int lineno = 1; !status && getline(&line, &cap, f) >= 0; lineno++) status = read_line(line, path, lineno, l, seen, e);
    free(line);
    free(seen);
    fclose(f);
    return status;
}

/* ---- the halo generator ------------------------------------------------------- */

typedef struct {
    int64_t nx, ny, px, py, width;
} halo_spec;

static int parse_halo(const char *text, halo_spec *h, cli_error *e)
{
    char tail;
    h->width = 1;
    int n = sscanf(text, "%lldx%lld:%lldx%lld:%lld%c", (long long *)&h->nx, (long long *)&h->ny, (long long *)&h->px,
                   (long long *)&h->py, (long long *)&h->width, &tail);
    if ((n != 4 && n != 5) || h->nx < 1 || h->ny < 1 || h->px < 1 || h->py < 1 || h->px > h->nx || h->py > h->ny ||
        h->width < 0 || h->px * h->py > (1 << 24) || h->nx > ((int64_t)1 << 28) || h->ny > ((int64_t)1 << 28))
        return cli_fail(e, CLI_USAGE, "--halo '%s': expected NXxNY:PXxPY[:W], 1 <= PX <= NX, 1 <= PY <= NY, W >= 0, "
                        "NX and NY at most 2^28", text);
    return CLI_OK;
}

/* Rank (a, b)'s rows [r0, r1) of columns [c0, c1), one run per row. */
static int hold_rows(relay_index_layout *l, int rank, const halo_spec *h, int64_t r0, int64_t r1, int64_t c0, int64_t c1, cli_error *e)
{
    run_list runs = {0};
    int status = CLI_OK;
    for (int64_t i = r0; i < r1 && !status; i++) status = push_run(&runs, (relay_index_run){i * h->ny + c0, c1 - c0, 1}, e);
    relay_status st = status ? RELAY_OK : relay_index_layout_set_runs(l, rank, runs.n, runs.v);
    free(runs.v);
    return st ? cli_fail_relay(e, CLI_FAILED, st, "--halo") : status;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static int make_halo(const halo_spec *h, relay_index_layout *owners, relay_index_layout *holders, cli_error *e)
{
    int status = CLI_OK;
    for (int64_t a = 0; a < h->px && !status; a++)
        for (int64_t b = 0; b < h->py && !status; b++) {
            int rank = (int)(a * h->py + b);
            int64_t r0 = a * h->nx / h->px, r1 = (a + 1) * h->nx / h->px, c0 = b * h->ny / h->py, c1 = (b + 1) * h->ny / h->py;
            status = hold_rows(owners, rank, h, r0, r1, c0, c1, e);
            if (!status)
                status = hold_rows(holders, rank, h, max64(r0 - h->width, 0), min64(r1 + h->width, h->nx), max64(c0 - h->width, 0),
                                   min64(c1 + h->width, h->ny), e);
        }
    return status;
}

/* ---- the request ---------------------------------------------------------------- */

static int check_request(index_request *r, halo_spec *h, cli_error *e)
{
    if (r->move < 0) return cli_fail(e, CLI_USAGE, "missing --move broadcast|sum");
    if (!r->output) return cli_fail(e, CLI_USAGE, "missing -o FILE");
    if (r->halo && (r->owners || r->holders || r->items >= 0))
        return cli_fail(e, CLI_USAGE, "--halo generates the layouts: give it without --owners, --holders and --items");
    if (r->halo) {
        if (parse_halo(r->halo, h, e)) return e->status;
        r->items = h->nx * h->ny;
        if (!r->ranks) r->ranks = h->px * h->py;
        if (h->px * h->py > r->ranks)
            return cli_fail(e, CLI_USAGE, "--halo: a %lldx%lld mesh needs at least %lld ranks", (long long)h->px, (long long)h->py,
                            (long long)(h->px * h->py));
        return CLI_OK;
    }
    if (!r->owners || !r->holders || r->items < 0)
        return cli_fail(e, CLI_USAGE, "give --owners FILE --holders FILE --items N, or --halo NXxNY:PXxPY[:W]");
    return r->ranks ? CLI_OK : cli_fail(e, CLI_USAGE, "missing --ranks P");
}

static int build_layouts(const index_request *r, const halo_spec *h, relay_index_layout **owners, relay_index_layout **holders,
                         cli_error *e)
{
    relay_status st = relay_index_layout_create(owners, r->items, r->item_elems, (int)r->ranks);
    if (!st) st = relay_index_layout_create(holders, r->items, r->item_elems, (int)r->ranks);
    if (st) return cli_fail_relay(e, CLI_USAGE, st, "index layouts");
    if (r->halo) return make_halo(h, *owners, *holders, e);
    if (read_index_file(r->owners, *owners, e)) return e->status;
    return read_index_file(r->holders, *holders, e);
}

int plan_index(int argc, char **argv, int *help, cli_error *e)
{
    index_request r = {.items = -1, .item_elems = 1, .move = -1, .type = RELAY_DOUBLE};
    if (cli_parse_options(argc, argv, 2, index_options, &r, help, e)) return e->status;
    if (*help) return CLI_OK;
    halo_spec h;
    relay_index_layout *owners = NULL, *holders = NULL;
    int status = check_request(&r, &h, e);
    if (!status) status = check_output_path(r.output, e);
    if (!status) status = build_layouts(&r, &h, &owners, &holders, e);
    if (!status) {
        relay_plan *plan = NULL;
        progress planning;
        start_planning(&planning);
        relay_status st = relay_plan_index(&plan, (int)r.ranks, owners, holders, (relay_index_move)r.move, (relay_type)r.type);
        status = finish_plan(&planning, st, plan, r.output, e);
    }
    relay_index_layout_free(owners);
    relay_index_layout_free(holders);
    return status;
}
