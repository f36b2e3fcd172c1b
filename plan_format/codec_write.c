/* codec_write.c — encoding plans as MessagePack (msgpack-c's packer) and
 * saving them atomically.
 *
 * A plan file is three parts one after another (docs/plan-format.md):
 *   preamble  a small map: magic, major/minor version, the header's size and hash;
 *   header    a map: kind, ranks, type, pairs with their layouts, sigma,
 *             statistics, fingerprint, and the section index (offset, size,
 *             byte hash and content checksum of every rank's section);
 *   sections  one map per rank, in rank order (BMMC, HSUMMA and N-D plans
 *             have none: the header holds the factors, the parameters or
 *             the N-D layouts, from which each rank derives its part).
 * N-D plans are format 3.0, index plans 4.0 (rl_format_version: a header
 * of its index space and buffer sizes, a section per rank holding its
 * messages as runs), the others 2.2.
 * Sections are encoded independently (in parallel), so a reader can seek to
 * its own. */
#include <errno.h>
#include <msgpack.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "atomic_file.h"
#include "codec.h"
#include "error.h"
#include "hsumma_fields.h"
#include "index_plan.h"
#include "nd_codec.h"

/* The encoded parts of a plan, before they are joined or written. */
typedef struct {
    msgpack_sbuffer preamble, header;
    msgpack_sbuffer *sections;
    int nranks;
} encoded_plan;

static void pack_str(msgpack_packer *pk, const char *s)
{
    size_t n = strlen(s);
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, s, n);
}

static void pack_int(msgpack_packer *pk, const char *key, int64_t v)
{
    pack_str(pk, key);
    msgpack_pack_int64(pk, v);
}

static void pack_ints(msgpack_packer *pk, const char *key, const int64_t *v, size_t n)
{
    pack_str(pk, key);
    msgpack_pack_array(pk, n);
    for (size_t i = 0; i < n; i++) msgpack_pack_int64(pk, v[i]);
}

static void pack_int32s(msgpack_packer *pk, const char *key, const int32_t *v, size_t n)
{
    pack_str(pk, key);
    msgpack_pack_array(pk, n);
    for (size_t i = 0; i < n; i++) msgpack_pack_int64(pk, v[i]);
}

static void pack_owners(msgpack_packer *pk, const int *v, size_t n)
{
    pack_str(pk, "owners");
    msgpack_pack_array(pk, n);
    for (size_t i = 0; i < n; i++) msgpack_pack_int64(pk, v[i]);
}

/* A layout as its constructor's arguments, so that reading it back goes
 * through the same validation as building it. */
static void pack_layout(msgpack_packer *pk, const relay_layout *l)
{
    int bc = l->kind == RL_LAYOUT_BLOCK_CYCLIC;
    size_t nblocks = (size_t)l->nbr * (size_t)l->nbc;
    msgpack_pack_map(pk, bc ? 13 : 8 + (l->explicit_offsets ? 2 : 0));
    pack_str(pk, "kind");
    pack_str(pk, bc ? "block_cyclic" : "grid");
    pack_int(pk, "m", l->m);
    pack_int(pk, "n", l->n);
    pack_int(pk, "order", l->order);
    if (bc) {
        pack_int(pk, "mb", l->bc.mb);
        pack_int(pk, "nb", l->bc.nb);
        pack_int(pk, "nprow", l->bc.nprow);
        pack_int(pk, "npcol", l->bc.npcol);
        pack_int(pk, "grid_order", l->bc.grid_order);
        pack_int(pk, "rsrc", l->bc.rsrc);
        pack_int(pk, "csrc", l->bc.csrc);
        pack_int(pk, "lld", l->bc.lld);
        pack_int(pk, "nranks", l->base_nranks);
        return;
    }
    pack_int(pk, "nranks", l->base_nranks);
    pack_ints(pk, "row_splits", l->row_splits, (size_t)l->nbr + 1);
    pack_ints(pk, "col_splits", l->col_splits, (size_t)l->nbc + 1);
    pack_owners(pk, l->owners, nblocks);
    if (l->explicit_offsets) {
        pack_ints(pk, "offsets", l->offsets, nblocks);
        pack_ints(pk, "lds", l->lds, nblocks);
    }
}

static void pack_section(msgpack_packer *pk, const rl_section *s, int count)
{
    int rounds = s->send_round || s->recv_round, local = s->local_round >= 0;
    msgpack_pack_map(pk, 8 + 2 * rounds + local);
    pack_int(pk, "rank", s->rank);
    pack_ints(pk, "src_elems", s->src_elems, (size_t)count);
    pack_ints(pk, "dst_elems", s->dst_elems, (size_t)count);
    pack_ints(pk, "send", (const int64_t *)s->send, (size_t)s->nsend * RL_MESSAGE_FIELDS);
    pack_ints(pk, "recv", (const int64_t *)s->recv, (size_t)s->nrecv * RL_MESSAGE_FIELDS);
    pack_ints(pk, "send_lattices", (const int64_t *)s->send_spans, (size_t)s->nsend_spans * RL_SPAN_FIELDS);
    pack_ints(pk, "recv_lattices", (const int64_t *)s->recv_spans, (size_t)s->nrecv_spans * RL_SPAN_FIELDS);
    pack_ints(pk, "local", (const int64_t *)s->local, (size_t)s->nlocal * RL_LOCAL_FIELDS);
    if (rounds) {
        pack_ints(pk, "send_round", s->send_round, (size_t)s->nsend);
        pack_ints(pk, "recv_round", s->recv_round, (size_t)s->nrecv);
    }
    if (local) pack_int(pk, "local_round", s->local_round);
}

static const char *kind_name(relay_plan_kind k)
{
    static const char *const names[] = {[RELAY_PLAN_TRANSFORM] = "transform", [RELAY_PLAN_BMMC] = "bmmc",
                                        [RELAY_PLAN_HSUMMA] = "hsumma", [RELAY_PLAN_ND] = "nd",
                                        [RELAY_PLAN_INDEX] = "index"};
    return names[k];
}

static void pack_stats(msgpack_packer *pk, const relay_plan_stats *s)
{
    pack_str(pk, "stats");
    msgpack_pack_map(pk, 5);
    pack_int(pk, "bytes_total", s->bytes_total);
    pack_int(pk, "bytes_remote", s->bytes_remote);
    pack_int(pk, "bytes_remote_identity", s->bytes_remote_identity);
    pack_int(pk, "messages", s->messages);
    pack_int(pk, "pieces", s->pieces);
}

/* The keys every header starts with: kind and nranks. */
static void pack_kind(msgpack_packer *pk, const relay_plan *p)
{
    pack_str(pk, "kind");
    pack_str(pk, kind_name(p->kind));
    pack_int(pk, "nranks", p->nranks);
}

/* And ends with (before a transform's section index): stats and fingerprint. */
static void pack_identity(msgpack_packer *pk, const relay_plan *p)
{
    pack_stats(pk, &p->stats);
    pack_str(pk, "fingerprint");
    msgpack_pack_uint64(pk, p->fingerprint);
}

/* A bit matrix as binary data: each column in ceil(n/8) little-endian bytes. */
static void pack_matrix(msgpack_packer *pk, const char *key, const rl_gf2 *m)
{
    unsigned char bytes[RL_GF2_MAX * 8];
    size_t per = ((size_t)m->n + 7) / 8;
    for (int j = 0; j < m->n; j++)
        for (size_t k = 0; k < per; k++) bytes[(size_t)j * per + k] = (unsigned char)(m->col[j] >> (8 * k));
    pack_str(pk, key);
    msgpack_pack_bin(pk, (size_t)m->n * per);
    msgpack_pack_bin_body(pk, bytes, (size_t)m->n * per);
}

/* A BMMC plan is its header alone: the factors, O(n) words, from which
 * every rank derives its part (and a reader the permutation, V W). */
static void pack_bmmc_header(msgpack_packer *pk, const relay_plan *p)
{
    const rl_bmmc *b = p->bmmc;
    msgpack_pack_map(pk, 5);
    pack_kind(pk, p);
    pack_str(pk, "bmmc");
    msgpack_pack_map(pk, 8);
    pack_int(pk, "n", b->n);
    pack_int(pk, "p", b->p);
    pack_int(pk, "f", b->f);
    pack_int(pk, "elem_size", b->elem_size);
    pack_int(pk, "rank", b->rank);
    pack_matrix(pk, "v", &b->v);
    pack_matrix(pk, "w", &b->w);
    pack_str(pk, "cv");
    msgpack_pack_uint64(pk, b->cv);
    pack_identity(pk, p);
}

/* An HSUMMA plan is its header alone: the parameters, from which every
 * rank derives its steps and groups. */
static void pack_hsumma_header(msgpack_packer *pk, const relay_plan *p)
{
    int64_t v[RL_HS_INTS];
    rl_hsumma_to_ints(p->hsumma, v);
    msgpack_pack_map(pk, 6);
    pack_kind(pk, p);
    pack_int(pk, "type", p->type);
    pack_str(pk, "hsumma");
    msgpack_pack_map(pk, RL_HS_INTS + 2);
    for (int k = 0; k < RL_HS_INTS; k++) pack_int(pk, rl_hsumma_keys[k], v[k]);
    pack_str(pk, "net_alpha");
    msgpack_pack_double(pk, p->hsumma->params.network.alpha);
    pack_str(pk, "net_beta");
    msgpack_pack_double(pk, p->hsumma->params.network.beta);
    pack_identity(pk, p);
}

/* An N-D layout as relay_nd_layout_create's arguments (docs/plan-format.md,
 * kind nd), which the reader rebuilds through rl_nd_layout_build.  A shard
 * names its dimension and either its split points or its block size
 * (resolved: reading it back gives the same cut); the other kinds their
 * kind alone. */
static void pack_placement(msgpack_packer *pk, const relay_placement *pl, int parts)
{
    int shard = pl->kind == RELAY_SHARD;
    msgpack_pack_map(pk, shard ? 3 : 1);
    pack_str(pk, "kind");
    pack_str(pk, rl_nd_placement_names[pl->kind]);
    if (!shard) return;
    pack_int(pk, "dim", pl->dim);
    if (pl->splits) pack_ints(pk, "splits", pl->splits, (size_t)parts + 1);
    else pack_int(pk, "block", pl->block);
}

static void pack_nd_layout(msgpack_packer *pk, const relay_nd_layout *l)
{
    relay_nd_desc d;
    relay_placement places[RELAY_ND_MAX_MESH];
    int padded = 0;
    rl_nd_layout_describe(l, &d, places);
    for (int k = 0; k < d.ndims; k++) padded |= d.padded[k] != 0;
    msgpack_pack_map(pk, 5 + (size_t)padded);
    pack_ints(pk, "shape", d.shape, (size_t)d.ndims);
    pack_int32s(pk, "mesh_shape", d.mesh_shape, (size_t)d.mesh_ndims);
    pack_int32s(pk, "mesh_ranks", d.mesh_ranks, (size_t)l->mesh_size);
    pack_str(pk, "placements");
    msgpack_pack_array(pk, (size_t)d.mesh_ndims);
    for (int m = 0; m < d.mesh_ndims; m++) pack_placement(pk, &places[m], d.mesh_shape[m]);
    pack_str(pk, "order");
    pack_str(pk, d.order == RELAY_ROW_MAJOR ? "C" : "F");
    if (padded) pack_ints(pk, "padded", d.padded, (size_t)d.ndims);
}

static void pack_tuning(msgpack_packer *pk, const relay_tuning *t, int nd);

/* An N-D plan is its header alone too: per pair {op, perm, forward, dst,
 * src} (forward only when set), and
 * the node map when it has one, from which every rank derives its
 * messages at bind.  Its schedule is p2p, written as the other kinds do. */
static void pack_nd_header(msgpack_packer *pk, const relay_plan *p)
{
    const rl_nd_plan *nd = p->nd;
    int tuned = p->tuning.ntimed > 0;
    msgpack_pack_map(pk, 7 + (size_t)(nd->node_of_rank != NULL) + (size_t)tuned);
    pack_kind(pk, p);
    pack_int(pk, "type", p->type);
    pack_int(pk, "schedule", p->schedule);
    pack_str(pk, "pairs");
    msgpack_pack_array(pk, (size_t)nd->count);
    for (int k = 0; k < nd->count; k++) {
        int forward = nd->pairs[k].forward != 0; /* A's replicas pass elements on: written only then */
        msgpack_pack_map(pk, 4 + (size_t)forward);
        pack_int(pk, "op", nd->pairs[k].op);
        pack_int32s(pk, "perm", nd->pairs[k].perm, (size_t)nd->pairs[k].dst->ndims);
        if (forward) pack_int(pk, "forward", nd->pairs[k].forward);
        pack_str(pk, "dst");
        pack_nd_layout(pk, nd->pairs[k].dst);
        pack_str(pk, "src");
        pack_nd_layout(pk, nd->pairs[k].src);
    }
    if (nd->node_of_rank) pack_int32s(pk, "node_of_rank", nd->node_of_rank, (size_t)p->nranks);
    if (tuned) pack_tuning(pk, &p->tuning, 1);
    pack_identity(pk, p);
}

/* A plan's tuning (tuning.c), when it has one: the choices as
 * [schedule, packed, seconds] triples, an N-D plan's (format 3.0) as
 * [schedule, packed, seconds, forward], and a transform plan's choice
 * through a shared-memory window (2.3) as [schedule, packed, seconds,
 * 0, 1]: the others are written as before, for older readers; a
 * predicted one's machine name. */
static void pack_tuning(msgpack_packer *pk, const relay_tuning *t, int nd)
{
    pack_str(pk, "tuning");
    msgpack_pack_map(pk, 4 + (size_t)(t->machine[0] != '\0'));
    if (t->machine[0]) {
        pack_str(pk, "machine");
        pack_str(pk, t->machine);
    }
    pack_int(pk, "best", t->best);
    int64_t per_node[2] = {t->ranks_per_node_min, t->ranks_per_node_max};
    pack_ints(pk, "ranks_per_node", per_node, 2);
    pack_int(pk, "replays", t->replays);
    pack_str(pk, "choices");
    msgpack_pack_array(pk, (size_t)t->ntimed);
    for (int i = 0; i < t->ntimed; i++) {
        const relay_tuning_choice *c = &t->choices[i];
        msgpack_pack_array(pk, c->window ? 5 : nd ? 4 : 3);
        msgpack_pack_int64(pk, c->schedule);
        msgpack_pack_int64(pk, c->packed);
        msgpack_pack_double(pk, c->seconds);
        if (nd || c->window) msgpack_pack_int64(pk, c->forward);
        if (c->window) msgpack_pack_int64(pk, c->window);
    }
}

/* Section index: offset (from the end of the header), size, XXH3 of the
 * bytes, and the section's content checksum. */
static void pack_section_index(msgpack_packer *pk, const relay_plan *p, const encoded_plan *ep)
{
    pack_str(pk, "sections");
    msgpack_pack_array(pk, (size_t)p->nranks * 4);
    uint64_t offset = 0;
    for (int r = 0; r < p->nranks; r++) {
        const msgpack_sbuffer *sb = &ep->sections[r];
        msgpack_pack_uint64(pk, offset);
        msgpack_pack_uint64(pk, sb->size);
        msgpack_pack_uint64(pk, XXH3_64bits(sb->data, sb->size));
        msgpack_pack_uint64(pk, p->index ? p->index->checksums[r] : p->sections[r]->checksum);
        offset += sb->size;
    }
}

/* An index plan's header (format 4.0): its index space, move and buffer
 * sizes; its sections hold the messages (index_plan.h). */
static void pack_index_header(msgpack_packer *pk, const relay_plan *p, const encoded_plan *ep)
{
    const rl_index_plan *x = p->index;
    msgpack_pack_map(pk, 11);
    pack_kind(pk, p);
    pack_int(pk, "type", p->type);
    pack_int(pk, "move", x->move);
    pack_int(pk, "items", x->items);
    pack_int(pk, "item_elems", x->item_elems);
    pack_ints(pk, "owner_slots", x->owner_slots, (size_t)p->nranks);
    pack_ints(pk, "holder_slots", x->holder_slots, (size_t)p->nranks);
    pack_identity(pk, p);
    pack_section_index(pk, p, ep);
}

static void pack_index_section(msgpack_packer *pk, const rl_index_section *s)
{
    msgpack_pack_map(pk, 6);
    pack_int(pk, "rank", s->rank);
    pack_ints(pk, "send", (const int64_t *)s->send, (size_t)s->nsend * RL_INDEX_MSG_FIELDS);
    pack_ints(pk, "recv", (const int64_t *)s->recv, (size_t)s->nrecv * RL_INDEX_MSG_FIELDS);
    pack_ints(pk, "local", (const int64_t *)&s->local, RL_INDEX_MSG_FIELDS);
    pack_ints(pk, "segments", (const int64_t *)s->segs, (size_t)s->nsegs * RL_INDEX_SEG_FIELDS);
    pack_ints(pk, "list", s->list, (size_t)s->nlist * 2);
}

static void pack_header(msgpack_packer *pk, const relay_plan *p, const encoded_plan *ep)
{
    if (p->index) {
        pack_index_header(pk, p, ep);
        return;
    }
    if (p->bmmc) {
        pack_bmmc_header(pk, p);
        return;
    }
    if (p->hsumma) {
        pack_hsumma_header(pk, p);
        return;
    }
    if (p->nd) {
        pack_nd_header(pk, p);
        return;
    }
    int tuned = p->tuning.ntimed > 0, capped = p->max_buffer_bytes > 0;
    msgpack_pack_map(pk, 11 + (size_t)tuned + (size_t)capped);
    pack_kind(pk, p);
    pack_int(pk, "type", p->type);
    pack_int(pk, "schedule", p->schedule);
    pack_int(pk, "rounds", p->rounds);
    if (capped) pack_int(pk, "max_buffer_bytes", p->max_buffer_bytes);
    pack_int(pk, "relabel", p->relabel);
    pack_str(pk, "pairs");
    msgpack_pack_array(pk, (size_t)p->count);
    for (int k = 0; k < p->count; k++) {
        msgpack_pack_map(pk, 3);
        pack_int(pk, "op", p->pairs[k].op);
        pack_str(pk, "dst");
        pack_layout(pk, p->pairs[k].dst);
        pack_str(pk, "src");
        pack_layout(pk, p->pairs[k].src);
    }
    pack_int32s(pk, "sigma", p->sigma, (size_t)p->nranks);
    if (tuned) pack_tuning(pk, &p->tuning, 0);
    pack_identity(pk, p);
    pack_section_index(pk, p, ep);
}

uint64_t rl_header_hash(const void *header, size_t len, int major, int minor)
{
    return XXH3_64bits_withSeed(header, len, (uint64_t)major << 32 | (uint64_t)minor);
}

void rl_format_version(int kind, int *major, int *minor)
{
    int nd = kind == RELAY_PLAN_ND, index = kind == RELAY_PLAN_INDEX;
    *major = index ? RELAY_FORMAT_INDEX_MAJOR : nd ? RELAY_FORMAT_ND_MAJOR : RELAY_FORMAT_MAJOR;
    *minor = index ? RELAY_FORMAT_INDEX_MINOR : nd ? RELAY_FORMAT_ND_MINOR : RELAY_FORMAT_MINOR;
}

static void pack_preamble(msgpack_packer *pk, const msgpack_sbuffer *header, relay_plan_kind kind)
{
    int major, minor;
    rl_format_version(kind, &major, &minor);
    msgpack_pack_map(pk, 5);
    pack_str(pk, "magic");
    pack_str(pk, RELAY_FORMAT_MAGIC);
    pack_int(pk, "major", major);
    pack_int(pk, "minor", minor);
    pack_str(pk, "header_bytes");
    msgpack_pack_uint64(pk, header->size);
    pack_str(pk, "header_hash");
    msgpack_pack_uint64(pk, rl_header_hash(header->data, header->size, major, minor));
}

static void encoded_free(encoded_plan *ep)
{
    msgpack_sbuffer_destroy(&ep->preamble);
    msgpack_sbuffer_destroy(&ep->header);
    for (int r = 0; ep->sections && r < ep->nranks; r++) msgpack_sbuffer_destroy(&ep->sections[r]);
    free(ep->sections);
}

/* A layout a plan file can describe by its constructor's arguments: not a
 * ScaLAPACK submatrix (relay_internal_layout_submatrix) nor a layout of
 * per-rank leading dimensions (relay_layout_block_cyclic_lds). */
static int describable(const relay_layout *l)
{
    return l->kind != RL_LAYOUT_BLOCK_CYCLIC || (!l->bc.i0 && !l->bc.j0 && !l->bc.lds_given);
}

/* Whether the plan has a section per rank (BMMC, HSUMMA and N-D plans are
 * their header alone). */
static int has_sections(const relay_plan *p) { return !p->bmmc && !p->hsumma && !p->nd; }

static relay_status check_complete(const relay_plan *p, const char *what)
{
    if (!p) return rl_fail(RELAY_ERR_ARG, "%s: plan is NULL", what);
    for (int k = 0; p->nd && k < p->nd->count; k++)
        if (!p->nd->pairs[k].dst || !p->nd->pairs[k].src)
            return rl_fail(RELAY_ERR_ARG, "%s: N-D pair %d has no layouts", what, k);
    for (int r = 0; has_sections(p) && r < p->nranks; r++)
        if (p->index ? !p->index->sections[r] : !p->sections[r])
            return rl_fail(RELAY_ERR_ARG, "%s: the plan holds only some ranks' sections (rank %d is missing)", what, r);
    for (int k = 0; has_sections(p) && k < p->count; k++)
        if (!describable(p->pairs[k].dst) || !describable(p->pairs[k].src))
            return rl_fail(RELAY_ERR_ARG, "%s: pair %d has a layout with a leading dimension per rank or a submatrix origin, which "
                           "plan files cannot hold (give every rank one lld to save it)", what, k);
    return RELAY_OK;
}

/* msgpack-c's sbuffer aborts on no memory only through a NULL data check:
 * a part whose size is not what was packed means an allocation failed. */
static relay_status encode(const relay_plan *p, encoded_plan *ep)
{
    memset(ep, 0, sizeof *ep);
    ep->nranks = has_sections(p) ? p->nranks : 0;
    ep->sections = rl_calloc((size_t)ep->nranks, sizeof *ep->sections);
    if (!ep->sections) return RL_NOMEM();
    int failed = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(|| : failed) if (ep->nranks >= RL_PARALLEL_RANKS)
    for (int r = 0; r < ep->nranks; r++) {
        msgpack_packer pk;
        msgpack_sbuffer_init(&ep->sections[r]);
        msgpack_packer_init(&pk, &ep->sections[r], msgpack_sbuffer_write);
        if (p->index) pack_index_section(&pk, p->index->sections[r]);
        else pack_section(&pk, p->sections[r], p->count);
        failed = failed || !ep->sections[r].data;
    }
    msgpack_packer pk;
    msgpack_sbuffer_init(&ep->header);
    msgpack_packer_init(&pk, &ep->header, msgpack_sbuffer_write);
    pack_header(&pk, p, ep);
    msgpack_sbuffer_init(&ep->preamble);
    msgpack_packer_init(&pk, &ep->preamble, msgpack_sbuffer_write);
    pack_preamble(&pk, &ep->header, p->kind);
    if (failed || !ep->header.data || !ep->preamble.data) return RL_NOMEM();
    return RELAY_OK;
}

relay_status relay_plan_encode(const relay_plan *p, void **buf, size_t *len)
{
    relay_status st = check_complete(p, "relay_plan_encode");
    if (st) return st;
    if (!buf || !len) return rl_fail(RELAY_ERR_ARG, "relay_plan_encode: NULL output argument");
    encoded_plan ep;
    st = encode(p, &ep);
    size_t total = st ? 0 : ep.preamble.size + ep.header.size;
    for (int r = 0; !st && r < ep.nranks; r++) total += ep.sections[r].size;
    char *out = st ? NULL : malloc(total);
    if (!st && !out) st = RL_NOMEM();
    if (!st) {
        char *w = out;
        memcpy(w, ep.preamble.data, ep.preamble.size);
        w += ep.preamble.size;
        memcpy(w, ep.header.data, ep.header.size);
        w += ep.header.size;
        for (int r = 0; r < ep.nranks; r++) {
            memcpy(w, ep.sections[r].data, ep.sections[r].size);
            w += ep.sections[r].size;
        }
        *buf = out;
        *len = total;
    }
    encoded_free(&ep);
    return st;
}

/* ---- saving atomically -------------------------------------------------- */

static int write_all(FILE *f, const msgpack_sbuffer *sb)
{
    return sb->size == 0 || fwrite(sb->data, 1, sb->size, f) == sb->size;
}

static relay_status write_parts(FILE *f, const encoded_plan *ep)
{
    int ok = write_all(f, &ep->preamble) && write_all(f, &ep->header);
    for (int r = 0; ok && r < ep->nranks; r++) ok = write_all(f, &ep->sections[r]);
    return ok ? RELAY_OK : rl_fail(RELAY_ERR_IO, "writing the plan failed: %s", strerror(errno));
}

/* Writes the plan atomically (atomic_file.h): readers never see a partial
 * plan, a failure leaves nothing, and the file's mode follows the umask. */
relay_status relay_plan_save(const relay_plan *p, const char *path)
{
    relay_status st = check_complete(p, "relay_plan_save");
    if (st) return st;
    if (!path || !*path) return rl_fail(RELAY_ERR_ARG, "relay_plan_save: empty path");
    encoded_plan ep;
    rl_atomic_file af;
    st = encode(p, &ep);
    if (!st) st = rl_atomic_open(&af, path);
    if (!st) {
        st = write_parts(af.file, &ep);
        if (st) rl_atomic_abort(&af);
        else st = rl_atomic_commit(&af);
    }
    encoded_free(&ep);
    return st;
}
