/* index_check.c — binding's checks of an index section (index_check.h). */
#include <stdlib.h>

#include "error.h"
#include "index_check.h"

/* The holder-side slot of pair (from, to): the side a broadcast writes,
 * or the side a sum reads. */
static int64_t holder_slot(int sum, int64_t from, int64_t to) { return sum ? from : to; }

typedef struct {
    const rl_index_section *s;
    int sum;
    int64_t slots;
    unsigned char *seen;
} holder_walk;

/* Message m's holder slots: each new, and a sum's ascending. */
static relay_status walk_message(holder_walk *w, const rl_index_msg *m, const char *what)
{
    int64_t last = -1;
    for (int64_t g = m->first; g < m->first + m->count; g++)
        for (int64_t i = 0; i < rl_index_seg_items(&w->s->segs[g]); i++) {
            int64_t from, to;
            rl_index_seg_pair(w->s, &w->s->segs[g], i, &from, &to);
            int64_t h = holder_slot(w->sum, from, to);
            if (w->seen[h >> 3] & (1u << (h & 7)))
                return rl_fail(RELAY_ERR_FORMAT, "plan section of rank %d: holder slot %lld is %s twice (%s)", (int)w->s->rank,
                               (long long)h, w->sum ? "summed" : "written", what);
            if (w->sum && h < last)
                return rl_fail(RELAY_ERR_FORMAT, "plan section of rank %d: %s sums holder slot %lld after slot %lld, out of the "
                               "ascending order the sum adds in", (int)w->s->rank, what, (long long)h, (long long)last);
            w->seen[h >> 3] |= (unsigned char)(1u << (h & 7));
            last = h;
        }
    return RELAY_OK;
}

static int64_t items_of(const rl_index_msg *m, int n)
{
    int64_t items = 0;
    for (int i = 0; i < n; i++) items += m[i].items;
    return items;
}

relay_status rl_index_check_holders(const rl_index_section *s, const relay_plan *p)
{
    const rl_index_plan *x = p->index;
    int sum = x->move == RELAY_INDEX_REDUCE_SUM;
    const rl_index_msg *msgs = sum ? s->send : s->recv;
    int n = sum ? s->nsend : s->nrecv;
    int64_t slots = x->holder_slots[s->rank], items = items_of(msgs, n) + (s->local.count ? s->local.items : 0);
    if (items != slots)
        return rl_fail(RELAY_ERR_FORMAT, "plan section of rank %d: its messages %s %lld holder slots, but it holds %lld",
                       (int)s->rank, sum ? "sum" : "write", (long long)items, (long long)slots);
    holder_walk w = {s, sum, slots, rl_calloc((size_t)(slots / 8 + 1), 1)};
    if (!w.seen) return RL_NOMEM();
    relay_status st = RELAY_OK;
    for (int i = 0; i < n && !st; i++) st = walk_message(&w, &msgs[i], sum ? "a message it sends" : "a message it receives");
    if (!st && s->local.count) st = walk_message(&w, &s->local, "its local moves");
    free(w.seen);
    return st;
}

static uint64_t mix(uint64_t h, int64_t v)
{
    uint64_t z = h ^ ((uint64_t)v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2));
    z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9u; /* splitmix64's finaliser */
    z = (z ^ z >> 27) * 0x94d049bb133111ebu;
    return z ^ z >> 31;
}

uint64_t rl_index_msg_signature(const rl_index_section *s, const rl_index_msg *m)
{
    uint64_t h = mix(0, m->items);
    for (int64_t g = m->first; g < m->first + m->count; g++) {
        const rl_index_seg *seg = &s->segs[g];
        const int64_t *f = &seg->listed;
        for (int j = 0; j < RL_INDEX_SEG_FIELDS; j++) h = mix(h, seg->listed && j == 3 ? 0 : f[j]); /* a list's place differs by end */
        for (int64_t i = 0; seg->listed && i < 2 * seg->outer; i++) h = mix(h, s->list[2 * seg->from + i]);
    }
    return h;
}
