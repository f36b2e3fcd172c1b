/* index.c — relay-dump for index plans (relay/index.h): the index space and
 * the move, the volumes and the runs the planner found, the per-rank
 * table, and one rank's messages segment by segment (rank 0's after the
 * summary; --rank R: R's, from its section alone).
 *
 * Counts come from the sections, which the reader checked; a byte count
 * past 2^63 - 1 (items of huge items) is refused, not printed wrapped. */
#include <stdio.h>

#include "dump.h"
#include "index_plan.h"

static const char *const move_words[] = {"broadcast", "sum"};

/* Bytes of `items` items of the plan; CLI_FAILED past 2^63 - 1. */
static int bytes_of(const relay_plan *p, int64_t items, int64_t *bytes, cli_error *e)
{
    if (rl_mul_overflows(items, p->index->item_elems * (int64_t)relay_type_size(p->type), bytes))
        return cli_fail(e, CLI_FAILED, "the plan moves more than 2^63 - 1 bytes");
    return CLI_OK;
}

/* What a section moves, and the runs and listed items it holds (each
 * message counted at both ends, as each end walks it). */
typedef struct {
    rank_volume v;
    int64_t runs, folded, listed;
    int64_t pieces;          /* of its sends and local moves: runs and listed items */
    int64_t bytes_total;     /* the plan's sums (count_ranks): remote and local bytes */
} index_volume;

static int section_volume_of(const relay_plan *p, const rl_index_section *s, index_volume *iv, cli_error *e)
{
    int64_t b;
    *iv = (index_volume){0};
    for (int k = 0; k < s->nsend + s->nrecv; k++) {
        int sends = k < s->nsend;
        int64_t *sum = sends ? &iv->v.send_bytes : &iv->v.recv_bytes;
        if (bytes_of(p, sends ? s->send[k].items : s->recv[k - s->nsend].items, &b, e)) return e->status;
        if (rl_add_overflows(*sum, b, sum)) return cli_fail(e, CLI_FAILED, "rank %d moves more than 2^63 - 1 bytes", s->rank);
    }
    if (bytes_of(p, s->local.items, &iv->v.local_bytes, e)) return e->status;
    iv->v.send_msgs = s->nsend;
    iv->v.recv_msgs = s->nrecv;
    int64_t first_recv = s->nrecv ? s->recv[0].first : s->local.first;
    for (int64_t i = 0; i < s->nsegs; i++) {
        const rl_index_seg *g = &s->segs[i];
        iv->runs += !g->listed;
        iv->folded += !g->listed && g->outer > 1;
        if (i < first_recv || i >= s->local.first) iv->pieces += g->listed ? g->outer : 1;
    }
    iv->listed = s->nlist;
    return CLI_OK;
}

/* ---- one segment, one message --------------------------------------------- */

static void print_segment(const rl_index_section *s, const rl_index_seg *g, FILE *out)
{
    if (!g->listed && g->outer == 1) {
        fprintf(out, "      run of %lld items: from slot %lld (step %lld) to slot %lld (step %lld)\n", (long long)g->inner,
                (long long)g->from, (long long)g->from_inner, (long long)g->to, (long long)g->to_inner);
        return;
    }
    if (!g->listed) {
        fprintf(out, "      run of %lld x %lld items: from slot %lld (steps %lld, %lld) to slot %lld (steps %lld, %lld)\n",
                (long long)g->outer, (long long)g->inner, (long long)g->from, (long long)g->from_inner, (long long)g->from_outer,
                (long long)g->to, (long long)g->to_inner, (long long)g->to_outer);
        return;
    }
    fprintf(out, "      %lld listed items (from -> to):", (long long)g->outer);
    int64_t shown = g->outer < 8 ? g->outer : 8;
    for (int64_t k = 0; k < shown; k++)
        fprintf(out, " %lld->%lld", (long long)s->list[2 * (g->from + k)], (long long)s->list[2 * (g->from + k) + 1]);
    fprintf(out, "%s\n", shown < g->outer ? " ..." : "");
}

static void print_message(const dump_request *r, const rl_index_section *s, const rl_index_msg *m,
                          const char *how, FILE *out)
{
    fprintf(out, "    %s %lld: %lld items, %lld segments\n", how, (long long)m->peer, (long long)m->items, (long long)m->count);
    int64_t shown = dump_listed(r, m->count) < 64 ? dump_listed(r, m->count) : 64;
    for (int64_t i = 0; i < shown; i++) print_segment(s, &s->segs[m->first + i], out);
    if (shown < m->count) fprintf(out, "      ... %lld segments not shown\n", (long long)(m->count - shown));
}

static void print_rank(const dump_request *r, const relay_plan *p, int rank, FILE *out)
{
    const rl_index_section *s = p->index->sections[rank];
    int sum = p->index->move == RELAY_INDEX_REDUCE_SUM;
    fprintf(out, "rank %d: %lld owner slots, %lld holder slots; %d sends, %d receives%s\n", rank,
            (long long)p->index->owner_slots[rank], (long long)p->index->holder_slots[rank], s->nsend, s->nrecv,
            sum ? " (added in peer order, the local moves at this rank's place)" : "");
    for (int k = 0; k < s->nsend; k++) print_message(r, s, &s->send[k], "to", out);
    for (int k = 0; k < s->nrecv; k++) print_message(r, s, &s->recv[k], "from", out);
    if (s->local.count) print_message(r, s, &s->local, "local, rank", out);
}

static void json_segment(json_writer *w, const dump_request *r, const rl_index_section *s, const rl_index_seg *g)
{
    json_begin_object(w, NULL);
    if (g->listed) {
        int64_t listed = dump_listed(r, g->outer);
        json_begin_array(w, "listed");
        for (int64_t k = g->from; k < g->from + listed; k++) {
            json_begin_array(w, NULL);
            json_int(w, NULL, s->list[2 * k]);
            json_int(w, NULL, s->list[2 * k + 1]);
            json_end_array(w);
        }
        json_end_array(w);
        json_int(w, "listed_left_out", g->outer - listed);
    } else {
        const int64_t v[] = {g->outer, g->inner, g->from, g->from_inner, g->from_outer, g->to, g->to_inner, g->to_outer};
        static const char *const keys[] = {"outer", "inner", "from", "from_inner", "from_outer", "to", "to_inner", "to_outer"};
        for (int i = 0; i < 8; i++) json_int(w, keys[i], v[i]);
    }
    json_end_object(w);
}

static void json_messages(json_writer *w, const dump_request *r, const rl_index_section *s, const char *key,
                          const rl_index_msg *m, int n)
{
    json_begin_array(w, key);
    for (int k = 0; k < n; k++) {
        json_begin_object(w, NULL);
        json_int(w, "peer", m[k].peer);
        json_int(w, "items", m[k].items);
        int64_t listed = dump_listed(r, m[k].count);
        json_begin_array(w, "segments");
        for (int64_t i = 0; i < listed; i++) json_segment(w, r, s, &s->segs[m[k].first + i]);
        json_end_array(w);
        json_int(w, "segments_left_out", m[k].count - listed);
        json_end_object(w);
    }
    json_end_array(w);
}

static int dump_index_rank(const dump_request *r, const relay_plan *p, int rank, cli_error *e)
{
    const rl_index_section *s = p->index->sections[rank];
    index_volume iv;
    if (section_volume_of(p, s, &iv, e)) return e->status;
    if (!r->json) {
        print_rank(r, p, rank, r->out);
        return CLI_OK;
    }
    json_writer w = json_start(r->out);
    json_begin_object(&w, NULL);
    json_int(&w, "rank", rank);
    json_int(&w, "owner_slots", p->index->owner_slots[rank]);
    json_int(&w, "holder_slots", p->index->holder_slots[rank]);
    json_messages(&w, r, s, "send", s->send, s->nsend);
    json_messages(&w, r, s, "recv", s->recv, s->nrecv);
    json_messages(&w, r, s, "local", &s->local, 1);
    json_end_object(&w);
    json_finish(&w);
    return CLI_OK;
}

/* ---- the whole plan --------------------------------------------------------- */

/* Every rank's volumes, and in *all their sums: what the sections move,
 * counted here rather than taken from the file's statistics. */
static int count_ranks(const relay_plan *p, index_volume *rows, index_volume *all, cli_error *e)
{
    *all = (index_volume){0};
    for (int r = 0; r < p->nranks; r++) {
        const index_volume *v = &rows[r];
        if (section_volume_of(p, p->index->sections[r], &rows[r], e)) return e->status;
        if (rl_add_overflows(all->v.send_bytes, v->v.send_bytes, &all->v.send_bytes) ||
            rl_add_overflows(all->v.local_bytes, v->v.local_bytes, &all->v.local_bytes) ||
            rl_add_overflows(all->v.local_bytes, all->v.send_bytes, &all->bytes_total))
            return cli_fail(e, CLI_FAILED, "the plan moves more than 2^63 - 1 bytes");
        all->v.send_msgs += v->v.send_msgs;
        all->runs += v->runs;
        all->folded += v->folded;
        all->listed += v->listed;
        all->pieces += v->pieces;
    }
    return CLI_OK;
}

static void print_summary(const dump_request *r, const relay_plan *p, const index_volume *all, FILE *out)
{
    const rl_index_plan *x = p->index;
    summary_print_head(r->path, p, out);
    fprintf(out, "  move       %s (%s)\n", move_words[x->move],
            x->move == RELAY_INDEX_BROADCAST ? "each owner's item to every slot that holds it"
                                             : "every holder slot added into its owner's, in (rank, slot) order");
    fprintf(out, "  items      %lld of %lld elements\n", (long long)x->items, (long long)x->item_elems);
    fprintf(out, "volumes (one replay, counted from the sections)\n  bytes_total   %lld (%s)\n  bytes_remote  %lld (%s)\n"
            "  messages      %lld\n", (long long)all->bytes_total, cli_bytes(all->bytes_total).text,
            (long long)all->v.send_bytes, cli_bytes(all->v.send_bytes).text, (long long)all->v.send_msgs);
    fprintf(out, "runs found (both ends of each message): %lld runs, %lld of them runs of runs; %lld items listed\n",
            (long long)all->runs, (long long)all->folded, (long long)all->listed);
}

static void print_json(const dump_request *r, const relay_plan *p, const index_volume *rows, const index_volume *all)
{
    json_writer w = dump_json_open(p, "index", r->out);
    json_string(&w, "type", cli_type_words[p->type]);
    json_string(&w, "move", move_words[p->index->move]);
    json_int(&w, "items", p->index->items);
    json_int(&w, "item_elems", p->index->item_elems);
    dump_json_volumes(&w, all->bytes_total, all->v.send_bytes, all->v.send_bytes, all->v.send_msgs, all->pieces);
    json_int(&w, "runs", all->runs);
    json_int(&w, "runs_of_runs", all->folded);
    json_int(&w, "listed_items", all->listed);
    int64_t listed = dump_listed(r, p->nranks);
    json_begin_array(&w, "per_rank");
    for (int64_t k = 0; k < listed; k++) {
        const rank_volume *v = &rows[k].v;
        dump_json_rank(&w, (int)k, v->send_bytes, v->recv_bytes, v->send_msgs, v->recv_msgs, v->local_bytes);
    }
    json_end_array(&w);
    json_int(&w, "per_rank_left_out", p->nranks - listed);
    json_end_object(&w);
    json_finish(&w);
}

int dump_index(const dump_request *r, const relay_plan *p, cli_error *e)
{
    if (r->rank >= 0) return dump_index_rank(r, p, (int)r->rank, e);
    index_volume *rows = malloc((size_t)p->nranks * sizeof *rows), all = {0};
    rank_volume *table = malloc((size_t)p->nranks * sizeof *table);
    int status = rows && table ? count_ranks(p, rows, &all, e) : cli_fail(e, CLI_FAILED, "out of memory");
    if (!status && r->json) print_json(r, p, rows, &all);
    if (!status && !r->json) {
        print_summary(r, p, &all, r->out);
        for (int k = 0; k < p->nranks; k++) table[k] = rows[k].v;
        status = rank_table_print(table, NULL, p->nranks, p->nranks, r->out, e);
        if (!status) print_rank(r, p, 0, r->out);
    }
    free(rows);
    free(table);
    return status;
}
