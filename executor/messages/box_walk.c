/* box_walk.c — moving one box's elements in rectangles (box_walk.h). */
#include "box_walk.h"

typedef struct {
    const rl_scalars *s;
    int conj;
    size_t esz;
    const rl_msgset *set;
    const rl_box *b;
    rl_box_end dst, src;
} walk;

/* Element offset of run i of progression r on a side. */
static inline int64_t run_at(const rl_runs *r, rl_box_side side, int64_t i)
{
    return side == RL_BOX_FROM ? r->from + i * r->from_step : r->to + i * r->to_step;
}

static inline int64_t stride_of(const rl_box_dim *d, rl_box_side side) { return side == RL_BOX_FROM ? d->from_stride : d->to_stride; }

/* The inner dimension's runs against one run of the outer (cols indices
 * wide, at d_o and s_o), or alone (cols 1): one rectangle per run. */
static void inner_runs(const walk *w, const rl_box_dim *in, int64_t d_o, int64_t s_o, int64_t d_cs, int64_t s_cs, int64_t cols)
{
    const rl_runs *p = rl_dim_runs(w->set, in);
    int64_t d_rs = stride_of(in, w->dst.side), s_rs = stride_of(in, w->src.side);
    for (int64_t q = 0; q < in->n; q++)
        for (int64_t i = 0; i < p[q].count; i++) {
            rl_side ds = {w->dst.base + (d_o + run_at(&p[q], w->dst.side, i)) * (int64_t)w->esz, d_rs, d_cs};
            rl_side ss = {w->src.base + (s_o + run_at(&p[q], w->src.side, i)) * (int64_t)w->esz, s_rs, s_cs};
            rl_move(w->s, w->conj, ds, ss, p[q].len, cols);
        }
}

/* The two innermost dimensions: one rectangle per pair of runs (one
 * dimension: one column per run). */
static void walk_rectangles(const walk *w, int64_t doff, int64_t soff)
{
    int n = w->b->ndims;
    const rl_box_dim *in = rl_box_dim_of(w->set, w->b, n - 1), *out = n > 1 ? rl_box_dim_of(w->set, w->b, n - 2) : NULL;
    if (!out) {
        inner_runs(w, in, doff, soff, 0, 0, 1);
        return;
    }
    const rl_runs *p = rl_dim_runs(w->set, out);
    int64_t d_cs = stride_of(out, w->dst.side), s_cs = stride_of(out, w->src.side);
    for (int64_t q = 0; q < out->n; q++)
        for (int64_t i = 0; i < p[q].count; i++)
            inner_runs(w, in, doff + run_at(&p[q], w->dst.side, i), soff + run_at(&p[q], w->src.side, i), d_cs, s_cs, p[q].len);
}

static void walk_level(const walk *w, int level, int64_t doff, int64_t soff)
{
    if (level >= w->b->ndims - 2) {
        walk_rectangles(w, doff, soff);
        return;
    }
    const rl_box_dim *d = rl_box_dim_of(w->set, w->b, level);
    const rl_runs *p = rl_dim_runs(w->set, d);
    int64_t ds = stride_of(d, w->dst.side), ss = stride_of(d, w->src.side);
    for (int64_t q = 0; q < d->n; q++)
        for (int64_t i = 0; i < p[q].count; i++) {
            int64_t d0 = doff + run_at(&p[q], w->dst.side, i), s0 = soff + run_at(&p[q], w->src.side, i);
            for (int64_t e = 0; e < p[q].len; e++) walk_level(w, level + 1, d0 + e * ds, s0 + e * ss);
        }
}

void rl_box_move(const rl_scalars *s, int conj, const rl_msgset *set, const rl_box *b, rl_box_end dst, rl_box_end src)
{
    if (b->elems == 0) return;
    walk w = {s, conj, relay_type_size(s->type), set, b, dst, src};
    walk_level(&w, 0, 0, 0);
}
