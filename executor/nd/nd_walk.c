/* nd_walk.c — walking an N-D transfer in rectangles (nd_walk.h). */
#include <string.h>

#include "nd_walk.h"

void rl_nd_side_strides(rl_nd_side *side, const relay_nd_layout *l, const int *coords, const int32_t *perm)
{
    int64_t extents[RELAY_ND_MAX_DIMS], strides[RELAY_ND_MAX_DIMS];
    rl_nd_local_extents(l, coords, extents);
    rl_nd_strides(l, extents, strides);
    for (int k = 0; k < l->ndims; k++) side->stride[k] = strides[perm ? perm[k] : k];
}

void rl_nd_message_strides(rl_nd_side *side, const rl_nd_transfer *t, const rl_nd_order *o)
{
    int64_t stride = 1;
    for (int i = o->ndims - 1; i >= 0; i--) {
        int k = o->order[i];
        side->stride[k] = stride;
        stride *= rl_nd_transfer_extent(t, k);
    }
}

/* Offset, in elements, of run i of progression r of dimension k, `at`
 * positions into the dimension's list. */
static inline int64_t run_offset(const rl_nd_side *s, int k, const rl_nd_runs *r, int64_t i, int64_t at)
{
    int64_t first = s->kind == RL_ND_SIDE_B ? r->b_lo + i * r->b_step : s->kind == RL_ND_SIDE_A ? r->a_lo + i * r->a_step : at;
    return first * s->stride[k];
}

typedef struct {
    const rl_scalars *s;
    int conj;
    size_t esz;
    const rl_nd_order *o;
    const rl_nd_transfer *t;
    const rl_nd_side *dst, *src;
} walk;

/* The inner dimension's runs against one run of the outer one (d_o, s_o
 * into dst and src, cols long; one column in 1-D). */
static void walk_columns(const walk *w, int64_t doff, int64_t soff, int ko, int64_t cols)
{
    int ki = w->o->order[w->o->ndims - 1];
    int64_t at = 0;
    for (int64_t p = 0; p < w->t->nprogs[ki]; p++) {
        const rl_nd_runs *in = &w->t->runs[ki][p];
        for (int64_t i = 0; i < in->count; i++, at += in->len) {
            int64_t dpos = doff + run_offset(w->dst, ki, in, i, at), spos = soff + run_offset(w->src, ki, in, i, at);
            rl_side ds = {w->dst->base + dpos * (int64_t)w->esz, w->dst->stride[ki], ko >= 0 ? w->dst->stride[ko] : 0};
            rl_side ss = {w->src->base + spos * (int64_t)w->esz, w->src->stride[ki], ko >= 0 ? w->src->stride[ko] : 0};
            rl_move(w->s, w->conj, ds, ss, in->len, cols);
        }
    }
}

/* The two innermost dimensions: one rectangle per pair of runs (one
 * dimension: one column per run). */
static void walk_rectangles(const walk *w, int64_t doff, int64_t soff)
{
    int d = w->o->ndims, ko = d > 1 ? w->o->order[d - 2] : -1;
    if (ko < 0) {
        walk_columns(w, doff, soff, ko, 1);
        return;
    }
    int64_t at = 0;
    for (int64_t p = 0; p < w->t->nprogs[ko]; p++) {
        const rl_nd_runs *outer = &w->t->runs[ko][p];
        for (int64_t i = 0; i < outer->count; i++, at += outer->len)
            walk_columns(w, doff + run_offset(w->dst, ko, outer, i, at), soff + run_offset(w->src, ko, outer, i, at), ko, outer->len);
    }
}

static void walk_level(const walk *w, int level, int64_t doff, int64_t soff)
{
    if (level >= w->o->ndims - 2) {
        walk_rectangles(w, doff, soff);
        return;
    }
    int k = w->o->order[level];
    int64_t at = 0;
    for (int64_t p = 0; p < w->t->nprogs[k]; p++) {
        const rl_nd_runs *run = &w->t->runs[k][p];
        for (int64_t r = 0; r < run->count; r++, at += run->len) {
            int64_t d0 = doff + run_offset(w->dst, k, run, r, at), s0 = soff + run_offset(w->src, k, run, r, at);
            for (int64_t i = 0; i < run->len; i++) walk_level(w, level + 1, d0 + i * w->dst->stride[k], s0 + i * w->src->stride[k]);
        }
    }
}

void rl_nd_move(const rl_scalars *s, int conj, const rl_nd_order *o, const rl_nd_transfer *t, const rl_nd_side *dst,
                const rl_nd_side *src)
{
    if (t->elems == 0) return;
    walk w = {s, conj, relay_type_size(s->type), o, t, dst, src};
    walk_level(&w, 0, 0, 0);
}
