/* index_plan.c — the index plan object: sections, hashes, statistics and
 * the checks a section read from bytes passes (index_plan.h). */
#include <string.h>
#include <xxhash.h>

#include "codec.h"
#include "error.h"
#include "index_plan.h"

rl_index_plan *rl_index_plan_body(int nranks)
{
    rl_index_plan *x = calloc(1, sizeof *x);
    if (x && (!(x->owner_slots = rl_calloc((size_t)nranks, sizeof *x->owner_slots)) ||
              !(x->holder_slots = rl_calloc((size_t)nranks, sizeof *x->holder_slots)) ||
              !(x->checksums = rl_calloc((size_t)nranks, sizeof *x->checksums)) ||
              !(x->sections = rl_calloc((size_t)nranks, sizeof *x->sections)))) {
        rl_index_plan_free(x, 0);
        return NULL;
    }
    return x;
}

void rl_index_plan_free(rl_index_plan *x, int nranks)
{
    if (!x) return;
    for (int r = 0; x->sections && r < nranks; r++) rl_index_section_free(x->sections[r]);
    free(x->owner_slots);
    free(x->holder_slots);
    free(x->checksums);
    free(x->sections);
    free(x);
}

rl_index_section *rl_index_section_alloc(int rank, int nsend, int nrecv, int64_t nsegs, int64_t nlist)
{
    rl_index_section *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->rank = rank;
    s->nsend = nsend;
    s->nrecv = nrecv;
    s->nsegs = nsegs;
    s->nlist = nlist;
    s->local.peer = rank;
    s->send = rl_calloc((size_t)nsend, sizeof *s->send);
    s->recv = rl_calloc((size_t)nrecv, sizeof *s->recv);
    s->segs = rl_calloc((size_t)nsegs, sizeof *s->segs);
    s->list = rl_malloc_array((size_t)nlist, 2 * sizeof *s->list);
    if (!s->send || !s->recv || !s->segs || !s->list) {
        rl_index_section_free(s);
        return NULL;
    }
    return s;
}

void rl_index_section_free(rl_index_section *s)
{
    if (!s) return;
    free(s->send);
    free(s->recv);
    free(s->segs);
    free(s->list);
    free(s);
}

/* ---- hashes -------------------------------------------------------------- */

static void put_i64(XXH3_state_t *h, int64_t v) { XXH3_64bits_update(h, &v, sizeof v); }

static void put_array(XXH3_state_t *h, const void *a, int64_t count, size_t size)
{
    put_i64(h, count);
    if (count) XXH3_64bits_update(h, a, (size_t)count * size);
}

uint64_t rl_index_section_hash(const rl_index_section *s)
{
    XXH3_state_t *h = XXH3_createState();
    if (!h) return 0;
    XXH3_64bits_reset(h);
    put_i64(h, s->rank);
    put_array(h, s->send, s->nsend, sizeof *s->send);
    put_array(h, s->recv, s->nrecv, sizeof *s->recv);
    put_array(h, &s->local, 1, sizeof s->local);
    put_array(h, s->segs, s->nsegs, sizeof *s->segs);
    put_array(h, s->list, 2 * s->nlist, sizeof *s->list);
    uint64_t v = XXH3_64bits_digest(h);
    XXH3_freeState(h);
    return v;
}

uint64_t rl_index_plan_hash(const relay_plan *p)
{
    const rl_index_plan *x = p->index;
    XXH3_state_t *h = XXH3_createState();
    if (!h) return 0;
    XXH3_64bits_reset(h);
    const int64_t head[] = {RELAY_FORMAT_INDEX_MAJOR, p->kind, p->nranks, p->type, x->move, x->items, x->item_elems};
    XXH3_64bits_update(h, head, sizeof head);
    put_array(h, x->owner_slots, p->nranks, sizeof *x->owner_slots);
    put_array(h, x->holder_slots, p->nranks, sizeof *x->holder_slots);
    XXH3_64bits_update(h, &p->stats, sizeof p->stats);
    put_array(h, x->checksums, p->nranks, sizeof *x->checksums);
    uint64_t v = XXH3_64bits_digest(h);
    XXH3_freeState(h);
    return v;
}

/* bytes_total counts every item moved, local moves too; pieces are the
 * segments' runs and listed items, what a replay walks. */
void rl_index_plan_count(const relay_plan *p, relay_plan_stats *stats)
{
    const rl_index_plan *x = p->index;
    int64_t item_bytes = x->item_elems * (int64_t)relay_type_size(p->type);
    memset(stats, 0, sizeof *stats);
    for (int r = 0; r < p->nranks; r++) {
        const rl_index_section *s = x->sections[r];
        for (int k = 0; k < s->nsend; k++) stats->bytes_remote += s->send[k].items * item_bytes;
        stats->bytes_total += s->local.items * item_bytes;
        stats->messages += s->nsend;
        int64_t first_recv = s->nrecv ? s->recv[0].first : s->local.first; /* each message counted at its sender */
        for (int64_t i = 0; i < s->nsegs; i++)
            if (i < first_recv || i >= s->local.first) stats->pieces += s->segs[i].listed ? s->segs[i].outer : 1;
    }
    stats->bytes_total += stats->bytes_remote;
    stats->bytes_remote_identity = stats->bytes_remote;
}

/* ---- checks of a section read from bytes --------------------------------- */

static relay_status section_fail(const rl_index_section *s, const char *what, int64_t which, const char *why)
{
    return rl_fail(RELAY_ERR_FORMAT, "plan section of rank %d: %s %lld %s", s->rank, what, (long long)which, why);
}

/* Messages of one direction: peers of the plan, ascending, not the rank
 * itself, each with segments and items. */
static relay_status check_peers(const rl_index_section *s, const rl_index_msg *m, int n, const char *what, int nranks)
{
    for (int k = 0; k < n; k++) {
        if (m[k].peer < 0 || m[k].peer >= nranks || m[k].peer == s->rank) return section_fail(s, what, k, "names a bad peer");
        if (k > 0 && m[k].peer <= m[k - 1].peer) return section_fail(s, what, k, "is out of peer order or repeats a peer");
        if (m[k].count < 1 || m[k].items < 1) return section_fail(s, what, k, "is empty");
    }
    return RELAY_OK;
}

/* Where a segment's slots reach on one side: [lo, hi] of
 * start + i * outer_step + j * inner_step. */
static int within(int64_t start, int64_t inner_step, int64_t outer_step, const rl_index_seg *g, int64_t slots)
{
    __int128 o = (__int128)(g->outer - 1) * outer_step, i = (__int128)(g->inner - 1) * inner_step;
    __int128 lo = (__int128)start + (o < 0 ? o : 0) + (i < 0 ? i : 0), hi = (__int128)start + (o > 0 ? o : 0) + (i > 0 ? i : 0);
    return lo >= 0 && hi < slots;
}

/* A segment's fields, and its slots within the two ends' buffers. */
static relay_status check_seg(const rl_index_section *s, int64_t i, int64_t *list_next, int64_t from_slots, int64_t to_slots)
{
    const rl_index_seg *g = &s->segs[i];
    int64_t items;
    if (g->listed != 0 && g->listed != 1) return section_fail(s, "segment", i, "is neither a run nor listed");
    if (g->outer < 1) return section_fail(s, "segment", i, "holds no item");
    if (g->listed) {
        if (g->inner || g->from_inner || g->from_outer || g->to || g->to_inner || g->to_outer)
            return section_fail(s, "segment", i, "is listed but has steps");
        if (g->from != *list_next || g->outer > s->nlist - *list_next)
            return section_fail(s, "segment", i, "does not take the next list entries");
        for (int64_t k = g->from; k < g->from + g->outer; k++)
            if (s->list[2 * k] < 0 || s->list[2 * k] >= from_slots || s->list[2 * k + 1] < 0 || s->list[2 * k + 1] >= to_slots)
                return section_fail(s, "list entry", k, "reaches beyond its buffers");
        *list_next += g->outer;
        return RELAY_OK;
    }
    if (g->inner < 1 || rl_mul_overflows(g->outer, g->inner, &items) || items > RL_INDEX_MAX_SLOTS)
        return section_fail(s, "segment", i, "has a bad item count");
    if (!within(g->from, g->from_inner, g->from_outer, g, from_slots)) return section_fail(s, "segment", i, "reads beyond its buffer");
    if (!within(g->to, g->to_inner, g->to_outer, g, to_slots)) return section_fail(s, "segment", i, "writes beyond its buffer");
    return RELAY_OK;
}

/* A message's segments: the next ones of the section, within the buffers
 * of the ranks it goes from and to, as many items as it says. */
static relay_status check_message(const rl_index_section *s, const rl_index_msg *m, const char *what, int64_t k, int from_rank,
                                  int to_rank, const rl_index_plan *x, int64_t *seg_next, int64_t *list_next)
{
    if (m->first != *seg_next || m->count < 0 || m->count > s->nsegs - *seg_next)
        return section_fail(s, what, k, "does not take the next segments");
    int64_t items = 0;
    for (int64_t i = m->first; i < m->first + m->count; i++) {
        relay_status st = check_seg(s, i, list_next, rl_index_from_slots(x, from_rank), rl_index_to_slots(x, to_rank));
        if (st) return st;
        if (rl_add_overflows(items, rl_index_seg_items(&s->segs[i]), &items)) return section_fail(s, what, k, "holds too many items");
    }
    if (items != m->items) return section_fail(s, what, k, "does not hold the items it says");
    *seg_next += m->count;
    return RELAY_OK;
}

relay_status rl_index_section_validate(const rl_index_section *s, const relay_plan *p)
{
    const rl_index_plan *x = p->index;
    int me = s->rank;
    relay_status st = check_peers(s, s->send, s->nsend, "send", p->nranks);
    if (!st) st = check_peers(s, s->recv, s->nrecv, "receive", p->nranks);
    if (!st && s->local.peer != me) st = section_fail(s, "local move list", 0, "names another rank");
    int64_t seg_next = 0, list_next = 0;
    for (int k = 0; !st && k < s->nsend; k++) st = check_message(s, &s->send[k], "send", k, me, (int)s->send[k].peer, x, &seg_next, &list_next);
    for (int k = 0; !st && k < s->nrecv; k++) st = check_message(s, &s->recv[k], "receive", k, (int)s->recv[k].peer, me, x, &seg_next, &list_next);
    if (!st) st = check_message(s, &s->local, "local move list", 0, me, me, x, &seg_next, &list_next);
    if (!st && (seg_next != s->nsegs || list_next != s->nlist)) st = section_fail(s, "segment", seg_next, "belongs to no message");
    return st;
}

/* Whether segments a (of section sa) and b (of sb) move the same items:
 * runs field by field, listed segments entry by entry. */
static int same_seg(const rl_index_section *sa, const rl_index_seg *a, const rl_index_section *sb, const rl_index_seg *b)
{
    if (a->listed != b->listed || a->outer != b->outer) return 0;
    if (!a->listed)
        return a->inner == b->inner && a->from == b->from && a->from_inner == b->from_inner && a->from_outer == b->from_outer &&
               a->to == b->to && a->to_inner == b->to_inner && a->to_outer == b->to_outer;
    return memcmp(&sa->list[2 * a->from], &sb->list[2 * b->from], (size_t)a->outer * 2 * sizeof *sa->list) == 0;
}

static const rl_index_msg *recv_from(const rl_index_section *s, int64_t peer)
{
    int lo = 0, hi = s->nrecv;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (s->recv[mid].peer < peer) lo = mid + 1;
        else hi = mid;
    }
    return lo < s->nrecv && s->recv[lo].peer == peer ? &s->recv[lo] : NULL;
}

relay_status rl_index_sections_agree(const relay_plan *p)
{
    rl_index_section **sec = p->index->sections;
    int64_t sends = 0, recvs = 0;
    for (int r = 0; r < p->nranks; r++) {
        const rl_index_section *s = sec[r];
        sends += s->nsend;
        recvs += s->nrecv;
        for (int k = 0; k < s->nsend; k++) {
            const rl_index_section *t = sec[s->send[k].peer];
            const rl_index_msg *a = &s->send[k], *b = recv_from(t, r);
            int same = b && a->count == b->count && a->items == b->items;
            for (int64_t i = 0; same && i < a->count; i++) same = same_seg(s, &s->segs[a->first + i], t, &t->segs[b->first + i]);
            if (!same)
                return rl_fail(RELAY_ERR_FORMAT, "the sections disagree: rank %d's message to rank %d is not the one rank %d receives",
                               r, (int)a->peer, (int)a->peer);
        }
    }
    if (sends != recvs)
        return rl_fail(RELAY_ERR_FORMAT, "the sections disagree: they send %lld messages and receive %lld", (long long)sends,
                       (long long)recvs);
    return RELAY_OK;
}

/* ---- accessors of the public API ----------------------------------------- */

int relay_plan_index_move(const relay_plan *p) { return p && p->index ? (int)p->index->move : -1; }
int64_t relay_plan_index_item_elems(const relay_plan *p) { return p && p->index ? p->index->item_elems : -1; }

int64_t relay_plan_index_slots(const relay_plan *p, int holders, int rank)
{
    if (!p || !p->index || rank < 0 || rank >= p->nranks) return -1;
    return holders ? p->index->holder_slots[rank] : p->index->owner_slots[rank];
}
