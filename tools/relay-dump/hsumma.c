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

static void print_dist(const relay_hsumma_params *hp)
{
    if (hp->dist == RELAY_HSUMMA_CHECKERBOARD) printf("block-checkerboard (one contiguous block per rank)");
    else printf("block-cyclic, %lld x %lld blocks", (long long)hp->dist_block, (long long)hp->dist_block);
}

/* The model's time for every grouping, best first marked. */
static void print_model(const relay_hsumma_params *hp)
{
    const relay_hsumma_network *net = &hp->network;
    int bi, bj;
    if (relay_hsumma_best_groups(hp, net, &bi, &bj)) return;
    printf("\ncost model (section IV, %s broadcasts, alpha %.3g s, beta %.3g s/byte): communication per replay\n",
           bcast_names[net->bcast], net->alpha, net->beta);
    printf("  %8s %8s %12s %12s %12s\n", "groups", "G", "latency s", "bandwidth s", "total s");
    for (int I = 0, J = 0; rl_hsumma_next_grouping(hp, &I, &J);) {
        double t, lat, bw;
        relay_hsumma_model(hp, I, J, net, &t, &lat, &bw);
        printf("  %4dx%-3d %8lld %12.4g %12.4g %12.4g%s\n", I, J, (long long)I * J, lat, bw, t,
               I == bi && J == bj ? "  <- best" : "");
    }
}

static void print_summary(const char *path, const relay_plan *p, const relay_hsumma_info *info)
{
    const relay_hsumma_params *hp = &info->params;
    printf("%s: HSUMMA plan, format %d.%d, fingerprint %016llx\n", path, p->format_major, p->format_minor,
           (unsigned long long)p->fingerprint);
    printf("  C := alpha A B + beta C, C %lld x %lld, k = %lld, type %s\n", (long long)hp->m, (long long)hp->n, (long long)hp->k,
           cli_type_words[hp->type]);
    printf("  grid %d x %d (%d ranks, rank = row * %d + column); distribution ", hp->grid_rows, hp->grid_cols, p->nranks,
           hp->grid_cols);
    print_dist(hp);
    if (hp->group_rows)
        printf("\n  groups %d x %d (G = %lld, %s) of %d x %d ranks%s\n", hp->group_rows, hp->group_cols,
               (long long)hp->group_rows * hp->group_cols, from_names[info->groups_from], hp->grid_rows / hp->group_rows,
               hp->grid_cols / hp->group_cols,
               hp->group_rows * hp->group_cols == 1 || (hp->group_rows == hp->grid_rows && hp->group_cols == hp->grid_cols)
                   ? " (plain SUMMA)" : "");
    else printf("\n  groups chosen at bind: the cost model with alpha and beta measured by ping-pong\n");
    printf("  outer block B = %lld, inner block b = %lld: %lld outer and %lld inner steps per replay\n",
           (long long)hp->outer_block, (long long)hp->inner_block, (long long)info->outer_steps, (long long)info->inner_steps);
    printf("volumes (a broadcast counted once per receiving rank%s): %lld bytes total, %lld bytes remote, %lld messages\n",
           hp->group_rows ? "" : ", groups as SUMMA", (long long)p->stats.bytes_total, (long long)p->stats.bytes_remote,
           (long long)p->stats.messages);
    if (hp->network.alpha > 0 && hp->network.beta > 0) print_model(hp);
}

static void print_rank(const relay_plan *p, int rank)
{
    const relay_hsumma_params *hp = &p->hsumma->params;
    rl_hsumma_place pl;
    rl_hsumma_traffic t;
    rl_hsumma_place_of(hp, hp->group_rows, hp->group_cols, rank, &pl);
    rl_hsumma_rank_traffic(hp, rank, &t);
    printf("rank %d: grid (%d, %d), group (%d, %d), place (%d, %d) in its group%s\n", rank, pl.row, pl.col, pl.x, pl.y, pl.i,
           pl.j, hp->group_rows ? "" : " (groups as SUMMA until bind)");
    printf("  holds A %lld, B %lld, C %lld elements\n", (long long)rl_hsumma_local_elems(hp, 0, rank),
           (long long)rl_hsumma_local_elems(hp, 1, rank), (long long)rl_hsumma_local_elems(hp, 2, rank));
    printf("  per replay: sends %lld bytes in %lld messages, receives %lld bytes in %lld, copies %lld bytes of its panels\n",
           (long long)t.send_bytes, (long long)t.send_msgs, (long long)t.recv_bytes, (long long)t.recv_msgs,
           (long long)t.local_bytes);
}

/* One rank's traffic as a per_rank entry (SPEC section 4). */
static void json_traffic(json_writer *w, int rank, const rl_hsumma_traffic *t)
{
    dump_json_rank(w, rank, t->send_bytes, t->recv_bytes, t->send_msgs, t->recv_msgs, t->local_bytes);
}

/* Every grid column's traffic of A's panels and every grid row's of B's:
 * per_rank from one walk per line, not one per rank. */
typedef struct {
    rl_hsumma_traffic *cols, *rows;
} line_traffic;

static int count_lines(const relay_hsumma_params *hp, line_traffic *l, cli_error *e)
{
    l->cols = malloc((size_t)hp->grid_cols * sizeof *l->cols);
    l->rows = malloc((size_t)hp->grid_rows * sizeof *l->rows);
    if (!l->cols || !l->rows) return cli_fail(e, CLI_FAILED, "out of memory for the traffic of a %d x %d grid", hp->grid_rows, hp->grid_cols);
    for (int c = 0; c < hp->grid_cols; c++) rl_hsumma_line_traffic(hp, 0, c, &l->cols[c]);
    for (int r = 0; r < hp->grid_rows; r++) rl_hsumma_line_traffic(hp, 1, r, &l->rows[r]);
    return CLI_OK;
}

static void json_per_rank(json_writer *w, const relay_plan *p, const line_traffic *l)
{
    const relay_hsumma_params *hp = &p->hsumma->params;
    json_begin_array(w, "per_rank");
    for (int r = 0; r < p->nranks; r++) {
        rl_hsumma_traffic t;
        rl_hsumma_combine_traffic(hp, r, &l->cols[r % hp->grid_cols], &l->rows[r / hp->grid_cols], &t);
        json_traffic(w, r, &t);
    }
    json_end_array(w);
}

static int print_json(const relay_plan *p, const relay_hsumma_info *info, cli_error *e)
{
    const relay_hsumma_params *hp = &info->params;
    line_traffic lines = {0};
    int status = count_lines(hp, &lines, e);
    if (status) {
        free(lines.cols);
        free(lines.rows);
        return status;
    }
    const relay_plan_stats *st = &p->stats;
    json_writer w = dump_json_open(p, "hsumma");
    dump_json_no_relabel(&w, p, cli_type_words[hp->type], "broadcasts", p->rounds);
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
    json_per_rank(&w, p, &lines);
    json_end_object(&w);
    json_finish(&w);
    free(lines.cols);
    free(lines.rows);
    return CLI_OK;
}

int dump_hsumma(const dump_request *r, const relay_plan *p, cli_error *e)
{
    relay_hsumma_info info;
    relay_status st = relay_plan_hsumma_info(p, &info);
    if (st) return cli_fail_relay(e, CLI_FAILED, st, r->path);
    if (r->json && r->rank < 0) return print_json(p, &info, e);
    if (r->json) {
        rl_hsumma_traffic t;
        rl_hsumma_rank_traffic(&info.params, (int)r->rank, &t);
        json_writer w = json_start(stdout);
        json_traffic(&w, (int)r->rank, &t);
        json_finish(&w);
        return CLI_OK;
    }
    if (r->rank < 0) {
        print_summary(r->path, p, &info);
        printf("\n");
    }
    print_rank(p, r->rank < 0 ? 0 : (int)r->rank);
    return CLI_OK;
}
