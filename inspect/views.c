/* views.c — what a relay-dump request asks of a loaded plan: the view of
 * its kind (transform.c, bmmc.c, hsumma.c, nd.c, index.c), written to the request's
 * stream, after refusing what the kind does not show.  relay-dump's main.c
 * calls it on a plan file; the Python binding on a plan in memory. */
#include "dump.h"

/* The view of each plan kind, and why it has no heat map (NULL: it has). */
static const struct {
    int (*dump)(const dump_request *r, const relay_plan *p, cli_error *e);
    const char *no_svg;
} kinds[] = {
    [RELAY_PLAN_TRANSFORM] = {dump_transform, NULL},
    [RELAY_PLAN_BMMC] = {dump_bmmc, "--svg: a BMMC plan's volumes are uniform (see the partners instead)"},
    [RELAY_PLAN_HSUMMA] = {dump_hsumma, "--svg: an HSUMMA plan moves broadcasts, not a volume matrix (see --rank)"},
    [RELAY_PLAN_ND] = {dump_nd, "--svg: not drawn for N-D plans, whose messages are derived per rank (see --rank)"},
    [RELAY_PLAN_INDEX] = {dump_index, "--svg: not drawn for index plans (see the per-rank table and --rank)"},
};

int dump_plan(const dump_request *r, const relay_plan *p, cli_error *e)
{
    relay_plan_kind kind = relay_plan_get_kind(p);
    if (kind == RELAY_PLAN_TRANSFORM && transform_check_sections(r, p, e)) return e->status;
    if (r->svg && kinds[kind].no_svg) return cli_fail(e, CLI_USAGE, "%s", kinds[kind].no_svg);
    if (r->stats && kind != RELAY_PLAN_TRANSFORM)
        return cli_fail(e, CLI_USAGE, "--stats: relay-run --stats times transform plans only");
    if (r->stats && r->rank >= 0) return cli_fail(e, CLI_USAGE, "--stats goes with the whole plan's view, not --rank");
    return kinds[kind].dump(r, p, e);
}
