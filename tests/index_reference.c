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

uint64_t ref_index_random(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int64_t ref_index_below(uint64_t *s, int64_t n) { return n > 0 ? (int64_t)(ref_index_random(s) % (uint64_t)n) : 0; }

/* ---- cases ---------------------------------------------------------------- */

static void lists_init(ref_lists *l, int nranks, int64_t n)
{
    l->nranks = nranks;
    l->n = n;
    l->count = calloc((size_t)nranks, sizeof *l->count);
    l->items = calloc((size_t)nranks, sizeof *l->items);
}

static void lists_push(ref_lists *l, int r, int64_t item)
{
    int64_t n = l->count[r];
    if ((n & (n - 1)) == 0) l->items[r] = realloc(l->items[r], (size_t)(n ? 2 * n : 1) * sizeof **l->items); /* at powers of 2 */
    l->items[r][l->count[r]++] = item;
}

void ref_index_case_free(ref_index_case *c)
{
    ref_lists *ls[2] = {&c->owners, &c->holders};
    for (int i = 0; i < 2; i++) {
        for (int r = 0; r < ls[i]->nranks; r++) free(ls[i]->items[r]);
        free(ls[i]->items);
        free(ls[i]->count);
    }
}

/* Random owners (a shuffled share of the items, some owned by no one, some
 * ranks owning nothing) and holders (random owned items, duplicates,
 * unsorted; an empty rank; with `everyone`, two items every rank holds). */
ref_index_case ref_index_random_case(int nranks, uint64_t seed, int everyone)
{
    uint64_t s = seed;
    int64_t n = 1 + ref_index_below(&s, 90);
    ref_index_case c;
    lists_init(&c.owners, nranks, n);
    lists_init(&c.holders, nranks, n);
    int64_t *perm = malloc((size_t)n * sizeof *perm), *owned = malloc((size_t)n * sizeof *owned), nowned = 0;
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = ref_index_below(&s, i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    int idle = nranks > 2 ? (int)ref_index_below(&s, nranks) : -1; /* owns nothing */
    for (int64_t i = 0; i < n; i++) {
        if (ref_index_below(&s, 8) == 0) continue; /* no owner: no one may hold it */
        int r = (int)ref_index_below(&s, nranks);
        if (r == idle) r = (r + 1) % nranks;
        lists_push(&c.owners, r, perm[i]);
        owned[nowned++] = perm[i];
    }
    int empty = nranks > 1 ? (int)ref_index_below(&s, nranks) : -1; /* holds nothing */
    for (int r = 0; r < nranks && nowned; r++) {
        if (r == empty && !everyone) continue;
        int64_t count = ref_index_below(&s, 2 * n);
        for (int64_t j = 0; j < count; j++) lists_push(&c.holders, r, owned[ref_index_below(&s, nowned)]);
        if (everyone) {
            lists_push(&c.holders, r, owned[0]);
            lists_push(&c.holders, (int)ref_index_below(&s, nranks), owned[nowned - 1]);
            for (int q = 0; q < nranks; q++) lists_push(&c.holders, q, owned[nowned / 2]);
        }
    }
    free(perm);
    free(owned);
    return c;
}

/* An N x N grid of items (row-major) on a px x py mesh of blocks: rank
 * (a, b) owns its block, stored row by row, and holds its block widened
 * by `halo` on every side (cut at the grid's edge), stored row by row. */
ref_index_case ref_index_halo_case(int64_t N, int px, int py, int64_t halo)
{
    ref_index_case c;
    lists_init(&c.owners, px * py, N * N);
    lists_init(&c.holders, px * py, N * N);
    for (int a = 0; a < px; a++)
        for (int b = 0; b < py; b++) {
            int r = a * py + b;
            int64_t r0 = a * N / px, r1 = (a + 1) * N / px, c0 = b * N / py, c1 = (b + 1) * N / py;
            for (int64_t i = r0; i < r1; i++)
                for (int64_t j = c0; j < c1; j++) lists_push(&c.owners, r, i * N + j);
            for (int64_t i = r0 - halo; i < r1 + halo; i++)
                for (int64_t j = c0 - halo; j < c1 + halo; j++)
                    if (i >= 0 && i < N && j >= 0 && j < N) lists_push(&c.holders, r, i * N + j);
        }
    return c;
}

/* The case's layouts: lists given as items, or (as_runs) each item as a
 * run of one. */
relay_index_layout *ref_index_layout_of(const ref_lists *l, int64_t k, int as_runs)
{
    relay_index_layout *out;
    if (relay_index_layout_create(&out, l->n, k, l->nranks)) return NULL;
    relay_status st = RELAY_OK;
    for (int r = 0; r < l->nranks && !st; r++) {
        if (!as_runs) {
            st = relay_index_layout_set_list(out, r, l->count[r], l->items[r]);
            continue;
        }
        relay_index_run *runs = malloc((size_t)(l->count[r] + 1) * sizeof *runs);
        for (int64_t j = 0; j < l->count[r]; j++) runs[j] = (relay_index_run){l->items[r][j], 1, 7};
        st = relay_index_layout_set_runs(out, r, l->count[r], runs);
        free(runs);
    }
    if (!st) return out;
    relay_index_layout_free(out);
    return NULL;
}

void ref_index_fill(char *buf, int64_t elems, relay_type t, uint64_t *seed)
{
    size_t reals = (size_t)elems * (t == RELAY_CFLOAT || t == RELAY_CDOUBLE ? 2 : 1);
    for (size_t i = 0; i < reals; i++) {
        double x = (double)(int64_t)(ref_index_random(seed) % 2000001 - 1000000) * 1e-3 * (double)(1 << ref_index_below(seed, 30));
        if (is_single(t)) ((float *)buf)[i] = (float)x;
        else ((double *)buf)[i] = x;
    }
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
