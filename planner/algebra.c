/* algebra.c — plans made from plans: compose, invert, concatenate.
 *
 * All three read only a plan's header (its pairs' layouts, ops, sigma and
 * schedule, or a BMMC plan's permutation), so they work on plan files read
 * whole or for one rank, and plan the result afresh: a composed plan moves
 * each element once, straight from the first plan's source to the second
 * plan's destination, where replaying both would move it twice.
 *   compose   transform pairs: A2 = op2(op1(B)), ops composed, the second
 *             plan's relabeling kept; BMMC: y = A2 (A1 x ^ c1) ^ c2 (Lemma 1
 *             of Cormen's paper, relay_bmmc_compose).
 *   invert    transform pairs: B := op(A) from A as the plan delivers it
 *             (N, T and C are their own inverses); BMMC: A^-1.
 *   concat    two transform plans as one batch: one message per peer.
 * Results take the schedule both plans share, else auto, and the smaller
 * memory cap where either has one.  HSUMMA plans
 * describe a multiplication, not a movement: they have no algebra. */
#include <string.h>

#include "error.h"
#include "planner_internal.h"

/* ---- checks shared by the three ---------------------------------------- */

static const char *kind_name(relay_plan_kind k)
{
    return k == RELAY_PLAN_TRANSFORM ? "transform" : k == RELAY_PLAN_BMMC ? "BMMC" : k == RELAY_PLAN_ND ? "N-D"
         : k == RELAY_PLAN_INDEX     ? "index"
                                     : "HSUMMA";
}

static relay_status check_kinds(const char *what, const relay_plan *x, const relay_plan *y)
{
    if (x->kind != y->kind)
        return rl_fail(RELAY_ERR_MISMATCH, "%s: a %s plan and a %s plan", what, kind_name(x->kind), kind_name(y->kind));
    if (x->kind == RELAY_PLAN_HSUMMA)
        return rl_fail(RELAY_ERR_UNSUPPORTED, "%s: HSUMMA plans multiply matrices; only transform and BMMC plans move them", what);
    if (x->kind == RELAY_PLAN_ND)
        return rl_fail(RELAY_ERR_UNSUPPORTED, "%s: plan algebra is not available for N-D plans yet; plan the result with relay_plan_nd", what);
    if (x->kind == RELAY_PLAN_INDEX)
        return rl_fail(RELAY_ERR_UNSUPPORTED, "%s: plan algebra is not available for index plans; plan the result with relay_plan_index", what);
    return RELAY_OK;
}

/* Two transform plans over the same ranks and element type. */
static relay_status check_alike(const char *what, const relay_plan *x, const relay_plan *y)
{
    if (x->nranks != y->nranks)
        return rl_fail(RELAY_ERR_MISMATCH, "%s: the plans are for %d and %d ranks", what, (int)x->nranks, (int)y->nranks);
    if (x->type != y->type) return rl_fail(RELAY_ERR_MISMATCH, "%s: the plans move different element types", what);
    return RELAY_OK;
}

/* The options of a result: the schedule both plans have, else auto, and
 * the smaller memory cap where either has one. */
static relay_plan_options result_options(const relay_plan *x, const relay_plan *y, relay_relabel recorded)
{
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.schedule = x->schedule == y->schedule ? x->schedule : RELAY_SCHED_AUTO;
    int64_t cx = x->max_buffer_bytes, cy = y->max_buffer_bytes;
    o.max_buffer_bytes = !cx ? cy : !cy ? cx : cx < cy ? cx : cy;
    if (o.max_buffer_bytes) o.schedule = RELAY_SCHED_ROUNDS;
    o.relabel = recorded;
    return o;
}

static int same_sigma(const relay_plan *x, const relay_plan *y)
{
    return memcmp(x->sigma, y->sigma, (size_t)x->nranks * sizeof *x->sigma) == 0;
}

/* Layouts and ops of a batch being assembled; the layouts are borrowed
 * from plans, or owned where restated (owned[i]). */
typedef struct {
    int count;
    const relay_layout **dst, **src;
    relay_op *ops;
    relay_layout **owned;
} batch;

static relay_status batch_init(batch *b, int count)
{
    b->count = count;
    b->dst = rl_calloc((size_t)count, sizeof *b->dst);
    b->src = rl_calloc((size_t)count, sizeof *b->src);
    b->ops = rl_calloc((size_t)count, sizeof *b->ops);
    b->owned = rl_calloc(2 * (size_t)count, sizeof *b->owned);
    return b->dst && b->src && b->ops && b->owned ? RELAY_OK : RL_NOMEM();
}

/* Layout l restated without rank maps, owned by the batch (slot 0..2*count). */
static relay_status batch_restate(batch *b, int slot, const relay_layout *l, const relay_layout **into)
{
    relay_status st = rl_layout_restate(&b->owned[slot], l);
    if (!st) *into = b->owned[slot];
    return st;
}

static void batch_free(batch *b)
{
    for (int i = 0; b->owned && i < 2 * b->count; i++) relay_layout_free(b->owned[i]);
    free(b->dst);
    free(b->src);
    free(b->ops);
    free(b->owned);
}

/* ---- compose ------------------------------------------------------------ */

/* op2 after op1, or -1 where no op expresses it: T and C, in either order,
 * conjugate without transposing (for real types conjugating is nothing). */
static int composed_op(relay_op op1, relay_op op2, relay_type type)
{
    int complex_type = type == RELAY_CFLOAT || type == RELAY_CDOUBLE;
    if (op1 == RELAY_OP_N) return (int)op2;
    if (op2 == RELAY_OP_N) return (int)op1;
    return op1 == op2 || !complex_type ? (int)RELAY_OP_N : -1;
}

/* The second plan must read A1 where the first leaves it. */
static relay_status check_chained(const relay_plan *first, const relay_plan *second, int k)
{
    int same = rl_layout_same_storage(first->pairs[k].dst_relabeled, second->pairs[k].src);
    if (same == 1) return RELAY_OK;
    if (same < 0)
        return rl_fail(RELAY_ERR_UNSUPPORTED,
                       "compose: pair %d: cannot tell whether the second plan reads A1 as the first delivers it (layouts "
                       "of over 2^22 blocks that are not the same block-cyclic formulas)", k);
    return rl_fail(RELAY_ERR_MISMATCH,
                   "compose: pair %d: the second plan's source layout is not the layout the first plan delivers "
                   "(relay_plan_dst_layout of the first: same blocks, owners, offsets and lds)", k);
}

static relay_status compose_transforms(relay_plan **out, const relay_plan *first, const relay_plan *second)
{
    relay_status st = check_alike("compose", first, second);
    if (!st && first->count != second->count)
        st = rl_fail(RELAY_ERR_MISMATCH, "compose: the plans have %d and %d pairs", (int)first->count, (int)second->count);
    batch b = {0};
    if (!st) st = batch_init(&b, first->count);
    for (int k = 0; !st && k < b.count; k++) {
        int op = composed_op(first->pairs[k].op, second->pairs[k].op, first->type);
        st = check_chained(first, second, k);
        if (!st && op < 0)
            st = rl_fail(RELAY_ERR_UNSUPPORTED,
                         "compose: pair %d: a transpose after a conjugate transpose (or before one) conjugates without "
                         "transposing, which no op expresses for complex types", k);
        b.dst[k] = second->pairs[k].dst;
        b.src[k] = first->pairs[k].src;
        b.ops[k] = (relay_op)op;
    }
    relay_plan_options o = result_options(first, second, second->relabel);
    if (!st) st = rl_plan_transform_sigma(out, first->nranks, b.count, b.dst, b.src, b.ops, first->type, &o, second->sigma);
    batch_free(&b);
    return st;
}

static relay_status bmmc_info_pair(const relay_plan *x, const relay_plan *y, relay_bmmc_info *ix, relay_bmmc_info *iy)
{
    relay_status st = relay_plan_bmmc_info(x, ix);
    if (!st) st = relay_plan_bmmc_info(y, iy);
    if (!st && (ix->n != iy->n || ix->p != iy->p || ix->f != iy->f || ix->elem_size != iy->elem_size))
        st = rl_fail(RELAY_ERR_MISMATCH,
                     "compose: the BMMC plans differ in index bits, rank bits or element size (%d, %d, %d, %zu against "
                     "%d, %d, %d, %zu)", ix->n, ix->p, ix->f, ix->elem_size, iy->n, iy->p, iy->f, iy->elem_size);
    return st;
}

static relay_status compose_bmmc(relay_plan **out, const relay_plan *first, const relay_plan *second)
{
    relay_bmmc_info a, b;
    relay_bmmc both;
    relay_status st = bmmc_info_pair(first, second, &a, &b);
    if (!st) st = relay_bmmc_compose(&both, &a.perm, &b.perm);
    return st ? st : relay_plan_bmmc(out, &both, a.p, a.f, a.elem_size);
}

relay_status relay_plan_compose(relay_plan **out, const relay_plan *first, const relay_plan *second)
{
    if (!out || !first || !second) return rl_fail(RELAY_ERR_ARG, "relay_plan_compose: NULL argument");
    relay_status st = check_kinds("compose", first, second);
    if (st) return st;
    return first->kind == RELAY_PLAN_BMMC ? compose_bmmc(out, first, second) : compose_transforms(out, first, second);
}

/* ---- invert ------------------------------------------------------------- */

static relay_status invert_transform(relay_plan **out, const relay_plan *p)
{
    batch b = {0};
    relay_status st = batch_init(&b, p->count);
    for (int k = 0; !st && k < b.count; k++) {
        b.dst[k] = p->pairs[k].src;
        b.ops[k] = p->pairs[k].op;
        st = batch_restate(&b, k, p->pairs[k].dst_relabeled, &b.src[k]);
    }
    relay_plan_options o = result_options(p, p, RELAY_RELABEL_NONE);
    if (!st) st = relay_plan_transform_batch(out, p->nranks, b.count, b.dst, b.src, b.ops, p->type, &o);
    batch_free(&b);
    return st;
}

static relay_status invert_bmmc(relay_plan **out, const relay_plan *p)
{
    relay_bmmc_info info;
    relay_bmmc back;
    relay_status st = relay_plan_bmmc_info(p, &info);
    if (!st) st = relay_bmmc_inverse(&back, &info.perm);
    return st ? st : relay_plan_bmmc(out, &back, info.p, info.f, info.elem_size);
}

relay_status relay_plan_invert(relay_plan **out, const relay_plan *p)
{
    if (!out || !p) return rl_fail(RELAY_ERR_ARG, "relay_plan_invert: NULL argument");
    relay_status st = check_kinds("invert", p, p);
    if (st) return st;
    return p->kind == RELAY_PLAN_BMMC ? invert_bmmc(out, p) : invert_transform(out, p);
}

/* ---- concat ------------------------------------------------------------- */

/* Pair k of plan q as part of the batch: with both plans' sigma the same it
 * is planned as given, under that sigma; otherwise A's layout as q delivers
 * it is restated and the batch relabels nothing. */
static relay_status concat_pair(batch *b, int at, const relay_plan *q, int k, int shared_sigma)
{
    b->src[at] = q->pairs[k].src;
    b->ops[at] = q->pairs[k].op;
    if (shared_sigma) {
        b->dst[at] = q->pairs[k].dst;
        return RELAY_OK;
    }
    return batch_restate(b, at, q->pairs[k].dst_relabeled, &b->dst[at]);
}

static relay_status concat_transforms(relay_plan **out, const relay_plan *x, const relay_plan *y)
{
    relay_status st = check_alike("concat", x, y);
    int shared = !st && same_sigma(x, y);
    batch b = {0};
    if (!st) st = batch_init(&b, x->count + y->count);
    for (int k = 0; !st && k < x->count; k++) st = concat_pair(&b, k, x, k, shared);
    for (int k = 0; !st && k < y->count; k++) st = concat_pair(&b, x->count + k, y, k, shared);
    relay_plan_options o = result_options(x, y, shared ? x->relabel : RELAY_RELABEL_NONE);
    if (!st) st = rl_plan_transform_sigma(out, x->nranks, b.count, b.dst, b.src, b.ops, x->type, &o, shared ? x->sigma : NULL);
    batch_free(&b);
    return st;
}

relay_status relay_plan_concat(relay_plan **out, const relay_plan *x, const relay_plan *y)
{
    if (!out || !x || !y) return rl_fail(RELAY_ERR_ARG, "relay_plan_concat: NULL argument");
    relay_status st = check_kinds("concat", x, y);
    if (!st && x->kind == RELAY_PLAN_BMMC)
        st = rl_fail(RELAY_ERR_UNSUPPORTED,
                     "concat: BMMC plans exchange whole blocks with their own partners; compose them instead");
    return st ? st : concat_transforms(out, x, y);
}
