/* index_moves.c — moving an index plan's items (index_moves.h).
 *
 * Each box (index_lower.c) is walked in its order, one run of consecutive
 * elements (an item, or a merged run of items) at a time: a copy, or for a
 * sum an add in place, element by element, in the plan's order.  Nothing
 * is tiled or shared among threads: a sum's owner side may step 0 (one
 * slot summed twice in a row) and its adds must follow one another, and a
 * broadcast's items are a few elements each, which memcpy moves whole.
 * Complex elements add as their two real parts. */
#include <string.h>

#include "index_moves.h"

typedef struct {
    const rl_msgset *set;
    const rl_box *b;
    char *from, *to;          /* the box's two sides */
    size_t esz;
    relay_type type;
    int add;
} box_move;

static void add_reals(relay_type t, char *to, const char *from, int64_t elems)
{
    int single = t == RELAY_FLOAT || t == RELAY_CFLOAT;
    int64_t n = elems * (t == RELAY_CFLOAT || t == RELAY_CDOUBLE ? 2 : 1);
    if (single)
        for (int64_t i = 0; i < n; i++) ((float *)to)[i] += ((const float *)from)[i];
    else
        for (int64_t i = 0; i < n; i++) ((double *)to)[i] += ((const double *)from)[i];
}

/* elems consecutive elements, from element `from` of one side to `to` of
 * the other. */
static void move_run(const box_move *m, int64_t from, int64_t to, int64_t elems)
{
    char *d = m->to + (size_t)to * m->esz;
    const char *s = m->from + (size_t)from * m->esz;
    if (m->add) add_reals(m->type, d, s, elems);
    else memcpy(d, s, (size_t)elems * m->esz);
}

/* Dimension `level` of the box at offsets (from, to): its runs one after
 * another; the innermost's are runs of consecutive elements. */
static void move_level(const box_move *m, int level, int64_t from, int64_t to)
{
    const rl_box_dim *d = rl_box_dim_of(m->set, m->b, level);
    const rl_runs *r = rl_dim_runs(m->set, d);
    int innermost = level == m->b->ndims - 1;
    for (int64_t q = 0; q < d->n; q++)
        for (int64_t i = 0; i < r[q].count; i++) {
            int64_t f = from + r[q].from + i * r[q].from_step, t = to + r[q].to + i * r[q].to_step;
            if (innermost) move_run(m, f, t, r[q].len);
            else
                for (int64_t e = 0; e < r[q].len; e++) move_level(m, level + 1, f + e * d->from_stride, t + e * d->to_stride);
        }
}

/* Boxes [first, first + count) of `boxes` between from and to; combined
 * by the pair's rule where `combining` (unpacking, local moves), else
 * copied (packing). */
static void move_boxes(const rl_transform_exec *x, const rl_box *boxes, int64_t first, int64_t count, const char *from,
                       char *to, int combining)
{
    box_move m = {&x->set, NULL, (char *)from, to, x->esz, x->type,
                  combining && x->set.pairs[0].combine == RL_COMBINE_ADD};
    for (int64_t j = first; j < first + count; j++) {
        m.b = &boxes[j];
        if (m.b->elems) move_level(&m, 0, 0, 0);
    }
}

/* Message k's elements in its side's pack buffer, past its control word. */
static char *packed(const rl_transform_exec *x, const rl_msg_side *side, int k) { return (char *)rl_msg_at(side, k) + x->set.control; }

static void pack(const rl_transform_exec *x, int k)
{
    const rl_msg *msg = &x->set.send.msg[k];
    move_boxes(x, x->set.send.boxes, msg->first, msg->count, x->src[0], packed(x, &x->set.send, k), 0);
}

static void unpack(const rl_transform_exec *x, int k)
{
    const rl_msg *msg = &x->set.recv.msg[k];
    move_boxes(x, x->set.recv.boxes, msg->first, msg->count, packed(x, &x->set.recv, k), x->dst[0], 1);
}

static void move_locals(const rl_transform_exec *x) { move_boxes(x, x->set.local, 0, x->set.nlocal, x->src[0], x->dst[0], 1); }

const rl_kind_moves rl_index_moves = {.pack = pack, .unpack = unpack, .move_locals = move_locals};
