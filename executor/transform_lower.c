/* transform_lower.c — a transform's section as a message set
 * (message_set.h, transform_lower.h): each of its lattices a box of two
 * dimensions, count_c runs of `cols` columns outside count_r runs of
 * `rows` rows (A's coordinates), between the user's buffer as the pair's
 * layout and element order store it and the lattice's place in its packed
 * message.
 *
 * A packed message holds its lattices one after the other, each as units
 * stored tightly in B's element order: its pieces, or all its pieces along
 * a fused dimension (plan_internal.h); sender and receiver list the same
 * lattices, so nothing but the elements travels. */
#include "error.h"
#include "transform_lower.h"
#include "transform_pack.h"

/* One dimension of a lattice on one side: pieces `step` apart, elements
 * of a piece `stride` apart. */
typedef struct {
    int64_t step, stride;
} axis;

/* A lattice on one side: piece (i, j) starts at off + i*r.step + j*c.step. */
typedef struct {
    int64_t off;
    axis r, c;
} lattice_side;

static rl_walk_side walk_side(lattice_side s) { return (rl_walk_side){s.off, s.r.step, s.c.step, s.r.stride, s.c.stride}; }

/* A lattice in a rank's buffer stored at ld in order o. */
static lattice_side buffer_side(int64_t off, int64_t step_r, int64_t step_c, int64_t ld, relay_order o, int transposed)
{
    int64_t rs, cs;
    rl_strides(o, ld, transposed, &rs, &cs);
    return (lattice_side){off, {step_r, rs}, {step_c, cs}};
}

/* A lattice at element pos of its packed message: units one after
 * another, i inner, each stored tightly in B's element order (transposed
 * when the op transposes); a unit is a piece, or all the pieces of a
 * fused dimension. */
static lattice_side packed_side(const rl_span *sp, const rl_pair_info *pi, int64_t pos)
{
    int fr = (sp->fused & RL_FUSED_ROWS) != 0, fc = (sp->fused & RL_FUSED_COLS) != 0;
    int64_t ur = fr ? sp->count_r * sp->rows : sp->rows, uc = fc ? sp->count_c * sp->cols : sp->cols;
    int64_t units_down = fr ? 1 : sp->count_r, rs, cs;
    int tr = rl_op_transposes(pi->op);
    rl_strides(pi->src_order, (pi->src_order == RELAY_COL_MAJOR) != tr ? ur : uc, tr, &rs, &cs);
    return (lattice_side){pos, {fr ? sp->rows * rs : ur * uc, rs}, {fc ? sp->cols * cs : units_down * ur * uc, cs}};
}

rl_walk_side rl_packed_form(const rl_span *sp, const rl_pair_info *pi) { return walk_side(packed_side(sp, pi, 0)); }

/* Where the next box's dimensions and runs go in the set's pools. */
typedef struct {
    rl_msgset *set;
    int64_t dim, run;
} pools;

/* A lattice of count_r x count_c pieces of rows x cols moved from one side
 * to the other, as box b. */
static void lattice_box(pools *p, rl_box *b, int64_t pair, int64_t rows, int64_t cols, int64_t count_r, int64_t count_c,
                        lattice_side from, lattice_side to)
{
    rl_box_dim *d = &p->set->dims[p->dim];
    rl_runs *r = &p->set->runs[p->run];
    *b = (rl_box){(int32_t)pair, 2, p->dim, rows * cols * count_r * count_c};
    d[0] = (rl_box_dim){from.c.stride, to.c.stride, p->run, 1};
    d[1] = (rl_box_dim){from.r.stride, to.r.stride, p->run + 1, 1};
    r[0] = (rl_runs){count_c, cols, from.off, from.c.step, to.off, to.c.step};
    r[1] = (rl_runs){count_r, rows, 0, from.r.step, 0, to.r.step};
    p->dim += 2;
    p->run += 2;
}

/* Message lattice sp at element pos of its message, as box b: from B
 * into the packed message (sending) or from it into A. */
static void message_box(pools *p, rl_box *b, const rl_span *sp, const rl_pair_info *pi, int64_t pos, int sending)
{
    lattice_side packed = packed_side(sp, pi, pos);
    lattice_side mine = sending ? buffer_side(sp->off, sp->step_r, sp->step_c, sp->ld, pi->src_order, rl_op_transposes(pi->op))
                                : buffer_side(sp->off, sp->step_r, sp->step_c, sp->ld, pi->dst_order, 0);
    lattice_box(p, b, sp->pair, sp->rows, sp->cols, sp->count_r, sp->count_c, sending ? mine : packed, sending ? packed : mine);
}

static void local_box(pools *p, rl_box *b, const rl_local_span *l, const rl_pair_info *pi)
{
    lattice_side from = buffer_side(l->src_off, l->src_step_r, l->src_step_c, l->src_ld, pi->src_order, rl_op_transposes(pi->op));
    lattice_side to = buffer_side(l->dst_off, l->dst_step_r, l->dst_step_c, l->dst_ld, pi->dst_order, 0);
    lattice_box(p, b, l->pair, l->rows, l->cols, l->count_r, l->count_c, from, to);
}

rl_walk rl_straight_walk(const rl_local_span *l, const rl_pair_info *pi)
{
    lattice_side from = buffer_side(l->src_off, l->src_step_r, l->src_step_c, l->src_ld, pi->src_order, rl_op_transposes(pi->op));
    lattice_side to = buffer_side(l->dst_off, l->dst_step_r, l->dst_step_c, l->dst_ld, pi->dst_order, 0);
    return rl_walk_of(l->pair, l->rows, l->cols, l->count_r, l->count_c, walk_side(from), walk_side(to));
}

/* One direction's messages (their steps, or NULL) and lattices. */
static void lower_side(pools *p, rl_msg_side *side, const rl_message *msg, const rl_span *spans, const int64_t *step,
                       const rl_pair_info *pairs, int sending)
{
    for (int k = 0; k < side->n; k++) {
        side->msg[k] = (rl_msg){(int32_t)msg[k].peer, TAG_STAGED, step ? (int32_t)step[k] : -1, -1, 0, msg[k].elems, msg[k].first,
                                msg[k].count};
        int64_t pos = 0;
        for (int64_t i = msg[k].first; i < msg[k].first + msg[k].count; i++) {
            message_box(p, &side->boxes[i], &spans[i], &pairs[spans[i].pair], pos, sending);
            pos += rl_span_elems(&spans[i]);
        }
    }
}

static int64_t lattices(const rl_message *msg, int nmsg) { return nmsg ? msg[nmsg - 1].first + msg[nmsg - 1].count : 0; }

relay_status rl_transform_lower(rl_msgset *set, const rl_section *s, const rl_pair_info *pairs, int npairs, size_t esz)
{
    int64_t boxes = s->nsend_spans + s->nrecv_spans + s->nlocal;
    rl_msgset_sizes n = {s->nsend, s->nrecv, npairs, s->nsend_spans, s->nrecv_spans, s->nlocal, 2 * boxes, 2 * boxes};
    relay_status st = rl_msgset_alloc(set, &n, esz);
    if (st) return st;
    pools p = {set, 0, 0};
    lower_side(&p, &set->send, s->send, s->send_spans, s->send_round, pairs, 1);
    lower_side(&p, &set->recv, s->recv, s->recv_spans, s->recv_round, pairs, 0);
    for (int64_t i = 0; i < s->nlocal; i++) local_box(&p, &set->local[i], &s->local[i], &pairs[s->local[i].pair]);
    set->local_step = (int32_t)s->local_round;
    for (int k = 0; k < npairs; k++) set->pairs[k] = (rl_pair_moves){pairs[k].op, RL_COMBINE_UPDATE};
    return RELAY_OK;
}

relay_status rl_transform_lower_chunks(rl_msgset *set, const rl_message *chunks, int nchunks, const rl_span *spans,
                                       const rl_pair_info *pairs, int sending, size_t esz)
{
    int64_t boxes = lattices(chunks, nchunks);
    rl_msgset_sizes n = {sending ? nchunks : 0, sending ? 0 : nchunks, 0, sending ? boxes : 0, sending ? 0 : boxes, 0,
                         2 * boxes, 2 * boxes};
    relay_status st = rl_msgset_alloc(set, &n, esz);
    if (st) return st;
    pools p = {set, 0, 0};
    lower_side(&p, sending ? &set->send : &set->recv, chunks, spans, NULL, pairs, sending);
    return RELAY_OK;
}
