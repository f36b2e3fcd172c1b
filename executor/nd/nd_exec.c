/* nd_exec.c — replaying N-D plans: the executor's N-D kind (exec_kind.h).
 *
 * At prepare each rank derives its transfers from the plan's header
 * (nd_transfers.h) and groups them into messages (nd_messages.h): one per
 * peer and direction for what origins read from B, carrying every pair's
 * transfer in pair order, each packed in its pair's walk order
 * (nd_walk_order.h), and one per transfer a replica passes on.  It lowers
 * them to the message set it replays from (nd_lower.h): each transfer a
 * box, moved by messages/box_walk.c, the pack buffers the set's.  Binding
 * creates one persistent receive and send per message.  A replay starts the
 * receives, packs and starts each send, moves the transfers a rank makes
 * to itself, and, as each message lands, starts the sends that pass it on
 * and moves it into A.
 *
 * Pairs with partial sources add their pieces in a fixed order as they
 * land (nd_sums.h), so that every replay gives the same bits: piece 0
 * copied, the others added, into a scratch sum laid out as A whose last
 * piece's walk writes A = alpha * sum + beta * A (or into A itself when
 * alpha is 1 and beta 0). */
#include <limits.h>
#include <string.h>

#include "agree.h"
#include "box_walk.h"
#include "error.h"
#include "exec_kind.h"
#include "mpi_error.h"
#include "nd_lower.h"
#include "nd_sums.h"
#include "nd_timing.h"
#include "stand_in.h"

/* What one pair needs at this rank. */
typedef struct {
    char *a, *b;              /* this rank's A and B in the replay in flight */
    int64_t dst_elems, src_elems;
    int64_t pieces;           /* B's partial pieces: > 1 sums in order */
    int large_a;              /* A's buffer is RL_LARGE_DST_BYTES or more: written with streaming stores */
    char *sum;                /* pieces > 1: the scratch sum, A's layout */
} nd_pair_state;

typedef struct {
    const rl_nd_plan *nd;     /* the plan's header, copied (below) */
    relay_plan *header;       /* a copy of the plan: the executor outlives the caller's */
    int rank, count;
    relay_type type;
    size_t esz;
    rl_nd_part part;
    nd_pair_state *pairs;
    rl_nd_geometry *geometry; /* per pair: its walk order and this rank's strides (nd_lower.h) */
    rl_nd_messages msg;
    rl_msgset set;            /* the messages as a message set: what a replay moves */
    MPI_Request *reqs;        /* receives, then sends */
    MPI_Datatype elem_type;
    int *summed;              /* per pair: its partial pieces are summed in order (nd_sums.h) */
    int rederive;             /* a choice changed the forwarding: bind derives again */
    int large_send;           /* the send buffer is RL_LARGE_DST_BYTES or more: packed with streaming stores */
    rl_nd_timing timing;
    rl_nd_sums sums;
    rl_scalars scalars;
} nd_exec;

/* ---- preparing ----------------------------------------------------------------- */

static void prepare_pair(nd_pair_state *ps, rl_nd_geometry *g, const rl_nd_pair *pair, int rank)
{
    int coords[RELAY_ND_MAX_MESH];
    rl_nd_walk_order(&g->order, pair);
    int64_t at = rl_nd_position_of(pair->dst, rank);
    if (at >= 0) {
        rl_nd_mesh_coords(pair->dst, at, coords);
        rl_nd_strides_of(g->a_stride, pair->dst, coords, NULL);
        ps->dst_elems = rl_nd_buffer_elems(pair->dst, coords);
    }
    if ((at = rl_nd_position_of(pair->src, rank)) >= 0) {
        rl_nd_mesh_coords(pair->src, at, coords);
        rl_nd_strides_of(g->b_stride, pair->src, coords, pair->perm);
        ps->src_elems = rl_nd_buffer_elems(pair->src, coords);
    }
    ps->pieces = rl_nd_partial_pieces(pair->src);
    g->op = pair->op;
    g->combine = ps->pieces > 1 ? RL_COMBINE_SUM : RL_COMBINE_UPDATE;
}

static relay_status derive(nd_exec *x);

static relay_status nd_prepare(void **state, const relay_plan *p, const rl_exec_setup *setup)
{
    if (!p->nd) return rl_fail(RELAY_ERR_FORMAT, "N-D plan without its pairs");
    nd_exec *x = calloc(1, sizeof *x);
    if (!x) return RL_NOMEM();
    *state = x;
    x->rank = setup->rank;
    x->count = p->nd->count;
    x->type = p->type;
    x->esz = relay_type_size(p->type);
    x->elem_type = MPI_DATATYPE_NULL;
    if (setup->nranks != p->nranks) return RELAY_OK; /* refused by the agreement that follows: derive nothing */
    relay_status st = rl_nd_plan_clone(&x->header, p); /* the executor outlives the caller's plan */
    if (!st) x->nd = x->header->nd;
    if (!st && !(x->pairs = rl_calloc((size_t)x->count, sizeof *x->pairs))) st = RL_NOMEM();
    if (!st && !(x->geometry = rl_calloc((size_t)x->count, sizeof *x->geometry))) st = RL_NOMEM();
    if (!st && !(x->summed = rl_calloc((size_t)x->count, sizeof *x->summed))) st = RL_NOMEM();
    if (st) return st;
    for (int k = 0; k < x->count; k++) {
        prepare_pair(&x->pairs[k], &x->geometry[k], &x->nd->pairs[k], x->rank);
        x->pairs[k].large_a = x->pairs[k].dst_elems * (int64_t)x->esz >= RL_LARGE_DST_BYTES;
        x->summed[k] = x->pairs[k].pieces > 1;
        if (x->pairs[k].pieces > 1 && x->pairs[k].dst_elems > 0 &&
            !(x->pairs[k].sum = rl_malloc_array((size_t)x->pairs[k].dst_elems, x->esz)))
            return RL_NOMEM();
    }
    return derive(x);
}

/* This rank's transfers, messages and order of sums, from the header as
 * it replays (the plan's forwarding, or the one chosen). */
static relay_status derive(nd_exec *x)
{
    rl_nd_sums_free(&x->sums);
    rl_msgset_free(&x->set);
    rl_nd_messages_free(&x->msg);
    rl_nd_part_free(&x->part);
    free(x->reqs);
    x->reqs = NULL;
    relay_status st = rl_nd_part_derive(&x->part, x->header, x->rank, RL_ND_SENDS | RL_ND_RECEIVES);
    if (!st) st = rl_nd_messages_build(&x->msg, &x->part, x->esz);
    if (!st) st = rl_nd_lower(&x->set, &x->part, &x->msg, x->geometry, x->count, x->esz);
    if (!st) st = rl_msg_side_hold(&x->set.send);
    if (!st) st = rl_msg_side_hold(&x->set.recv);
    if (!st) st = rl_nd_sums_build(&x->sums, &x->part, &x->set, x->summed, x->count);
    if (!st) st = rl_nd_timing_rows_of(&x->timing, &x->msg, x->rank, x->esz);
    int64_t packed = 0;
    for (int i = 0; !st && i < x->msg.nsend; i++) packed += x->msg.send[i].from < 0 ? x->msg.send[i].elems : 0;
    x->large_send = packed * (int64_t)x->esz >= RL_LARGE_DST_BYTES;
    int n = x->msg.nsend + x->msg.nrecv;
    if (!st && !(x->reqs = rl_malloc_array((size_t)n, sizeof *x->reqs))) st = RL_NOMEM();
    for (int i = 0; !st && i < n; i++) x->reqs[i] = MPI_REQUEST_NULL;
    return st;
}

/* How the replicas of replicated destinations receive, as the tuning or
 * relay_exec_tune chose: a choice other than the plan's is derived again
 * at bind. */
static void nd_choose(void *state, const relay_tuning_choice *c)
{
    nd_exec *x = state;
    for (int k = 0; k < x->count; k++) {
        rl_nd_pair *pair = &x->header->nd->pairs[k];
        int forward = c->forward && rl_nd_replicas(pair->dst) > 1;
        x->rederive |= forward != pair->forward;
        pair->forward = forward;
    }
}

static relay_status nd_time(void *state, int on)
{
    rl_nd_timing_switch(&((nd_exec *)state)->timing, on);
    return RELAY_OK;
}

static void nd_timings(const void *state, int64_t *replays, relay_exec_timing *out, int *count)
{
    rl_nd_timing_rows(&((const nd_exec *)state)->timing, replays, out, count);
}

static void nd_replayed(const void *state, relay_tuning_choice *c)
{
    const nd_exec *x = state;
    *c = (relay_tuning_choice){.schedule = RELAY_SCHED_P2P, .forward = rl_nd_plan_forwards(x->header->nd)};
}

/* ---- binding ------------------------------------------------------------------- */

/* Transfers passed on take tags 1, 2, ... between two ranks: refused,
 * rather than wrapped, past this MPI's MPI_TAG_UB. */
static relay_status check_tags(const nd_exec *x, MPI_Comm comm)
{
    int *ub = NULL, flag = 0;
    MPI_Comm_get_attr(comm, MPI_TAG_UB, &ub, &flag);
    int64_t limit = flag && ub ? *ub : RL_ND_GUARANTEED_TAGS;
    if (x->msg.max_tag <= limit) return RELAY_OK;
    return rl_fail(RELAY_ERR_UNSUPPORTED, "N-D plan: %lld transfers passed on between two ranks need as many tags; this MPI has %lld "
                                          "(plan with RELAY_REPLICAS_DIRECT)", (long long)x->msg.max_tag, (long long)limit);
}

/* A message's count and datatype: bytes where they fit an int (Open MPI
 * moves a message of MPI_BYTE faster than one of a derived element type),
 * elements otherwise. */
static int message_count(const nd_exec *x, const rl_msg *m, MPI_Datatype *type)
{
    int64_t bytes = m->elems * (int64_t)x->esz;
    *type = bytes <= INT_MAX ? MPI_BYTE : x->elem_type;
    return bytes <= INT_MAX ? (int)bytes : (int)m->elems;
}

/* Where message i of a side lies packed: in the side's buffer, or where a
 * send passes bytes on, inside the receive that brought them. */
static char *packed_at(const nd_exec *x, const rl_msg_side *side, int i)
{
    const rl_msg *m = &side->msg[i];
    if (m->passes_on >= 0) return (char *)rl_msg_at(&x->set.recv, m->passes_on) + x->set.control + m->passes_on_at;
    return (char *)rl_msg_at(side, i) + x->set.control;
}

static relay_status nd_bind(void *state, MPI_Comm comm, relay_internal_scratch *lent)
{
    (void)lent;
    nd_exec *x = state;
    relay_status st = x->rederive ? derive(x) : RELAY_OK; /* every rank got the same choice: all derive again */
    if (!st) st = check_tags(x, comm);
    if ((st = rl_agree(comm, st, "binding an N-D plan's messages"))) return st;
    int rc = MPI_Type_contiguous((int)x->esz, MPI_BYTE, &x->elem_type);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&x->elem_type);
    const rl_msg_side *recv = &x->set.recv, *send = &x->set.send;
    MPI_Datatype type;
    for (int i = 0; i < recv->n && rc == MPI_SUCCESS; i++) {
        int count = message_count(x, &recv->msg[i], &type);
        rc = MPI_Recv_init(packed_at(x, recv, i), count, type, recv->msg[i].peer, recv->msg[i].tag, comm, &x->reqs[i]);
    }
    for (int i = 0; i < send->n && rc == MPI_SUCCESS; i++) {
        int count = message_count(x, &send->msg[i], &type);
        rc = MPI_Send_init(packed_at(x, send, i), count, type, send->msg[i].peer, send->msg[i].tag, comm, &x->reqs[recv->n + i]);
    }
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "N-D plan: creating persistent requests");
}

/* ---- replaying ------------------------------------------------------------------- */

/* The boxes of send i packed from B into its place. */
static void pack_message(nd_exec *x, int i)
{
    const rl_msg_side *send = &x->set.send;
    const rl_msg *m = &send->msg[i];
    rl_scalars plain;
    rl_scalars_set(&plain, x->type, NULL, NULL);
    plain.large_dst = x->large_send;
    rl_box_end packed = {packed_at(x, send, i), RL_BOX_TO};
    for (int64_t j = m->first; j < m->first + m->count; j++) {
        const rl_box *b = &send->boxes[j];
        rl_box_move(&plain, 0, &x->set, b, packed, (rl_box_end){x->pairs[b->pair].b, RL_BOX_FROM});
    }
}

/* The scalars of one step of a sum: copy (the first piece) or add. */
static void sum_step(rl_scalars *step, relay_type type, int first)
{
    rl_scalars_set(step, type, NULL, NULL);
    if (first) return;
    switch (type) { /* beta = 1: sum += x */
    case RELAY_FLOAT: step->beta.f = 1.0f; break;
    case RELAY_DOUBLE: step->beta.d = 1.0; break;
    case RELAY_CFLOAT: step->beta.cf = 1.0f; break;
    case RELAY_CDOUBLE: step->beta.cd = 1.0; break;
    }
    step->beta_zero = 0;
}

/* Transfer t (box b) into A from `from` (its packed message, or B for a
 * local one): the replay's update, or for summed pairs the step of its
 * partial piece, in a scratch sum laid out as A whose last step writes
 * A = alpha sum + beta A, or, when alpha is 1 and beta 0 (that last step
 * a copy), in A itself: the same bits, one pass less. */
static void deliver(nd_exec *x, const rl_nd_transfer *t, const rl_box *b, rl_box_end from)
{
    nd_pair_state *ps = &x->pairs[t->pair];
    int conj = x->nd->pairs[t->pair].op == RELAY_OP_C;
    rl_box_end a = {ps->a, RL_BOX_TO};
    rl_scalars update = x->scalars;
    update.large_dst = ps->large_a;
    if (ps->pieces == 1) {
        rl_box_move(&update, conj, &x->set, b, a, from);
        return;
    }
    int in_place = x->scalars.alpha_one && x->scalars.beta_zero;
    rl_scalars step;
    sum_step(&step, x->type, t->partial == 0);
    step.large_dst = ps->large_a;
    rl_box_end sum = {in_place ? ps->a : ps->sum, RL_BOX_TO};
    rl_box_move(&step, conj, &x->set, b, sum, from);
    if (!in_place && t->partial == ps->pieces - 1) rl_box_move(&update, 0, &x->set, b, a, sum);
}

static void deliver_local(nd_exec *x, int64_t j)
{
    const rl_nd_transfer *t = &x->part.local[j];
    deliver(x, t, &x->set.local[j], (rl_box_end){x->pairs[t->pair].b, RL_BOX_FROM});
}

/* Adds pair k's partial pieces that may be added now. */
static void add_landed(nd_exec *x, int k)
{
    const rl_nd_arrival *a;
    while ((a = rl_nd_sums_next(&x->sums, k))) {
        if (!a->packed) deliver_local(x, a->t - x->part.local);
        else deliver(x, a->t, &x->set.recv.boxes[a->t - x->part.recv], (rl_box_end){a->packed, RL_BOX_FROM});
    }
}

/* Receive i landed: its transfers go into A, those of summed pairs in
 * their order. */
static void unpack_message(nd_exec *x, int i)
{
    const rl_msg *m = &x->set.recv.msg[i];
    rl_box_end packed = {packed_at(x, &x->set.recv, i), RL_BOX_FROM};
    int sums = 0;
    for (int64_t j = m->first; j < m->first + m->count; j++) {
        const rl_nd_transfer *t = &x->part.recv[j];
        sums |= x->summed[t->pair];
        if (!x->summed[t->pair]) deliver(x, t, &x->set.recv.boxes[j], packed);
    }
    if (!sums) return;
    rl_nd_sums_land(&x->sums, i);
    for (int64_t j = m->first; j < m->first + m->count; j++)
        if (x->summed[x->part.recv[j].pair] && (j == m->first || x->part.recv[j].pair != x->part.recv[j - 1].pair))
            add_landed(x, x->part.recv[j].pair);
}

static relay_status check_buffers(const nd_exec *x, void *const *dst, const void *const *src)
{
    for (int k = 0; k < x->count; k++) {
        if (x->pairs[k].dst_elems > 0 && !dst[k])
            return rl_fail(RELAY_ERR_ARG, "relay_exec_start: dst[%d] is NULL but this rank holds %lld elements of it", k,
                           (long long)x->pairs[k].dst_elems);
        if (x->pairs[k].src_elems > 0 && !src[k])
            return rl_fail(RELAY_ERR_ARG, "relay_exec_start: src[%d] is NULL but this rank holds %lld elements of it", k,
                           (long long)x->pairs[k].src_elems);
    }
    return RELAY_OK;
}

static relay_status nd_start(void *state, void *const *dst, const void *const *src, const void *alpha, const void *beta)
{
    nd_exec *x = state;
    relay_status st = check_buffers(x, dst, src);
    if (st) return st;
    rl_scalars_set(&x->scalars, x->type, alpha, beta);
    for (int k = 0; k < x->count; k++) {
        x->pairs[k].a = dst[k];
        x->pairs[k].b = (char *)src[k];
    }
    const rl_nd_messages *m = &x->msg;
    int rc = m->nrecv ? MPI_Startall(m->nrecv, x->reqs) : MPI_SUCCESS;
    for (int i = 0; i < m->nsend && rc == MPI_SUCCESS; i++) /* those passed on start as their bytes land (nd_wait) */
        if (m->send[i].from < 0) {
            double t0 = rl_nd_clock(&x->timing);
            pack_message(x, i);
            rl_nd_time_since(&x->timing, RL_ND_PACK, rl_nd_row_send(m, i), t0);
            rc = MPI_Start(&x->reqs[m->nrecv + i]);
        }
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "N-D plan: starting the messages");
    double t0 = rl_nd_clock(&x->timing);
    for (int64_t i = 0; i < x->part.nlocal; i++)
        if (!x->summed[x->part.local[i].pair]) deliver_local(x, i);
    rl_nd_sums_restart(&x->sums, x->count);
    for (int k = 0; k < x->count; k++) add_landed(x, k);
    rl_nd_time_since(&x->timing, RL_ND_UNPACK, rl_nd_row_local(m), t0);
    return RELAY_OK;
}

/* Receive i landed: the sends that pass its bytes on start. */
static int start_passed_on(nd_exec *x, int i)
{
    const rl_nd_messages *m = &x->msg;
    int rc = MPI_SUCCESS;
    for (int j = m->starts_first[i]; j < m->starts_first[i + 1] && rc == MPI_SUCCESS; j++) rc = MPI_Start(&x->reqs[m->nrecv + m->starts[j]]);
    return rc;
}

/* Each message as it lands: passed on, and moved into A. */
static relay_status nd_wait(void *state)
{
    nd_exec *x = state;
    const rl_nd_messages *m = &x->msg;
    int rc = MPI_SUCCESS;
    for (int n = 0; n < m->nrecv && rc == MPI_SUCCESS; n++) {
        int i;
        double t0 = rl_nd_clock(&x->timing);
        rc = MPI_Waitany(m->nrecv, x->reqs, &i, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || i == MPI_UNDEFINED || (rc = start_passed_on(x, i)) != MPI_SUCCESS) continue;
        rl_nd_time_since(&x->timing, RL_ND_WAIT, rl_nd_row_recv(m, i), t0);
        t0 = rl_nd_clock(&x->timing);
        unpack_message(x, i); /* summed pairs' pieces that this lets go are this message's time */
        rl_nd_time_since(&x->timing, RL_ND_UNPACK, rl_nd_row_recv(m, i), t0);
    }
    double t0 = rl_nd_clock(&x->timing);
    if (rc == MPI_SUCCESS) rc = MPI_Waitall(m->nsend, x->reqs + m->nrecv, MPI_STATUSES_IGNORE);
    rl_nd_time_since(&x->timing, RL_ND_WAIT, rl_nd_row_completion(m), t0);
    x->timing.replays += x->timing.on;
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "N-D plan: completing the messages");
}

/* ---- the executor's N-D kind (exec_kind.h) ---------------------------------------- */

static void nd_memory(const void *state, relay_exec_memory *m)
{
    const nd_exec *x = state;
    const rl_nd_messages *g = &x->msg;
    int64_t held = rl_msg_side_bytes(&x->set.send) + rl_msg_side_bytes(&x->set.recv), sums = 0, moved = 0;
    for (int i = 0; i < g->nsend; i++) moved += g->send[i].elems;
    for (int i = 0; i < g->nrecv; i++) moved += g->recv[i].elems;
    for (int k = 0; k < x->count; k++) sums += x->pairs[k].sum ? x->pairs[k].dst_elems * (int64_t)x->esz : 0;
    m->extra_bytes = held + sums + rl_msgset_bytes(&x->set) +
                     (g->nsend + g->nrecv) * (int64_t)(sizeof(rl_nd_message) + sizeof(MPI_Request));
    m->remote_bytes = moved * (int64_t)x->esz;
}

static void nd_free(void *state)
{
    nd_exec *x = state;
    if (!x) return;
    for (int i = 0; x->reqs && i < x->msg.nsend + x->msg.nrecv; i++)
        if (x->reqs[i] != MPI_REQUEST_NULL) MPI_Request_free(&x->reqs[i]);
    if (x->elem_type != MPI_DATATYPE_NULL) MPI_Type_free(&x->elem_type);
    for (int k = 0; x->pairs && k < x->count; k++) free(x->pairs[k].sum);
    rl_nd_part_free(&x->part);
    relay_plan_free(x->header);
    free(x->pairs);
    free(x->geometry);
    rl_msgset_free(&x->set);
    rl_nd_messages_free(&x->msg);
    rl_nd_sums_free(&x->sums);
    rl_nd_timing_free(&x->timing);
    free(x->summed);
    free(x->reqs);
    free(x);
}

static relay_status nd_stand_in(void *state)
{
    nd_exec *x = state;
    int64_t *dst = rl_malloc_array((size_t)x->count, sizeof *dst), *src = rl_malloc_array((size_t)x->count, sizeof *src);
    relay_status st = dst && src ? RELAY_OK : RL_NOMEM();
    for (int k = 0; !st && k < x->count; k++) {
        dst[k] = x->pairs[k].dst_elems;
        src[k] = x->pairs[k].src_elems;
    }
    if (!st) st = rl_stand_in_replay(&rl_exec_nd, x, NULL, x->count, dst, x->count, src, x->esz);
    free(dst);
    free(src);
    return st;
}

const rl_exec_kind rl_exec_nd = {
    .needs_section = 0,
    .prepare = nd_prepare,
    .check_peers = NULL,
    .bind = nd_bind,
    .bind_replays = NULL,
    .start = nd_start,
    .stand_in = nd_stand_in,
    .wait = nd_wait,
    .memory = nd_memory,
    .hsumma_report = NULL,
    .time = nd_time,
    .timings = nd_timings,
    .choose = nd_choose,
    .replayed = nd_replayed,
    .free = nd_free,
};
