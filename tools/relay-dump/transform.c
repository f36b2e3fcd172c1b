/* transform.c — relay-dump for transform plans: by default a summary for
 * people (kind, ranks, type, ops, layouts, sigma, volumes, the steps of a
 * rounds schedule, a per-rank table and the largest messages); --json the
 * same facts as one JSON object with the keys of SPEC section 4; --rank R
 * the detail of one rank's section (section.c); --svg a heat map of the
 * rank-to-rank volumes.  Every volume is counted here from the sections'
 * messages and lattices, independently of the statistics the planner
 * stored (only bytes_remote_identity comes from them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"

enum { TABLE_FULL_MAX = 32, TABLE_EDGE_ROWS = 8, TOP_TALKERS = 10, SIGMA_FULL_MAX = 16, PAIRS_SHOWN = 8 };

/* ---- names -------------------------------------------------------------- */

static const char *type_name(relay_type t)
{
    return t == RELAY_FLOAT ? "float" : t == RELAY_DOUBLE ? "double" : t == RELAY_CFLOAT ? "complex float" : "complex double";
}

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

static void print_sigma(const relay_plan *p)
{
    printf("  sigma      ");
    if (sigma_is_identity(p)) {
        printf("identity\n");
        return;
    }
    for (int r = 0; r < p->nranks; r++) {
        if (p->nranks > SIGMA_FULL_MAX && r == TABLE_EDGE_ROWS) {
            printf(" ...");
            r = p->nranks - 4;
        }
        printf(" %d", p->sigma[r]);
    }
    printf("\n");
}

static void print_pairs(const relay_plan *p)
{
    char desc[512];
    for (int k = 0; k < p->count && k < PAIRS_SHOWN; k++) {
        if (p->count > 1) printf("  pair %-5d op %s\n", k, cli_op_words[p->pairs[k].op]);
        else printf("  op         %s\n", cli_op_words[p->pairs[k].op]);
        describe_layout(p->pairs[k].dst, desc, sizeof desc);
        printf("  A (to)     %s\n", desc);
        describe_layout(p->pairs[k].src, desc, sizeof desc);
        printf("  B (from)   %s\n", desc);
    }
    if (p->count > PAIRS_SHOWN) printf("  ... and %d more pairs (see --json)\n", p->count - PAIRS_SHOWN);
}

/* ---- the tuning (relay_exec_tune, relay-run --tune) --------------------- */

static void choice_name(const relay_tuning_choice *c, char *out, size_t cap)
{
    snprintf(out, cap, "%s%s", cli_schedule_words[c->schedule], c->packed ? " packed" : "");
}

/* Each choice timed, its time per replay, and how much slower than the
 * best; the plan's own schedule is the one `auto` (or the planner's
 * caller) chose. */
static void print_tuning(const relay_plan *p)
{
    const relay_tuning *t = &p->tuning;
    if (!t->ntimed) return;
    const relay_tuning_choice *best = &t->choices[t->best];
    char name[32];
    choice_name(best, name, sizeof name);
    printf("  tuning     %s, timed on %d-%d ranks per node (%d replays of each; median of the slowest rank):\n", name,
           t->ranks_per_node_min, t->ranks_per_node_max, t->replays);
    for (int i = 0; i < t->ntimed; i++) {
        const relay_tuning_choice *c = &t->choices[i];
        choice_name(c, name, sizeof name);
        printf("             %-14s %10.3f ms", name, 1e3 * c->seconds);
        if (i == t->best) printf("  best");
        else if (best->seconds > 0) printf("  %+.0f%%", 100 * (c->seconds / best->seconds - 1));
        if (c->schedule == p->schedule && !c->packed) printf("  (the plan's own schedule)");
        printf("\n");
    }
}

static void json_tuning(json_writer *w, const relay_plan *p)
{
    const relay_tuning *t = &p->tuning;
    if (!t->ntimed) return;
    json_begin_object(w, "tuning");
    json_string(w, "best", cli_schedule_words[t->choices[t->best].schedule]);
    json_bool(w, "best_packed", t->choices[t->best].packed);
    json_int(w, "ranks_per_node_min", t->ranks_per_node_min);
    json_int(w, "ranks_per_node_max", t->ranks_per_node_max);
    json_int(w, "replays", t->replays);
    json_begin_array(w, "choices");
    for (int i = 0; i < t->ntimed; i++) {
        json_begin_object(w, NULL);
        json_string(w, "schedule", cli_schedule_words[t->choices[i].schedule]);
        json_bool(w, "packed", t->choices[i].packed);
        json_double(w, "seconds", t->choices[i].seconds);
        json_end_object(w);
    }
    json_end_array(w);
    json_end_object(w);
}

static void print_header(const char *path, const relay_plan *p, const plan_volumes *v)
{
    relay_plan_stats st;
    relay_plan_get_stats(p, &st);
    printf("%s: relay plan, format %d.%d, fingerprint %016llx\n", path, p->format_major, p->format_minor,
           (unsigned long long)p->fingerprint);
    printf("  kind       %s\n  ranks      %d\n  type       %s (%s, %zu bytes)\n", cli_kind_words[p->kind], p->nranks,
           cli_type_words[p->type], type_name(p->type), relay_type_size(p->type));
    print_pairs(p);
    printf("  relabel    %s\n", cli_relabel_words[p->relabel]);
    print_sigma(p);
    printf("  schedule   %s, %d round%s\n", cli_schedule_words[p->schedule], rounds_of(p), rounds_of(p) == 1 ? "" : "s");
    if (p->max_buffer_bytes)
        printf("  cap        %lld bytes (%s) of pack and of receive buffer per rank: messages in chunks\n",
               (long long)p->max_buffer_bytes, cli_bytes(p->max_buffer_bytes).text);
    print_tuning(p);
    printf("  volumes    %lld bytes total (%s), %lld remote (%s), %lld remote with identity sigma (%s)\n",
           (long long)v->bytes_total, cli_bytes(v->bytes_total).text, (long long)v->bytes_remote,
           cli_bytes(v->bytes_remote).text, (long long)st.bytes_remote_identity,
           cli_bytes(st.bytes_remote_identity).text);
    printf("             %lld messages, %lld pieces in %lld lattices\n", (long long)v->messages, (long long)v->pieces,
           (long long)v->lattices);
}

/* The columns of the per-rank table, in order. */
enum { COL_SEND_BYTES, COL_RECV_BYTES, COL_SEND_MSGS, COL_RECV_MSGS, COL_LOCAL_BYTES, NCOLS };

static void row_values(const rank_volume *v, int64_t out[NCOLS])
{
    out[COL_SEND_BYTES] = v->send_bytes;
    out[COL_RECV_BYTES] = v->recv_bytes;
    out[COL_SEND_MSGS] = v->send_msgs;
    out[COL_RECV_MSGS] = v->recv_msgs;
    out[COL_LOCAL_BYTES] = v->local_bytes;
}

static void print_row(const char *label, const int64_t values[NCOLS])
{
    printf("  %8s", label);
    for (int c = 0; c < NCOLS; c++) printf(" %13lld", (long long)values[c]);
    printf("\n");
}

static void print_rank_row(const plan_volumes *v, int r)
{
    char label[16];
    int64_t values[NCOLS];
    snprintf(label, sizeof label, "%d", r);
    row_values(&v->per_rank[r], values);
    print_row(label, values);
}

static int int64_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Rows min, median and max of every column. */
static int print_column_stats(const plan_volumes *v, int nranks, cli_error *e)
{
    int64_t *column = malloc((size_t)nranks * sizeof *column);
    if (!column) return cli_fail(e, CLI_FAILED, "out of memory");
    int64_t lo[NCOLS], mid[NCOLS], hi[NCOLS], values[NCOLS];
    for (int c = 0; c < NCOLS; c++) {
        for (int r = 0; r < nranks; r++) {
            row_values(&v->per_rank[r], values);
            column[r] = values[c];
        }
        qsort(column, (size_t)nranks, sizeof *column, int64_cmp);
        lo[c] = column[0];
        mid[c] = column[nranks / 2];
        hi[c] = column[nranks - 1];
    }
    free(column);
    print_row("min", lo);
    print_row("median", mid);
    print_row("max", hi);
    return CLI_OK;
}

static int print_rank_table(const plan_volumes *v, int nranks, cli_error *e)
{
    printf("per rank (bytes and messages of one replay)\n  %8s %13s %13s %13s %13s %13s\n", "rank", "send_bytes",
           "recv_bytes", "send_msgs", "recv_msgs", "local_bytes");
    if (nranks <= TABLE_FULL_MAX) {
        for (int r = 0; r < nranks; r++) print_rank_row(v, r);
        return CLI_OK;
    }
    for (int r = 0; r < TABLE_EDGE_ROWS; r++) print_rank_row(v, r);
    printf("  %8s   (%d ranks not shown)\n", "...", nranks - 2 * TABLE_EDGE_ROWS);
    for (int r = nranks - TABLE_EDGE_ROWS; r < nranks; r++) print_rank_row(v, r);
    return print_column_stats(v, nranks, e);
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

static void print_top_talkers(const relay_plan *p)
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
    printf("top talkers (largest messages)\n");
    if (n == 0) printf("  none: every piece stays on its rank\n");
    for (int i = 0; i < n; i++)
        printf("  %8d -> %-8d %13lld bytes (%s), %lld pieces\n", top[i].from, top[i].to, (long long)top[i].bytes,
               cli_bytes(top[i].bytes).text, (long long)top[i].pieces);
}

/* For a rounds plan: its steps, read back from the sections. */
static int print_steps(const relay_plan *p, cli_error *e)
{
    step_view sv;
    if (p->schedule != RELAY_SCHED_ROUNDS) return CLI_OK;
    if (step_view_build(&sv, p)) return cli_fail(e, CLI_FAILED, "out of memory for the steps of %d ranks", p->nranks);
    step_view_print(&sv, p, stdout);
    step_view_free(&sv);
    return CLI_OK;
}

static int print_summary(const char *path, const relay_plan *p, const plan_volumes *v, cli_error *e)
{
    print_header(path, p, v);
    if (print_steps(p, e)) return e->status;
    if (print_rank_table(v, p->nranks, e)) return e->status;
    print_top_talkers(p);
    return CLI_OK;
}

/* ---- the summary as JSON ------------------------------------------------ */

static void json_ops(json_writer *w, const relay_plan *p)
{
    if (p->count == 1) {
        json_string(w, "op", cli_op_words[p->pairs[0].op]);
        return;
    }
    json_begin_array(w, "op");
    for (int k = 0; k < p->count; k++) json_string(w, NULL, cli_op_words[p->pairs[k].op]);
    json_end_array(w);
}

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
    json_writer w = dump_json_open(p, cli_kind_words[p->kind]);
    json_string(&w, "type", cli_type_words[p->type]);
    json_ops(&w, p);
    json_string(&w, "relabel", cli_relabel_words[p->relabel]);
    dump_json_sigma(&w, r, p, p->sigma);
    json_string(&w, "schedule", cli_schedule_words[p->schedule]);
    json_int(&w, "rounds", rounds_of(p));
    json_int(&w, "max_buffer_bytes", p->max_buffer_bytes);
    json_tuning(&w, p);
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

static int write_svg(const char *out, const char *path, const relay_plan *p, const plan_volumes *v,
                     const plan_stats *measured, cli_error *e)
{
    volume_matrix m;
    if (volume_matrix_init(&m, p->nranks, e)) return e->status;
    int64_t esz = (int64_t)relay_type_size(p->type);
    for (int r = 0; r < p->nranks; r++) {
        const rl_section *s = p->sections[r];
        for (int k = 0; k < s->nsend; k++) volume_matrix_add(&m, r, (int)s->send[k].peer, (double)(s->send[k].elems * esz));
        volume_matrix_add(&m, r, r, (double)v->per_rank[r].local_bytes);
    }
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
    else if (!status) status = print_summary(r->path, p, &v, e);
    if (!status && m && !r->json) plan_stats_print(m, r->stats, p->nranks, stdout);
    plan_stats_free(&measured);
    free(v.per_rank);
    return status;
}
