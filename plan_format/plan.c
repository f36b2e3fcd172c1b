/* plan.c — the plan object: allocation, release, copies and the read-only
 * accessors of the public API. */
#include <string.h>

#include "codec.h"
#include "error.h"
#include "hsumma_dist.h"
#include "index_plan.h"

int rl_op_transposes(relay_op op) { return op == RELAY_OP_T || op == RELAY_OP_C; }

void relay_plan_options_init(relay_plan_options *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->relabel = RELAY_RELABEL_NONE;
    o->schedule = RELAY_SCHED_AUTO;
    o->node_of_rank = NULL;
    o->inter_node_weight = 1.0;
    o->replicas = RELAY_REPLICAS_AUTO;
}

relay_plan *rl_plan_alloc(int nranks, int count)
{
    relay_plan *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->nranks = nranks;
    p->count = count;
    p->rounds = 1;
    if (count > 0) { /* BMMC and HSUMMA plans keep O(1) per rank: 2^24 ranks cost no 200 MB */
        p->pairs = rl_calloc((size_t)count, sizeof *p->pairs);
        p->sigma = rl_malloc_array((size_t)nranks, sizeof *p->sigma);
        p->sections = rl_calloc((size_t)nranks, sizeof *p->sections);
        if (!p->pairs || !p->sigma || !p->sections) {
            relay_plan_free(p);
            return NULL;
        }
        for (int r = 0; r < nranks; r++) p->sigma[r] = r;
    }
    p->format_major = RELAY_FORMAT_MAJOR;
    p->format_minor = RELAY_FORMAT_MINOR;
    return p;
}

/* A plan of one of the kinds that carry a body of their own (N-D, index),
 * without its body yet: freed with relay_plan_free, body or not. */
static relay_plan *plan_of_kind(int nranks, relay_plan_kind kind, relay_type type, int format_major, int format_minor)
{
    relay_plan *p = rl_plan_alloc(nranks, 0);
    if (!p) return NULL;
    p->kind = kind;
    p->type = type;
    p->schedule = RELAY_SCHED_P2P;
    p->format_major = format_major; /* the file it makes */
    p->format_minor = format_minor;
    return p;
}

relay_status rl_nd_plan_new(relay_plan **out, int nranks, int count, relay_type type)
{
    relay_plan *p = plan_of_kind(nranks, RELAY_PLAN_ND, type, RELAY_FORMAT_ND_MAJOR, RELAY_FORMAT_ND_MINOR);
    if (p) p->nd = rl_nd_plan_body(count);
    if (!p || !p->nd) {
        relay_plan_free(p);
        return RL_NOMEM();
    }
    *out = p;
    return RELAY_OK;
}

relay_status rl_index_plan_new(relay_plan **out, int nranks, relay_type type, relay_index_move move, int64_t items,
                               int64_t item_elems)
{
    relay_plan *p = plan_of_kind(nranks, RELAY_PLAN_INDEX, type, RELAY_FORMAT_INDEX_MAJOR, RELAY_FORMAT_INDEX_MINOR);
    if (p) p->index = rl_index_plan_body(nranks);
    if (!p || !p->index) {
        relay_plan_free(p);
        return RL_NOMEM();
    }
    p->index->move = move;
    p->index->items = items;
    p->index->item_elems = item_elems;
    *out = p;
    return RELAY_OK;
}

relay_status rl_nd_plan_clone(relay_plan **out, const relay_plan *p)
{
    relay_status st = rl_nd_plan_new(out, p->nranks, p->nd->count, p->type);
    if (!st) st = rl_nd_plan_body_copy((*out)->nd, p->nd, p->nranks);
    if (st) {
        relay_plan_free(*out);
        *out = NULL;
        return st;
    }
    (*out)->fingerprint = p->fingerprint;
    (*out)->stats = p->stats;
    (*out)->tuning = p->tuning;
    return RELAY_OK;
}

void relay_plan_free(relay_plan *p)
{
    if (!p) return;
    for (int k = 0; p->pairs && k < p->count; k++) {
        relay_layout_free(p->pairs[k].dst);
        relay_layout_free(p->pairs[k].dst_relabeled);
        relay_layout_free(p->pairs[k].src);
    }
    for (int r = 0; p->sections && r < p->nranks; r++) rl_section_free(p->sections[r]);
    free(p->pairs);
    free(p->sigma);
    free(p->sigma_inverse);
    free(p->sections);
    free(p->bmmc);
    free(p->hsumma);
    rl_nd_plan_free(p->nd);
    rl_index_plan_free(p->index, p->nranks);
    free(p);
}

rl_section *rl_section_alloc(int rank, int count)
{
    rl_section *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->rank = rank;
    s->local_round = -1;
    s->src_elems = rl_calloc((size_t)count, sizeof(int64_t));
    s->dst_elems = rl_calloc((size_t)count, sizeof(int64_t));
    if (!s->src_elems || !s->dst_elems) {
        rl_section_free(s);
        return NULL;
    }
    return s;
}

void rl_section_free(rl_section *s)
{
    if (!s) return;
    free(s->send);
    free(s->recv);
    free(s->send_spans);
    free(s->recv_spans);
    free(s->local);
    free(s->send_round);
    free(s->recv_round);
    free(s->src_elems);
    free(s->dst_elems);
    free(s);
}

static void *dup_or_null(const void *src, size_t count, size_t size, int *failed)
{
    void *d = rl_malloc_array(count, size);
    if (!d) {
        *failed = 1;
        return NULL;
    }
    if (count) memcpy(d, src, count * size);
    return d;
}

relay_status rl_section_clone(rl_section **out, const rl_section *s, int count)
{
    rl_section *c = calloc(1, sizeof *c);
    if (!c) return RL_NOMEM();
    int failed = 0;
    *c = *s;
    c->send = dup_or_null(s->send, (size_t)s->nsend, sizeof *s->send, &failed);
    c->recv = dup_or_null(s->recv, (size_t)s->nrecv, sizeof *s->recv, &failed);
    c->send_spans = dup_or_null(s->send_spans, (size_t)s->nsend_spans, sizeof *s->send_spans, &failed);
    c->recv_spans = dup_or_null(s->recv_spans, (size_t)s->nrecv_spans, sizeof *s->recv_spans, &failed);
    c->local = dup_or_null(s->local, (size_t)s->nlocal, sizeof *s->local, &failed);
    if (s->send_round) c->send_round = dup_or_null(s->send_round, (size_t)s->nsend, sizeof(int64_t), &failed);
    if (s->recv_round) c->recv_round = dup_or_null(s->recv_round, (size_t)s->nrecv, sizeof(int64_t), &failed);
    c->src_elems = dup_or_null(s->src_elems, (size_t)count, sizeof(int64_t), &failed);
    c->dst_elems = dup_or_null(s->dst_elems, (size_t)count, sizeof(int64_t), &failed);
    if (failed) {
        rl_section_free(c);
        return RL_NOMEM();
    }
    *out = c;
    return RELAY_OK;
}

/* ---- accessors ------------------------------------------------------- */

int relay_plan_nranks(const relay_plan *p) { return p ? p->nranks : 0; }
relay_plan_kind relay_plan_get_kind(const relay_plan *p) { return p ? p->kind : RELAY_PLAN_TRANSFORM; }
relay_type relay_plan_type(const relay_plan *p) { return p ? p->type : RELAY_DOUBLE; }
int relay_plan_count(const relay_plan *p) { return !p ? 0 : p->nd ? p->nd->count : p->count; }
uint64_t relay_plan_fingerprint(const relay_plan *p) { return p ? p->fingerprint : 0; }
relay_schedule relay_plan_schedule(const relay_plan *p) { return p ? p->schedule : RELAY_SCHED_P2P; }
int relay_plan_rounds(const relay_plan *p) { return p ? p->rounds : 0; }
int64_t relay_plan_max_buffer_bytes(const relay_plan *p) { return p ? p->max_buffer_bytes : 0; }

relay_status relay_plan_relabeling(const relay_plan *p, int *sigma)
{
    if (!p || !sigma) return rl_fail(RELAY_ERR_ARG, "relay_plan_relabeling: NULL argument");
    for (int r = 0; r < p->nranks; r++) sigma[r] = p->sigma ? p->sigma[r] : r;
    return RELAY_OK;
}

static const rl_pair *pair_at(const relay_plan *p, int index)
{
    if (!p || index < 0 || index >= p->count) {
        rl_fail(RELAY_ERR_ARG, "pair index %d is not in [0, %d)", index, p ? p->count : 0);
        return NULL;
    }
    return &p->pairs[index];
}

const relay_layout *relay_plan_dst_layout(const relay_plan *p, int index)
{
    const rl_pair *pr = pair_at(p, index);
    return pr ? pr->dst_relabeled : NULL;
}

const relay_layout *relay_plan_src_layout(const relay_plan *p, int index)
{
    const rl_pair *pr = pair_at(p, index);
    return pr ? pr->src : NULL;
}

/* An HSUMMA plan's buffers: dst 0 is C, src 0 is A and src 1 is B. */
static int64_t hsumma_buffer_elems(const relay_plan *p, int is_dst, int index, int rank)
{
    if (index < 0 || index > (is_dst ? 0 : 1) || rank < 0 || rank >= p->nranks) {
        rl_fail(RELAY_ERR_ARG, "an HSUMMA plan has buffers dst 0 (C), src 0 (A) and src 1 (B) on ranks [0, %d)", p->nranks);
        return -1;
    }
    return rl_hsumma_local_elems(&p->hsumma->params, is_dst ? 2 : index, rank);
}

int64_t relay_plan_buffer_elems(const relay_plan *p, int is_dst, int index, int rank)
{
    if (p && p->hsumma) return hsumma_buffer_elems(p, is_dst, index, rank);
    if (p && p->nd) return rl_nd_plan_buffer_elems(p, is_dst, index, rank);
    const rl_pair *pr = pair_at(p, index);
    if (!pr) return -1;
    if (rank < 0 || rank >= p->nranks) {
        rl_fail(RELAY_ERR_ARG, "rank %d is not in [0, %d)", rank, p->nranks);
        return -1;
    }
    return relay_layout_local_elems(is_dst ? pr->dst_relabeled : pr->src, rank);
}

relay_status relay_plan_get_stats(const relay_plan *p, relay_plan_stats *stats)
{
    if (!p || !stats) return rl_fail(RELAY_ERR_ARG, "relay_plan_get_stats: NULL argument");
    *stats = p->stats;
    return RELAY_OK;
}
