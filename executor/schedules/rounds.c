/* rounds.c — the rounds schedule (schedule.h): the plan's contention-free
 * steps, each rank sending at most one message and receiving at most one
 * per step (the planner's edge colouring, docs/design.md), every message
 * staged (binding agrees on no other transport here).
 *   start: start all receives; pack and start step 0's send.
 *   wait:  per step, the local lattices if it is theirs; wait for its
 *          receive and unpack it, wait for its send, pack and start the
 *          next one.
 * Receives are all posted up front, so a step's send never waits for its
 * receiver to arrive at that step; the pacing comes from each rank waiting
 * for its own step's receive before it starts the next send. */
#include "schedule.h"
#include "staged.h"
#include "transform_pack.h"
#include "transform_timing.h"
#include "transport.h"

static int start_step_send(rl_transform_exec *x, int32_t step)
{
    return step >= x->rounds || x->send_at[step] < 0 ? MPI_SUCCESS : rl_transport_send(x, x->send_at[step]);
}

static int start(rl_transform_exec *x)
{
    int rc = MPI_SUCCESS;
    for (int k = 0; k < x->set.recv.n && rc == MPI_SUCCESS; k++) rc = x->recv_via[k]->receive(x, k);
    return rc == MPI_SUCCESS ? start_step_send(x, 0) : rc;
}

static int wait(rl_transform_exec *x)
{
    int rc = MPI_SUCCESS;
    for (int32_t r = 0; r < x->rounds && rc == MPI_SUCCESS; r++) {
        if (r == x->set.local_step) rl_transform_move_locals_timed(x);
        if (x->recv_at[r] >= 0) {
            double t0 = rl_clock(x);
            rc = rl_deadline_wait(&x->deadline, &x->reqs[x->recv_at[r]]);
            rl_time_since(x, RL_WAIT, rl_row_recv(x, x->recv_at[r]), t0);
            if (rc == MPI_SUCCESS) rc = rl_transport_take(x, x->recv_at[r]);
        }
        if (rc == MPI_SUCCESS && x->send_at[r] >= 0) {
            double t0 = rl_clock(x);
            rc = rl_deadline_wait(&x->deadline, &x->reqs[x->set.recv.n + x->send_at[r]]);
            rl_time_since(x, RL_WAIT, rl_row_completion(x), t0);
        }
        if (rc == MPI_SUCCESS) rc = start_step_send(x, r + 1);
    }
    return rc;
}

static relay_status bind(rl_transform_exec *x, relay_status local)
{
    return local ? local : rl_staged_create_requests(x);
}

const rl_schedule rl_schedule_rounds = {
    .name = "rounds",
    .id = RELAY_SCHED_ROUNDS,
    .capped = 0,
    .bind = bind,
    .start = start,
    .wait = wait,
};
