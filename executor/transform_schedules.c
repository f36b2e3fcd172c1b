/* transform_schedules.c — replaying a transform: the two halves, start and
 * wait, of each schedule.
 *   p2p:       start: start all receives; pack each message and start its
 *              send (direct messages: one MPI message per run, no
 *              packing; pulled messages: B's addresses instead of its
 *              elements, transform_pull.c; window messages: packed into
 *              the receiver's landing area, then "full", shm/).  wait:
 *              copy the local lattices straight from B to A; MPI_Waitany
 *              and unpack+transform each message as it lands (a pulled
 *              one: read it from the sender's B; a window one: unpack it
 *              from the landing area, then "empty"); wait for the sends,
 *              the "read"s and the "empty"s this rank sent.
 *   rounds:    start: start all receives; pack and start step 0's send.
 *              wait: per step, the local lattices if it is theirs; wait for
 *              its receive and unpack it, wait for its send, pack and start
 *              the next one.
 *   alltoallv, neighbor: start: pack everything, start one collective
 *              call.  wait: local lattices, wait, unpack everything
 *              (transform_collective.c).
 * The requests and the schedule as replayed were settled at bind
 * (transform_exec.c); the moves of elements are transform_pack.c's.
 * Before the replays are bound (an executor bound on repeat, exec_internal.h)
 * a replay is p2p whatever the plan's schedule, every message packed, each
 * with a nonblocking request of its own, and the pack buffers held for that
 * replay alone: what a one-off call needs. */
#include <limits.h>

#include "error.h"
#include "mpi_error.h"
#include "transform_collective.h"
#include "transform_capped.h"
#include "transform_pack.h"
#include "shm.h"
#include "transform_pull.h"
#include "transform_schedules.h"
#include "transform_timing.h"

/* ---- staged messages ------------------------------------------------- */

int rl_transform_post_staged(rl_transform_exec *x, int k, int persistent)
{
    const rl_section *s = x->sec;
    int receiving = k < s->nrecv, m = receiving ? k : k - s->nrecv, count;
    const rl_message *msg = receiving ? &s->recv[m] : &s->send[m];
    const rl_message_set *set = receiving ? &x->recvs : &x->sends;
    char *buf = set->buf + set->byte_off[m];
    MPI_Datatype type;
    rl_wire_shape(x, msg->elems, &count, &type);
    int peer = (int)msg->peer;
    if (receiving)
        return persistent ? MPI_Recv_init(buf, count, type, peer, TAG_STAGED, x->comm, &x->reqs[k])
                          : MPI_Irecv(buf, count, type, peer, TAG_STAGED, x->comm, &x->reqs[k]);
    return persistent ? MPI_Send_init(buf, count, type, peer, TAG_STAGED, x->comm, &x->reqs[k])
                      : MPI_Isend(buf, count, type, peer, TAG_STAGED, x->comm, &x->reqs[k]);
}

/* Staged message k (as rl_transform_post_staged numbers them) on its way. */
static int start_staged(rl_transform_exec *x, int k)
{
    return x->bound ? MPI_Start(&x->reqs[k]) : rl_transform_post_staged(x, k, 0);
}

/* ---- p2p -------------------------------------------------------------- */

/* One MPI message per run of the lattices of direct message k
 * (transform_exec.c): from B (sending), or into A or its place in the
 * receive buffer (receiving).  *req advances. */
static int post_direct(rl_transform_exec *x, int k, int sending, MPI_Request **req)
{
    const rl_section *s = x->sec;
    const rl_message *m = sending ? &s->send[k] : &s->recv[k];
    const rl_span *spans = sending ? s->send_spans : s->recv_spans;
    const rl_direct_runs *runs = sending ? x->send_runs : x->recv_runs;
    char *staged = !sending && x->recvs.buf ? x->recvs.buf + x->recvs.byte_off[k] : NULL; /* k is a send's index when sending */
    int rc = MPI_SUCCESS;
    int64_t n = 0;
    for (int64_t i = m->first; i < m->first + m->count; i++) {
        const rl_span *sp = &spans[i];
        char *base = sending ? (char *)x->src[sp->pair] : x->direct_into_a ? x->dst[sp->pair] : NULL;
        for (int64_t q = 0; q < runs[i].count && rc == MPI_SUCCESS; q++, n++) {
            int tag = TAG_RUN_BASE + (int)(n % TAG_RUNS), bytes = (int)runs[i].bytes, peer = (int)m->peer;
            char *at = base ? rl_elem_at(base, sp->off + q * runs[i].stride, x->esz) : staged;
            rc = sending ? MPI_Isend(at, bytes, MPI_BYTE, peer, tag, x->comm, (*req)++)
                         : MPI_Irecv(at, bytes, MPI_BYTE, peer, tag, x->comm, (*req)++);
            if (!base) staged += bytes;
        }
    }
    return rc;
}

static int start_p2p(rl_transform_exec *x)
{
    const rl_section *s = x->sec;
    MPI_Request *direct = x->direct_reqs;
    int rc = MPI_SUCCESS;
    x->direct_into_a = x->scalars.alpha_one && x->scalars.beta_zero;
    for (int k = 0; k < s->nrecv && rc == MPI_SUCCESS; k++)
        rc = x->recv_direct[k] ? post_direct(x, k, 0, &direct) : start_staged(x, k);
    for (int n = 0; n < s->nsend && rc == MPI_SUCCESS; n++) {
        int k = (x->first_send + n) % s->nsend;
        if (x->send_direct[k]) {
            rc = post_direct(x, k, 1, &direct);
            continue;
        }
        double t0 = rl_clock(x);
        if (x->send_pulled && x->send_pulled[k]) {
            rc = rl_transform_offer(x, k);
            rl_time_since(x, RL_PACK, rl_row_send(x, k), t0);
            continue;
        }
        if (x->shm.send_on && x->shm.send_on[k]) {
            rc = rl_shm_send(x, k);
            rl_time_since(x, RL_PACK, rl_row_send(x, k), t0);
            continue;
        }
        rl_transform_pack(x, k);
        rl_time_since(x, RL_PACK, rl_row_send(x, k), t0);
        rc = start_staged(x, s->nrecv + k);
    }
    return rc;
}

/* A staged receive landed: its elements, or where to read them. */
static int take_staged(rl_transform_exec *x, int k)
{
    double t0 = rl_clock(x);
    int rc = MPI_SUCCESS;
    if (x->recv_pulled && x->recv_pulled[k]) rc = rl_transform_pull(x, k);
    else if (x->shm.recv_on && x->shm.recv_on[k]) rc = rl_shm_take(x, k);
    else rl_transform_unpack(x, k);
    rl_time_since(x, RL_UNPACK, rl_row_recv(x, k), t0);
    return rc;
}

/* Unpacks receive k (staged or direct), timed. */
static void unpack_timed(rl_transform_exec *x, int k)
{
    double t0 = rl_clock(x);
    rl_transform_unpack(x, k);
    rl_time_since(x, RL_UNPACK, rl_row_recv(x, k), t0);
}

/* Waits for requests no single received message accounts for, timed. */
static int wait_all_timed(rl_transform_exec *x, int64_t n, MPI_Request *reqs)
{
    double t0 = rl_clock(x);
    int rc = n ? MPI_Waitall((int)n, reqs, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
    rl_time_since(x, RL_WAIT, rl_row_completion(x), t0);
    return rc;
}

static int wait_p2p(rl_transform_exec *x)
{
    const rl_section *s = x->sec;
    int rc = MPI_SUCCESS;
    for (int n = 0; n < x->nstaged_recv && rc == MPI_SUCCESS; n++) {
        int k;
        double t0 = rl_clock(x);
        rc = MPI_Waitany(s->nrecv, x->reqs, &k, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || k == MPI_UNDEFINED) continue;
        rl_time_since(x, RL_WAIT, rl_row_recv(x, k), t0);
        rc = take_staged(x, k);
    }
    if (rc == MPI_SUCCESS) rc = wait_all_timed(x, x->ndirect_recv_runs, x->direct_reqs);
    for (int k = 0; k < s->nrecv && rc == MPI_SUCCESS && !x->direct_into_a; k++)
        if (x->recv_direct[k]) unpack_timed(x, k);
    if (rc == MPI_SUCCESS) rc = wait_all_timed(x, s->nsend, x->reqs + s->nrecv);
    if (rc == MPI_SUCCESS)
        rc = wait_all_timed(x, x->ndirect_runs - x->ndirect_recv_runs, x->direct_reqs + x->ndirect_recv_runs);
    int released = rl_shm_settles(x) ? rl_shm_done(x) : MPI_SUCCESS; /* even after a failure: the senders wait for "empty" */
    return rc == MPI_SUCCESS ? released : rc;
}

/* ---- rounds ----------------------------------------------------------- */

static int start_step_send(rl_transform_exec *x, int32_t step)
{
    if (step >= x->rounds || x->send_at[step] < 0) return MPI_SUCCESS;
    double t0 = rl_clock(x);
    rl_transform_pack(x, x->send_at[step]);
    rl_time_since(x, RL_PACK, rl_row_send(x, x->send_at[step]), t0);
    return MPI_Start(&x->reqs[x->sec->nrecv + x->send_at[step]]);
}

/* Receives are all posted up front, so a step's send never waits for its
 * receiver to arrive at that step; the pacing comes from each rank waiting
 * for its own step's receive before it starts the next send. */
static int start_rounds(rl_transform_exec *x)
{
    int rc = x->sec->nrecv ? MPI_Startall(x->sec->nrecv, x->reqs) : MPI_SUCCESS;
    return rc == MPI_SUCCESS ? start_step_send(x, 0) : rc;
}

static int wait_rounds(rl_transform_exec *x)
{
    int rc = MPI_SUCCESS;
    for (int32_t r = 0; r < x->rounds && rc == MPI_SUCCESS; r++) {
        if (r == x->sec->local_round) rl_transform_move_locals_timed(x);
        if (x->recv_at[r] >= 0) {
            double t0 = rl_clock(x);
            rc = MPI_Wait(&x->reqs[x->recv_at[r]], MPI_STATUS_IGNORE);
            rl_time_since(x, RL_WAIT, rl_row_recv(x, x->recv_at[r]), t0);
            if (rc == MPI_SUCCESS) unpack_timed(x, x->recv_at[r]);
        }
        if (rc == MPI_SUCCESS && x->send_at[r] >= 0) {
            double t0 = rl_clock(x);
            rc = MPI_Wait(&x->reqs[x->sec->nrecv + x->send_at[r]], MPI_STATUS_IGNORE);
            rl_time_since(x, RL_WAIT, rl_row_completion(x), t0);
        }
        if (rc == MPI_SUCCESS) rc = start_step_send(x, r + 1);
    }
    return rc;
}

/* ---- the replay ------------------------------------------------------- */

/* A one-off replay (not bound) is p2p, but under a memory cap, whose
 * chunks need no binding. */
static relay_schedule replayed_schedule(const rl_transform_exec *x)
{
    return x->capped.cap ? RELAY_SCHED_ROUNDS : x->bound ? x->schedule : RELAY_SCHED_P2P;
}

static relay_status check_buffers(const rl_transform_exec *x, void *const *dst, const void *const *src)
{
    for (int k = 0; k < x->count; k++) {
        if (x->sec->dst_elems[k] > 0 && !dst[k])
            return rl_fail(RELAY_ERR_ARG, "relay_exec_start: dst[%d] is NULL but rank %d holds %lld elements of it",
                           k, x->rank, (long long)x->sec->dst_elems[k]);
        if (x->sec->src_elems[k] > 0 && !src[k])
            return rl_fail(RELAY_ERR_ARG, "relay_exec_start: src[%d] is NULL but rank %d holds %lld elements of it",
                           k, x->rank, (long long)x->sec->src_elems[k]);
    }
    return RELAY_OK;
}

/* A host executor's buffers must not be a device kind's (which a host
 * kernel cannot read): refused before anything starts. */
static relay_status host_buffers(const rl_transform_exec *x, void *const *dst, const void *const *src)
{
    const rl_device_kind *cuda = rl_device_kind_of(RELAY_MEMORY_CUDA);
    int which = -1, in_dst = 1;
    relay_status st = cuda ? cuda->finds_own((const void *const *)dst, x->count, &which) : RELAY_OK;
    if (!st && which < 0 && cuda) {
        in_dst = 0;
        st = cuda->finds_own(src, x->count, &which);
    }
    if (st || which < 0) return st;
    return rl_fail(RELAY_ERR_ARG, "relay_exec_start: %s[%d] is CUDA device memory, but the executor was bound to host memory "
                                  "(bind with relay_exec_create_with and RELAY_MEMORY_CUDA)",
                   in_dst ? "dst" : "src", which);
}

relay_status rl_transform_start(void *state, void *const *dst, const void *const *src, const void *alpha, const void *beta)
{
    rl_transform_exec *x = state;
    relay_status st = check_buffers(x, dst, src);
    if (st) return st;
    for (int k = 0; k < x->count; k++) {
        x->dst[k] = dst[k];
        x->src[k] = src[k];
    }
    rl_scalars_set(&x->scalars, x->type, alpha, beta);
    st = x->device ? x->device->begin(x->device_state, x) : host_buffers(x, dst, src);
    if (st) return st;
    st = x->bound ? RELAY_OK : rl_transform_hold_buffers(x); /* a one-off replay's, till its wait */
    if (st) return st;
    relay_schedule sched = replayed_schedule(x);
    int rc = x->capped.cap                   ? MPI_SUCCESS /* everything happens step by step in the wait */
             : rl_schedule_is_collective(sched) ? rl_collective_start(x)
             : sched == RELAY_SCHED_ROUNDS      ? start_rounds(x)
                                                : start_p2p(x);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "starting the replay");
}

relay_status rl_transform_wait(void *state)
{
    rl_transform_exec *x = state;
    relay_schedule sched = replayed_schedule(x);
    if (sched != RELAY_SCHED_ROUNDS) rl_transform_move_locals_timed(x); /* rounds copy in their own step */
    int rc = x->capped.cap                   ? rl_capped_replay(x)
             : rl_schedule_is_collective(sched) ? rl_collective_wait(x)
             : sched == RELAY_SCHED_ROUNDS      ? wait_rounds(x)
                                                : wait_p2p(x);
    relay_status device = x->device ? x->device->end(x->device_state, x) : RELAY_OK;
    double t0 = rl_clock(x);
    relay_status pulled = sched == RELAY_SCHED_P2P && x->npulled ? rl_transform_pulls_done(x, rc == MPI_SUCCESS) : RELAY_OK;
    rl_time_since(x, RL_WAIT, rl_row_completion(x), t0);
    if (rc == MPI_SUCCESS && pulled == RELAY_OK) rl_timing_replayed(x);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "completing the replay");
    if (!x->bound) rl_transform_drop_buffers(x);
    return device ? device : pulled;
}
