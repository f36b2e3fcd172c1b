/* nd.c — relay-dump for N-D plans (kind nd): by default a summary for
 * people (kind, ranks, type; per pair its op, permutation and layouts:
 * shape, mesh and its ranks, placements, order, padding, and the nd: spec
 * that rebuilds each; the schedule, node map, volumes and a per-rank
 * table); --json the same facts with the keys every kind carries and an
 * "nd" object; --rank R one rank's transfers (nd_rank.c).
 *
 * An N-D plan is its header: each rank's messages are derived from it
 * (rl_nd_part_derive) as the executor derives them when it binds, here
 * only for the ranks shown, and only while deriving them took at most
 * DERIVE_WORK steps in all: a header of a few KB can give every rank
 * millions of transfers, and relay-dump's work stays bounded (the rows past
 * the budget are left out, and said to be).  When every rank is derived
 * the volumes are counted from the derived transfers; otherwise they are
 * the statistics the plan carries, as the file states them, and the
 * output says so. */
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "nd_layout.h"

enum { PAIRS_SHOWN = 8, SEGMENTS_SHOWN = 8, SPLITS_SHOWN = 9, SPEC_SHOWN = 400 };
#define DERIVE_WORK ((int64_t)1 << 25) /* about a second of derivation */

/* ---- a layout in words ------------------------------------------------------- */

/* Whether mesh dimension m shards in even chunks (the spec's S<k>): the
 * block relay resolves a block of 0 to. */
static int even_chunks(const relay_nd_layout *l, int m)
{
    const rl_nd_place *pl = &l->place[m];
    int64_t n = l->shape[pl->dim], p = l->mesh_shape[m];
    return !pl->splits && pl->block == (n == 0 ? 1 : (n + p - 1) / p);
}

/* The ranks in segments of consecutive ranks ("0-3,8-11"), the first
 * `shown` segments (0: all); returns whether some were left out. */
static int put_ranks(nd_text *t, const int *ranks, int64_t n, int64_t shown)
{
    int64_t segments = 0;
    for (int64_t i = 0; i < n; segments++) {
        int64_t j = i;
        while (j + 1 < n && ranks[j + 1] == ranks[j] + 1) j++;
        if (shown && segments == shown) {
            nd_put(t, ",... (%lld ranks)", (long long)n);
            return 1;
        }
        nd_put(t, j > i ? "%s%d-%d" : "%s%d", segments ? "," : "", ranks[i], ranks[j]);
        i = j + 1;
    }
    return 0;
}

static int ranks_are_first(const relay_nd_layout *l)
{
    for (int64_t i = 0; i < l->mesh_size; i++)
        if (l->mesh_ranks[i] != i) return 0;
    return 1;
}

/* S<k>, S<k>/b<B>, S<k>/<s0>|..|<sp> (the first `shown` points, 0: all), R
 * or P; returns whether points were left out. */
static int put_placement(nd_text *t, const relay_nd_layout *l, int m, int shown)
{
    const rl_nd_place *pl = &l->place[m];
    if (pl->kind != RELAY_SHARD) {
        nd_put(t, pl->kind == RELAY_REPLICATE ? "R" : "P");
        return 0;
    }
    nd_put(t, "S%d", pl->dim);
    if (!pl->splits) {
        if (!even_chunks(l, m)) nd_put(t, "/b%lld", (long long)pl->block);
        return 0;
    }
    int points = l->mesh_shape[m] + 1, listed = shown && shown < points ? shown : points;
    nd_put(t, "/");
    for (int i = 0; i < listed; i++) nd_put(t, "%s%lld", i ? "|" : "", (long long)pl->splits[i]);
    if (listed < points) nd_put(t, "|..|%lld (%d points)", (long long)pl->splits[points - 1], points);
    return listed < points;
}

static void put_placements(nd_text *t, const relay_nd_layout *l, int shown, int *cut)
{
    for (int m = 0; m < l->mesh_ndims; m++) {
        if (m) nd_put(t, ",");
        *cut |= put_placement(t, l, m, shown);
    }
}

static int padded(const relay_nd_layout *l)
{
    for (int k = 0; k < l->ndims; k++)
        if (l->padded[k]) return 1;
    return 0;
}

/* The nd: spec that rebuilds l (relay-plan's grammar, docs/cli.md), or ""
 * when it would be longer than SPEC_SHOWN characters. */
static void put_spec(nd_text *t, const relay_nd_layout *l)
{
    int cut = 0;
    size_t start = t->len;
    nd_put(t, "nd:");
    nd_put_list(t, l->shape, l->ndims, "x");
    nd_put(t, ":mesh=");
    for (int m = 0; m < l->mesh_ndims; m++) nd_put(t, "%s%d", m ? "x" : "", l->mesh_shape[m]);
    if (!ranks_are_first(l)) {
        nd_put(t, "@");
        cut |= put_ranks(t, l->mesh_ranks, l->mesh_size, 0);
    }
    nd_put(t, ":place=");
    put_placements(t, l, 0, &cut);
    nd_put(t, ":order=%s", l->order == RELAY_ROW_MAJOR ? "C" : "F");
    if (padded(l)) {
        nd_put(t, ":pad=");
        nd_put_list(t, l->padded, l->ndims, "x");
    }
    if (t->cut || cut || t->len - start > SPEC_SHOWN) t->len = start, t->s[start] = '\0', t->cut = 0;
}

static void print_layout(const char *title, const relay_nd_layout *l, FILE *out)
{
    nd_text t = {.len = 0};
    int cut = 0;
    nd_put_list(&t, l->shape, l->ndims, " x ");
    nd_put(&t, ", mesh ");
    for (int m = 0; m < l->mesh_ndims; m++) nd_put(&t, "%s%d", m ? " x " : "", l->mesh_shape[m]);
    nd_put(&t, " on ranks ");
    put_ranks(&t, l->mesh_ranks, l->mesh_size, SEGMENTS_SHOWN);
    fprintf(out, "    %-9s %s\n", title, t.s);
    t = (nd_text){.len = 0};
    nd_put(&t, "place ");
    put_placements(&t, l, SPLITS_SHOWN, &cut);
    if (rl_nd_replicas(l) > 1) nd_put(&t, ", %lld replicas", (long long)rl_nd_replicas(l));
    if (rl_nd_partial_pieces(l) > 1) nd_put(&t, ", the sum of %lld partial pieces", (long long)rl_nd_partial_pieces(l));
    nd_put(&t, ", order %s, padding ", l->order == RELAY_ROW_MAJOR ? "C" : "F");
    if (padded(l)) nd_put_list(&t, l->padded, l->ndims, "x");
    else nd_put(&t, "none");
    fprintf(out, "              %s\n", t.s);
    t = (nd_text){.len = 0};
    put_spec(&t, l);
    if (t.len) fprintf(out, "              %s\n", t.s);
}

static void print_pairs(const rl_nd_plan *nd, FILE *out)
{
    for (int k = 0; k < nd->count && k < PAIRS_SHOWN; k++) {
        const rl_nd_pair *pair = &nd->pairs[k];
        int64_t perm[RELAY_ND_MAX_DIMS];
        nd_text t = {.len = 0};
        for (int d = 0; d < pair->dst->ndims; d++) perm[d] = pair->perm[d];
        nd_put_list(&t, perm, pair->dst->ndims, ",");
        fprintf(out, "  pair %-5d op %s, perm %s (A's dimension k is B's dimension perm[k])\n", k, cli_op_words[pair->op], t.s);
        print_layout("A (to)", pair->dst, out);
        if (rl_nd_replicas(pair->dst) > 1)
            fprintf(out, "              replicas receive %s\n",
                    pair->forward ? "forwarded (one per group reads B and passes on down a binomial tree)" : "directly from B");
        print_layout("B (from)", pair->src, out);
    }
    if (nd->count > PAIRS_SHOWN) fprintf(out, "  ... and %d more pairs (see --json)\n", nd->count - PAIRS_SHOWN);
}

/* The nodes of the node map (a node index is below the rank count). */
static int64_t count_nodes(const relay_plan *p)
{
    unsigned char *seen = calloc((size_t)p->nranks, 1);
    int64_t n = 0;
    for (int r = 0; seen && r < p->nranks; r++) {
        int32_t node = p->nd->node_of_rank[r];
        if (node >= 0 && node < p->nranks && !seen[node]) seen[node] = 1, n++;
    }
    free(seen);
    return seen ? n : -1;
}

/* ---- volumes of the ranks shown ----------------------------------------------- */

typedef struct {
    int *ranks;              /* the ranks derived, nrows of them, in order */
    rank_volume *rows;
    int nrows;
    int all;                 /* every rank derived: the totals below are counted */
    int cut;                 /* rows left out: deriving them was past DERIVE_WORK */
    int64_t bytes_total, bytes_remote, messages, boxes;
} nd_volumes;

static void nd_volumes_free(nd_volumes *v)
{
    free(v->ranks);
    free(v->rows);
}

/* Which ranks to derive: the first --limit for --json; for text the ones
 * the table shows, every rank up to RANK_TABLE_FULL_MAX, else the first
 * and last RANK_TABLE_EDGE_ROWS. */
static int choose_ranks(const dump_request *r, const relay_plan *p, nd_volumes *v, cli_error *e)
{
    int n = p->nranks, edge = RANK_TABLE_EDGE_ROWS;
    v->nrows = r->json ? (int)dump_listed(r, n) : n <= RANK_TABLE_FULL_MAX ? n : 2 * edge;
    int all = v->nrows == n;
    v->ranks = malloc((size_t)v->nrows * sizeof *v->ranks);
    v->rows = calloc((size_t)v->nrows, sizeof *v->rows);
    if (!v->ranks || !v->rows) return cli_fail(e, CLI_FAILED, "out of memory for %d ranks", v->nrows);
    for (int i = 0; i < v->nrows; i++) v->ranks[i] = r->json || all || i < edge ? i : n - 2 * edge + i;
    v->all = all;
    return CLI_OK;
}

/* Derives the chosen ranks while the steps so far stay within DERIVE_WORK
 * (one rank's derivation is bounded by the library's own budget). */
static int count_nd_volumes(const dump_request *r, const relay_plan *p, nd_volumes *v, cli_error *e)
{
    int64_t work = 0, rank_work;
    if (choose_ranks(r, p, v, e)) return e->status;
    for (int i = 0; i < v->nrows; i++) {
        const rank_volume *rv = &v->rows[i];
        if (work > DERIVE_WORK) {
            v->nrows = i;
            v->all = 0;
            v->cut = 1;
            break;
        }
        if (nd_rank_volume(p, v->ranks[i], &v->rows[i], &rank_work, e)) return e->status;
        work += rank_work;
        if (rl_add_overflows(v->bytes_remote, rv->send_bytes, &v->bytes_remote) ||
            rl_add_overflows(v->bytes_total, rv->send_bytes, &v->bytes_total) ||
            rl_add_overflows(v->bytes_total, rv->local_bytes, &v->bytes_total))
            return cli_fail(e, CLI_FAILED, "the plan moves more than 2^63 - 1 bytes: relay-dump counts in 64 bits");
        v->messages += rv->send_msgs;
        v->boxes += rv->send_pieces + rv->local_pieces;
    }
    if (!v->all) {
        v->bytes_total = p->stats.bytes_total;
        v->bytes_remote = p->stats.bytes_remote;
        v->messages = p->stats.messages;
        v->boxes = p->stats.pieces;
    }
    return CLI_OK;
}

/* ---- the summary ------------------------------------------------------------ */

static void print_header(const dump_request *r, const relay_plan *p, const nd_volumes *v)
{
    FILE *out = r->out;
    summary_print_head(r->path, p, out);
    print_pairs(p->nd, out);
    fprintf(out, "  schedule   p2p, 1 round (each rank derives its messages from the header when it binds)\n");
    if (p->nd->node_of_rank)
        fprintf(out, "  node map   given: %lld nodes (guides the choice of source replicas)\n", (long long)count_nodes(p));
    else fprintf(out, "  node map   none\n");
    fprintf(out, "  volumes    %lld bytes total (%s), %lld remote (%s), %lld messages, %lld boxes%s\n", (long long)v->bytes_total,
            cli_bytes(v->bytes_total).text, (long long)v->bytes_remote, cli_bytes(v->bytes_remote).text, (long long)v->messages,
            (long long)v->boxes, v->all ? "" : " (as the file states: not every rank derived)");
    dump_print_tuning(p, out);
}

/* ---- --json ----------------------------------------------------------------- */

static void json_list(json_writer *w, const char *key, const int64_t *v, int n)
{
    json_begin_array(w, key);
    for (int i = 0; i < n; i++) json_int(w, NULL, v[i]);
    json_end_array(w);
}

static void json_placement(json_writer *w, const relay_nd_layout *l, int m)
{
    const rl_nd_place *pl = &l->place[m];
    json_begin_object(w, NULL);
    json_string(w, "kind", pl->kind == RELAY_SHARD ? "shard" : pl->kind == RELAY_REPLICATE ? "replicate" : "partial");
    if (pl->kind == RELAY_SHARD) {
        json_int(w, "dim", pl->dim);
        if (pl->splits) json_list(w, "splits", pl->splits, l->mesh_shape[m] + 1);
        else json_int(w, "block", pl->block);
    }
    json_end_object(w);
}

static void json_nd_layout(json_writer *w, const dump_request *r, const char *key, const relay_nd_layout *l)
{
    int64_t mesh[RELAY_ND_MAX_MESH], listed = dump_listed(r, l->mesh_size);
    for (int m = 0; m < l->mesh_ndims; m++) mesh[m] = l->mesh_shape[m];
    json_begin_object(w, key);
    json_list(w, "shape", l->shape, l->ndims);
    json_list(w, "mesh_shape", mesh, l->mesh_ndims);
    json_begin_array(w, "mesh_ranks");
    for (int64_t i = 0; i < listed; i++) json_int(w, NULL, l->mesh_ranks[i]);
    json_end_array(w);
    json_int(w, "mesh_ranks_left_out", l->mesh_size - listed);
    json_begin_array(w, "placements");
    for (int m = 0; m < l->mesh_ndims; m++) json_placement(w, l, m);
    json_end_array(w);
    json_string(w, "order", l->order == RELAY_ROW_MAJOR ? "C" : "F");
    json_list(w, "padded", l->padded, l->ndims);
    json_int(w, "replicas", rl_nd_replicas(l));
    json_int(w, "partial_pieces", rl_nd_partial_pieces(l));
    json_end_object(w);
}

static void json_nd(json_writer *w, const dump_request *r, const relay_plan *p, const nd_volumes *v)
{
    json_begin_object(w, "nd");
    json_begin_array(w, "pairs");
    for (int k = 0; k < p->nd->count; k++) {
        const rl_nd_pair *pair = &p->nd->pairs[k];
        int64_t perm[RELAY_ND_MAX_DIMS];
        for (int d = 0; d < pair->dst->ndims; d++) perm[d] = pair->perm[d];
        json_begin_object(w, NULL);
        json_string(w, "op", cli_op_words[pair->op]);
        json_list(w, "perm", perm, pair->dst->ndims);
        json_bool(w, "forward", pair->forward);
        json_nd_layout(w, r, "dst", pair->dst);
        json_nd_layout(w, r, "src", pair->src);
        json_end_object(w);
    }
    json_end_array(w);
    json_bool(w, "node_map", p->nd->node_of_rank != NULL);
    json_string(w, "volumes_from", v->all ? "derived" : "statistics");
    json_end_object(w);
}

static void print_json(const dump_request *r, const relay_plan *p, const nd_volumes *v)
{
    json_writer w = dump_json_open(p, "nd", r->out);
    json_string(&w, "type", cli_type_words[p->type]);
    dump_json_ops(&w, p);
    json_string(&w, "relabel", "none");
    dump_json_sigma(&w, r, p, NULL);
    json_string(&w, "schedule", "p2p");
    json_int(&w, "rounds", 1);
    dump_json_volumes(&w, v->bytes_total, v->bytes_remote, v->bytes_remote, v->messages, v->boxes);
    json_nd(&w, r, p, v);
    dump_json_tuning(&w, p);
    json_begin_array(&w, "per_rank");
    for (int i = 0; i < v->nrows; i++) {
        const rank_volume *rv = &v->rows[i];
        dump_json_rank(&w, v->ranks[i], rv->send_bytes, rv->recv_bytes, rv->send_msgs, rv->recv_msgs, rv->local_bytes);
    }
    json_end_array(&w);
    json_int(&w, "per_rank_left_out", p->nranks - v->nrows);
    json_end_object(&w);
    json_finish(&w);
}

/* ---- the request ------------------------------------------------------------ */

int dump_nd(const dump_request *r, const relay_plan *p, cli_error *e)
{
    if (r->rank >= 0) return dump_nd_rank(r, p, (int)r->rank, e);
    nd_volumes v = {0};
    int status = count_nd_volumes(r, p, &v, e);
    if (!status && r->json) print_json(r, p, &v);
    else if (!status) {
        print_header(r, p, &v);
        status = rank_table_print(v.rows, v.ranks, v.nrows, p->nranks, r->out, e);
        if (!status && v.cut) fprintf(r->out, "(ranks left out: deriving them would take more than 2^25 steps)\n");
        if (!status) fprintf(r->out, "one rank's messages: relay-dump %s --rank R\n", r->path);
    }
    nd_volumes_free(&v);
    return status;
}
