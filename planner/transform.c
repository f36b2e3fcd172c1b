/* transform.c — planning A := alpha*op(B) + beta*A (COSTA, Algorithms 2-3).
 *
 * The grid overlay of the two layouts is never built globally.  Each rank's
 * section comes from the blocks that rank touches:
 *   send side: every block of B the rank owns is cut by A's grid; each piece
 *     goes to the owner of its A block (a local copy when that is the rank);
 *   receive side: every block of A the rank owns is cut by B's grid; each
 *     piece comes from the owner of its B block.
 * Both sides sort their pieces canonically (peer, pair, A column, A row), so
 * the packed message layout agrees without any exchange.  Sections are
 * independent, so ranks are planned in parallel. */
#include <string.h>

#include "error.h"
#include "overlay.h"
#include "relabel.h"
#include "planner_internal.h"

/* A piece on its way into a section: the rectangle of A it covers, the rank
 * at the other end, and its place in both buffers (B's and A's). */
typedef struct {
    int64_t peer, pair, r0, c0, rows, cols, src_off, src_ld, dst_off, dst_ld;
} candidate;

typedef struct {
    candidate *items;
    int64_t count, cap;
    int failed;
} candidate_list;

static void push(candidate_list *list, candidate c)
{
    if (list->failed) return;
    if (list->count == list->cap) {
        int64_t cap = list->cap ? 2 * list->cap : 256;
        candidate *grown = realloc(list->items, (size_t)cap * sizeof *grown);
        if (!grown) {
            list->failed = 1;
            return;
        }
        list->items = grown;
        list->cap = cap;
    }
    list->items[list->count++] = c;
}

static int candidate_cmp(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->peer != y->peer) return x->peer < y->peer ? -1 : 1;
    if (x->pair != y->pair) return x->pair < y->pair ? -1 : 1;
    if (x->c0 != y->c0) return x->c0 < y->c0 ? -1 : 1;
    return (x->r0 > y->r0) - (x->r0 < y->r0);
}

static void sort_candidates(candidate_list *list)
{
    if (list->count > 1) qsort(list->items, (size_t)list->count, sizeof *list->items, candidate_cmp);
}

/* ---- send side: blocks of B this rank owns ---------------------------- */

typedef struct {
    const rl_pair *pair;
    int64_t k;
    int rank;
    int transposed;     /* op transposes: B's coordinates are A's transposed */
    int bi, bj;         /* the block of this rank being cut */
    candidate_list *remote, *locals;  /* pieces for other ranks; pieces kept here */
} cut_ctx;

static void emit_send_piece(int ai, int aj, rl_rect pc, void *vctx)
{
    cut_ctx *c = vctx;
    const relay_layout *a = c->pair->dst_relabeled, *b = c->pair->src;
    candidate cand = {rl_layout_owner(a, ai, aj), c->k, pc.r0, pc.c0, pc.r1 - pc.r0, pc.c1 - pc.c0,
                      rl_place_in_block(b, c->bi, c->bj, c->transposed, pc.r0, pc.c0), rl_layout_ld(b, c->bi, c->bj),
                      rl_place_in_block(a, ai, aj, 0, pc.r0, pc.c0), rl_layout_ld(a, ai, aj)};
    push(cand.peer == c->rank ? c->locals : c->remote, cand);
}

static void cut_src_block(int bi, int bj, void *vctx)
{
    cut_ctx *c = vctx;
    c->bi = bi;
    c->bj = bj;
    rl_overlay(c->pair->dst_relabeled, 0, rl_block_rect(c->pair->src, bi, bj, c->transposed), emit_send_piece, c);
}

/* ---- receive side: blocks of A this rank owns ------------------------- */

static void emit_recv_piece(int bi, int bj, rl_rect pc, void *vctx)
{
    cut_ctx *c = vctx;
    const relay_layout *a = c->pair->dst_relabeled, *b = c->pair->src;
    int src_rank = rl_layout_owner(b, bi, bj);
    if (src_rank == c->rank) return; /* a local piece: the send side has it */
    candidate cand = {src_rank, c->k, pc.r0, pc.c0, pc.r1 - pc.r0, pc.c1 - pc.c0,
                      rl_place_in_block(b, bi, bj, c->transposed, pc.r0, pc.c0), rl_layout_ld(b, bi, bj),
                      rl_place_in_block(a, c->bi, c->bj, 0, pc.r0, pc.c0), rl_layout_ld(a, c->bi, c->bj)};
    push(c->remote, cand);
}

static void cut_dst_block(int ai, int aj, void *vctx)
{
    cut_ctx *c = vctx;
    c->bi = ai;
    c->bj = aj;
    rl_overlay(c->pair->src, c->transposed, rl_block_rect(c->pair->dst_relabeled, ai, aj, 0), emit_recv_piece, c);
}

/* ---- from candidates to a section ------------------------------------ */

/* Groups sorted candidates into messages, one per peer; a sender keeps
 * where its pieces sit in B, a receiver where they go in A. */
static relay_status build_messages(const candidate_list *list, int receiving, rl_message **msgs, int32_t *nmsg,
                                   rl_piece **pieces, int64_t *npieces)
{
    int32_t count = 0;
    for (int64_t i = 0; i < list->count; i++)
        if (i == 0 || list->items[i].peer != list->items[i - 1].peer) count++;
    *msgs = rl_calloc((size_t)count, sizeof **msgs);
    *pieces = rl_malloc_array((size_t)list->count, sizeof **pieces);
    if (!*msgs || !*pieces) return RL_NOMEM();
    *nmsg = count;
    *npieces = list->count;
    int32_t m = -1;
    for (int64_t i = 0; i < list->count; i++) {
        const candidate *c = &list->items[i];
        if (i == 0 || c->peer != list->items[i - 1].peer) (*msgs)[++m] = (rl_message){c->peer, i, 0, 0};
        (*msgs)[m].count++;
        (*msgs)[m].elems += c->rows * c->cols;
        (*pieces)[i] = receiving ? (rl_piece){c->pair, c->rows, c->cols, c->dst_off, c->dst_ld}
                                 : (rl_piece){c->pair, c->rows, c->cols, c->src_off, c->src_ld};
    }
    return RELAY_OK;
}

static relay_status build_locals(rl_section *s, const candidate_list *list)
{
    s->local = rl_malloc_array((size_t)list->count, sizeof *s->local);
    if (!s->local) return RL_NOMEM();
    s->nlocal = list->count;
    for (int64_t i = 0; i < list->count; i++) {
        const candidate *c = &list->items[i];
        s->local[i] = (rl_local_piece){c->pair, c->rows, c->cols, c->src_off, c->src_ld, c->dst_off, c->dst_ld};
    }
    return RELAY_OK;
}

/* ---- contiguous runs --------------------------------------------------- */

/* Offset of A-element (i, 0) of a piece from its first element, in a side
 * stored in order o (transposed: the side holds A's rows as columns). */
static int64_t down(relay_order o, int transposed, int64_t ld, int64_t i)
{
    return rl_elem_offset(o, ld, transposed ? 0 : i, transposed ? i : 0);
}

/* A rows x cols piece (A coordinates) fits a side's leading dimension. */
static int fits(relay_order o, int transposed, int64_t ld, int64_t rows, int64_t cols)
{
    int64_t side_rows = transposed ? cols : rows, side_cols = transposed ? rows : cols;
    return (o == RELAY_COL_MAJOR ? side_rows : side_cols) <= ld;
}

/* b continues a downwards as one rectangle in both buffers: same peer,
 * pair and columns, b starts where a's rows end with the same leading
 * dimensions in B's storage and in A's, and the union still fits them. */
static int continues(const relay_plan *p, const candidate *a, const candidate *b)
{
    if (a->peer != b->peer || a->pair != b->pair || a->c0 != b->c0 || a->cols != b->cols ||
        b->r0 != a->r0 + a->rows || a->src_ld != b->src_ld || a->dst_ld != b->dst_ld)
        return 0;
    const rl_pair *pr = &p->pairs[a->pair];
    int t = rl_op_transposes(pr->op);
    int64_t rows = a->rows + b->rows;
    return b->src_off == a->src_off + down(pr->src->order, t, a->src_ld, a->rows) &&
           b->dst_off == a->dst_off + down(pr->dst->order, 0, a->dst_ld, a->rows) &&
           fits(pr->src->order, t, a->src_ld, rows, a->cols) && fits(pr->dst->order, 0, a->dst_ld, rows, a->cols);
}

/* Merges pieces that are adjacent in A and contiguous in both buffers
 * (PETSc SF's run detection, done once at plan time): 32 x 32 pieces of a
 * column band become one long run.  Both ends of a message see the same
 * candidates in the same order, so they merge identically. */
static void merge_runs(const relay_plan *p, candidate_list *list)
{
    int64_t out = 0;
    for (int64_t i = 0; i < list->count; i++) {
        if (out > 0 && continues(p, &list->items[out - 1], &list->items[i])) list->items[out - 1].rows += list->items[i].rows;
        else list->items[out++] = list->items[i];
    }
    list->count = out;
}

static relay_status collect(const relay_plan *p, int rank, int send_side, candidate_list *main, candidate_list *locals)
{
    for (int k = 0; k < p->count; k++) {
        const rl_pair *pr = &p->pairs[k];
        cut_ctx ctx = {pr, k, rank, rl_op_transposes(pr->op), 0, 0, main, locals};
        if (send_side) rl_layout_for_each_block(pr->src, rank, cut_src_block, &ctx);
        else rl_layout_for_each_block(pr->dst_relabeled, rank, cut_dst_block, &ctx);
    }
    if (main->failed || (locals && locals->failed)) return RL_NOMEM();
    sort_candidates(main);
    merge_runs(p, main);
    if (locals) {
        sort_candidates(locals);
        merge_runs(p, locals);
    }
    return RELAY_OK;
}

static relay_status plan_section(relay_plan *p, int rank, rl_section **out)
{
    rl_section *s = rl_section_alloc(rank, p->count);
    if (!s) return RL_NOMEM();
    candidate_list sends = {0}, recvs = {0}, locals = {0};
    relay_status st = collect(p, rank, 1, &sends, &locals);
    if (!st) st = collect(p, rank, 0, &recvs, NULL);
    if (!st) st = build_messages(&sends, 0, &s->send, &s->nsend, &s->send_pieces, &s->nsend_pieces);
    if (!st) st = build_messages(&recvs, 1, &s->recv, &s->nrecv, &s->recv_pieces, &s->nrecv_pieces);
    if (!st) st = build_locals(s, &locals);
    free(sends.items);
    free(recvs.items);
    free(locals.items);
    if (st) {
        rl_section_free(s);
        return st;
    }
    for (int k = 0; k < p->count; k++) {
        s->src_elems[k] = relay_layout_local_elems(p->pairs[k].src, rank);
        s->dst_elems[k] = relay_layout_local_elems(p->pairs[k].dst_relabeled, rank);
    }
    s->checksum = rl_section_hash(s, p->count);
    *out = s;
    return RELAY_OK;
}

/* ---- the whole plan --------------------------------------------------- */

static relay_status check_transform_args(relay_plan **out, int nranks, int count, const relay_layout *const *dst,
                                         const relay_layout *const *src, const relay_op *ops, relay_type type,
                                         const relay_plan_options *o)
{
    if (!out) return rl_fail(RELAY_ERR_ARG, "transform plan: out is NULL");
    if (nranks <= 0) return rl_fail(RELAY_ERR_ARG, "transform plan: nranks = %d must be positive", nranks);
    if (count <= 0) return rl_fail(RELAY_ERR_ARG, "transform plan: count = %d must be positive", count);
    if (!dst || !src || !ops) return rl_fail(RELAY_ERR_ARG, "transform plan: NULL layout or op array");
    if (relay_type_size(type) == 0) return rl_fail(RELAY_ERR_ARG, "transform plan: invalid element type %d", (int)type);
    for (int k = 0; k < count; k++) {
        const relay_layout *a = dst[k], *b = src[k];
        if (!a || !b) return rl_fail(RELAY_ERR_ARG, "transform plan: pair %d has a NULL layout", k);
        if (ops[k] != RELAY_OP_N && ops[k] != RELAY_OP_T && ops[k] != RELAY_OP_C)
            return rl_fail(RELAY_ERR_ARG, "transform plan: pair %d has an invalid op %d", k, (int)ops[k]);
        int t = rl_op_transposes(ops[k]);
        if ((t ? b->n : b->m) != a->m || (t ? b->m : b->n) != a->n)
            return rl_fail(RELAY_ERR_ARG, "transform plan: pair %d: A is %lld x %lld but op(B) is %lld x %lld", k,
                           (long long)a->m, (long long)a->n, (long long)(t ? b->n : b->m), (long long)(t ? b->m : b->n));
        if (a->nranks > nranks || b->nranks > nranks)
            return rl_fail(RELAY_ERR_ARG, "transform plan: pair %d has a layout over %d ranks, more than %d", k,
                           a->nranks > b->nranks ? a->nranks : b->nranks, nranks);
        if (a->rank_map || b->rank_map)
            return rl_fail(RELAY_ERR_ARG, "transform plan: pair %d: relabeled layouts cannot be planned again", k);
    }
    return rl_check_options(o, nranks);
}

relay_status rl_plan_copy_layouts(relay_plan *p, const relay_layout *const *dst, const relay_layout *const *src,
                                  const relay_op *ops)
{
    for (int k = 0; k < p->count; k++) {
        p->pairs[k].op = ops[k];
        relay_status st = rl_layout_relabel(&p->pairs[k].dst, dst[k], NULL, p->nranks);
        if (!st) st = rl_layout_relabel(&p->pairs[k].src, src[k], NULL, p->nranks);
        if (st) return st;
    }
    return RELAY_OK;
}

/* Chooses sigma (identity without relabeling) and hands A's blocks to it. */
static relay_status relabel_destinations(relay_plan *p, const relay_layout *const *dst, const relay_plan_options *o,
                                         int64_t *remote_identity)
{
    *remote_identity = -1;
    if (o->relabel != RELAY_RELABEL_NONE) {
        rl_relabel_result res;
        relay_status st = rl_relabel(p, o, p->sigma, &res);
        if (st) return st;
        *remote_identity = res.remote_identity;
    }
    for (int k = 0; k < p->count; k++) {
        relay_status st = rl_layout_relabel(&p->pairs[k].dst_relabeled, dst[k], p->sigma, p->nranks);
        if (st) return st;
    }
    return RELAY_OK;
}

static relay_status plan_sections(relay_plan *p)
{
    relay_status st = RELAY_OK;
#pragma omp parallel for schedule(dynamic, 1)
    for (int r = 0; r < p->nranks; r++) {
        relay_status mine = plan_section(p, r, &p->sections[r]);
        if (mine) {
#pragma omp atomic write
            st = mine;
        }
    }
    /* rl_fail's message is thread-local: name the failure on this thread too. */
    return st ? rl_fail(st, "transform plan: building a rank's section failed (%s)", relay_status_str(st)) : RELAY_OK;
}

/* remote_identity < 0: no relabeling, so the identity's volume is the plan's. */
static void compute_stats(relay_plan *p, int64_t remote_identity)
{
    int64_t esz = (int64_t)relay_type_size(p->type);
    relay_plan_stats st = {0};
    for (int r = 0; r < p->nranks; r++) {
        const rl_section *s = p->sections[r];
        for (int32_t k = 0; k < s->nsend; k++) st.bytes_remote += s->send[k].elems * esz;
        for (int64_t i = 0; i < s->nlocal; i++) st.bytes_total += s->local[i].rows * s->local[i].cols * esz;
        st.messages += s->nsend;
        st.pieces += s->nsend_pieces + s->nlocal;
    }
    st.bytes_total += st.bytes_remote;
    st.bytes_remote_identity = remote_identity < 0 ? st.bytes_remote : remote_identity;
    p->stats = st;
}

static relay_status fingerprint(relay_plan *p)
{
    uint64_t *checksums = rl_malloc_array((size_t)p->nranks, sizeof *checksums);
    if (!checksums) return RL_NOMEM();
    for (int r = 0; r < p->nranks; r++) checksums[r] = p->sections[r]->checksum;
    p->fingerprint = rl_plan_hash(p, checksums);
    free(checksums);
    return RELAY_OK;
}

relay_status relay_plan_transform_batch(relay_plan **out, int nranks, int count,
        const relay_layout *const *dst, const relay_layout *const *src, const relay_op *ops,
        relay_type type, const relay_plan_options *opts)
{
    relay_plan_options defaults;
    relay_plan_options_init(&defaults);
    const relay_plan_options *o = opts ? opts : &defaults;
    relay_status st = check_transform_args(out, nranks, count, dst, src, ops, type, o);
    if (st) return st;
    relay_plan *p = rl_plan_alloc(nranks, count);
    if (!p) return RL_NOMEM();
    p->kind = RELAY_PLAN_TRANSFORM;
    p->type = type;
    p->relabel = o->relabel;
    int64_t remote_identity;
    st = rl_plan_copy_layouts(p, dst, src, ops);
    if (!st) st = relabel_destinations(p, dst, o, &remote_identity);
    if (!st) st = plan_sections(p);
    if (st) {
        relay_plan_free(p);
        return st;
    }
    compute_stats(p, remote_identity);
    st = rl_schedule_plan(p, o->schedule);
    if (!st) st = fingerprint(p);
    if (st) {
        relay_plan_free(p);
        return st;
    }
    *out = p;
    return RELAY_OK;
}

relay_status relay_plan_transform(relay_plan **out, int nranks, const relay_layout *dst,
        const relay_layout *src, relay_op op, relay_type type, const relay_plan_options *opts)
{
    return relay_plan_transform_batch(out, nranks, 1, &dst, &src, &op, type, opts);
}
