/* index_exec.c — the executor's index kind rl_exec_index (exec_kind.h):
 * an index plan's section bound and replayed through the one replay
 * engine.
 *
 * Preparing (no MPI call) validates this rank's section against the
 * header, checks what a reader cannot (index_check.h: a broadcast writes
 * each holder slot once, a sum reads each once in ascending order), lowers
 * the section to a message set (index_lower.c) and makes the replay state
 * the schedules and transports move messages through (transform.h's
 * rl_transform_exec, here with the index kind's own moves, index_moves.c,
 * every message staged).  Checking the peers (collective) compares what
 * each rank's section says it sends every other rank, items and a
 * signature of its segments, with what that rank's section expects: a
 * plan file whose sections each read well may still describe a message
 * otherwise at its two ends.  Binding binds the schedule replayed: p2p,
 * alltoallv or neighbor (an index plan has no steps for rounds and no
 * memory cap); a sum's receives combine in ascending peer order with the
 * local moves at this rank's place, whatever order messages land in
 * (message_set.h's `ordered`), so every replay adds the same numbers in
 * the same order.  A replay takes src[0], the buffer the move reads (the
 * owners' for a broadcast, the holders' for a sum), and dst[0], the one
 * it writes or adds into; no alpha or beta. */
#include <stdlib.h>

#include "error.h"
#include "exec_kind.h"
#include "index_check.h"
#include "index_lower.h"
#include "index_moves.h"
#include "mpi_error.h"
#include "collective.h"
#include "schedule.h"
#include "stand_in.h"
#include "transform_pack.h"
#include "transform_timing.h"
#include "transport.h"

typedef struct {
    rl_transform_exec x;      /* first: what the schedules and transports replay, and the transform
                                 kind's binding, peer check, timings and release */
    int64_t from_elems, to_elems; /* this rank's buffers the move reads and writes */
} rl_index_exec;

/* The claims the transform kind's peer check compares (transform.h): per
 * peer, the elements of the message and, as its hash, the signature of
 * its segments; no step, no chunks.  Every section counts as planned, so
 * that the check hashes nothing more. */
static void claim_side(int64_t *claims, const rl_index_section *s, const rl_index_msg *m, int n, int64_t item_elems)
{
    for (int i = 0; i < n; i++) {
        claims[CLAIM_N * m[i].peer + CLAIM_ELEMS] = m[i].items * item_elems;
        claims[CLAIM_N * m[i].peer + CLAIM_HASH] = (int64_t)rl_index_msg_signature(s, &m[i]);
    }
}

static relay_status build_claims(rl_transform_exec *x, const rl_index_section *s, int64_t item_elems)
{
    size_t n = (size_t)CLAIM_N * (size_t)x->nranks;
    x->claims = rl_malloc_array(3 * n, sizeof *x->claims);
    if (!x->claims) return RL_NOMEM();
    for (size_t i = 0; i < 3 * n; i++) x->claims[i] = i % CLAIM_N == CLAIM_STEP ? -1 : 0;
    claim_side(x->claims, s, s->send, s->nsend, item_elems);
    claim_side(x->claims + 2 * n, s, s->recv, s->nrecv, item_elems);
    x->planned = 1;
    return RELAY_OK;
}

/* The replay state's fields the schedules and transports read. */
static relay_status prepare_replay(rl_transform_exec *x, const relay_plan *p, const rl_index_section *s)
{
    x->options = (relay_exec_options)RELAY_EXEC_OPTIONS_INIT;
    x->moves = &rl_index_moves;
    x->packed = 1; /* staged: the transports that move runs of the user's buffers know transform lattices only */
    x->count = 1;
    x->type = p->type;
    x->esz = relay_type_size(p->type);
    x->pairs = rl_calloc(1, sizeof *x->pairs);
    x->dst = rl_calloc(1, sizeof *x->dst);
    x->src = rl_calloc(1, sizeof *x->src);
    if (!x->pairs || !x->dst || !x->src) return RL_NOMEM();
    x->pairs[0] = (rl_pair_info){RELAY_OP_N, RELAY_COL_MAJOR, RELAY_COL_MAJOR};
    rl_scalars_set(&x->plain, x->type, NULL, NULL);
    x->scalars = x->plain;
    relay_status st = rl_index_lower(&x->set, s, p->index->item_elems, p->index->move, x->esz);
    if (!st) st = rl_msgset_layout(&x->set);
    if (st) return st;
    while (x->first_send < x->set.send.n && x->set.send.msg[x->first_send].peer < x->rank) x->first_send++;
    x->schedule = RELAY_SCHED_P2P;
    x->sched = &rl_schedule_p2p;
    x->reqs = rl_malloc_array((size_t)x->set.recv.n + (size_t)x->set.send.n + 1, sizeof *x->reqs);
    if (!x->reqs) return RL_NOMEM();
    for (int k = 0; k < x->set.recv.n + x->set.send.n; k++) x->reqs[k] = MPI_REQUEST_NULL;
    return rl_transports_stage_all(x);
}

static relay_status index_prepare(void **state, const relay_plan *p, const rl_exec_setup *setup)
{
    rl_index_exec *e = *state = calloc(1, sizeof *e);
    if (!e) return RL_NOMEM();
    rl_transform_exec *x = &e->x;
    rl_transform_exec_init(x, setup->rank, setup->nranks, setup->team);
    const rl_index_plan *ip = p->index;
    const rl_index_section *s = ip->sections[x->rank];
    e->from_elems = rl_index_from_slots(ip, x->rank) * ip->item_elems;
    e->to_elems = rl_index_to_slots(ip, x->rank) * ip->item_elems;
    relay_status st = rl_index_section_validate(s, p);
    if (!st) st = rl_index_check_holders(s, p);
    if (!st && setup->peers_checked) st = build_claims(x, s, ip->item_elems);
    return st ? st : prepare_replay(x, p, s);
}

/* ---- the transform kind's steps, over the same replay state -------------- */

static relay_status index_check_peers(void *state, MPI_Comm comm) { return rl_exec_transform.check_peers(state, comm); }
static relay_status index_bind(void *state, MPI_Comm comm, relay_internal_scratch *lent)
{
    return rl_exec_transform.bind(state, comm, lent);
}
static relay_status index_bind_replays(void *state, MPI_Comm comm) { return rl_exec_transform.bind_replays(state, comm); }
static void index_free(void *state) { rl_exec_transform.free(state); }

/* ---- a replay --------------------------------------------------------------- */

static relay_status index_start(void *state, void *const *dst, const void *const *src, const void *alpha, const void *beta)
{
    rl_index_exec *e = state;
    rl_transform_exec *x = &e->x;
    if (alpha || beta)
        return rl_fail(RELAY_ERR_ARG, "relay_exec_start: an index move takes no alpha or beta (pass NULL): a broadcast "
                                      "copies, a sum adds into the owners' values");
    if (e->to_elems > 0 && !dst[0])
        return rl_fail(RELAY_ERR_ARG, "relay_exec_start: dst[0] is NULL but rank %d writes %lld elements of it", x->rank,
                       (long long)e->to_elems);
    if (e->from_elems > 0 && !src[0])
        return rl_fail(RELAY_ERR_ARG, "relay_exec_start: src[0] is NULL but rank %d reads %lld elements of it", x->rank,
                       (long long)e->from_elems);
    if (!x->bound) /* bound on repeat, which only relay_scalapack asks for: not an index plan's way */
        return rl_fail(RELAY_ERR_UNSUPPORTED, "relay_exec_start: an index plan replays once its replays are bound");
    x->dst[0] = dst[0];
    x->src[0] = src[0];
    int rc = x->sched->start(x);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "starting the replay");
}

static relay_status index_wait(void *state)
{
    rl_transform_exec *x = state;
    int rc = x->sched->wait(x);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "completing the replay");
    relay_status st = rl_transports_report(x);
    if (!st) rl_timing_replayed(x);
    return st;
}

static relay_status index_stand_in(void *state)
{
    rl_index_exec *e = state;
    return rl_stand_in_replay(&rl_exec_index, e, NULL, 1, &e->to_elems, 1, &e->from_elems, e->x.esz);
}

/* ---- the kind's other operations ------------------------------------------ */

static void index_memory(const void *state, relay_exec_memory *m)
{
    const rl_transform_exec *x = state;
    int64_t remote = 0, extra = rl_msg_side_bytes(&x->set.send) + rl_msg_side_bytes(&x->set.recv) + rl_msgset_bytes(&x->set);
    for (int k = 0; k < x->set.send.n; k++) remote += x->set.send.msg[k].elems * (int64_t)x->esz;
    for (int k = 0; k < x->set.recv.n; k++) remote += x->set.recv.msg[k].elems * (int64_t)x->esz;
    extra += (int64_t)(x->set.send.n + x->set.recv.n) * (int64_t)(sizeof(MPI_Request) + 2 * sizeof *x->send_via);
    extra += rl_collective_bytes(x);
    *m = (relay_exec_memory){extra, remote};
}

/* The same choice on every rank (exec.c): p2p, alltoallv or neighbor;
 * rounds, which need steps an index plan does not hold, replay p2p. */
static void index_choose(void *state, const relay_tuning_choice *c)
{
    rl_transform_exec *x = state;
    int collective = c->schedule == RELAY_SCHED_ALLTOALLV || c->schedule == RELAY_SCHED_NEIGHBOR;
    x->schedule = collective ? c->schedule : RELAY_SCHED_P2P;
    x->sched = rl_schedule_find(x->schedule, 0);
}

static void index_replayed(const void *state, relay_tuning_choice *c)
{
    const rl_transform_exec *x = state;
    *c = (relay_tuning_choice){.schedule = x->schedule, .packed = x->schedule == RELAY_SCHED_P2P};
}

const rl_exec_kind rl_exec_index = {
    .needs_section = 1,
    .prepare = index_prepare,
    .check_peers = index_check_peers,
    .bind = index_bind,
    .bind_replays = index_bind_replays,
    .start = index_start,
    .stand_in = index_stand_in,
    .wait = index_wait,
    .memory = index_memory,
    .hsumma_report = NULL,
    .time = rl_transform_time,
    .timings = rl_transform_timings,
    .choose = index_choose,
    .replayed = index_replayed,
    .options = NULL,
    .free = index_free,
};
