/* p2p.c — the p2p schedule (schedule.h): every message at once, each by
 * its own transport (transports/: packed and sent, run by run, read by
 * the receiver, or through a shared-memory window).
 *   start: start all receives; start each send, from the first peer above
 *          this rank on, so that no rank is everybody's first target.
 *   wait:  copy the local lattices straight from B to A; take each receive
 *          as its request completes (MPI_Waitany: unpack and transform it,
 *          or read it), or, in a set that combines in a fixed order, each
 *          in message order with the local moves at their place; wait for
 *          the sends; then what each transport's messages still wait for
 *          (direct runs, notices).
 * Binding creates one persistent request per message and, unless every
 * message is packed (a tuned choice, or a memory kind's), lets the
 * transports agree with each message's other end on how it travels.
 * Before the replays are bound (an executor bound on repeat,
 * exec_internal.h) every plan replays p2p, every message staged, each with
 * a nonblocking request of its own: what a one-off call needs. */
#include "p2p.h"
#include "staged.h"
#include "transform_pack.h"
#include "transform_timing.h"
#include "transport.h"

int rl_p2p_start_receives(rl_transform_exec *x)
{
    int rc = MPI_SUCCESS;
    for (int k = 0; k < x->set.recv.n && rc == MPI_SUCCESS; k++) rc = x->recv_via[k]->receive(x, k);
    return rc;
}

int rl_p2p_send(rl_transform_exec *x, int k) { return rl_transport_send(x, k); }

static int start(rl_transform_exec *x)
{
    int rc = rl_p2p_start_receives(x);
    for (int n = 0; n < x->set.send.n && rc == MPI_SUCCESS; n++) rc = rl_p2p_send(x, (x->first_send + n) % x->set.send.n);
    return rc;
}

/* The local moves, then each receive as its request completes. */
static int take_as_landed(rl_transform_exec *x)
{
    int rc = MPI_SUCCESS;
    rl_transform_move_locals_timed(x);
    for (int n = 0; n < x->ntaken && rc == MPI_SUCCESS; n++) {
        int k;
        double t0 = rl_clock(x);
        rc = rl_deadline_waitany(&x->deadline, x->set.recv.n, x->reqs, &k);
        if (rc != MPI_SUCCESS || k == MPI_UNDEFINED) continue;
        rl_time_since(x, RL_WAIT, rl_row_recv(x, k), t0);
        rc = rl_transport_take(x, k);
    }
    return rc;
}

/* A set that combines in a fixed order (message_set.h, an index sum; its
 * messages all staged): each receive waited for and taken in message
 * order, the local moves at their place, whatever order messages land in. */
static int take_in_order(rl_transform_exec *x)
{
    int rc = MPI_SUCCESS;
    for (int k = 0; k <= x->set.recv.n && rc == MPI_SUCCESS; k++) {
        if (k == x->set.locals_before) rl_transform_move_locals_timed(x);
        if (k == x->set.recv.n) break;
        double t0 = rl_clock(x);
        rc = MPI_Wait(&x->reqs[k], MPI_STATUS_IGNORE);
        rl_time_since(x, RL_WAIT, rl_row_recv(x, k), t0);
        if (rc == MPI_SUCCESS) rc = rl_transport_take(x, k);
    }
    return rc;
}

int rl_p2p_wait(rl_transform_exec *x)
{
    const rl_msgset *s = &x->set;
    int rc = s->ordered ? take_in_order(x) : take_as_landed(x);
    double t0 = rl_clock(x);
    if (rc == MPI_SUCCESS && s->send.n) rc = rl_deadline_waitall(&x->deadline, s->send.n, x->reqs + s->recv.n);
    rl_time_since(x, RL_WAIT, rl_row_completion(x), t0);
    return rl_transports_finish(x, rc); /* even after a failure: senders may wait for this rank's notices */
}

relay_status rl_p2p_bind(rl_transform_exec *x, relay_status local)
{
    relay_status st = local ? local : rl_staged_create_requests(x);
    return st || x->packed ? st : rl_transports_agree(x);
}

const rl_schedule rl_schedule_p2p = {
    .name = "p2p",
    .id = RELAY_SCHED_P2P,
    .capped = 0,
    .bind = rl_p2p_bind,
    .start = start,
    .wait = rl_p2p_wait,
};
