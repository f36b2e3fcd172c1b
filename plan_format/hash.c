/* hash.c — checksums of plan sections and the whole-plan fingerprint.
 *
 * XXH3-64 (libxxhash) over the little-endian bytes of the plan's 64-bit
 * records.  The fingerprint hashes the header (kind, ranks, type, schedule, rounds, memory cap,
 * pairs with their layouts, sigma, statistics; a BMMC plan's factors; an
 * HSUMMA plan's parameters) and the format's major version: everything the
 * planner derives the sections from, so that a rank that built or read
 * its own section alone knows the fingerprint of the whole plan
 * (relay_exec_create compares it across ranks).  Each section has its own
 * checksum, kept in the file's section index. */
#include <xxhash.h>

#include <string.h>

#include "codec.h"
#include "hsumma_fields.h"
#include "plan_internal.h"

static void put_i64(XXH3_state_t *h, int64_t v) { XXH3_64bits_update(h, &v, sizeof v); }

static void put_array(XXH3_state_t *h, const void *a, size_t count, size_t size)
{
    put_i64(h, (int64_t)count);
    if (count) XXH3_64bits_update(h, a, count * size);
}

/* n ranks, rank_at(of, 0 .. n-1), hashed as put_array hashes an int32
 * array of them, a chunk at a time. */
static void put_ranks(XXH3_state_t *h, int n, int (*rank_at)(const void *of, int i), const void *of)
{
    int32_t chunk[1024];
    put_i64(h, n);
    for (int first = 0; first < n; first += 1024) {
        int count = n - first < 1024 ? n - first : 1024;
        for (int i = 0; i < count; i++) chunk[i] = rank_at(of, first + i);
        XXH3_64bits_update(h, chunk, (size_t)count * sizeof *chunk);
    }
}

static int identity_rank(const void *of, int i)
{
    (void)of;
    return i;
}

static int base_rank(const void *layout, int rank) { return rl_layout_base_rank(layout, rank); }

/* Sigma as put_array hashes it; a plan without one (BMMC, HSUMMA) hashes
 * the identity it stands for, streamed, so fingerprints stay those of
 * format 1 files without an array of the ranks in memory. */
static void put_sigma(XXH3_state_t *h, const relay_plan *p)
{
    if (p->sigma) put_array(h, p->sigma, (size_t)p->nranks, sizeof *p->sigma);
    else put_ranks(h, p->nranks, identity_rank, NULL);
}

static XXH3_state_t *hash_begin(void)
{
    XXH3_state_t *h = XXH3_createState();
    if (h) XXH3_64bits_reset(h);
    return h;
}

static uint64_t hash_end(XXH3_state_t *h)
{
    uint64_t v = XXH3_64bits_digest(h);
    XXH3_freeState(h);
    return v;
}

uint64_t rl_section_hash(const rl_section *s, int count)
{
    XXH3_state_t *h = hash_begin();
    if (!h) return 0;
    put_i64(h, s->rank);
    put_array(h, s->send, (size_t)s->nsend, sizeof *s->send);
    put_array(h, s->recv, (size_t)s->nrecv, sizeof *s->recv);
    put_array(h, s->send_spans, (size_t)s->nsend_spans, sizeof *s->send_spans);
    put_array(h, s->recv_spans, (size_t)s->nrecv_spans, sizeof *s->recv_spans);
    put_array(h, s->local, (size_t)s->nlocal, sizeof *s->local);
    put_array(h, s->send_round, s->send_round ? (size_t)s->nsend : 0, sizeof(int64_t));
    put_array(h, s->recv_round, s->recv_round ? (size_t)s->nrecv : 0, sizeof(int64_t));
    if (s->local_round >= 0) put_i64(h, s->local_round);
    put_array(h, s->src_elems, (size_t)count, sizeof(int64_t));
    put_array(h, s->dst_elems, (size_t)count, sizeof(int64_t));
    return hash_end(h);
}

/* A layout's row (rows 1) or column block boundaries, hashed as put_array
 * hashes an array of them (fingerprints do not depend on whether a layout
 * stores them): block-cyclic layouts compute theirs, a chunk at a time. */
static void put_splits(XXH3_state_t *h, const relay_layout *l, int rows)
{
    enum { CHUNK = 1024 };
    int64_t count = (int64_t)(rows ? l->nbr : l->nbc) + 1, chunk[CHUNK];
    put_i64(h, count);
    for (int64_t first = 0; first < count; first += CHUNK) {
        int64_t n = count - first < CHUNK ? count - first : CHUNK;
        for (int64_t k = 0; k < n; k++) chunk[k] = rows ? rl_layout_row_split(l, first + k) : rl_layout_col_split(l, first + k);
        XXH3_64bits_update(h, chunk, (size_t)n * sizeof *chunk);
    }
}

static void put_layout(XXH3_state_t *h, const relay_layout *l)
{
    put_i64(h, l->kind);
    put_i64(h, l->base_nranks);
    put_i64(h, l->m);
    put_i64(h, l->n);
    put_i64(h, l->order);
    put_splits(h, l, 1);
    put_splits(h, l, 0);
    if (l->kind == RL_LAYOUT_BLOCK_CYCLIC) {
        const rl_block_cyclic *bc = &l->bc;
        int64_t fields[] = {bc->mb, bc->nb, bc->nprow, bc->npcol, bc->grid_order, bc->rsrc, bc->csrc, bc->lld};
        put_array(h, fields, sizeof fields / sizeof *fields, sizeof *fields);
        if (bc->i0 || bc->j0 || bc->lds_given) { /* a submatrix, or lds per rank (absent from plan files) */
            put_i64(h, bc->i0);
            put_i64(h, bc->j0);
            put_array(h, l->bc_ld, (size_t)l->base_nranks, sizeof(int64_t));
        }
    } else {
        size_t nblocks = (size_t)l->nbr * (size_t)l->nbc;
        put_array(h, l->owners, nblocks, sizeof(int));
        put_array(h, l->offsets, nblocks, sizeof(int64_t));
        put_array(h, l->lds, nblocks, sizeof(int64_t));
    }
}

static void put_nd_layout(XXH3_state_t *h, const relay_nd_layout *l)
{
    put_i64(h, l->ndims);
    put_array(h, l->shape, (size_t)l->ndims, sizeof *l->shape);
    put_i64(h, l->mesh_ndims);
    put_array(h, l->mesh_shape, (size_t)l->mesh_ndims, sizeof *l->mesh_shape);
    put_array(h, l->mesh_ranks, (size_t)l->mesh_size, sizeof *l->mesh_ranks);
    for (int m = 0; m < l->mesh_ndims; m++) {
        const rl_nd_place *pl = &l->place[m];
        int64_t fields[] = {pl->kind, pl->dim, pl->splits ? 0 : pl->block};
        put_array(h, fields, 3, sizeof *fields);
        if (pl->splits) put_array(h, pl->splits, (size_t)l->mesh_shape[m] + 1, sizeof *pl->splits);
    }
    put_i64(h, l->order);
    put_array(h, l->padded, (size_t)l->ndims, sizeof *l->padded);
}

/* A layout's own fingerprint, for comparing layouts outside a plan: its
 * description as a plan's fingerprint hashes it, and the base rank whose
 * blocks each rank holds (a plan's destination layout is relabeled). */
uint64_t rl_layout_hash(const relay_layout *l)
{
    XXH3_state_t *h = hash_begin();
    if (!h) return 0;
    put_layout(h, l);
    put_ranks(h, l->nranks, base_rank, l);
    return hash_end(h);
}

uint64_t rl_nd_layout_hash(const relay_nd_layout *l)
{
    XXH3_state_t *h = hash_begin();
    if (!h) return 0;
    put_nd_layout(h, l);
    return hash_end(h);
}

/* An N-D plan's header: its pairs and node map. */
static void put_nd(XXH3_state_t *h, const rl_nd_plan *nd, int nranks)
{
    for (int k = 0; k < nd->count; k++) {
        put_i64(h, nd->pairs[k].op);
        put_array(h, nd->pairs[k].perm, (size_t)nd->pairs[k].dst->ndims, sizeof *nd->pairs[k].perm);
        if (nd->pairs[k].forward) put_i64(h, nd->pairs[k].forward); /* pairs that forward only: fingerprints of the others stay */
        put_nd_layout(h, nd->pairs[k].dst);
        put_nd_layout(h, nd->pairs[k].src);
    }
    put_i64(h, nd->node_of_rank != NULL);
    if (nd->node_of_rank) put_array(h, nd->node_of_rank, (size_t)nranks, sizeof *nd->node_of_rank);
}

uint64_t rl_plan_hash(const relay_plan *p)
{
    XXH3_state_t *h = hash_begin();
    if (!h) return 0;
    put_i64(h, RELAY_FORMAT_MAJOR);
    put_i64(h, p->kind);
    put_i64(h, p->nranks);
    put_i64(h, p->type);
    put_i64(h, p->schedule);
    put_i64(h, p->rounds);
    if (p->max_buffer_bytes) put_i64(h, p->max_buffer_bytes); /* capped plans only: earlier fingerprints stay */
    put_i64(h, p->relabel);
    put_i64(h, p->count);
    for (int k = 0; k < p->count; k++) {
        put_i64(h, p->pairs[k].op);
        put_layout(h, p->pairs[k].dst);
        put_layout(h, p->pairs[k].src);
    }
    put_sigma(h, p);
    const relay_plan_stats *st = &p->stats;
    int64_t stats[] = {st->bytes_total, st->bytes_remote, st->bytes_remote_identity, st->messages, st->pieces};
    put_array(h, stats, sizeof stats / sizeof *stats, sizeof *stats);
    if (p->bmmc) {
        const rl_bmmc *b = p->bmmc;
        int64_t facts[] = {b->n, b->p, b->f, b->elem_size, (int64_t)b->c, (int64_t)b->cv, b->rank};
        put_array(h, facts, sizeof facts / sizeof *facts, sizeof *facts);
        put_array(h, b->a.col, (size_t)b->n, sizeof *b->a.col);
        put_array(h, b->v.col, (size_t)b->n, sizeof *b->v.col);
        put_array(h, b->w.col, (size_t)b->n, sizeof *b->w.col);
    }
    if (p->nd) put_nd(h, p->nd, p->nranks);
    if (p->hsumma) {
        int64_t ints[RL_HS_INTS], net[2];
        rl_hsumma_to_ints(p->hsumma, ints);
        memcpy(&net[0], &p->hsumma->params.network.alpha, sizeof net[0]);
        memcpy(&net[1], &p->hsumma->params.network.beta, sizeof net[1]);
        put_array(h, ints, RL_HS_INTS, sizeof *ints);
        put_array(h, net, 2, sizeof *net);
    }
    return hash_end(h);
}
