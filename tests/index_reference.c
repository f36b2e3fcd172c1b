/* index_reference.c — the serial reference and simulator (index_reference.h). */
#include <stdlib.h>
#include <string.h>

#include "index_plan.h"
#include "index_reference.h"

/* An element's real components and their width. */
static int reals_per_elem(relay_type t) { return t == RELAY_CFLOAT || t == RELAY_CDOUBLE ? 2 : 1; }
static int is_single(relay_type t) { return t == RELAY_FLOAT || t == RELAY_CFLOAT; }

/* item := item + c, for one item of k elements. */
static void add_item(char *item, const char *c, int64_t k, relay_type t)
{
    int64_t n = k * reals_per_elem(t);
    for (int64_t i = 0; i < n; i++) {
        if (is_single(t)) ((float *)item)[i] = ((float *)item)[i] + ((const float *)c)[i];
        else ((double *)item)[i] = ((double *)item)[i] + ((const double *)c)[i];
    }
}

static int find_owner(const ref_lists *owners, int64_t item, int64_t *slot)
{
    for (int r = 0; r < owners->nranks; r++)
        for (int64_t j = 0; j < owners->count[r]; j++)
            if (owners->items[r][j] == item) {
                *slot = j;
                return r;
            }
    return -1;
}

void ref_index_broadcast(const ref_lists *owners, const ref_lists *holders, int64_t k, relay_type type,
                         char *const *owner_bufs, char *const *holder_bufs)
{
    size_t bytes = (size_t)k * relay_type_size(type);
    for (int h = 0; h < holders->nranks; h++)
        for (int64_t j = 0; j < holders->count[h]; j++) {
            int64_t slot;
            int o = find_owner(owners, holders->items[h][j], &slot);
            if (o >= 0) memcpy(holder_bufs[h] + (size_t)j * bytes, owner_bufs[o] + (size_t)slot * bytes, bytes);
        }
}

void ref_index_reduce_sum(const ref_lists *owners, const ref_lists *holders, int64_t k, relay_type type,
                          char *const *owner_bufs, char *const *holder_bufs)
{
    size_t bytes = (size_t)k * relay_type_size(type);
    for (int o = 0; o < owners->nranks; o++)
        for (int64_t j = 0; j < owners->count[o]; j++)
            for (int h = 0; h < holders->nranks; h++)
                for (int64_t s = 0; s < holders->count[h]; s++)
                    if (holders->items[h][s] == owners->items[o][j])
                        add_item(owner_bufs[o] + (size_t)j * bytes, holder_bufs[h] + (size_t)s * bytes, k, type);
}

/* ---- the simulator -------------------------------------------------------- */

/* Moves the items of msg's segments between a buffer and packed bytes
 * (pack: buffer to packed, by from slots; else packed to buffer by to
 * slots, written or added). */
static void move_message(const rl_index_section *s, const rl_index_msg *m, char *buf, char *packed, int pack, int add,
                         int64_t k, relay_type t)
{
    size_t bytes = (size_t)k * relay_type_size(t);
    int64_t at = 0;
    for (int64_t g = m->first; g < m->first + m->count; g++)
        for (int64_t i = 0; i < rl_index_seg_items(&s->segs[g]); i++, at++) {
            int64_t from, to;
            rl_index_seg_pair(s, &s->segs[g], i, &from, &to);
            char *slot = buf + (size_t)(pack ? from : to) * bytes, *wire = packed + (size_t)at * bytes;
            if (pack) memcpy(wire, slot, bytes);
            else if (add) add_item(slot, wire, k, t);
            else memcpy(slot, wire, bytes);
        }
}

static const rl_index_msg *send_to(const rl_index_section *s, int peer)
{
    for (int i = 0; i < s->nsend; i++)
        if (s->send[i].peer == peer) return &s->send[i];
    return NULL;
}

/* Receiver r's message from peer: packed by the sender's section, then
 * unpacked by r's. */
static int receive(const relay_plan *p, int r, const rl_index_msg *m, char *const *from_bufs, char *const *to_bufs)
{
    const rl_index_plan *x = p->index;
    const rl_index_section *peer = x->sections[m->peer], *me = x->sections[r];
    const rl_index_msg *sent = m->peer == r ? m : send_to(peer, r);
    if (!sent || sent->items != m->items) return -1;
    char *packed = malloc((size_t)(m->items * x->item_elems) * relay_type_size(p->type) + 1);
    if (!packed) return -1;
    move_message(peer, sent, from_bufs[m->peer], packed, 1, 0, x->item_elems, p->type);
    move_message(me, m, to_bufs[r], packed, 0, x->move == RELAY_INDEX_REDUCE_SUM, x->item_elems, p->type);
    free(packed);
    return 0;
}

int sim_index_plan(const relay_plan *p, char *const *from_bufs, char *const *to_bufs)
{
    for (int r = 0; r < p->nranks; r++) {
        const rl_index_section *s = p->index->sections[r];
        int local_done = 0;
        for (int i = 0; i <= s->nrecv; i++) {
            if (!local_done && (i == s->nrecv || s->recv[i].peer > r)) {
                if (receive(p, r, &s->local, from_bufs, to_bufs)) return -1;
                local_done = 1;
            }
            if (i < s->nrecv && receive(p, r, &s->recv[i], from_bufs, to_bufs)) return -1;
        }
    }
    return 0;
}
