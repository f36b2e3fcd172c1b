/* hsumma.c — relay-dump for SUMMA/HSUMMA plans: the product, the grid
 * and its groups, the steps, the volumes, one rank's place and traffic,
 * and, when the plan carries network parameters, the cost model's time for
 * every grouping the grid allows.
 *
 * Per-rank volumes are derived here from the parameters
 * (rl_hsumma_rank_traffic), not read from the planner's statistics. */
#include <stdio.h>
#include <stdlib.h>

#include "dump.h"
#include "hsumma_dist.h"

static const char *const from_names[] = {"given", "model", "at bind", "autotune"};
static const char *const bcast_names[] = {"Van de Geijn", "binomial"};

static void print_dist(const relay_hsumma_params *hp, FILE *out)
{
    if (hp->dist == RELAY_HSUMMA_CHECKERBOARD) fprintf(out, "block-checkerboard (one contiguous block per rank)");
    else fprintf(out, "block-cyclic, %lld x %lld blocks", (long long)hp->dist_block, (long long)hp->dist_block);
}

/* The model's time for every grouping, best first marked. */
static void print_model(const relay_hsumma_params *hp, FILE *out)
{
    const relay_hsumma_network *net = &hp->network;
    int bi, bj;
    if (relay_hsumma_best_groups(hp, net, &bi, &bj)) return;
    fprintf(out, "\ncost model (section IV, %s broadcasts, alpha %.3g s, beta %.3g s/byte): communication per replay\n",
            bcast_names[net->bcast], net->alpha, net->beta);
    fprintf(out, "  %8s %8s %12s %12s %12s\n", "groups", "G", "latency s", "bandwidth s", "total s");
    for (int I = 0, J = 0; rl_hsumma_next_grouping(hp, &I, &J);) {
        double t, lat, bw;
        relay_hsumma_model(hp, I, J, net, &t, &lat, &bw);
        fprintf(out, "  %4dx%-3d %8lld %12.4g %12.4g %12.4g%s\n", I, J, (long long)I * J, lat, bw, t,
                I == bi && J == bj ? "  <- best" : "");
    }
}

static void print_summary(const dump_request *r, const relay_plan *p, const relay_hsumma_info *info)
{
    const relay_hsumma_params *hp = &info->params;
    FILE *out = r->out;
    fprintf(out, "%s: HSUMMA plan, format %d.%d, fingerprint %016llx\n", r->path, p->format_major, p->format_minor,
            (unsigned long long)p->fingerprint);
    fprintf(out, "  C := alpha A B + beta C, C %lld x %lld, k = %lld, type %s\n", (long long)hp->m, (long long)hp->n,
            (long long)hp->k, cli_type_words[hp->type]);
    fprintf(out, "  grid %d x %d (%d ranks, rank = row * %d + column); distribution ", hp->grid_rows, hp->grid_cols, p->nranks,
            hp->grid_cols);
    print_dist(hp, out);
    if (hp->group_rows)
        fprintf(out, "\n  groups %d x %d (G = %lld, %s) of %d x %d ranks%s\n", hp->group_rows, hp->group_cols,
                (long long)hp->group_rows * hp->group_cols, from_names[info->groups_from], hp->grid_rows / hp->group_rows,
                hp->grid_cols / hp->group_cols,
                hp->group_rows * hp->group_cols == 1 || (hp->group_rows == hp->grid_rows && hp->group_cols == hp->grid_cols)
                    ? " (plain SUMMA)" : "");
    else fprintf(out, "\n  groups chosen at bind: the cost model with alpha and beta measured by ping-pong\n");
    fprintf(out, "  outer block B = %lld, inner block b = %lld: %lld outer and %lld inner steps per replay\n",
            (long long)hp->outer_block, (long long)hp->inner_block, (long long)info->outer_steps, (long long)info->inner_steps);
    fprintf(out, "volumes (a broadcast counted once per receiving rank%s): %lld bytes total, %lld bytes remote, %lld messages\n",
            hp->group_rows ? "" : ", groups as SUMMA", (long long)p->stats.bytes_total, (long long)p->stats.bytes_remote,
            (long long)p->stats.messages);
    if (hp->network.alpha > 0 && hp->network.beta > 0) print_model(hp, out);
}

static void print_rank(const relay_plan *p, int rank, FILE *out)
{
    const relay_hsumma_params *hp = &p->hsumma->params;
    rl_hsumma_place pl;
    rl_hsumma_traffic t;
    rl_hsumma_place_of(hp, hp->group_rows, hp->group_cols, rank, &pl);
    rl_hsumma_rank_traffic(hp, rank, &t);
    fprintf(out, "rank %d: grid (%d, %d), group (%d, %d), place (%d, %d) in its group%s\n", rank, pl.row, pl.col, pl.x, pl.y,
            pl.i, pl.j, hp->group_rows ? "" : " (groups as SUMMA until bind)");
    fprintf(out, "  holds A %lld, B %lld, C %lld elements\n", (long long)rl_hsumma_local_elems(hp, 0, rank),
            (long long)rl_hsumma_local_elems(hp, 1, rank), (long long)rl_hsumma_local_elems(hp, 2, rank));
    fprintf(out,
            "  per replay: sends %lld bytes in %lld messages, receives %lld bytes in %lld, copies %lld bytes of its panels\n",
            (long long)t.send_bytes, (long long)t.send_msgs, (long long)t.recv_bytes, (long long)t.recv_msgs,
            (long long)t.local_bytes);
}

/* One rank's traffic as a per_rank entry of --json. */
static void json_traffic(json_writer *w, int rank, const rl_hsumma_traffic *t)
{
    dump_json_rank(w, rank, t->send_bytes, t->recv_bytes, t->send_msgs, t->recv_msgs, t->local_bytes);
}

/* ---- per_rank: the first listed ranks, from one walk over the steps ---------
 *
 * A rank's traffic is its grid column's (A's panels) and its grid row's
 * (B's) scaled by its panel sizes (rl_hsumma_combine_traffic).  A line's
 * traffic depends on each step only through the line that owns the step's
 * panel: the line itself (it copies the panel and sends it to the other
 * groups), a line at the same place in another group (it receives the
 * panel once and passes it on inside its group), or any other line (it
 * receives the panel in the inner steps' pieces).  So one walk sums the
 * steps per owning line and per place in a group, and every listed line's
 * traffic follows: O(steps + listed ranks), where a walk per line would be
 * O(steps x lines) (minutes for a 398-byte plan on a 64 x 64 grid). */

/* Steps whose panel one line owns, or a set of lines owns. */
typedef struct {
    int64_t width, inner, steps;   /* k indices, inner steps, outer steps */
} panel_sum;

static void add_step(panel_sum *sum, int64_t width, int64_t inner)
{
    sum->width += width;
    sum->inner += inner;
    sum->steps++;
}

/* The sums for lines [0, nlines) of one direction (columns for A's panels,
 * rows for B's) and for the places [0, nplaces) in a group. */
typedef struct {
    int nlines, nplaces;     /* listed lines, and their places in a group */
    int outer_size, in_size; /* groups along the line, and lines per group */
    panel_sum *line, *place, all;
} line_sums;

static int line_sums_init(line_sums *l, int nlines, int outer_size, int in_size)
{
    *l = (line_sums){nlines, nlines < in_size ? nlines : in_size, outer_size, in_size, NULL, NULL, {0}};
    l->line = calloc((size_t)nlines, sizeof *l->line);
    l->place = calloc((size_t)l->nplaces, sizeof *l->place);
    return l->line && l->place ? 0 : -1;
}

static void line_sums_free(line_sums *l)
{
    free(l->line);
    free(l->place);
}

static void line_sums_add(line_sums *l, int owner, int64_t width, int64_t inner)
{
    add_step(&l->all, width, inner);
    if (owner < l->nlines) add_step(&l->line[owner], width, inner);
    if (owner % l->in_size < l->nplaces) add_step(&l->place[owner % l->in_size], width, inner);
}

/* Line c's traffic per byte of a panel row or column (as rl_hsumma_line_traffic). */
static void line_traffic(const line_sums *l, int c, rl_hsumma_traffic *t)
{
    const panel_sum *own = &l->line[c], *place = &l->place[c % l->in_size];
    panel_sum peer = {place->width - own->width, place->inner - own->inner, place->steps - own->steps};
    int64_t other_width = l->all.width - place->width, other_inner = l->all.inner - place->inner;
    t->local_bytes = own->width;
    t->send_bytes = own->width * (l->outer_size - 1) + place->width * (l->in_size - 1);
    t->send_msgs = own->steps * (l->outer_size - 1) + place->inner * (l->in_size - 1);
    t->recv_bytes = peer.width + other_width;
    t->recv_msgs = peer.steps + other_inner;
}

static int json_per_rank(json_writer *w, const dump_request *r, const relay_plan *p, cli_error *e)
{
    const relay_hsumma_params *hp = &p->hsumma->params;
    int64_t listed = dump_listed(r, p->nranks);
    int ncols = (int)(listed < hp->grid_cols ? listed : hp->grid_cols), nrows = (int)((listed + hp->grid_cols - 1) / hp->grid_cols);
    rl_hsumma_place pl;
    rl_hsumma_place_of(hp, hp->group_rows, hp->group_cols, 0, &pl);
    line_sums cols, rows;
    int status = line_sums_init(&cols, ncols, pl.group_cols, pl.in_cols) | line_sums_init(&rows, nrows, pl.group_rows, pl.in_rows);
    if (status) status = cli_fail(e, CLI_FAILED, "out of memory for the traffic of %lld ranks", (long long)listed);
    rl_hsumma_dims d;
    rl_outer_step s;
    rl_hsumma_dims_of(hp, &d);
    for (int64_t k0 = 0; !status && k0 < hp->k; k0 = s.k1) {
        rl_hsumma_outer_step(hp, &d, k0, &s);
        line_sums_add(&cols, s.a_col, s.k1 - s.k0, rl_hsumma_inner_count(hp, &s));
        line_sums_add(&rows, s.b_row, s.k1 - s.k0, rl_hsumma_inner_count(hp, &s));
    }
    json_begin_array(w, "per_rank");
    for (int rank = 0; !status && rank < listed; rank++) {
        rl_hsumma_traffic a, b, t;
        line_traffic(&cols, rank % hp->grid_cols, &a);
        line_traffic(&rows, rank / hp->grid_cols, &b);
        rl_hsumma_combine_traffic(hp, rank, &a, &b, &t);
        json_traffic(w, rank, &t);
    }
    json_end_array(w);
    json_int(w, "per_rank_left_out", p->nranks - listed);
    line_sums_free(&cols);
    line_sums_free(&rows);
    return status;
}

static int print_json(const dump_request *r, const relay_plan *p, const relay_hsumma_info *info, cli_error *e)
{
    const relay_hsumma_params *hp = &info->params;
    const relay_plan_stats *st = &p->stats;
    json_writer w = dump_json_open(p, "hsumma", r->out);
    dump_json_no_relabel(&w, r, p, cli_type_words[hp->type], "broadcasts", p->rounds);
    dump_json_volumes(&w, st->bytes_total, st->bytes_remote, st->bytes_remote_identity, st->messages, st->pieces);
    json_begin_object(&w, "hsumma");
    json_int(&w, "m", hp->m);
    json_int(&w, "n", hp->n);
    json_int(&w, "k", hp->k);
    json_int(&w, "grid_rows", hp->grid_rows);
    json_int(&w, "grid_cols", hp->grid_cols);
    json_int(&w, "group_rows", hp->group_rows);
    json_int(&w, "group_cols", hp->group_cols);
    json_string(&w, "groups_from", from_names[info->groups_from]);
    json_int(&w, "inner_block", hp->inner_block);
    json_int(&w, "outer_block", hp->outer_block);
    json_string(&w, "dist", hp->dist == RELAY_HSUMMA_CHECKERBOARD ? "checkerboard" : "block-cyclic");
    json_int(&w, "dist_block", hp->dist_block);
    json_int(&w, "outer_steps", info->outer_steps);
    json_int(&w, "inner_steps", info->inner_steps);
    json_double(&w, "net_alpha", hp->network.alpha);
    json_double(&w, "net_beta", hp->network.beta);
    json_string(&w, "bcast_model", cli_bcast_words[hp->network.bcast]);
    json_end_object(&w);
    int status = json_per_rank(&w, r, p, e);
    json_end_object(&w);
    json_finish(&w);
    return status;
}

int dump_hsumma(const dump_request *r, const relay_plan *p, cli_error *e)
{
    relay_hsumma_info info;
    relay_status st = relay_plan_hsumma_info(p, &info);
    if (st) return cli_fail_relay(e, CLI_FAILED, st, r->path);
    if (r->json && r->rank < 0) return print_json(r, p, &info, e);
    if (r->json) {
        rl_hsumma_traffic t;
        rl_hsumma_rank_traffic(&info.params, (int)r->rank, &t);
        json_writer w = json_start(r->out);
        json_traffic(&w, (int)r->rank, &t);
        json_finish(&w);
        return CLI_OK;
    }
    if (r->rank < 0) {
        print_summary(r, p, &info);
        fputc('\n', r->out);
    }
    print_rank(p, r->rank < 0 ? 0 : (int)r->rank, r->out);
    return CLI_OK;
}
