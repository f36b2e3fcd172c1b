/* nd_rank.c — one rank of an N-D plan in relay-dump (see dump.h): its
 * volumes in one replay (the summary's table and per_rank), and --rank R:
 * its buffers and place on each pair's meshes, then its transfers,
 * derived from the header with rl_nd_part_derive as the executor derives
 * them: those it makes to itself, and those it sends and receives grouped
 * into messages as the executor sends them (one per peer of those read
 * from B, one per transfer passed on).  A transfer moves one pair's elements between
 * two ranks as the product of run lists along A's dimensions; each shows
 * its pair, elements, bytes, runs per dimension, the partial piece it
 * carries and, for what the rank receives, the source replica it is read
 * from.  Text and --json list the first --limit messages of each direction
 * and the first --limit local transfers; text shows 64 transfers a message. */
#include <stdlib.h>

#include "dump.h"
#include "nd_layout.h"
#include "nd_transfers.h"

enum { TRANSFERS_SHOWN = 64 };

/* ---- counting ---------------------------------------------------------------- */

static int64_t boxes_of(const relay_plan *p, const rl_nd_transfer *t)
{
    int64_t boxes = 1;
    for (int k = 0; k < p->nd->pairs[t->pair].dst->ndims; k++) boxes *= rl_nd_transfer_runs(t, k);
    return boxes;
}

/* The end of the message that starts at transfer i, as the executor groups
 * them (executor/nd/nd_messages.c): a peer's transfers read from B travel
 * as one message, each one a replica passes on as a message of its own
 * (the list is sorted by peer, those read from B first). */
static int64_t message_end(const rl_nd_transfer *t, int64_t n, int64_t i)
{
    int64_t j = i + 1;
    while (!rl_nd_forwarded(&t[i]) && j < n && t[j].peer == t[i].peer && !rl_nd_forwarded(&t[j])) j++;
    return j;
}

/* Bytes, boxes and messages of one of rank's lists; CLI_FAILED when the
 * bytes overflow. */
static int sum_list(const relay_plan *p, int rank, const rl_nd_transfer *t, int64_t n, int64_t *bytes, int64_t *boxes,
                    int64_t *msgs, cli_error *e)
{
    int64_t esz = (int64_t)relay_type_size(p->type), b;
    *bytes = *boxes = *msgs = 0;
    for (int64_t i = 0; i < n; i++) {
        if (rl_mul_overflows(t[i].elems, esz, &b) || rl_add_overflows(*bytes, b, bytes))
            return cli_fail(e, CLI_FAILED, "rank %d moves more than 2^63 - 1 bytes: relay-dump counts in 64 bits", rank);
        *boxes += boxes_of(p, &t[i]);
    }
    for (int64_t i = 0; i < n; i = message_end(t, n, i)) ++*msgs;
    return CLI_OK;
}

static int part_volume(const relay_plan *p, const rl_nd_part *part, rank_volume *v, cli_error *e)
{
    int64_t local_msgs;
    *v = (rank_volume){0};
    if (sum_list(p, part->rank, part->send, part->nsend, &v->send_bytes, &v->send_pieces, &v->send_msgs, e) ||
        sum_list(p, part->rank, part->recv, part->nrecv, &v->recv_bytes, &v->recv_pieces, &v->recv_msgs, e) ||
        sum_list(p, part->rank, part->local, part->nlocal, &v->local_bytes, &v->local_pieces, &local_msgs, e))
        return e->status;
    v->send_lattices = part->nsend;
    v->recv_lattices = part->nrecv;
    v->local_lattices = part->nlocal;
    return CLI_OK;
}

static int derive(const relay_plan *p, int rank, rl_nd_part *part, cli_error *e)
{
    relay_status st = rl_nd_part_derive(part, p, rank, RL_ND_SENDS | RL_ND_RECEIVES);
    if (!st) return CLI_OK;
    char what[64];
    snprintf(what, sizeof what, "rank %d's transfers", rank);
    return cli_fail_relay(e, CLI_FAILED, st, what);
}

int nd_rank_volume(const relay_plan *p, int rank, rank_volume *v, int64_t *work, cli_error *e)
{
    rl_nd_part part;
    if (derive(p, rank, &part, e)) return e->status;
    int status = part_volume(p, &part, v, e);
    *work = part.work + part.nsend + part.nrecv + part.nlocal;
    rl_nd_part_free(&part);
    return status;
}

/* ---- where a transfer comes from -------------------------------------------- */

/* The rank's coordinates along the mesh dimensions of one placement kind
 * as one number, in mesh order, the last fastest (as relay numbers
 * replicas and partial pieces); -1 when the rank is not on the mesh. */
static int64_t mesh_index(const relay_nd_layout *l, int rank, relay_placement_kind kind)
{
    int64_t at = rl_nd_position_of(l, rank), index = 0;
    int coords[RELAY_ND_MAX_MESH];
    if (at < 0) return -1;
    rl_nd_mesh_coords(l, at, coords);
    for (int m = 0; m < l->mesh_ndims; m++)
        if (l->place[m].kind == kind) index = index * l->mesh_shape[m] + coords[m];
    return index;
}

/* Which replica of its group a source rank holds. */
static int64_t replica_index(const relay_nd_layout *src, int rank) { return mesh_index(src, rank, RELAY_REPLICATE); }

/* For what is passed on by a replica of A, the rank that read it from B;
 * "replica i of n at B's mesh (..)" for what is read from `from` (or
 * that rank), and "piece q of P"; "-" when there is nothing to say. */
static void put_source(nd_text *t, const relay_plan *p, const rl_nd_transfer *x, int from, int receiving)
{
    const relay_nd_layout *src = p->nd->pairs[x->pair].src;
    int64_t replicas = rl_nd_replicas(src), pieces = rl_nd_partial_pieces(src);
    if (rl_nd_forwarded(x)) {
        nd_put(t, "passed on, read by rank %d", x->origin);
        from = x->origin;
    }
    if (receiving && replicas > 1) {
        nd_put(t, "%sreplica %lld of %lld at B's mesh ", t->len ? " from " : "", (long long)replica_index(src, from), (long long)replicas);
        nd_put_mesh_coords(t, src, rl_nd_position_of(src, from));
    }
    if (pieces > 1) nd_put(t, "%spartial piece %lld of %lld", t->len ? ", " : "", (long long)x->partial, (long long)pieces);
    if (!t->len) nd_put(t, "-");
}

static void put_runs(nd_text *t, const relay_plan *p, const rl_nd_transfer *x)
{
    int64_t runs[RELAY_ND_MAX_DIMS];
    int d = p->nd->pairs[x->pair].dst->ndims;
    for (int k = 0; k < d; k++) runs[k] = rl_nd_transfer_runs(x, k);
    nd_put_list(t, runs, d, " x ");
}

/* ---- text ------------------------------------------------------------------- */

static void print_transfer(const relay_plan *p, const rl_nd_transfer *x, int from, int receiving, FILE *out)
{
    nd_text runs = {.len = 0}, source = {.len = 0};
    put_runs(&runs, p, x);
    put_source(&source, p, x, from, receiving);
    fprintf(out, "      %4d %12lld %12lld  %-18s %s\n", x->pair, (long long)x->elems,
            (long long)x->elems * (int64_t)relay_type_size(p->type), runs.s, source.s);
}

static void print_transfer_heading(FILE *out)
{
    fprintf(out, "      %4s %12s %12s  %-18s %s\n", "pair", "elements", "bytes", "runs per A dim", "source");
}

/* The first `shown` transfers of [first, end); `more` says where the rest are. */
static void print_transfers(const relay_plan *p, const rl_nd_transfer *t, int64_t first, int64_t end, int64_t shown, int rank,
                            int receiving, const char *more, FILE *out)
{
    print_transfer_heading(out);
    for (int64_t i = first; i < end && i < first + shown; i++)
        print_transfer(p, &t[i], receiving ? t[i].peer : rank, receiving, out);
    if (end - first > shown) fprintf(out, "      ... and %lld more transfers (%s)\n", (long long)(end - first - shown), more);
}

/* The first --limit messages of a list, each with its transfers. */
static void print_messages(const dump_request *r, const relay_plan *p, const char *title, const char *peer_label,
                           const rl_nd_transfer *t, int64_t n, int64_t bytes, int64_t msgs, int rank, int receiving)
{
    int64_t listed = dump_listed(r, msgs), shown = 0, i = 0, esz = (int64_t)relay_type_size(p->type);
    FILE *out = r->out;
    fprintf(out, "  %-10s %lld messages, %lld bytes (%s)\n", title, (long long)msgs, (long long)bytes, cli_bytes(bytes).text);
    for (; i < n && shown < listed; shown++) {
        int64_t end = message_end(t, n, i), elems = 0;
        for (int64_t j = i; j < end; j++) elems += t[j].elems;
        fprintf(out, "    %s %d: %lld transfers, %lld elements, %lld bytes (%s)\n", peer_label, t[i].peer, (long long)(end - i),
                (long long)elems, (long long)(elems * esz), cli_bytes(elems * esz).text);
        print_transfers(p, t, i, end, TRANSFERS_SHOWN, rank, receiving, "see --json", out);
        i = end;
    }
    if (shown < msgs) fprintf(out, "    ... and %lld more messages (--limit 0 lists them all)\n", (long long)(msgs - shown));
}

/* Where the rank sits on a layout's mesh, and its local array. */
static void print_side(const char *side, const relay_plan *p, const relay_nd_layout *l, int rank, int is_src, FILE *out)
{
    int64_t at = rl_nd_position_of(l, rank), extents[RELAY_ND_MAX_DIMS], elems = relay_nd_layout_local_elems(l, rank);
    nd_text t = {.len = 0};
    if (at < 0) {
        fprintf(out, "             %s: not on its mesh (holds nothing)\n", side);
        return;
    }
    relay_nd_layout_local_shape(l, rank, extents);
    nd_put(&t, "mesh ");
    nd_put_mesh_coords(&t, l, at);
    if (is_src && rl_nd_replicas(l) > 1) nd_put(&t, ", replica %lld of %lld", (long long)replica_index(l, rank), (long long)rl_nd_replicas(l));
    if (is_src && rl_nd_partial_pieces(l) > 1)
        nd_put(&t, ", partial piece %lld of %lld", (long long)mesh_index(l, rank, RELAY_PARTIAL), (long long)rl_nd_partial_pieces(l));
    nd_put(&t, ", local ");
    nd_put_list(&t, extents, l->ndims, " x ");
    fprintf(out, "             %s: %s, buffer %lld elements (%s)\n", side, t.s, (long long)elems,
            cli_bytes(elems * (int64_t)relay_type_size(p->type)).text);
}

static void print_rank(const dump_request *r, const relay_plan *p, const rl_nd_part *part, const rank_volume *v)
{
    int rank = part->rank;
    FILE *out = r->out;
    fprintf(out, "%s: rank %d of %d (nd, type %s)\n", r->path, rank, p->nranks, cli_type_words[p->type]);
    fprintf(out, "  transfers  one pair's elements between two ranks: the product of its runs along A's\n"
            "             dimensions (runs per A dim); a message carries every pair's transfer read from B\n"
            "             to one peer, a transfer passed on travels alone\n");
    for (int k = 0; k < p->nd->count; k++) {
        fprintf(out, "  pair %d\n", k);
        print_side("A", p, p->nd->pairs[k].dst, rank, 0, out);
        print_side("B", p, p->nd->pairs[k].src, rank, 1, out);
    }
    fprintf(out, "  local      %lld transfers, %lld bytes (%s), %lld boxes\n", (long long)part->nlocal, (long long)v->local_bytes,
            cli_bytes(v->local_bytes).text, (long long)v->local_pieces);
    if (part->nlocal)
        print_transfers(p, part->local, 0, part->nlocal, dump_listed(r, part->nlocal), rank, 1, "--limit 0 lists them all", out);
    print_messages(r, p, "sends", "to", part->send, part->nsend, v->send_bytes, v->send_msgs, rank, 0);
    print_messages(r, p, "receives", "from", part->recv, part->nrecv, v->recv_bytes, v->recv_msgs, rank, 1);
}

/* ---- JSON ------------------------------------------------------------------- */

static void json_transfer(json_writer *w, const relay_plan *p, const rl_nd_transfer *x, int from, int receiving)
{
    const relay_nd_layout *src = p->nd->pairs[x->pair].src;
    json_begin_object(w, NULL);
    json_int(w, "pair", x->pair);
    json_int(w, "elems", x->elems);
    json_int(w, "bytes", x->elems * (int64_t)relay_type_size(p->type));
    json_begin_array(w, "runs");
    for (int k = 0; k < p->nd->pairs[x->pair].dst->ndims; k++) json_int(w, NULL, rl_nd_transfer_runs(x, k));
    json_end_array(w);
    json_int(w, "boxes", boxes_of(p, x));
    json_int(w, "partial", x->partial);
    json_int(w, "origin", x->origin);
    json_bool(w, "forwarded", rl_nd_forwarded(x));
    if (receiving) json_int(w, "replica", replica_index(src, x->origin));
    json_end_object(w);
}

static void json_transfers(json_writer *w, const char *key, const relay_plan *p, const rl_nd_transfer *t, int64_t first,
                           int64_t end, int rank, int receiving)
{
    json_begin_array(w, key);
    for (int64_t i = first; i < end; i++) json_transfer(w, p, &t[i], receiving ? t[i].peer : rank, receiving);
    json_end_array(w);
}

static void json_messages(json_writer *w, const dump_request *r, const relay_plan *p, const char *key, const rl_nd_transfer *t,
                          int64_t n, int64_t msgs, int rank, int receiving)
{
    int64_t listed = dump_listed(r, msgs), shown = 0, i = 0;
    json_begin_array(w, key);
    for (; i < n && shown < listed; shown++) {
        int64_t end = message_end(t, n, i), elems = 0;
        for (int64_t j = i; j < end; j++) elems += t[j].elems;
        json_begin_object(w, NULL);
        json_int(w, "peer", t[i].peer);
        json_int(w, "elems", elems);
        json_int(w, "bytes", elems * (int64_t)relay_type_size(p->type));
        json_transfers(w, "transfers", p, t, i, end, rank, receiving);
        json_end_object(w);
        i = end;
    }
    json_end_array(w);
    char left[32];
    snprintf(left, sizeof left, "%s_left_out", key);
    json_int(w, left, msgs - shown);
}

static void json_side(json_writer *w, const char *key, const relay_nd_layout *l, int rank)
{
    int64_t at = rl_nd_position_of(l, rank), extents[RELAY_ND_MAX_DIMS];
    int coords[RELAY_ND_MAX_MESH];
    relay_nd_layout_local_shape(l, rank, extents);
    json_begin_object(w, key);
    json_int(w, "elems", relay_nd_layout_local_elems(l, rank));
    json_begin_array(w, "extents");
    for (int k = 0; k < l->ndims; k++) json_int(w, NULL, extents[k]);
    json_end_array(w);
    json_begin_array(w, "mesh");
    if (at >= 0) rl_nd_mesh_coords(l, at, coords);
    for (int m = 0; at >= 0 && m < l->mesh_ndims; m++) json_int(w, NULL, coords[m]);
    json_end_array(w);
    json_end_object(w);
}

/* Elements of the rank's buffers, per pair. */
static void json_elems(json_writer *w, const char *key, const relay_plan *p, int is_dst, int rank)
{
    json_begin_array(w, key);
    for (int k = 0; k < p->nd->count; k++) json_int(w, NULL, relay_plan_buffer_elems(p, is_dst, k, rank));
    json_end_array(w);
}

static void json_counts(json_writer *w, const rank_volume *v)
{
    json_int(w, "send_bytes", v->send_bytes);
    json_int(w, "recv_bytes", v->recv_bytes);
    json_int(w, "send_msgs", v->send_msgs);
    json_int(w, "recv_msgs", v->recv_msgs);
    json_int(w, "local_bytes", v->local_bytes);
    json_int(w, "send_boxes", v->send_pieces);
    json_int(w, "recv_boxes", v->recv_pieces);
    json_int(w, "local_boxes", v->local_pieces);
    json_int(w, "send_transfers", v->send_lattices);
    json_int(w, "recv_transfers", v->recv_lattices);
    json_int(w, "local_transfers", v->local_lattices);
}

static void print_json(const dump_request *r, const relay_plan *p, const rl_nd_part *part, const rank_volume *v)
{
    int64_t local_listed = dump_listed(r, part->nlocal);
    json_writer w = json_start(r->out);
    json_begin_object(&w, NULL);
    json_int(&w, "rank", part->rank);
    json_int(&w, "ranks", p->nranks);
    json_string(&w, "kind", "nd");
    json_string(&w, "type", cli_type_words[p->type]);
    json_elems(&w, "dst_elems", p, 1, part->rank);
    json_elems(&w, "src_elems", p, 0, part->rank);
    json_begin_array(&w, "pairs");
    for (int k = 0; k < p->nd->count; k++) {
        json_begin_object(&w, NULL);
        json_side(&w, "dst", p->nd->pairs[k].dst, part->rank);
        json_side(&w, "src", p->nd->pairs[k].src, part->rank);
        json_int(&w, "src_replica", replica_index(p->nd->pairs[k].src, part->rank));
        json_int(&w, "src_partial", mesh_index(p->nd->pairs[k].src, part->rank, RELAY_PARTIAL));
        json_end_object(&w);
    }
    json_end_array(&w);
    json_counts(&w, v);
    json_transfers(&w, "local", p, part->local, 0, local_listed, part->rank, 1);
    json_int(&w, "local_left_out", part->nlocal - local_listed);
    json_messages(&w, r, p, "send", part->send, part->nsend, v->send_msgs, part->rank, 0);
    json_messages(&w, r, p, "recv", part->recv, part->nrecv, v->recv_msgs, part->rank, 1);
    json_end_object(&w);
    json_finish(&w);
}

int dump_nd_rank(const dump_request *r, const relay_plan *p, int rank, cli_error *e)
{
    rl_nd_part part;
    rank_volume v;
    if (derive(p, rank, &part, e)) return e->status;
    int status = part_volume(p, &part, &v, e);
    if (!status && r->json) print_json(r, p, &part, &v);
    else if (!status) print_rank(r, p, &part, &v);
    rl_nd_part_free(&part);
    return status;
}
