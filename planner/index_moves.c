/* index_moves.c — planning a broadcast or a sum between index layouts
 * (relay/index.h), offline, from every rank's lists.
 *
 * One table gives each item its owner (rank and slot): O(n) memory, the
 * owner layout walked once.  Then each holder rank's slots are walked in
 * order and sorted by owner (a counting sort over the owners it meets),
 * so that the items one owner and one holder share form one message in
 * ascending holder slot order, which index_compress.c cuts into runs.
 * Holders are taken in ascending rank order and owners within each, so
 * every rank's sends and receives come out in ascending peer order. */
#include <string.h>

#include "codec.h"
#include "error.h"
#include "index_compress.h"
#include "planner_internal.h"

/* A message as planned: its ends, and its segments and list entries in
 * the plan's pieces. */
typedef struct {
    int32_t from_rank, to_rank;
    int64_t first_seg, nsegs, first_list, nlist, items;
} planned_msg;

typedef struct {
    const relay_index_layout *owners, *holders;
    relay_index_move move;
    int32_t *owner_rank;      /* per item: -1 while it has none */
    int64_t *owner_slot;
    rl_index_pieces pieces;
    planned_msg *msgs;
    int64_t nmsgs, cap_msgs;
} planning;

static relay_status check_args(relay_plan **out, int nranks, const relay_index_layout *o, const relay_index_layout *h,
                               relay_index_move move, relay_type type)
{
    if (!out || !o || !h) return rl_fail(RELAY_ERR_ARG, "index plan: NULL argument");
    *out = NULL;
    if (nranks < 1 || nranks > RELAY_MAX_RANKS) return rl_fail(RELAY_ERR_ARG, "index plan: %d ranks, not 1 .. 2^24", nranks);
    if (o->nranks > nranks || h->nranks > nranks)
        return rl_fail(RELAY_ERR_ARG, "index plan: layouts of %d and %d ranks on a plan of %d", o->nranks, h->nranks, nranks);
    if (o->n != h->n || o->item_elems != h->item_elems)
        return rl_fail(RELAY_ERR_ARG, "index plan: the owners have %lld items of %lld elements, the holders %lld of %lld",
                       (long long)o->n, (long long)o->item_elems, (long long)h->n, (long long)h->item_elems);
    if (move != RELAY_INDEX_BROADCAST && move != RELAY_INDEX_REDUCE_SUM)
        return rl_fail(RELAY_ERR_ARG, "index plan: move %d is neither broadcast nor sum", (int)move);
    if ((int)type < RELAY_FLOAT || (int)type > RELAY_CDOUBLE) return rl_fail(RELAY_ERR_ARG, "index plan: bad type %d", (int)type);
    return RELAY_OK;
}

/* The owner table; an item owned twice is refused. */
static relay_status find_owners(planning *g)
{
    const relay_index_layout *o = g->owners;
    g->owner_rank = rl_malloc_array((size_t)o->n, sizeof *g->owner_rank);
    g->owner_slot = rl_malloc_array((size_t)o->n, sizeof *g->owner_slot);
    if (!g->owner_rank || !g->owner_slot) return RL_NOMEM();
    memset(g->owner_rank, 0xff, (size_t)o->n * sizeof *g->owner_rank);
    for (int r = 0; r < o->nranks; r++) {
        rl_index_walk w = rl_index_walk_of(o, r);
        for (int64_t j = 0; j < o->held[r]; j++) {
            int64_t item = rl_index_walk_next(&w);
            if (g->owner_rank[item] >= 0)
                return rl_fail(RELAY_ERR_ARG, "index plan: item %lld is owned twice, by rank %d (slot %lld) and rank %d (slot %lld)",
                               (long long)item, g->owner_rank[item], (long long)g->owner_slot[item], r, (long long)j);
            g->owner_rank[item] = r;
            g->owner_slot[item] = j;
        }
    }
    return RELAY_OK;
}

/* Holder h's slots grouped by owner: the owners it meets (ascending) and,
 * for the k-th, its pairs [at[k], at[k+1]) of owner_slots and holder_slots. */
typedef struct {
    int32_t *owners;
    int64_t nowners;
    int64_t *at, *owner_slots, *holder_slots;
    int64_t *count;           /* per rank: scratch, zero between holders */
} grouping;

static int cmp_rank(const void *a, const void *b) { return (*(const int32_t *)a > *(const int32_t *)b) - (*(const int32_t *)a < *(const int32_t *)b); }

static relay_status group_by_owner(const planning *g, int h, grouping *s)
{
    const relay_index_layout *l = g->holders;
    rl_index_walk w = rl_index_walk_of(l, h);
    s->nowners = 0;
    for (int64_t j = 0; j < l->held[h]; j++) {
        int64_t item = rl_index_walk_next(&w);
        int32_t o = g->owner_rank[item];
        if (o < 0)
            return rl_fail(RELAY_ERR_ARG, "index plan: item %lld, held by rank %d in slot %lld, has no owner in the owner layout",
                           (long long)item, h, (long long)j);
        if (s->count[o]++ == 0) s->owners[s->nowners++] = o;
    }
    qsort(s->owners, (size_t)s->nowners, sizeof *s->owners, cmp_rank);
    s->at[0] = 0;
    for (int64_t k = 0; k < s->nowners; k++) {
        s->at[k + 1] = s->at[k] + s->count[s->owners[k]];
        s->count[s->owners[k]] = s->at[k]; /* from here: where its next pair goes */
    }
    w = rl_index_walk_of(l, h);
    for (int64_t j = 0; j < l->held[h]; j++) {
        int64_t item = rl_index_walk_next(&w), at = s->count[g->owner_rank[item]]++;
        s->owner_slots[at] = g->owner_slot[item];
        s->holder_slots[at] = j;
    }
    for (int64_t k = 0; k < s->nowners; k++) s->count[s->owners[k]] = 0;
    return RELAY_OK;
}

static relay_status add_message(planning *g, int owner, int holder, const int64_t *owner_slots, const int64_t *holder_slots, int64_t m)
{
    if (g->nmsgs == g->cap_msgs) {
        int64_t cap = g->cap_msgs ? 2 * g->cap_msgs : 64;
        planned_msg *v = realloc(g->msgs, (size_t)cap * sizeof *v);
        if (!v) return RL_NOMEM();
        g->msgs = v;
        g->cap_msgs = cap;
    }
    int bcast = g->move == RELAY_INDEX_BROADCAST;
    planned_msg *msg = &g->msgs[g->nmsgs++];
    *msg = (planned_msg){bcast ? owner : holder, bcast ? holder : owner, g->pieces.nsegs, 0, g->pieces.nlist, 0, m};
    relay_status st = bcast ? rl_index_compress(&g->pieces, owner_slots, holder_slots, m)
                            : rl_index_compress(&g->pieces, holder_slots, owner_slots, m);
    msg->nsegs = g->pieces.nsegs - msg->first_seg;
    msg->nlist = g->pieces.nlist - msg->first_list;
    return st;
}

static relay_status plan_messages(planning *g, int nranks)
{
    const relay_index_layout *l = g->holders;
    int64_t most = 0;
    for (int h = 0; h < l->nranks; h++) most = l->held[h] > most ? l->held[h] : most;
    grouping s = {rl_malloc_array((size_t)most, sizeof(int32_t)), 0, rl_malloc_array((size_t)most + 1, sizeof(int64_t)),
                  rl_malloc_array((size_t)most, sizeof(int64_t)), rl_malloc_array((size_t)most, sizeof(int64_t)),
                  rl_calloc((size_t)nranks, sizeof(int64_t))};
    relay_status st = s.owners && s.at && s.owner_slots && s.holder_slots && s.count ? RELAY_OK : RL_NOMEM();
    for (int h = 0; !st && h < l->nranks; h++) {
        st = group_by_owner(g, h, &s);
        for (int64_t k = 0; !st && k < s.nowners; k++)
            st = add_message(g, s.owners[k], h, s.owner_slots + s.at[k], s.holder_slots + s.at[k], s.at[k + 1] - s.at[k]);
    }
    free(s.owners);
    free(s.at);
    free(s.owner_slots);
    free(s.holder_slots);
    free(s.count);
    return st;
}

/* Copies message m into section s as its next one (segments and list
 * entries appended, a listed segment's first entry renumbered). */
static void copy_message(const planning *g, const planned_msg *m, rl_index_section *s, rl_index_msg *to, int64_t peer,
                         int64_t *seg_at, int64_t *list_at)
{
    *to = (rl_index_msg){peer, *seg_at, m->nsegs, m->items};
    for (int64_t i = 0; i < m->nsegs; i++) {
        rl_index_seg seg = g->pieces.segs[m->first_seg + i];
        if (seg.listed) seg.from += *list_at - m->first_list;
        s->segs[*seg_at + i] = seg;
    }
    if (m->nlist) memcpy(&s->list[2 * *list_at], &g->pieces.list[2 * m->first_list], (size_t)m->nlist * 2 * sizeof *s->list);
    *seg_at += m->nsegs;
    *list_at += m->nlist;
}

/* Rank r's section from its messages mine[0 .. n) (in planned order):
 * its sends, then receives, then local moves. */
static relay_status build_section(const planning *g, int r, const int64_t *mine, int64_t n, rl_index_section **out)
{
    int nsend = 0, nrecv = 0;
    int64_t nsegs = 0, nlist = 0;
    for (int64_t k = 0; k < n; k++) {
        const planned_msg *m = &g->msgs[mine[k]];
        nsend += m->to_rank != r;
        nrecv += m->from_rank != r;
        nsegs += m->nsegs;
        nlist += m->nlist;
    }
    rl_index_section *s = rl_index_section_alloc(r, nsend, nrecv, nsegs, nlist);
    if (!s) return RL_NOMEM();
    int64_t seg_at = 0, list_at = 0;
    int is = 0, ir = 0;
    for (int64_t k = 0; k < n; k++) {
        const planned_msg *m = &g->msgs[mine[k]];
        if (m->to_rank != r) copy_message(g, m, s, &s->send[is++], m->to_rank, &seg_at, &list_at);
    }
    for (int64_t k = 0; k < n; k++) {
        const planned_msg *m = &g->msgs[mine[k]];
        if (m->from_rank != r) copy_message(g, m, s, &s->recv[ir++], m->from_rank, &seg_at, &list_at);
    }
    s->local = (rl_index_msg){r, seg_at, 0, 0};
    for (int64_t k = 0; k < n; k++) {
        const planned_msg *m = &g->msgs[mine[k]];
        if (m->from_rank == r && m->to_rank == r) copy_message(g, m, s, &s->local, r, &seg_at, &list_at);
    }
    s->checksum = rl_index_section_hash(s);
    *out = s;
    return RELAY_OK;
}

/* Every rank's section: the messages of each rank found by a counting
 * sort (a local move counted once), which keeps their planned order. */
static relay_status build_sections(const planning *g, relay_plan *p)
{
    int64_t *at = rl_calloc((size_t)p->nranks + 1, sizeof *at), *of = rl_malloc_array((size_t)(2 * g->nmsgs), sizeof *of);
    relay_status st = at && of ? RELAY_OK : RL_NOMEM();
    for (int64_t k = 0; !st && k < g->nmsgs; k++) {
        at[g->msgs[k].from_rank + 1]++;
        if (g->msgs[k].to_rank != g->msgs[k].from_rank) at[g->msgs[k].to_rank + 1]++;
    }
    for (int r = 0; !st && r < p->nranks; r++) at[r + 1] += at[r];
    for (int64_t k = 0; !st && k < g->nmsgs; k++) {
        of[at[g->msgs[k].from_rank]++] = k;
        if (g->msgs[k].to_rank != g->msgs[k].from_rank) of[at[g->msgs[k].to_rank]++] = k;
    }
    for (int r = p->nranks; !st && r > 0; r--) at[r] = at[r - 1];
    if (!st) at[0] = 0;
    for (int r = 0; !st && r < p->nranks; r++) {
        st = build_section(g, r, of + at[r], at[r + 1] - at[r], &p->index->sections[r]);
        if (!st) p->index->checksums[r] = p->index->sections[r]->checksum;
    }
    free(at);
    free(of);
    return st;
}

relay_status relay_plan_index(relay_plan **out, int nranks, const relay_index_layout *owners, const relay_index_layout *holders,
                              relay_index_move move, relay_type type)
{
    relay_status st = check_args(out, nranks, owners, holders, move, type);
    if (st) return st;
    planning g = {.owners = owners, .holders = holders, .move = move};
    relay_plan *p = NULL;
    st = find_owners(&g);
    if (!st) st = plan_messages(&g, nranks);
    if (!st) st = rl_index_plan_new(&p, nranks, type, move, owners->n, owners->item_elems);
    for (int r = 0; !st && r < nranks; r++) {
        p->index->owner_slots[r] = r < owners->nranks ? owners->held[r] : 0;
        p->index->holder_slots[r] = r < holders->nranks ? holders->held[r] : 0;
    }
    if (!st) st = build_sections(&g, p);
    if (!st) {
        rl_index_plan_count(p, &p->stats);
        p->fingerprint = rl_index_plan_hash(p);
    }
    free(g.owner_rank);
    free(g.owner_slot);
    free(g.pieces.segs);
    free(g.pieces.list);
    free(g.msgs);
    if (st) {
        relay_plan_free(p);
        return st;
    }
    *out = p;
    return RELAY_OK;
}
