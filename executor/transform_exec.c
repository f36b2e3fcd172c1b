/* transform_exec.c — preparing and binding a transform plan: this rank's
 * part of the executor's kind rl_exec_transform (exec_kind.h).
 *
 * Preparing (no MPI call) validates and copies this rank's section, builds
 * the tasks and pack buffers of its messages (transform_pack.c) and the
 * step tables of its schedule, and trusts a section read from bytes once
 * it equals what the plan's header plans for the rank (replan.h) or, where
 * it does not, once checked element by element against the header
 * (transform_check.c).  Checking the peers (collective) compares what each
 * rank's section says it sends every other rank with what that rank's
 * section expects to receive (sizes, steps and, unless every section is
 * the planner's own, a hash of which elements travel where): sections are
 * validated one by one, and a plan file can lie consistently in one of
 * them, which would leave a receive waiting forever or fill A wrongly.  Binding takes the communicator; that is
 * enough for a one-off replay (transform_replay.c).  Binding the
 * replays, collective on the executor's communicator, binds the schedule
 * replayed (schedules/: the plan's, a tuned choice, or under a memory cap
 * the capped one), which creates what it needs: one persistent request per
 * message, or the collective (a collective's int counts limit it to pack
 * buffers below 2 GiB; past that every rank replays p2p instead), and
 * under p2p the agreement with each peer on how each message travels
 * (transports/: staged, direct run by run, read by the receiver from the
 * sender's B, or packed into the receiver's landing area in a
 * shared-memory window).  The replay is transform_replay.c. */
#include <limits.h>

#include "agree.h"
#include "error.h"
#include "exec_kind.h"
#include "mpi_error.h"
#include "capped.h"
#include "collective.h"
#include "pull.h"
#include "replan.h"
#include "shm.h"
#include "stand_in.h"
#include "transform_check.h"
#include "transform_control.h"
#include "transform_lower.h"
#include "transform_pack.h"
#include "transform_replay.h"
#include "transform_timing.h"
#include "transport.h"

/* ---- preparing --------------------------------------------------------- */

static void index_steps(int *at, const rl_msg_side *side)
{
    for (int k = 0; k < side->n; k++) at[side->msg[k].step] = k;
}

/* Rounds: which send and which receive (if any) each step holds. */
static relay_status build_steps(rl_transform_exec *x, int32_t rounds)
{
    x->rounds = rounds;
    x->send_at = rl_malloc_array((size_t)rounds, sizeof *x->send_at);
    x->recv_at = rl_malloc_array((size_t)rounds, sizeof *x->recv_at);
    if (!x->send_at || !x->recv_at) return RL_NOMEM();
    for (int32_t r = 0; r < rounds; r++) x->send_at[r] = x->recv_at[r] = -1;
    index_steps(x->send_at, &x->set.send);
    index_steps(x->recv_at, &x->set.recv);
    return RELAY_OK;
}

/* side: the messages' chunks under a memory cap (first NULL: no cap),
 * whose signature stands for how both ends cut each message.  Hashes are
 * claimed apart (claim_hashes): 0 until then, not computed. */
static void claim_side(int64_t *claims, const rl_message *msg, int nmsg, const rl_span *spans, const int64_t *step,
                       const rl_capped_side *side)
{
    for (int k = 0; k < nmsg; k++) {
        claims[CLAIM_N * msg[k].peer + CLAIM_ELEMS] = msg[k].elems;
        claims[CLAIM_N * msg[k].peer + CLAIM_STEP] = step ? step[k] : -1;
        claims[CLAIM_N * msg[k].peer + CLAIM_CHUNKS] = side->first ? rl_capped_signature(side, k, &msg[k], spans) : 0;
    }
}

/* The claims (transform.h), made here, where failing is agreed on; O(ranks). */
static relay_status build_claims(rl_transform_exec *x)
{
    size_t n = (size_t)CLAIM_N * (size_t)x->nranks;
    const rl_section *s = x->sec;
    x->claims = rl_malloc_array(3 * n, sizeof *x->claims);
    if (!x->claims) return RL_NOMEM();
    for (size_t i = 0; i < 3 * n; i++) x->claims[i] = i % CLAIM_N == CLAIM_STEP ? -1 : 0;
    claim_side(x->claims, s->send, s->nsend, s->send_spans, s->send_round, &x->capped.sends);
    claim_side(x->claims + 2 * n, s->recv, s->nrecv, s->recv_spans, s->recv_round, &x->capped.recvs);
    return RELAY_OK;
}

static void claim_hashes(int64_t *claims, const rl_message *msg, int nmsg, const uint64_t *hash)
{
    for (int k = 0; k < nmsg; k++) claims[CLAIM_N * msg[k].peer + CLAIM_HASH] = (int64_t)hash[k];
}

/* The section checked element by element against p's header
 * (transform_check.c), which hashes what each message carries; the hashes
 * go into the claims where the peers will be checked. */
static relay_status check_elements(rl_transform_exec *x, const relay_plan *p)
{
    const rl_section *s = x->sec;
    uint64_t *send_hash = rl_malloc_array((size_t)s->nsend, sizeof *send_hash);
    uint64_t *recv_hash = rl_malloc_array((size_t)s->nrecv, sizeof *recv_hash);
    relay_status st = send_hash && recv_hash ? rl_transform_check_section(x, p, send_hash, recv_hash) : RL_NOMEM();
    if (!st && x->claims) {
        claim_hashes(x->claims, s->send, s->nsend, send_hash);
        claim_hashes(x->claims + 2 * (size_t)CLAIM_N * (size_t)x->nranks, s->recv, s->nrecv, recv_hash);
    }
    free(send_hash);
    free(recv_hash);
    return st;
}

/* A section is trusted as the planner's own (made here, or read from
 * bytes and equal to what the header plans for this rank: replan.h,
 * O(lattices)), or else once checked element by element.  Planned
 * sections agree with each other by construction; where some rank's is
 * not planned, the planned ranks hash their messages too when the peers
 * are checked (check_peers), so that every message's two ends compare.
 * The claims are made only where the peers will be checked (not for
 * executors bound on repeat, whose callers made the plan: O(ranks) for
 * nothing). */
static relay_status check_and_claim(rl_transform_exec *x, const relay_plan *p, int peers_checked)
{
    relay_status st = p->from_bytes ? rl_section_is_planned(p, x->rank, &x->planned) : RELAY_OK;
    if (!p->from_bytes) x->planned = 1;
    if (!st && peers_checked) st = build_claims(x);
    if (!st && !x->planned) st = check_elements(x, p);
    if (x->planned && peers_checked) x->plan = p; /* lives through relay_exec_create, which checks the peers */
    return st;
}

/* The staged messages' requests, none created yet, every message staged
 * until binding the replays agrees otherwise (transports/). */
static relay_status build_requests(rl_transform_exec *x)
{
    const rl_section *s = x->sec;
    x->reqs = rl_malloc_array((size_t)s->nrecv + (size_t)s->nsend, sizeof *x->reqs);
    if (!x->reqs) return RL_NOMEM();
    for (int k = 0; k < s->nrecv + s->nsend; k++) x->reqs[k] = MPI_REQUEST_NULL;
    return rl_transports_stage_all(x);
}

/* Where the buffers live: the host's memory, or a device kind's
 * (device_kind.h), whose replays pack every message (no direct or pulled
 * message reads the user's buffers from the host) and hold no cap's chunks. */
static relay_status prepare_memory_kind(rl_transform_exec *x, const relay_plan *p, const relay_exec_options *opt)
{
    x->options = *opt;
    if (opt->memory == RELAY_MEMORY_HOST) {
        x->options = (relay_exec_options)RELAY_EXEC_OPTIONS_INIT; /* stream and transport ignored */
        relay_status st = rl_pull_mode_from_env(&x->pull_mode);
        return st ? st : rl_shm_mode_from_env(&x->shm.env);
    }
    x->device = rl_device_kind_of(opt->memory);
    if (!x->device)
        return rl_fail(RELAY_ERR_UNSUPPORTED, "relay_exec_create_with: this relay was built without its CUDA backend "
                                              "(CMake found no CUDA toolkit)");
    int yes = 0;
    relay_status st = x->device->supported(&yes);
    if (!st && !yes) st = rl_fail(RELAY_ERR_UNSUPPORTED, "relay_exec_create_with: rank %d sees no CUDA device", x->rank);
    if (!st && p->max_buffer_bytes)
        st = rl_fail(RELAY_ERR_UNSUPPORTED, "relay_exec_create_with: plans with a memory cap replay over host memory only");
    x->pull_mode = RL_PULL_OFF;
    return st;
}

void rl_transform_exec_init(rl_transform_exec *x, int rank, int nranks, int team)
{
    x->comm = MPI_COMM_NULL;
    x->unit = MPI_DATATYPE_NULL;
    x->coll.req = MPI_REQUEST_NULL;
    x->coll.graph = MPI_COMM_NULL;
    x->shm.node = MPI_COMM_NULL;
    x->shm.win = MPI_WIN_NULL;
    x->rank = rank;
    x->nranks = nranks;
    x->team = team;
}

/* Everything this rank prepares before it knows whether all ranks agree;
 * the facade calls it only where the plan holds this rank's section. */
static relay_status transform_prepare(void **state, const relay_plan *p, const rl_exec_setup *setup)
{
    rl_transform_exec *x = *state = calloc(1, sizeof *x);
    if (!x) return RL_NOMEM();
    rl_transform_exec_init(x, setup->rank, setup->nranks, setup->team);
    x->shm.shared = setup->shared_landings;
    const rl_section *s = p->sections[x->rank];
    relay_status st = prepare_memory_kind(x, p, setup->options);
    if (!st) st = rl_section_validate(s, p);
    if (!st) st = rl_section_clone(&x->sec, s, p->count);
    if (st) return st;
    x->count = p->count;
    x->type = p->type;
    x->esz = relay_type_size(p->type);
    x->pairs = rl_malloc_array((size_t)p->count, sizeof *x->pairs);
    x->dst = rl_calloc((size_t)p->count, sizeof *x->dst);
    x->src = rl_calloc((size_t)p->count, sizeof *x->src);
    if (!x->pairs || !x->dst || !x->src) return RL_NOMEM();
    for (int k = 0; k < p->count; k++)
        x->pairs[k] = (rl_pair_info){p->pairs[k].op, p->pairs[k].dst->order, p->pairs[k].src->order};
    rl_scalars_set(&x->plain, x->type, NULL, NULL);
    st = rl_transform_lower(&x->set, x->sec, x->pairs, x->count, x->esz);
    if (!st) st = rl_walk_set_build(&x->send_walks, &x->set, &x->set.send, 1);
    if (!st) st = rl_walk_set_build(&x->recv_walks, &x->set, &x->set.recv, 0);
    if (!st) st = rl_local_walks_build(&x->local_walks, &x->set);
    x->set.control = x->device ? 0 : RL_CONTROL_BYTES; /* a device kind's messages carry none yet */
    if (!st) st = rl_msgset_layout(&x->set);
    if (!st) st = rl_control_prepare(x);
    while (x->first_send < x->set.send.n && x->set.send.msg[x->first_send].peer < x->rank) x->first_send++;
    x->schedule = p->schedule;
    x->sched = rl_schedule_find(p->schedule, p->max_buffer_bytes != 0);
    if (!st && x->schedule == RELAY_SCHED_ROUNDS) st = build_steps(x, p->rounds);
    if (!st && p->max_buffer_bytes) st = rl_capped_prepare(x, p->max_buffer_bytes);
    if (!st) st = check_and_claim(x, p, setup->peers_checked);
    return st ? st : build_requests(x);
}

/* ---- checking the peers' sections -------------------------------------- */

/* The first peer whose claim differs from what this rank expects, named. */
static relay_status compare_claims(const rl_transform_exec *x, const int64_t *theirs, const int64_t *expected)
{
    for (int q = 0; q < x->nranks; q++) {
        const int64_t *t = theirs + CLAIM_N * q, *e = expected + CLAIM_N * q;
        if (t[CLAIM_ELEMS] != e[CLAIM_ELEMS] || t[CLAIM_STEP] != e[CLAIM_STEP])
            return rl_fail(RELAY_ERR_MISMATCH,
                           "the sections disagree: rank %d's says it sends rank %d %lld elements (step %lld), rank %d's "
                           "expects %lld (step %lld)",
                           q, x->rank, (long long)t[CLAIM_ELEMS], (long long)t[CLAIM_STEP], x->rank,
                           (long long)e[CLAIM_ELEMS], (long long)e[CLAIM_STEP]);
        if (t[CLAIM_CHUNKS] != e[CLAIM_CHUNKS])
            return rl_fail(RELAY_ERR_MISMATCH,
                           "the sections disagree: rank %d's and rank %d's lattices of their message have different "
                           "shapes, which the memory cap would cut into different chunks",
                           q, x->rank);
        if (t[CLAIM_HASH] && e[CLAIM_HASH] && t[CLAIM_HASH] != e[CLAIM_HASH])
            return rl_fail(RELAY_ERR_MISMATCH,
                           "the sections disagree: the elements rank %d's sends rank %d are not those rank %d's expects "
                           "at their places in the message",
                           q, x->rank, x->rank);
    }
    return RELAY_OK;
}

/* Whether every rank's section is planned; if not, this rank's messages
 * hashed where they are not yet. */
static relay_status hash_unless_all_planned(rl_transform_exec *x, MPI_Comm comm)
{
    int all_planned;
    int rc = MPI_Allreduce(&x->planned, &all_planned, 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "MPI_Allreduce of whether the sections are planned");
    return all_planned || !x->planned ? RELAY_OK : check_elements(x, x->plan);
}

/* One MPI_Alltoall of the claims, and every rank's verdict agreed on. */
static relay_status transform_check_peers(void *state, MPI_Comm comm)
{
    rl_transform_exec *x = state;
    size_t n = (size_t)CLAIM_N * (size_t)x->nranks;
    relay_status st = hash_unless_all_planned(x, comm);
    x->plan = NULL;
    int rc = MPI_Alltoall(x->claims, CLAIM_N, MPI_INT64_T, x->claims + n, CLAIM_N, MPI_INT64_T, comm);
    if (!st) st = rc == MPI_SUCCESS ? compare_claims(x, x->claims + n, x->claims + 2 * n)
                                    : rl_mpi_fail(rc, "MPI_Alltoall of the messages' sizes");
    free(x->claims);
    x->claims = NULL;
    return rl_agree(comm, st, "checking the sections against each other");
}

/* ---- binding ------------------------------------------------------------ */

/* What a one-off replay needs: a communicator, the wire unit, the scratch. */
static relay_status transform_bind(void *state, MPI_Comm comm, relay_internal_scratch *lent)
{
    rl_transform_exec *x = state;
    x->comm = comm;
    x->lent = lent;
    int rc = MPI_Type_contiguous(RL_WIRE_UNIT, MPI_BYTE, &x->unit);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&x->unit);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "MPI_Type_contiguous");
}

static relay_status transform_bind_replays(void *state, MPI_Comm comm)
{
    rl_transform_exec *x = state;
    x->comm = comm;
    /* Bound replays hold buffers of their own: persistent requests point
     * into them, and the scratch moves when a larger first replay grows it.
     * They take the scratch over where it fits: its pages are warm. */
    relay_status st = rl_transform_take_buffers(x);
    if (x->device) { /* every rank binds its device side, or none */
        st = rl_agree(comm, st, "allocating the pack buffers");
        if (!st) st = rl_agree(comm, x->device->bind(&x->device_state, x, &x->options, comm), "binding the device's buffers");
    }
    if (!x->sched && !st)
        st = rl_fail(RELAY_ERR_UNSUPPORTED, "this relay has no schedule %d%s", (int)x->schedule,
                     x->capped.cap ? " under a memory cap" : ""); /* the same choice, so the same verdict, on every rank */
    if (x->sched) st = x->sched->bind(x, st);
    x->bound = st == RELAY_OK;
    return st;
}

/* ---- the executor's transform kind (exec_kind.h) --------------------- */

/* A pack buffer's bytes, unless binding found it unused and dropped it or
 * a memory cap's chunks stage the messages instead (rl_capped_bytes). */
static int64_t pack_bytes(const rl_transform_exec *x, const rl_msg_side *side)
{
    return x->capped.cap || (x->bound && !side->buf) ? 0 : rl_msg_side_bytes(side);
}

static void transform_memory(const void *state, relay_exec_memory *m)
{
    const rl_transform_exec *x = state;
    const rl_section *s = x->sec;
    int64_t remote = 0, extra = pack_bytes(x, &x->set.send) + pack_bytes(x, &x->set.recv) + rl_msgset_bytes(&x->set);
    for (int k = 0; k < s->nsend; k++) remote += s->send[k].elems * (int64_t)x->esz;
    for (int k = 0; k < s->nrecv; k++) remote += s->recv[k].elems * (int64_t)x->esz;
    int64_t lattices = s->nsend_spans + s->nrecv_spans + s->nlocal;
    extra += (x->send_walks.ntasks + x->recv_walks.ntasks + x->local_walks.ntasks) * (int64_t)sizeof(rl_task);
    extra += lattices * (int64_t)sizeof(rl_walk);
    extra += (int64_t)(s->nsend + s->nrecv) * (int64_t)(sizeof(MPI_Request) + sizeof(int64_t) + sizeof(rl_message));
    extra += (s->nsend_spans + s->nrecv_spans) * (int64_t)sizeof(rl_span) + s->nlocal * (int64_t)sizeof(rl_local_span);
    extra += rl_collective_bytes(x);
    extra += x->send_at ? 2 * (int64_t)x->rounds * (int64_t)sizeof(int) : 0;
    extra += x->send_via ? (s->nsend + s->nrecv) * (int64_t)sizeof *x->send_via : 0;
    extra += x->ndirect_runs * (int64_t)sizeof(MPI_Request);
    extra += x->send_runs ? (s->nsend_spans + s->nrecv_spans) * (int64_t)sizeof(rl_direct_runs) +
                                (s->nsend + s->nrecv) * (int64_t)sizeof *x->direct_first
                          : 0;
    extra += rl_transform_pulls_bytes(x);
    extra += rl_shm_bytes(x);
    extra += rl_capped_bytes(x);
    extra += x->device_state ? x->device->device_bytes(x->device_state) : 0;
    *m = (relay_exec_memory){extra, remote};
}

static void transform_free(void *state)
{
    rl_transform_exec *x = state;
    if (!x) return;
    if (x->deadline.expired) rl_transform_abandon(x);
    int nreq = x->set.recv.n + x->set.send.n;
    for (int k = 0; x->reqs && k < nreq; k++)
        if (x->reqs[k] != MPI_REQUEST_NULL) MPI_Request_free(&x->reqs[k]);
    rl_collective_free(x);
    rl_timing_free(x);
    if (x->unit != MPI_DATATYPE_NULL) MPI_Type_free(&x->unit);
    free(x->reqs);
    free(x->send_at);
    free(x->recv_at);
    free(x->send_via);
    free(x->recv_via);
    free(x->direct_reqs);
    free(x->direct_words);
    free(x->heard);
    free(x->direct_first);
    free(x->send_runs);
    free(x->recv_runs);
    free(x->claims);
    rl_transform_pulls_free(x);
    if (x->device_state) x->device->free(x->device_state, x); /* gives the host pack buffers back */
    rl_shm_free(x);
    rl_transform_drop_buffers(x); /* the scratch's memory is not ours to free */
    rl_capped_free(&x->capped);
    rl_walk_set_free(&x->send_walks);
    rl_walk_set_free(&x->recv_walks);
    rl_walk_set_free(&x->local_walks);
    rl_msgset_free(&x->set);
    free(x->pairs);
    free(x->dst);
    free(x->src);
    rl_section_free(x->sec);
    free(x);
}

/* The same choice on every rank (exec.c): rounds only where the plan has
 * steps (rl_tuning_flaw), which prepare indexed. */
static void transform_choose(void *state, const relay_tuning_choice *c)
{
    rl_transform_exec *x = state;
    x->schedule = c->schedule;
    x->sched = rl_schedule_find(c->schedule, x->capped.cap != 0);
    x->packed = c->packed || x->device; /* device buffers are never read by MPI run by run */
    x->shm.on = rl_shm_wanted(x, c);
}

static void transform_replayed(const void *state, relay_tuning_choice *c)
{
    const rl_transform_exec *x = state;
    int p2p = x->schedule == RELAY_SCHED_P2P;
    *c = (relay_tuning_choice){.schedule = x->schedule, .packed = p2p && !x->ndirect_runs && !x->npulled && !x->shm.n,
                               .window = x->shm.n > 0};
}

static relay_status transform_stand_in(void *state)
{
    rl_transform_exec *x = state;
    x->refusing = 1; /* its messages' control words say so */
    relay_status st = rl_stand_in_replay(&rl_exec_transform, x, x->device, x->count, x->sec->dst_elems, x->count,
                                         x->sec->src_elems, x->esz);
    x->refusing = 0;
    return st;
}

static void transform_options(const void *state, relay_exec_options *opt)
{
    const rl_transform_exec *x = state;
    *opt = x->options;
    if (x->device_state) x->device->options(x->device_state, opt);
}

const rl_exec_kind rl_exec_transform = {
    .needs_section = 1,
    .prepare = transform_prepare,
    .check_peers = transform_check_peers,
    .bind = transform_bind,
    .bind_replays = transform_bind_replays,
    .start = rl_transform_start,
    .stand_in = transform_stand_in,
    .wait = rl_transform_wait,
    .deadline = rl_transform_deadline,
    .memory = transform_memory,
    .hsumma_report = NULL,
    .time = rl_transform_time,
    .timings = rl_transform_timings,
    .choose = transform_choose,
    .replayed = transform_replayed,
    .options = transform_options,
    .free = transform_free,
};
