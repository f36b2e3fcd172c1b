/* p2p.c — the p2p schedule (schedule.h): every message at once.
 *   start: start all receives; pack each message and start its send
 *          (direct messages: one MPI message per run, no packing; pulled
 *          messages: B's addresses instead of its elements,
 *          transform_pull.c; window messages: packed into the receiver's
 *          landing area, then "full", shm/), the sends from the first peer
 *          above this rank on, so no rank is everybody's first target.
 *   wait:  copy the local lattices straight from B to A; MPI_Waitany and
 *          unpack+transform each message as it lands (a pulled one: read
 *          it from the sender's B; a window one: unpack it from the landing
 *          area, then "empty"); wait for the sends, the "read"s and the
 *          "empty"s this rank sent.
 * Binding creates one persistent request per message and, unless every
 * message is packed (a tuned choice), agrees with each peer on the
 * messages that travel direct, pulled or through the window.  Before the
 * replays are bound (an executor bound on repeat, exec_internal.h) every
 * plan replays p2p, every message packed, each with a nonblocking request
 * of its own: what a one-off call needs. */
#include "p2p.h"
#include "shm.h"
#include "staged.h"
#include "transform_bind.h"
#include "transform_pack.h"
#include "transform_pull.h"
#include "transform_timing.h"

/* One MPI message per run of the lattices of direct message k
 * (transform_bind.c): from B (sending), or into A or its place in the
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

int rl_p2p_start_receives(rl_transform_exec *x, MPI_Request **direct)
{
    int rc = MPI_SUCCESS;
    *direct = x->direct_reqs;
    x->direct_into_a = x->scalars.alpha_one && x->scalars.beta_zero;
    for (int k = 0; k < x->sec->nrecv && rc == MPI_SUCCESS; k++)
        rc = x->recv_direct[k] ? post_direct(x, k, 0, direct) : rl_staged_start(x, k);
    return rc;
}

int rl_p2p_send(rl_transform_exec *x, int k, MPI_Request **direct)
{
    if (x->send_direct[k]) return post_direct(x, k, 1, direct);
    double t0 = rl_clock(x);
    int rc;
    if (x->send_pulled && x->send_pulled[k]) {
        rc = rl_transform_offer(x, k);
    } else if (x->shm.send_on && x->shm.send_on[k]) {
        rc = rl_shm_send(x, k);
    } else {
        rl_transform_pack(x, k);
        rl_time_since(x, RL_PACK, rl_row_send(x, k), t0);
        return rl_staged_start(x, x->sec->nrecv + k);
    }
    rl_time_since(x, RL_PACK, rl_row_send(x, k), t0);
    return rc;
}

static int start(rl_transform_exec *x)
{
    MPI_Request *direct;
    int rc = rl_p2p_start_receives(x, &direct);
    for (int n = 0; n < x->sec->nsend && rc == MPI_SUCCESS; n++) rc = rl_p2p_send(x, (x->first_send + n) % x->sec->nsend, &direct);
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

/* Waits for requests no single received message accounts for, timed. */
static int wait_all_timed(rl_transform_exec *x, int64_t n, MPI_Request *reqs)
{
    double t0 = rl_clock(x);
    int rc = n ? MPI_Waitall((int)n, reqs, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
    rl_time_since(x, RL_WAIT, rl_row_completion(x), t0);
    return rc;
}

int rl_p2p_wait(rl_transform_exec *x)
{
    const rl_section *s = x->sec;
    int rc = MPI_SUCCESS;
    rl_transform_move_locals_timed(x);
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
        if (x->recv_direct[k]) rl_transform_unpack_timed(x, k);
    if (rc == MPI_SUCCESS) rc = wait_all_timed(x, s->nsend, x->reqs + s->nrecv);
    if (rc == MPI_SUCCESS)
        rc = wait_all_timed(x, x->ndirect_runs - x->ndirect_recv_runs, x->direct_reqs + x->ndirect_recv_runs);
    int released = rl_shm_settles(x) ? rl_shm_done(x) : MPI_SUCCESS; /* even after a failure: the senders wait for "empty" */
    return rc == MPI_SUCCESS ? released : rc;
}

/* Unless every message is packed, each message's two ends agree on how it
 * travels: direct, pulled, through the window, else staged. */
relay_status rl_p2p_bind(rl_transform_exec *x, relay_status local)
{
    relay_status st = local ? local : rl_staged_create_requests(x);
    if (x->packed) return st;
    if (!st) st = rl_transform_agree_direct(x);
    if (!st) st = rl_transform_agree_pulls(x);
    if (!st) st = rl_shm_bind(x);
    if (!st && (x->npulled || x->shm.n)) rl_transform_release_pack_buffers(x);
    return st;
}

const rl_schedule rl_schedule_p2p = {
    .name = "p2p",
    .id = RELAY_SCHED_P2P,
    .capped = 0,
    .bind = rl_p2p_bind,
    .start = start,
    .wait = rl_p2p_wait,
};
