/* nd_lower.c — an N-D rank's transfers as a message set (message_set.h,
 * nd_lower.h).
 *
 * A transfer is the product of per-dimension lists of progressions of
 * runs (nd_transfers.h, nd_cut.h): as a box, its dimensions are A's in
 * its pair's walk order (nd_walk_order.h), outermost first, each
 * progression one of the set's.  On B's side run i of a progression
 * begins at index b_lo + i b_step, on A's at a_lo + i a_step, in the
 * packed message at the run's position in its dimension's list; the
 * packed strides lay the transfer out densely in walk order, its first
 * element `pos` elements into its message. */
#include "nd_lower.h"

void rl_nd_strides_of(int64_t *stride, const relay_nd_layout *l, const int *coords, const int32_t *perm)
{
    int64_t extents[RELAY_ND_MAX_DIMS], strides[RELAY_ND_MAX_DIMS];
    rl_nd_local_extents(l, coords, extents);
    rl_nd_strides(l, extents, strides);
    for (int k = 0; k < l->ndims; k++) stride[k] = strides[perm ? perm[k] : k];
}

/* The dense strides of transfer t's packed form in walk order o. */
static void packed_strides(int64_t *stride, const rl_nd_transfer *t, const rl_nd_order *o)
{
    int64_t s = 1;
    for (int i = o->ndims - 1; i >= 0; i--) {
        int k = o->order[i];
        stride[k] = s;
        s *= rl_nd_transfer_extent(t, k);
    }
}

/* Where a dimension's runs start on a side: at B's local index, A's, or
 * at their position in the dimension's list (the packed message). */
typedef enum { ON_B, ON_A, PACKED } side_kind;

typedef struct {
    side_kind kind;
    const int64_t *stride;
} side;

/* The element where run 0 of progression r begins on side s, and the
 * elements from one run to the next; `at`: the run's position in its
 * dimension's list. */
static void progression_on(side s, const rl_nd_runs *r, int64_t at, int k, int64_t *first, int64_t *step)
{
    int64_t lo = s.kind == ON_B ? r->b_lo : s.kind == ON_A ? r->a_lo : at;
    int64_t by = s.kind == ON_B ? r->b_step : s.kind == ON_A ? r->a_step : r->len;
    *first = lo * s.stride[k];
    *step = by * s.stride[k];
}

/* Where the next box's dimensions and runs go in the set's pools. */
typedef struct {
    rl_msgset *set;
    int64_t dim, run;
} pools;

/* Transfer t moved from one side to the other as box b, its packed
 * side's first element `pos` elements into its message: per dimension
 * in walk order, one progression of the set per progression of t's
 * (nd_cut.h), never expanded. */
static void transfer_box(pools *p, rl_box *b, const rl_nd_transfer *t, const rl_nd_geometry *g, side from, side to, int64_t pos)
{
    const rl_nd_order *o = &g->order;
    *b = (rl_box){t->pair, o->ndims, p->dim, t->elems};
    for (int i = 0; i < o->ndims; i++) {
        int k = o->order[i];
        int64_t at = 0;
        for (int64_t q = 0; q < t->nprogs[k]; q++) {
            const rl_nd_runs *r = &t->runs[k][q];
            rl_runs *out = &p->set->runs[p->run + q];
            *out = (rl_runs){r->count, r->len, 0, 0, 0, 0};
            progression_on(from, r, at, k, &out->from, &out->from_step);
            progression_on(to, r, at, k, &out->to, &out->to_step);
            if (i == 0 && from.kind == PACKED) out->from += pos; /* its place in its message: once, outermost */
            if (i == 0 && to.kind == PACKED) out->to += pos;
            at += r->count * r->len;
        }
        p->set->dims[p->dim++] = (rl_box_dim){from.stride[k], to.stride[k], p->run, t->nprogs[k]};
        p->run += t->nprogs[k];
    }
}

/* One direction's messages and their transfers' boxes. */
static void lower_side(pools *p, rl_msg_side *side_out, const rl_nd_message *msg, const rl_nd_transfer *v,
                       const rl_nd_geometry *pairs, int sending)
{
    for (int k = 0; k < side_out->n; k++) {
        const rl_nd_message *m = &msg[k];
        side_out->msg[k] = (rl_msg){m->peer, m->tag, -1, sending ? m->from : -1, sending ? m->from_offset : 0, m->elems, m->first,
                                    m->count};
        int64_t pos = 0;
        for (int64_t j = m->first; j < m->first + m->count; pos += v[j++].elems) {
            const rl_nd_geometry *g = &pairs[v[j].pair];
            int64_t packed[RELAY_ND_MAX_DIMS];
            packed_strides(packed, &v[j], &g->order);
            side message = {PACKED, packed};
            side mine = sending ? (side){ON_B, g->b_stride} : (side){ON_A, g->a_stride};
            transfer_box(p, &side_out->boxes[j], &v[j], g, sending ? mine : message, sending ? message : mine, pos);
        }
    }
}

/* Dimensions and progressions the boxes of n transfers take. */
static void count_pools(const rl_nd_transfer *v, int64_t n, const rl_nd_geometry *pairs, int64_t *dims, int64_t *runs)
{
    for (int64_t j = 0; j < n; j++) {
        const rl_nd_order *o = &pairs[v[j].pair].order;
        *dims += o->ndims;
        for (int i = 0; i < o->ndims; i++) *runs += v[j].nprogs[o->order[i]];
    }
}

relay_status rl_nd_lower(rl_msgset *set, const rl_nd_part *part, const rl_nd_messages *m, const rl_nd_geometry *pairs,
                         int npairs, size_t esz)
{
    int64_t dims = 0, runs = 0;
    count_pools(part->send, part->nsend, pairs, &dims, &runs);
    count_pools(part->recv, part->nrecv, pairs, &dims, &runs);
    count_pools(part->local, part->nlocal, pairs, &dims, &runs);
    rl_msgset_sizes n = {m->nsend, m->nrecv, npairs, part->nsend, part->nrecv, part->nlocal, dims, runs};
    relay_status st = rl_msgset_alloc(set, &n, esz);
    if (st) return st;
    pools p = {set, 0, 0};
    lower_side(&p, &set->send, m->send, part->send, pairs, 1);
    lower_side(&p, &set->recv, m->recv, part->recv, pairs, 0);
    for (int64_t j = 0; j < part->nlocal; j++) {
        const rl_nd_geometry *g = &pairs[part->local[j].pair];
        transfer_box(&p, &set->local[j], &part->local[j], g, (side){ON_B, g->b_stride}, (side){ON_A, g->a_stride}, 0);
    }
    for (int k = 0; k < npairs; k++) set->pairs[k] = (rl_pair_moves){pairs[k].op, pairs[k].combine};
    return rl_msgset_layout(set);
}
