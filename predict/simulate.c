/* simulate.c — the simulated replay.  Each rank is an actor on its node's
 * host that does what the executor does, in its schedule's order:
 *
 *   p2p        pack every send; post every receive and send at once; copy
 *              locally; unpack each message as it lands; wait for the sends;
 *   rounds     the same, one step of the plan after another (a rank skips
 *              steps it has nothing in), local copies in their own step;
 *   alltoallv  one collective: pack everything, every rank enters it
 *              (a barrier), the messages move at once, every rank leaves it
 *              (a barrier), then unpack everything;
 *   neighbor   a neighbourhood collective: like alltoallv without the
 *              barriers, each rank unpacking once its own messages landed.
 *
 * Packing, unpacking and copying take bytes / memory_bandwidth plus
 * piece_seconds per piece, and each message sent message_seconds more with
 * its packing (sleeps: ranks of a node do not share memory bandwidth).  A message is a SimGrid communication of its bytes from the
 * sender's host to the receiver's, on a mailbox of the receiver and the
 * step, so that messages of different steps never match; SimGrid moves
 * it as a flow over the platform's links with its latency, bandwidth and
 * contention. */
#include <stdio.h>
#include <stdlib.h>

#include <simgrid/actor.h>
#include <simgrid/barrier.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/mailbox.h>

#include "engine.h"
#include "replay_steps.h"
#include "simulate.h"

typedef struct {
    const relay_plan *plan;
    const machine *m;
    relay_schedule schedule;
    replay_sends sends;          /* every rank's */
    sg_bar_t barrier;            /* alltoallv's entry and exit */
    double *rank_seconds;
    relay_prediction *out;
} simulation;

/* An actor's data: its rank and the simulation. */
typedef struct {
    simulation *sim;
    int rank;
} rank_actor;

/* ---- the slowest messages ------------------------------------------------ */

static void record_message(simulation *sim, const sent_message *msg, double seconds)
{
    record_predicted(sim->out, msg->from, msg->to, msg->bytes, seconds);
}

/* ---- one step of one rank ------------------------------------------------ */

static sg_mailbox_t inbox(int rank, int64_t step)
{
    char name[48];
    snprintf(name, sizeof name, "%d:%lld", rank, (long long)step);
    return sg_mailbox_by_name(name);
}

/* Scratch of one rank for its largest step. */
typedef struct {
    sg_comm_t *send_comms, *recv_comms;
    void **landed;               /* where each receive's payload lands */
    int *slot;                   /* recv_comms[k] lands in landed[slot[k]] */
    const sent_message **ready;  /* landed and taken, not yet unpacked */
} step_scratch;

/* Posts the receives, then the sends, of a step. */
static void post_step(simulation *sim, int rank, const rank_step *st, step_scratch *x)
{
    sg_mailbox_t mine = inbox(rank, st->step);
    for (int k = 0; k < st->nrecvs; k++) {
        x->slot[k] = k;
        x->recv_comms[k] = sg_mailbox_get_async(mine, &x->landed[k]);
    }
    sent_message *sent = sim->sends.sent + sim->sends.first[rank];
    for (int k = 0; k < st->nsends; k++) {
        sent_message *msg = &sent[st->sends[k]];
        msg->posted = simgrid_get_clock();
        x->send_comms[k] = sg_mailbox_put_async(inbox(msg->to, st->step), msg, (long)msg->bytes);
    }
}

/* Takes the message of pending receive k, landed now: its time is
 * recorded and the receive leaves the pending ones (the last moves into
 * its place).  Returns the message. */
static const sent_message *take_landed(simulation *sim, int k, int *pending, step_scratch *x)
{
    const sent_message *msg = x->landed[x->slot[k]];
    record_message(sim, msg, simgrid_get_clock() - msg->posted);
    --*pending;
    x->recv_comms[k] = x->recv_comms[*pending];
    x->slot[k] = x->slot[*pending];
    return msg;
}

/* Waits for the step's messages as they land, unpacking each at once or
 * returning the time unpacking them all takes.  Unpacking at once, when
 * one lands, those that landed with it are taken too (sg_comm_test),
 * before any is unpacked; one
 * that lands while its receiver unpacks is taken when the unpack ends: its
 * time counts to then.  (The C API's sg_comm_wait_any_for, which could
 * wait during the unpack, releases every pending receive on a timeout.) */
static double land_messages(simulation *sim, const rank_step *st, int unpack_on_arrival, step_scratch *x)
{
    double unpack = 0;
    int pending = st->nrecvs, nlanded = 0;
    while (pending > 0) {
        x->ready[nlanded++] = take_landed(sim, (int)sg_comm_wait_any(x->recv_comms, (size_t)pending), &pending, x);
        for (int k = pending - 1; k >= 0 && unpack_on_arrival; k--)
            if (sg_comm_test(x->recv_comms[k])) x->ready[nlanded++] = take_landed(sim, k, &pending, x);
        for (; nlanded > 0; nlanded--) {
            const sent_message *msg = x->ready[nlanded - 1];
            double seconds = unpack_seconds(sim->m, msg);
            if (unpack_on_arrival) spend(seconds);
            else unpack += seconds;
        }
    }
    return unpack;
}

static void run_step(simulation *sim, int rank, const rank_step *st, step_style style, step_scratch *x)
{
    spend(step_pack_seconds(sim->m, sim->sends.sent + sim->sends.first[rank], st));
    if (style.barriers) sg_barrier_wait(sim->barrier);
    post_step(sim, rank, st, x);
    if (st->copies) spend(local_copy_seconds(sim->m, sim->plan, rank));
    double unpack = land_messages(sim, st, style.unpack_on_arrival, x);
    if (style.barriers) sg_barrier_wait(sim->barrier);
    spend(unpack);
    sg_comm_wait_all(x->send_comms, (size_t)st->nsends);
}

/* ---- one rank ------------------------------------------------------------ */

static int alloc_scratch(step_scratch *x, int nsend, int nrecv)
{
    size_t ns = (size_t)(nsend ? nsend : 1), nr = (size_t)(nrecv ? nrecv : 1);
    x->send_comms = malloc(ns * sizeof *x->send_comms);
    x->recv_comms = malloc(nr * sizeof *x->recv_comms);
    x->landed = malloc(nr * sizeof *x->landed);
    x->slot = malloc(nr * sizeof *x->slot);
    x->ready = malloc(nr * sizeof *x->ready);
    return x->send_comms && x->recv_comms && x->landed && x->slot && x->ready ? 0 : -1;
}

static void free_scratch(step_scratch *x)
{
    free(x->send_comms);
    free(x->recv_comms);
    free(x->landed);
    free(x->slot);
    free(x->ready);
}

static void run_rank(int argc, char **argv)
{
    const rank_actor *a = sg_actor_self_get_data();
    simulation *sim = a->sim;
    const rl_section *s = sim->plan->sections[a->rank];
    rank_steps steps;
    step_scratch x;
    if (rank_steps_of(sim->plan, sim->schedule, a->rank, &steps) || alloc_scratch(&x, s->nsend, s->nrecv)) {
        fprintf(stderr, "relay_plan_predict: out of memory simulating rank %d\n", a->rank);
        abort();
    }
    for (int k = 0; k < steps.nsteps; k++) run_step(sim, a->rank, &steps.steps[k], replay_style(sim->schedule), &x);
    sim->rank_seconds[a->rank] = simgrid_get_clock();
    free_scratch(&x);
    rank_steps_free(&steps);
}

/* ---- the engine ---------------------------------------------------------- */

/* One actor per rank, on node rank / ranks_per_node (node: node 0). */
static int start_ranks(simulation *sim, rank_actor *actors)
{
    for (int r = 0; r < sim->plan->nranks; r++) actors[r] = (rank_actor){sim, r};
    return start_actors(sim->m, sim->plan->nranks, run_rank, actors, sizeof *actors);
}

int simulate_replay(const relay_plan *p, const machine *m, relay_schedule schedule, relay_prediction *out,
                    double *rank_seconds)
{
    simulation sim = {p, m, schedule, {NULL, NULL}, NULL, rank_seconds, out};
    *out = (relay_prediction){.schedule = schedule};
    rank_actor *actors = malloc((size_t)p->nranks * sizeof *actors);
    int failed = !actors || replay_sends_fill(&sim.sends, p, schedule);
    if (!failed) failed = start_engine(m, p->nranks);
    if (!failed) {
        sim.barrier = sg_barrier_init((unsigned)p->nranks);
        failed = start_ranks(&sim, actors);
    }
    if (!failed) {
        simgrid_run();
        summarise(p->nranks, rank_seconds, out);
    }
    if (sim.barrier) sg_barrier_destroy(sim.barrier);
    free(actors);
    replay_sends_free(&sim.sends);
    return failed ? -1 : 0;
}
