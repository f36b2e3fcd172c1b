/* transform.c — relay-dump for transform plans: by default a summary for
 * people (kind, ranks, type, ops, layouts, sigma, volumes, the steps of a
 * rounds schedule, a per-rank table and the largest messages); --json the
 * same facts as one JSON object with the keys of docs/cli.md; --rank R
 * the detail of one rank's section (section.c); --svg a heat map of the
 * rank-to-rank volumes.  Every volume is counted here from the sections'
 * messages and lattices, independently of the statistics the planner
 * stored (only bytes_remote_identity comes from them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"

enum { TOP_TALKERS = 10, SIGMA_FULL_MAX = 16, PAIRS_SHOWN = 8 };

/* Communication steps of one replay: 1 for p2p (one wave) and alltoallv
 * (one exchange), the colouring's step count for rounds. */
static int rounds_of(const relay_plan *p) { return p->rounds; }

/* ---- volumes, counted from the sections ------------------------------------ */

typedef struct {
    int64_t bytes_total, bytes_remote, messages, pieces, lattices;
    rank_volume *per_rank;   /* nranks entries */
} plan_volumes;

/* Needs every section (a plan loaded with rank -1). */
static int count_volumes(const relay_plan *p, plan_volumes *v, cli_error *e)
{
    int64_t esz = (int64_t)relay_type_size(p->type);
    *v = (plan_volumes){0};
    v->per_rank = calloc((size_t)p->nranks, sizeof *v->per_rank);
    if (!v->per_rank) return cli_fail(e, CLI_FAILED, "out of memory for %d ranks", p->nranks);
    for (int r = 0; r < p->nranks; r++) {
        rank_volume rv;
        if (section_volume(p->sections[r], esz, &rv, e)) return e->status;
        v->per_rank[r] = rv;
        if (rl_add_overflows(v->bytes_remote, rv.send_bytes, &v->bytes_remote) ||
            rl_add_overflows(v->bytes_total, rv.send_bytes, &v->bytes_total) ||
            rl_add_overflows(v->bytes_total, rv.local_bytes, &v->bytes_total))
            return cli_fail(e, CLI_FAILED, "the plan moves more than 2^63 - 1 bytes: relay-dump counts in 64 bits");
        v->messages += rv.send_msgs;
        v->pieces += rv.send_pieces + rv.local_pieces;
        v->lattices += rv.send_lattices + rv.local_lattices;
    }
    return CLI_OK;
}

/* ---- layouts ------------------------------------------------------------ */

static void describe_layout(const relay_layout *l, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "%lld x %lld, ", (long long)l->m, (long long)l->n);
    if (l->kind == RL_LAYOUT_BLOCK_CYCLIC) {
        const rl_block_cyclic *bc = &l->bc;
        char lld[32] = "smallest";
        if (bc->lld) snprintf(lld, sizeof lld, "%lld", (long long)bc->lld);
        snprintf(buf + n, cap - (size_t)n,
                 "block-cyclic, %lld x %lld blocks on a %d x %d grid (%s-major), block (0,0) on (%d,%d), lld %s, "
                 "%s-major elements",
                 (long long)bc->mb, (long long)bc->nb, bc->nprow, bc->npcol, cli_order_words[bc->grid_order], bc->rsrc,
                 bc->csrc, lld, cli_order_words[l->order]);
    } else {
        snprintf(buf + n, cap - (size_t)n, "grid of %d x %d blocks over %d ranks, %s storage, %s-major elements",
                 l->nbr, l->nbc, l->base_nranks, l->explicit_offsets ? "explicit" : "packed", cli_order_words[l->order]);
    }
}

static void json_layout(json_writer *w, const char *key, const relay_layout *l)
{
    json_begin_object(w, key);
    json_string(w, "kind", l->kind == RL_LAYOUT_BLOCK_CYCLIC ? "block_cyclic" : "grid");
    json_int(w, "m", l->m);
    json_int(w, "n", l->n);
    json_int(w, "block_rows", l->nbr);
    json_int(w, "block_cols", l->nbc);
    json_string(w, "elem", cli_order_words[l->order]);
    if (l->kind == RL_LAYOUT_BLOCK_CYCLIC) {
        json_int(w, "mb", l->bc.mb);
        json_int(w, "nb", l->bc.nb);
        json_int(w, "nprow", l->bc.nprow);
        json_int(w, "npcol", l->bc.npcol);
        json_string(w, "grid", cli_order_words[l->bc.grid_order]);
        json_int(w, "rsrc", l->bc.rsrc);
        json_int(w, "csrc", l->bc.csrc);
        json_int(w, "lld", l->bc.lld);
    } else {
        json_int(w, "nranks", l->base_nranks);
        json_bool(w, "explicit_offsets", l->explicit_offsets);
    }
    json_end_object(w);
}

/* ---- the summary for people --------------------------------------------- */

static int sigma_is_identity(const relay_plan *p)
{
    for (int r = 0; r < p->nranks; r++)
        if (p->sigma[r] != r) return 0;
    return 1;
}

static void print_sigma(const relay_plan *p, FILE *out)
{
    fprintf(out, "  sigma      ");
    if (sigma_is_identity(p)) {
        fprintf(out, "identity\n");
        return;
    }
    for (int r = 0; r < p->nranks; r++) {
        if (p->nranks > SIGMA_FULL_MAX && r == RANK_TABLE_EDGE_ROWS) {
            fprintf(out, " ...");
            r = p->nranks - 4;
        }
        fprintf(out, " %d", p->sigma[r]);
    }
    fprintf(out, "\n");
}

static void print_pairs(const relay_plan *p, FILE *out)
{
    char desc[512];
    for (int k = 0; k < p->count && k < PAIRS_SHOWN; k++) {
        if (p->count > 1) fprintf(out, "  pair %-5d op %s\n", k, cli_op_words[p->pairs[k].op]);
        else fprintf(out, "  op         %s\n", cli_op_words[p->pairs[k].op]);
        describe_layout(p->pairs[k].dst, desc, sizeof desc);
        fprintf(out, "  A (to)     %s\n", desc);
        describe_layout(p->pairs[k].src, desc, sizeof desc);
        fprintf(out, "  B (from)   %s\n", desc);
    }
    if (p->count > PAIRS_SHOWN) fprintf(out, "  ... and %d more pairs (see --json)\n", p->count - PAIRS_SHOWN);
}

static void print_header(const dump_request *r, const relay_plan *p, const plan_volumes *v)
{
    relay_plan_stats st;
    FILE *out = r->out;
    relay_plan_get_stats(p, &st);
    summary_print_head(r->path, p, out);
    print_pairs(p, out);
    fprintf(out, "  relabel    %s\n", cli_relabel_words[p->relabel]);
    print_sigma(p, out);
    fprintf(out, "  schedule   %s, %d round%s\n", cli_schedule_words[p->schedule], rounds_of(p), rounds_of(p) == 1 ? "" : "s");
    if (p->max_buffer_bytes)
        fprintf(out, "  cap        %lld bytes (%s) of pack and of receive buffer per rank: messages in chunks\n",
                (long long)p->max_buffer_bytes, cli_bytes(p->max_buffer_bytes).text);
    dump_print_tuning(p, out);
    fprintf(out, "  volumes    %lld bytes total (%s), %lld remote (%s), %lld remote with identity sigma (%s)\n",
            (long long)v->bytes_total, cli_bytes(v->bytes_total).text, (long long)v->bytes_remote,
            cli_bytes(v->bytes_remote).text, (long long)st.bytes_remote_identity,
            cli_bytes(st.bytes_remote_identity).text);
    fprintf(out, "             %lld messages, %lld pieces in %lld lattices\n", (long long)v->messages, (long long)v->pieces,
            (long long)v->lattices);
}

typedef struct {
    int from, to;
    int64_t bytes, pieces;
} talker;

/* Keeps top[0..*n) sorted by decreasing bytes, at most TOP_TALKERS. */
static void consider_talker(talker *top, int *n, talker t)
{
    int at = *n;
    while (at > 0 && top[at - 1].bytes < t.bytes) at--;
    if (at >= TOP_TALKERS) return;
    int last = *n < TOP_TALKERS ? *n : TOP_TALKERS - 1;
    memmove(&top[at + 1], &top[at], (size_t)(last - at) * sizeof *top);
    top[at] = t;
    if (*n < TOP_TALKERS) (*n)++;
}

static void print_top_talkers(const relay_plan *p, FILE *out)
{
    talker top[TOP_TALKERS];
    int n = 0;
    int64_t esz = (int64_t)relay_type_size(p->type);
    for (int r = 0; r < p->nranks; r++) {
        const rl_section *s = p->sections[r];
        for (int k = 0; k < s->nsend; k++)
            consider_talker(top, &n, (talker){r, (int)s->send[k].peer, s->send[k].elems * esz,
                                              lattice_pieces(s->send_spans, s->send[k].first, s->send[k].count)});
    }
    fprintf(out, "top talkers (largest messages)\n");
    if (n == 0) fprintf(out, "  none: every piece stays on its rank\n");
    for (int i = 0; i < n; i++)
        fprintf(out, "  %8d -> %-8d %13lld bytes (%s), %lld pieces\n", top[i].from, top[i].to, (long long)top[i].bytes,
                cli_bytes(top[i].bytes).text, (long long)top[i].pieces);
}

/* For a rounds plan: its steps, read back from the sections. */
static int print_steps(const relay_plan *p, FILE *out, cli_error *e)
{
    step_view sv;
    if (p->schedule != RELAY_SCHED_ROUNDS) return CLI_OK;
    if (step_view_build(&sv, p)) return cli_fail(e, CLI_FAILED, "out of memory for the steps of %d ranks", p->nranks);
    step_view_print(&sv, p, out);
    step_view_free(&sv);
    return CLI_OK;
}

static int print_summary(const dump_request *r, const relay_plan *p, const plan_volumes *v, cli_error *e)
{
    print_header(r, p, v);
    if (print_steps(p, r->out, e)) return e->status;
    if (rank_table_print(v->per_rank, NULL, p->nranks, p->nranks, r->out, e)) return e->status;
    print_top_talkers(p, r->out);
    return CLI_OK;
}

/* ---- the summary as JSON ------------------------------------------------ */

static void json_pairs(json_writer *w, const relay_plan *p)
{
    json_begin_array(w, "pairs");
    for (int k = 0; k < p->count; k++) {
        json_begin_object(w, NULL);
        json_string(w, "op", cli_op_words[p->pairs[k].op]);
        json_layout(w, "dst", p->pairs[k].dst);
        json_layout(w, "src", p->pairs[k].src);
        json_end_object(w);
    }
    json_end_array(w);
}

static void json_per_rank(json_writer *w, const plan_volumes *v, int64_t listed)
{
    json_begin_array(w, "per_rank");
    for (int r = 0; r < listed; r++) {
        const rank_volume *rv = &v->per_rank[r];
        dump_json_rank(w, r, rv->send_bytes, rv->recv_bytes, rv->send_msgs, rv->recv_msgs, rv->local_bytes);
    }
    json_end_array(w);
}

/* steps: the rounds plan's steps, or NULL. */
static void print_json_summary(const dump_request *r, const relay_plan *p, const plan_volumes *v, const step_view *steps,
                               const plan_stats *measured)
{
    relay_plan_stats st;
    int64_t listed = dump_listed(r, p->nranks);
    relay_plan_get_stats(p, &st);
    json_writer w = dump_json_open(p, cli_kind_words[p->kind], r->out);
    json_string(&w, "type", cli_type_words[p->type]);
    dump_json_ops(&w, p);
    json_string(&w, "relabel", cli_relabel_words[p->relabel]);
    dump_json_sigma(&w, r, p, p->sigma);
    json_string(&w, "schedule", cli_schedule_words[p->schedule]);
    json_int(&w, "rounds", rounds_of(p));
    json_int(&w, "max_buffer_bytes", p->max_buffer_bytes);
    dump_json_tuning(&w, p);
    if (steps) step_view_json(&w, steps, p, dump_listed(r, p->rounds));
    dump_json_volumes(&w, v->bytes_total, v->bytes_remote, st.bytes_remote_identity, v->messages, v->pieces);
    json_int(&w, "lattices", v->lattices);
    json_pairs(&w, p);
    json_per_rank(&w, v, listed);
    json_int(&w, "per_rank_left_out", p->nranks - listed);
    if (measured) plan_stats_json(&w, measured, p->nranks);
    json_end_object(&w);
    json_finish(&w);
}

/* ---- the heat map ------------------------------------------------------- */

/* A transform plan's views read its sections: the whole plan's every one,
 * --rank R (alone) R's.  A plan read or planned for one rank has that
 * rank's alone. */
int transform_check_sections(const dump_request *r, const relay_plan *p, cli_error *e)
{
    int whole = r->rank < 0 || r->svg || r->stats;
    for (int rank = whole ? 0 : (int)r->rank; rank < (whole ? p->nranks : r->rank + 1); rank++)
        if (!p->sections[rank])
            return cli_fail(e, CLI_USAGE, "the plan holds some ranks' sections only (not rank %d's): %s", rank,
                            whole ? "ask for the sections it holds" : "that section is not loaded");
    return CLI_OK;
}

/* m: the bytes each rank sends each rank, rank-local copies on the diagonal. */
static int fill_volume_matrix(volume_matrix *m, const relay_plan *p, const plan_volumes *v, cli_error *e)
{
    if (volume_matrix_init(m, p->nranks, e)) return e->status;
    int64_t esz = (int64_t)relay_type_size(p->type);
    for (int r = 0; r < p->nranks; r++) {
        const rl_section *s = p->sections[r];
        for (int k = 0; k < s->nsend; k++) volume_matrix_add(m, r, (int)s->send[k].peer, (double)(s->send[k].elems * esz));
        volume_matrix_add(m, r, r, (double)v->per_rank[r].local_bytes);
    }
    return CLI_OK;
}

int dump_volume_matrix(const relay_plan *p, volume_matrix *m, cli_error *e)
{
    dump_request whole = {.rank = -1};
    plan_volumes v = {0};
    int status = relay_plan_get_kind(p) != RELAY_PLAN_TRANSFORM
                     ? cli_fail(e, CLI_USAGE, "a %s plan has no volume matrix (transform plans have)",
                                cli_kind_words[relay_plan_get_kind(p)])
                     : transform_check_sections(&whole, p, e);
    if (!status) status = count_volumes(p, &v, e);
    if (!status) status = fill_volume_matrix(m, p, &v, e);
    free(v.per_rank);
    return status;
}

static int write_svg(const char *out, const char *path, const relay_plan *p, const plan_volumes *v,
                     const plan_stats *measured, cli_error *e)
{
    volume_matrix m;
    if (fill_volume_matrix(&m, p, v, e)) return e->status;
    char title[512], subtitle[512];
    snprintf(title, sizeof title, "%s: bytes from sender (row) to receiver (column)", path);
    int n = snprintf(subtitle, sizeof subtitle, "%d ranks, %s remote in %lld messages, %s in total", p->nranks,
                     cli_bytes(v->bytes_remote).text, (long long)v->messages, cli_bytes(v->bytes_total).text);
    if (m.bin_ranks > 1)
        snprintf(subtitle + n, sizeof subtitle - (size_t)n, "; each cell sums %d x %d ranks", m.bin_ranks, m.bin_ranks);
    int status = heatmap_svg_write(out, &m, title, subtitle, measured ? &measured->seconds : NULL, e);
    volume_matrix_free(&m);
    return status;
}

/* ---- the request -------------------------------------------------------- */

/* --json, built on the steps of a rounds plan. */
static int print_json(const dump_request *r, const relay_plan *p, const plan_volumes *v, const plan_stats *measured,
                      cli_error *e)
{
    step_view sv;
    int rounds = p->schedule == RELAY_SCHED_ROUNDS;
    if (rounds && step_view_build(&sv, p)) return cli_fail(e, CLI_FAILED, "out of memory for the steps of %d ranks", p->nranks);
    print_json_summary(r, p, v, rounds ? &sv : NULL, measured);
    if (rounds) step_view_free(&sv);
    return CLI_OK;
}

int dump_transform(const dump_request *r, const relay_plan *p, cli_error *e)
{
    plan_volumes v = {0};
    plan_stats measured = {0};
    int status = r->stats ? plan_stats_read(&measured, r->stats, p, e) : CLI_OK;
    const plan_stats *m = r->stats ? &measured : NULL;
    if (!status && (r->rank < 0 || r->svg)) status = count_volumes(p, &v, e);
    if (!status && r->svg) status = write_svg(r->svg, r->path, p, &v, m, e);
    if (!status && r->rank >= 0) status = dump_rank_section(r, p, e); /* --rank alone: the only section loaded */
    else if (!status && r->json) status = print_json(r, p, &v, m, e);
    else if (!status) status = print_summary(r, p, &v, e);
    if (!status && m && !r->json) plan_stats_print(m, r->stats, p->nranks, r->out);
    plan_stats_free(&measured);
    free(v.per_rank);
    return status;
}
