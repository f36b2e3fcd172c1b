/* index_lies.c — index plans that lie consistently (index_lies.h).
 *
 * Each lie moves data within the buffers, so only checks of content stand
 * between it and a wrong replay: a reader's (items a message says it holds,
 * slots past a buffer, peers out of order), binding's on each rank (a
 * broadcast writes each holder slot once, a sum reads each once in
 * ascending order: executor/index/index_check.c) and across ranks (both
 * ends of a message hold the same segments).  replay.sh run-index replays
 * every file with relay-run --verify at its rank count: each must be
 * refused, on every rank, at read or bind, never hang or verify. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "index_lies.h"
#include "index_plan.h"
#include "plan_internal.h"

/* The base plans: a 3 x 3 grid's halo on 3 ranks (row blocks, items of 2
 * elements: runs), and on 2 ranks random-ish lists (listed segments). */
static relay_index_layout *layout(int64_t n, int nranks, const int64_t *const *items, const int64_t *count)
{
    relay_index_layout *l;
    if (relay_index_layout_create(&l, n, 2, nranks)) return NULL;
    for (int r = 0; r < nranks; r++)
        if (relay_index_layout_set_list(l, r, count[r], items[r])) {
            relay_index_layout_free(l);
            return NULL;
        }
    return l;
}

static relay_plan *plan_of(int nranks, int64_t n, const int64_t *const *own, const int64_t *own_count,
                           const int64_t *const *hold, const int64_t *hold_count, relay_index_move move)
{
    relay_index_layout *o = layout(n, nranks, own, own_count), *h = layout(n, nranks, hold, hold_count);
    relay_plan *p = NULL;
    if (!o || !h || relay_plan_index(&p, nranks, o, h, move, RELAY_DOUBLE)) p = NULL;
    relay_index_layout_free(o);
    relay_index_layout_free(h);
    return p;
}

/* Rows 0-2, 3-5, 6-8 of a 3 x 9 grid owned by ranks 0-2, each holding its
 * rows widened by one: runs of 9 items along each boundary. */
static relay_plan *halo(relay_index_move move)
{
    static const int64_t o0[] = {0, 1, 2, 3, 4, 5, 6, 7, 8}, o1[] = {9, 10, 11, 12, 13, 14, 15, 16, 17},
                         o2[] = {18, 19, 20, 21, 22, 23, 24, 25, 26};
    static const int64_t h0[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
    static const int64_t h1[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26};
    static const int64_t h2[] = {9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26};
    const int64_t *own[] = {o0, o1, o2}, *hold[] = {h0, h1, h2};
    const int64_t oc[] = {9, 9, 9}, hc[] = {18, 27, 18};
    return plan_of(3, 27, own, oc, hold, hc, move);
}

/* Scattered lists on 2 ranks, an item held twice by one rank. */
static relay_plan *lists(relay_index_move move)
{
    static const int64_t o0[] = {3, 0, 7, 5}, o1[] = {1, 6, 2, 4};
    static const int64_t h0[] = {6, 3, 1, 4, 1, 2}, h1[] = {0, 5, 3, 7, 2, 6, 1};
    const int64_t *own[] = {o0, o1}, *hold[] = {h0, h1};
    const int64_t oc[] = {4, 4}, hc[] = {6, 7};
    return plan_of(2, 8, own, oc, hold, hc, move);
}

/* ---- the lies ------------------------------------------------------------- */

/* Rank r's message to (send) or from (recv) peer, or NULL. */
static rl_index_msg *message(rl_index_section *s, int send, int peer)
{
    rl_index_msg *m = send ? s->send : s->recv;
    int n = send ? s->nsend : s->nrecv;
    for (int i = 0; i < n; i++)
        if (m[i].peer == peer) return &m[i];
    return NULL;
}

/* Both ends of the first message of rank r's sends: its sender's
 * description and its receiver's. */
typedef struct {
    rl_index_msg *sent, *received;
    rl_index_section *from, *to;
} both_ends;

static int first_message(relay_plan *p, int r, both_ends *b)
{
    rl_index_section *s = p->index->sections[r];
    if (!s->nsend) return 0;
    b->from = s;
    b->sent = &s->send[0];
    b->to = p->index->sections[b->sent->peer];
    b->received = message(b->to, 0, r);
    return b->received != NULL;
}

static int64_t owner_slots_of(const relay_plan *p, int rank) { return p->index->owner_slots[rank]; }

static rl_index_seg *first_seg(rl_index_section *s, const rl_index_msg *m) { return &s->segs[m->first]; }

/* Each edit returns 1 where it applies to the plan (else it is skipped). */
typedef int lie(relay_plan *p);

/* A reader's: a message says it holds one item more than its segments. */
static int items_claimed(relay_plan *p)
{
    rl_index_section *s = p->index->sections[0];
    if (!s->nsend) return 0;
    s->send[0].items++;
    return 1;
}

/* A reader's: a receive's first segment writes past its buffer. */
static int writes_past(relay_plan *p)
{
    both_ends b;
    if (!first_message(p, 0, &b)) return 0;
    rl_index_seg *g = first_seg(b.to, b.received);
    if (g->listed) b.to->list[2 * g->from + 1] = rl_index_to_slots(p->index, b.to->rank);
    else g->to = rl_index_to_slots(p->index, b.to->rank);
    return 1;
}

/* Across ranks: one end of a message moves its first item to the next
 * owner slot (the end that holds the owner side: a broadcast's sender, a
 * sum's receiver), the other end unchanged.  Each section reads well
 * alone, and no holder slot is touched twice: only comparing the two ends
 * finds it. */
static int shift_within(int64_t *start, int64_t lo, int64_t hi, int64_t slots)
{
    if (hi + 1 < slots) ++*start;
    else if (lo > 0) --*start;
    else return 0;
    return 1;
}

/* The owner side of segment g (listed: its first entry alone) moved by one
 * slot, within the buffer of `slots`; 0 where no slot is free. */
static int shift_owner_side(rl_index_section *s, rl_index_seg *g, int sum, int64_t slots)
{
    if (g->listed) {
        int64_t *slot = &s->list[2 * g->from + (sum ? 1 : 0)];
        return shift_within(slot, *slot, *slot, slots);
    }
    int64_t *start = sum ? &g->to : &g->from, inner = sum ? g->to_inner : g->from_inner, outer = sum ? g->to_outer : g->from_outer;
    int64_t lo = *start, hi = *start;
    for (int c = 0; c < 4; c++) { /* the corners bound a run's slots */
        int64_t at = *start + (c & 1 ? (g->inner - 1) * inner : 0) + (c & 2 ? (g->outer - 1) * outer : 0);
        lo = at < lo ? at : lo;
        hi = at > hi ? at : hi;
    }
    return shift_within(start, lo, hi, slots);
}

static int one_end_shifted(relay_plan *p)
{
    int sum = p->index->move == RELAY_INDEX_REDUCE_SUM;
    both_ends b;
    for (int r = 0; r < p->nranks; r++) {
        if (!first_message(p, r, &b)) continue;
        rl_index_section *s = sum ? b.to : b.from;
        if (shift_owner_side(s, first_seg(s, sum ? b.received : b.sent), sum, owner_slots_of(p, s->rank))) return 1;
    }
    return 0;
}

/* Binding's: the local moves' first item lands in (broadcast: is written
 * into; sum: is read from) the holder slot its second does, at both ends
 * (the local moves are both). */
static int local_twice(relay_plan *p)
{
    for (int r = 0; r < p->nranks; r++) {
        rl_index_section *s = p->index->sections[r];
        if (rl_index_seg_items(&s->segs[s->local.first]) < 2) continue;
        int sum = p->index->move == RELAY_INDEX_REDUCE_SUM;
        int64_t from, to;
        rl_index_seg *g = &s->segs[s->local.first];
        rl_index_seg_pair(s, g, 1, &from, &to);
        /* The first item alone as a listed segment would change the record
         * count; move the whole first segment by one item's step instead. */
        if (g->listed) {
            s->list[2 * g->from + (sum ? 0 : 1)] = sum ? from : to;
        } else if (sum) {
            g->from = from;
            if (g->inner > 1) g->from_inner = 0;
            else g->from_outer = 0;
        } else {
            g->to = to;
            if (g->inner > 1) g->to_inner = 0;
            else g->to_outer = 0;
        }
        return 1;
    }
    return 0;
}

/* Binding's: a sum's message lists its holder slots backwards, at both
 * ends: the same contributions, out of the order the sum adds in. */
static int sum_reversed(relay_plan *p)
{
    if (p->index->move != RELAY_INDEX_REDUCE_SUM) return 0;
    both_ends b;
    for (int r = 0; r < p->nranks; r++) {
        if (!first_message(p, r, &b) || b.sent->items < 2 || b.sent->count != 1) continue;
        rl_index_seg *g = first_seg(b.from, b.sent), *h = first_seg(b.to, b.received);
        if (g->listed || g->outer != 1) continue;
        g->from += (g->inner - 1) * g->from_inner;
        g->from_inner = -g->from_inner;
        g->to += (g->inner - 1) * g->to_inner;
        g->to_inner = -g->to_inner;
        *h = *g;
        return 1;
    }
    return 0;
}

/* Binding's: the header says rank 0 holds one slot more than its moves
 * fill (the fingerprint recomputed). */
static int holder_slots(relay_plan *p)
{
    p->index->holder_slots[0]++;
    return 1;
}

enum { HALO_BROADCAST, HALO_SUM, LISTS_BROADCAST, LISTS_SUM };
static const char *const bases[] = {"halo-broadcast", "halo-sum", "lists-broadcast", "lists-sum"};

/* Each lie on the bases where it says most: a launch of relay-run costs
 * a second or two, so the reader's own refusals once each (test_index and
 * the fuzzer hold the rest), binding's on runs and on lists. */
static const struct {
    const char *name;
    lie *edit;
    int base;
} lies[] = {
    {"items-claimed", items_claimed, HALO_BROADCAST},      {"writes-past", writes_past, LISTS_SUM},
    {"one-end-shifted", one_end_shifted, LISTS_BROADCAST}, {"one-end-shifted", one_end_shifted, LISTS_SUM},
    {"local-twice", local_twice, HALO_BROADCAST},          {"local-twice", local_twice, LISTS_SUM},
    {"sum-reversed", sum_reversed, HALO_SUM},              {"holder-slots", holder_slots, HALO_SUM},
};

/* Every checksum and the fingerprint made right again, and saved. */
static int seal_and_save(relay_plan *p, const char *path)
{
    for (int r = 0; r < p->nranks; r++) {
        p->index->sections[r]->checksum = rl_index_section_hash(p->index->sections[r]);
        p->index->checksums[r] = p->index->sections[r]->checksum;
    }
    p->fingerprint = rl_index_plan_hash(p);
    return relay_plan_save(p, path) != RELAY_OK;
}

int write_index_lies(const char *dir, int *files)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/index", dir);
    mkdir(path, 0755);
    int bad = 0;
    for (size_t l = 0; l < sizeof lies / sizeof *lies && !bad; l++) {
        int b = lies[l].base;
        relay_index_move move = b == HALO_SUM || b == LISTS_SUM ? RELAY_INDEX_REDUCE_SUM : RELAY_INDEX_BROADCAST;
        relay_plan *p = b == HALO_BROADCAST || b == HALO_SUM ? halo(move) : lists(move);
        bad = !p;
        if (!bad && !lies[l].edit(p)) { /* every lie must apply, or the corpus lost a case */
            fprintf(stderr, "make_hostile: the index lie %s does not apply to %s\n", lies[l].name, bases[b]);
            bad = 1;
        }
        if (!bad) {
            snprintf(path, sizeof path, "%s/index/np%d-%s-%s.plan", dir, p->nranks, bases[b], lies[l].name);
            bad = seal_and_save(p, path);
            *files += !bad;
        }
        relay_plan_free(p);
    }
    return bad;
}
