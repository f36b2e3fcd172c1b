/* transform_replay.c — a transform replay's two halves, as the kind table
 * rl_exec_transform calls them: start checks the buffers, takes them and
 * the scalars and starts the schedule bound (schedules/: the plan's or a
 * tuned choice, settled at bind, transform_exec.c); wait completes it.
 * Before the replays are bound (an executor bound on repeat,
 * exec_internal.h) a replay is p2p whatever the plan's schedule (but under
 * a memory cap, whose chunks need no binding), every message packed, and
 * the pack buffers held for that replay alone: what a one-off call needs.
 * On a memory kind other than the host's (device_kind.h) the kind's begin
 * and end frame the schedule's halves.  Each replay is numbered (its
 * messages' control words carry the number, transform_control.h) and,
 * with a deadline, its waits poll up to it (deadline.h); a replay past it
 * is abandoned, and freeing the executor then waits for no peer. */
#include "error.h"
#include "mpi_error.h"
#include "schedule.h"
#include "transform_control.h"
#include "transform_pack.h"
#include "transform_replay.h"
#include "transform_timing.h"
#include "transport.h"

/* The schedule a replay runs: the one bound, or before that one-off p2p
 * (a capped plan's chunks need no binding). */
static const rl_schedule *replayed_schedule(const rl_transform_exec *x)
{
    return x->bound || x->capped.cap ? x->sched : &rl_schedule_p2p;
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
    x->replay++;
    rl_deadline_arm(&x->deadline);
    int rc = replayed_schedule(x)->start(x);
    if (x->deadline.expired) return rl_control_timed_out(x); /* a window sender waited for its receiver */
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "starting the replay");
}

relay_status rl_transform_wait(void *state)
{
    rl_transform_exec *x = state;
    int rc = replayed_schedule(x)->wait(x);
    if (x->deadline.expired) return rl_control_timed_out(x);
    relay_status device = x->device ? x->device->end(x->device_state, x) : RELAY_OK;
    relay_status reported = rc == MPI_SUCCESS ? rl_transports_report(x) : RELAY_OK;
    if (rc == MPI_SUCCESS && reported == RELAY_OK) rl_timing_replayed(x);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "completing the replay");
    if (!x->bound) rl_transform_drop_buffers(x);
    if (device || reported) return device ? device : reported;
    return rl_control_verdict(x);
}

void rl_transform_deadline(void *state, double seconds) { ((rl_transform_exec *)state)->deadline.seconds = seconds; }

static void abandon_all(MPI_Request *reqs, int64_t n)
{
    for (int64_t k = 0; reqs && k < n; k++) rl_deadline_abandon(&reqs[k]);
}

/* A buffer MPI may still use, kept (NULL where there is none). */
static void keep(void *buf)
{
    if (buf) rl_deadline_keep(buf);
}

void rl_transform_abandon(rl_transform_exec *x)
{
    int n = x->set.recv.n + x->set.send.n;
    abandon_all(x->reqs, n);
    abandon_all(x->direct_reqs, x->ndirect_runs);
    abandon_all(x->pull_done.req, n);
    abandon_all(x->shm.empty.req, n);
    x->coll.req = MPI_REQUEST_NULL; /* a collective cannot be cancelled: left to MPI */
    if (!x->buffers_lent) {
        keep(x->set.send.buf);
        keep(x->set.recv.buf);
        x->set.send.buf = x->set.recv.buf = NULL;
    }
    rl_msg_side *chunks[2] = {x->capped.sends.chunks, x->capped.recvs.chunks};
    for (int i = 0; i < 2; i++)
        if (chunks[i] && chunks[i]->buf != x->shm.area) {
            keep(chunks[i]->buf);
            chunks[i]->buf = NULL;
        }
    x->shm.win = MPI_WIN_NULL; /* freeing it waits for the node's ranks: left to MPI, locked */
    x->shm.locked = 0;
    keep(x->direct_words);
    keep(x->pull_from);
    keep(x->pull_mine);
    x->direct_words = NULL;
    x->pull_from = x->pull_mine = NULL;
}
