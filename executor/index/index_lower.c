/* index_lower.c — an index section as a message set (index_lower.h).
 *
 * A segment is one box, its innermost dimension the item (one run of
 * item_elems elements, stride 1 on both sides):
 *   a run of outer x inner items   the outer progression and the inner one
 *                                  as the box's next two dimensions, runs
 *                                  of one index each, steps of any sign
 *                                  (0 where one slot appears twice); where
 *                                  both sides step one item along the inner
 *                                  progression (or it holds one item), it
 *                                  and the item merge into one run of
 *                                  inner x item_elems elements (a halo row
 *                                  is one contiguous run);
 *   a listed segment               one progression per list entry, each of
 *                                  one run at its own slots, then the item.
 * The side of a box that is the packed message counts from the message's
 * first element; the other is the user's buffer.  Slots are in items on
 * the plan's side and become elements here (times item_elems). */
#include "error.h"
#include "index_lower.h"

/* Where a segment's slots lie on the two sides of its box: the plan's from
 * and to slots, or for the packed side the message's items from `packed`
 * on (inner fastest). */
typedef enum { FROM_PLAN, FROM_PACKED } side_of;
typedef struct {
    side_of from, to;
} box_sides;

static int64_t seg_runs(const rl_index_seg *g) { return g->listed ? g->outer + 1 : 3; }

/* Both sides step one item along the inner progression (the packed side
 * always does), so the item and the inner progression are one run. */
static int merges(const rl_index_seg *g, box_sides sides)
{
    int from_one = sides.from == FROM_PACKED || g->from_inner == 1, to_one = sides.to == FROM_PACKED || g->to_inner == 1;
    return g->inner == 1 || (from_one && to_one);
}

typedef struct {
    rl_msgset *set;
    const rl_index_section *s;
    int64_t k;
    int64_t ndims, nruns;    /* filled so far */
} lowering;

static rl_box_dim *next_dim(lowering *l, int64_t nruns)
{
    rl_box_dim *d = &l->set->dims[l->ndims++];
    *d = (rl_box_dim){.from_stride = 1, .to_stride = 1, .first = l->nruns, .n = nruns};
    l->nruns += nruns;
    return d;
}

static rl_runs *runs_of(lowering *l, const rl_box_dim *d) { return &l->set->runs[d->first]; }

/* A listed segment: one progression per entry, then the item. */
static void lower_listed(lowering *l, const rl_index_seg *g, box_sides sides, int64_t packed)
{
    rl_runs *r = runs_of(l, next_dim(l, g->outer));
    for (int64_t i = 0; i < g->outer; i++) {
        const int64_t *pair = &l->s->list[2 * (g->from + i)];
        int64_t from = sides.from == FROM_PACKED ? packed + i : pair[0], to = sides.to == FROM_PACKED ? packed + i : pair[1];
        r[i] = (rl_runs){.count = 1, .len = 1, .from = from * l->k, .to = to * l->k};
    }
    *runs_of(l, next_dim(l, 1)) = (rl_runs){.count = 1, .len = l->k};
}

/* A run: its outer progression (the box's place on both sides), the inner
 * one unless it merges with the item, the item. */
static int lower_run(lowering *l, const rl_index_seg *g, box_sides sides, int64_t packed)
{
    int64_t k = l->k, from = sides.from == FROM_PACKED ? packed : g->from, to = sides.to == FROM_PACKED ? packed : g->to;
    int64_t from_outer = sides.from == FROM_PACKED ? g->inner : g->from_outer, to_outer = sides.to == FROM_PACKED ? g->inner : g->to_outer;
    int64_t from_inner = sides.from == FROM_PACKED ? 1 : g->from_inner, to_inner = sides.to == FROM_PACKED ? 1 : g->to_inner;
    *runs_of(l, next_dim(l, 1)) = (rl_runs){g->outer, 1, from * k, from_outer * k, to * k, to_outer * k};
    if (merges(g, sides)) {
        *runs_of(l, next_dim(l, 1)) = (rl_runs){.count = 1, .len = g->inner * k};
        return 2;
    }
    *runs_of(l, next_dim(l, 1)) = (rl_runs){g->inner, 1, 0, from_inner * k, 0, to_inner * k};
    *runs_of(l, next_dim(l, 1)) = (rl_runs){.count = 1, .len = k};
    return 3;
}

/* Message m's segments as boxes from *box on. */
static void lower_message(lowering *l, const rl_index_msg *m, box_sides sides, rl_box *box)
{
    int64_t packed = 0;
    for (int64_t j = 0; j < m->count; j++) {
        const rl_index_seg *g = &l->s->segs[m->first + j];
        int64_t first = l->ndims;
        int ndims = 2;
        if (g->listed) lower_listed(l, g, sides, packed);
        else ndims = lower_run(l, g, sides, packed);
        box[j] = (rl_box){.pair = 0, .ndims = ndims, .first_dim = first, .elems = rl_index_seg_items(g) * l->k};
        packed += rl_index_seg_items(g);
    }
}

static void lower_side(lowering *l, rl_msg_side *side, const rl_index_msg *msgs, int n, box_sides sides)
{
    int64_t box = 0;
    for (int i = 0; i < n; i++) {
        side->msg[i] = (rl_msg){.peer = (int32_t)msgs[i].peer, .tag = 0, .step = -1, .passes_on = -1,
                                .elems = msgs[i].items * l->k, .first = box, .count = msgs[i].count};
        lower_message(l, &msgs[i], sides, side->boxes + box);
        box += msgs[i].count;
    }
}

static int64_t boxes_of(const rl_index_msg *msgs, int n)
{
    int64_t b = 0;
    for (int i = 0; i < n; i++) b += msgs[i].count;
    return b;
}

relay_status rl_index_lower(rl_msgset *set, const rl_index_section *s, int64_t item_elems, relay_index_move move, size_t esz)
{
    rl_msgset_sizes n = {.nsend = s->nsend, .nrecv = s->nrecv, .npairs = 1, .send_boxes = boxes_of(s->send, s->nsend),
                         .recv_boxes = boxes_of(s->recv, s->nrecv), .nlocal = s->local.count};
    for (int64_t g = 0; g < s->nsegs; g++) {
        n.ndims += s->segs[g].listed ? 2 : 3;
        n.nruns += seg_runs(&s->segs[g]);
    }
    relay_status st = rl_msgset_alloc(set, &n, esz);
    if (st) return st;
    lowering l = {set, s, item_elems, 0, 0};
    lower_side(&l, &set->send, s->send, s->nsend, (box_sides){FROM_PLAN, FROM_PACKED});
    lower_side(&l, &set->recv, s->recv, s->nrecv, (box_sides){FROM_PACKED, FROM_PLAN});
    lower_message(&l, &s->local, (box_sides){FROM_PLAN, FROM_PLAN}, set->local);
    set->ndims = l.ndims; /* merged runs used fewer than room was made for */
    set->nruns = l.nruns;
    set->local_step = -1;
    int sum = move == RELAY_INDEX_REDUCE_SUM;
    set->pairs[0] = (rl_pair_moves){RELAY_OP_N, sum ? RL_COMBINE_ADD : RL_COMBINE_UPDATE};
    set->ordered = sum;
    while (sum && set->locals_before < s->nrecv && s->recv[set->locals_before].peer < s->rank) set->locals_before++;
    return RELAY_OK;
}
