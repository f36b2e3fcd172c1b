/* device_table.c — a message set's boxes (message_set.h) as tables of
 * device walks: each box of two dimensions, one progression of runs each
 * (a lattice: count_c runs of cols outside count_r runs of rows), a walk
 * whose sides are offsets from the buffers a replay names (B, A, or the
 * pack buffer from its start), its V cut into tiles numbered across the
 * set. */
#include <stdlib.h>

#include "device_table.h"
#include "error.h"

static int64_t ceil_div(int64_t x, int64_t b) { return (x + b - 1) / b; }

/* A side lies closest down V's columns when its next element down is
 * nearer than its next across (as the host kernels' tiles decide). */
static int32_t lies_down(const rl_dev_side *s, int64_t rows, int64_t cols)
{
    int64_t down = rows > 1 ? llabs(s->rs) : llabs(s->step_r), across = cols > 1 ? llabs(s->cs) : llabs(s->step_c);
    return down <= across;
}

/* Box b (a lattice) of a message whose place in the pack buffer starts
 * `base` elements in. */
static rl_dev_walk dev_walk(const rl_msgset *set, const rl_box *b, rl_dev_phase phase, int64_t base)
{
    const rl_box_dim *c = rl_box_dim_of(set, b, 0), *r = rl_box_dim_of(set, b, 1);
    const rl_runs *cr = rl_dim_runs(set, c), *rr = rl_dim_runs(set, r);
    rl_dev_side from = {cr->from + rr->from + (phase == RL_DEV_UNPACK ? base : 0), rr->from_step, cr->from_step, r->from_stride,
                        c->from_stride};
    rl_dev_side to = {cr->to + rr->to + (phase == RL_DEV_PACK ? base : 0), rr->to_step, cr->to_step, r->to_stride, c->to_stride};
    int64_t vrows = rr->count * rr->len, vcols = cr->count * cr->len;
    rl_dev_walk d = {
        .rows = rr->len, .cols = cr->len, .vrows = vrows, .vcols = vcols,
        .tiles_c = ceil_div(vcols, RL_DEV_TILE),
        .from = from,
        .to = to,
        .pair = b->pair,
        .from_buf = phase == RL_DEV_UNPACK ? RL_DEV_PACKED : RL_DEV_B,
        .to_buf = phase == RL_DEV_PACK ? RL_DEV_PACKED : RL_DEV_A,
        .conj = phase != RL_DEV_PACK && set->pairs[b->pair].op == RELAY_OP_C,
        .from_down = lies_down(&from, rr->len, cr->len),
        .to_down = lies_down(&to, rr->len, cr->len),
    };
    return d;
}

/* Whether the device's kernel moves box b: two dimensions of one
 * progression each. */
static int lattice(const rl_msgset *set, const rl_box *b)
{
    return b->ndims == 2 && rl_box_dim_of(set, b, 0)->n == 1 && rl_box_dim_of(set, b, 1)->n == 1;
}

/* Appends boxes [first, first + count), skipping empty ones. */
static relay_status add_walks(rl_dev_table *t, const rl_msgset *set, const rl_box *boxes, int64_t first, int64_t count,
                              rl_dev_phase phase, int64_t base)
{
    for (int64_t i = first; i < first + count; i++) {
        if (boxes[i].elems == 0) continue;
        if (!lattice(set, &boxes[i]))
            return rl_fail(RELAY_ERR_UNSUPPORTED, "relay_exec_create_with: the device moves pieces of two dimensions, one "
                                                  "lattice each; this plan's have %d", (int)boxes[i].ndims);
        rl_dev_walk d = dev_walk(set, &boxes[i], phase, base);
        d.first_tile = t->ntiles;
        t->ntiles += ceil_div(d.vrows, RL_DEV_TILE) * d.tiles_c;
        t->walks[t->nwalks++] = d;
    }
    return RELAY_OK;
}

relay_status rl_dev_table_build(rl_dev_table *t, const rl_msgset *set, rl_dev_phase phase)
{
    const rl_msg_side *side = phase == RL_DEV_PACK ? &set->send : &set->recv;
    int64_t n = phase == RL_DEV_LOCAL ? set->nlocal : side->nboxes;
    *t = (rl_dev_table){NULL, 0, 0};
    t->walks = n ? calloc((size_t)n, sizeof *t->walks) : NULL;
    if (n && !t->walks) return RL_NOMEM();
    if (phase == RL_DEV_LOCAL) return add_walks(t, set, set->local, 0, n, phase, 0);
    relay_status st = RELAY_OK;
    for (int k = 0; k < side->n && !st; k++)
        st = add_walks(t, set, side->boxes, side->msg[k].first, side->msg[k].count, phase,
                       (side->byte_off[k] + set->control) / (int64_t)set->esz);
    return st;
}

void rl_dev_table_free(rl_dev_table *t)
{
    free(t->walks);
    *t = (rl_dev_table){NULL, 0, 0};
}
