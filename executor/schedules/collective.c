/* collective.c — the schedules that replay as one collective call
 * (schedule.h): pack every message, one MPI call moves them all, unpack
 * every message.
 *   alltoallv  MPI_Alltoallv on the executor's communicator: counts for
 *              every rank, zero for those it does not talk to.
 *   neighbor   MPI_Neighbor_alltoallv on a distributed graph communicator
 *              whose edges are the plan's messages, weighted by their
 *              bytes (MPI_Dist_graph_create_adjacent, ranks kept): counts
 *              only for the peers
 *              this rank talks to, so the call's cost follows the
 *              messages, not the communicator's size.  PETSc's
 *              PETSCSFNEIGHBOR is the model.
 * With MPI-4 both are persistent collectives created once at bind
 * (MPI_Alltoallv_init, MPI_Neighbor_alltoallv_init); before MPI-4 each
 * replay starts the nonblocking call.  Counts are ints, so pack buffers
 * of 2 GiB or more make every rank replay p2p instead. */
#include <limits.h>

#include "agree.h"
#include "error.h"
#include "mpi_error.h"
#include "collective.h"
#include "p2p.h"
#include "transform_control.h"
#include "transform_pack.h"
#include "transform_timing.h"

/* ---- counts ------------------------------------------------------------- */

/* Slot of message k: its peer (alltoallv) or its place among the peers. */
static int slot_of(const rl_transform_exec *x, const rl_msg *msg, int k)
{
    return x->schedule == RELAY_SCHED_NEIGHBOR ? k : msg[k].peer;
}

static void fill_side(const rl_transform_exec *x, int *counts, int *displs, int *peers, const rl_msg_side *side)
{
    for (int k = 0; k < side->n; k++) {
        int at = slot_of(x, side->msg, k);
        counts[at] = (int)(side->msg[k].elems * (int64_t)x->esz + x->set.control);
        displs[at] = (int)side->byte_off[k];
        if (peers) peers[k] = side->msg[k].peer;
    }
}

/* The byte counts and displacements (made when the replays are bound,
 * once the schedule is chosen), which are ints: when a pack buffer
 * reaches 2 GiB they cannot describe it and nothing is made (settle then
 * replays p2p). */
static relay_status prepare(rl_transform_exec *x)
{
    rl_collective *c = &x->coll;
    const rl_msgset *s = &x->set;
    if (rl_msg_side_bytes(&s->send) > INT_MAX || rl_msg_side_bytes(&s->recv) > INT_MAX) return RELAY_OK;
    int neighbor = x->schedule == RELAY_SCHED_NEIGHBOR;
    int64_t sends = neighbor ? s->send.n : x->nranks, recvs = neighbor ? s->recv.n : x->nranks;
    c->ints = 2 * (sends + recvs) + (neighbor ? sends + recvs : 0);
    c->send_counts = rl_calloc((size_t)c->ints, sizeof *c->send_counts);
    if (!c->send_counts) return RL_NOMEM();
    c->send_displs = c->send_counts + sends;
    c->recv_counts = c->send_displs + sends;
    c->recv_displs = c->recv_counts + recvs;
    if (neighbor) {
        c->destinations = c->recv_displs + recvs;
        c->sources = c->destinations + sends;
    }
    fill_side(x, c->send_counts, c->send_displs, c->destinations, &s->send);
    fill_side(x, c->recv_counts, c->recv_displs, c->sources, &s->recv);
    return RELAY_OK;
}

/* ---- binding -------------------------------------------------------------- */

/* The counts, once every rank replays p2p. */
static void drop_counts(rl_collective *c)
{
    free(c->send_counts);
    *c = (rl_collective){.graph = c->graph, .req = c->req};
}

/* Every rank replays the collective only if every rank can describe its
 * buffers; the schedule chosen is the same on every rank (exec.c agreed
 * on the plan, its tuning and the job's shape), so either all ranks take
 * part here or none.  The same reduction agrees on `local`, what binding
 * did before. */
static relay_status settle(rl_transform_exec *x, relay_status local)
{
    uint64_t cannot = !x->coll.send_counts;
    relay_status st = rl_agree_values(x->comm, local, &cannot, 1, "binding the replays");
    if (!st && cannot) {
        x->schedule = RELAY_SCHED_P2P;
        x->sched = &rl_schedule_p2p;
        drop_counts(&x->coll);
    }
    return st;
}

/* The graph of this rank's messages: edges in from the ranks it receives
 * from, out to those it sends to, each weighted by its bytes, ranks as in
 * x->comm (no reordering: the plan names them). */
static relay_status create_graph(rl_transform_exec *x)
{
    const rl_collective *c = &x->coll;
    int rc = MPI_Dist_graph_create_adjacent(x->comm, x->set.recv.n, c->sources, c->recv_counts, x->set.send.n, c->destinations,
                                            c->send_counts, MPI_INFO_NULL, 0, &x->coll.graph);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(x->coll.graph, MPI_ERRORS_RETURN);
    return rl_agree(x->comm, rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "MPI_Dist_graph_create_adjacent"),
                    "creating the message graph");
}

#if MPI_VERSION >= 4
static relay_status create_persistent(rl_transform_exec *x)
{
    const rl_collective *c = &x->coll;
    void *sb = rl_msg_side_buf(&x->set.send), *rb = rl_msg_side_buf(&x->set.recv);
    int rc = x->schedule == RELAY_SCHED_NEIGHBOR
                 ? MPI_Neighbor_alltoallv_init(sb, c->send_counts, c->send_displs, MPI_BYTE, rb, c->recv_counts, c->recv_displs,
                                               MPI_BYTE, c->graph, MPI_INFO_NULL, &x->coll.req)
                 : MPI_Alltoallv_init(sb, c->send_counts, c->send_displs, MPI_BYTE, rb, c->recv_counts, c->recv_displs, MPI_BYTE,
                                      x->comm, MPI_INFO_NULL, &x->coll.req);
    return rl_agree(x->comm, rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "creating the persistent collective"),
                    "creating the persistent collective");
}
#endif

/* Every rank agrees on `local` (how binding went so far here) and on
 * whether all can replay the collective (else all replay p2p, bound as
 * p2p binds), then the neighbourhood schedule creates its graph
 * communicator, and with MPI-4 the persistent collective is created; each
 * step agreed. */
static relay_status bind(rl_transform_exec *x, relay_status local)
{
    relay_status st = settle(x, local ? local : prepare(x));
    if (!st && x->sched == &rl_schedule_p2p) return rl_p2p_bind(x, st);
    if (!st && x->schedule == RELAY_SCHED_NEIGHBOR) st = create_graph(x);
#if MPI_VERSION >= 4
    if (!st) st = create_persistent(x);
#endif
    return st;
}

/* ---- a replay --------------------------------------------------------------- */

/* Before MPI-4: the nonblocking call, started anew each replay. */
static int start_call(rl_transform_exec *x)
{
#if MPI_VERSION >= 4
    return MPI_Start(&x->coll.req);
#else
    const rl_collective *c = &x->coll;
    void *sb = rl_msg_side_buf(&x->set.send), *rb = rl_msg_side_buf(&x->set.recv);
    if (x->schedule == RELAY_SCHED_NEIGHBOR)
        return MPI_Ineighbor_alltoallv(sb, c->send_counts, c->send_displs, MPI_BYTE, rb, c->recv_counts, c->recv_displs, MPI_BYTE,
                                       c->graph, &x->coll.req);
    return MPI_Ialltoallv(sb, c->send_counts, c->send_displs, MPI_BYTE, rb, c->recv_counts, c->recv_displs, MPI_BYTE, x->comm,
                          &x->coll.req);
#endif
}

static int start(rl_transform_exec *x)
{
    for (int k = 0; k < x->set.send.n; k++) {
        double t0 = rl_clock(x);
        rl_transform_pack(x, k);
        rl_control_put(x, rl_msg_at(&x->set.send, k));
        rl_time_since(x, RL_PACK, rl_row_send(x, k), t0);
    }
    return start_call(x);
}

/* The receives unpacked in message order, the local moves first or, in a
 * set that combines in a fixed order (an index sum), at their place. */
static int wait(rl_transform_exec *x)
{
    const rl_msgset *s = &x->set;
    if (!s->ordered) rl_transform_move_locals_timed(x);
    double t0 = rl_clock(x);
    int rc = rl_deadline_wait(&x->deadline, &x->coll.req);
    rl_time_since(x, RL_WAIT, rl_row_completion(x), t0);
    for (int k = 0; k <= s->recv.n && rc == MPI_SUCCESS; k++) {
        if (s->ordered && k == s->locals_before) rl_transform_move_locals_timed(x);
        if (k == s->recv.n) continue;
        rl_control_take(x, k, rl_msg_at(&s->recv, k));
        rl_transform_unpack_timed(x, k);
    }
    return rc;
}

const rl_schedule rl_schedule_alltoallv = {
    .name = "alltoallv",
    .id = RELAY_SCHED_ALLTOALLV,
    .capped = 0,
    .bind = bind,
    .start = start,
    .wait = wait,
};

const rl_schedule rl_schedule_neighbor = {
    .name = "neighbor",
    .id = RELAY_SCHED_NEIGHBOR,
    .capped = 0,
    .bind = bind,
    .start = start,
    .wait = wait,
};

/* ---- memory ----------------------------------------------------------------- */

int64_t rl_collective_bytes(const rl_transform_exec *x) { return x->coll.ints * (int64_t)sizeof(int); }

void rl_collective_free(rl_transform_exec *x)
{
    if (x->coll.req != MPI_REQUEST_NULL) MPI_Request_free(&x->coll.req);
    if (x->coll.graph != MPI_COMM_NULL) MPI_Comm_free(&x->coll.graph);
    free(x->coll.send_counts);
}
