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
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/barrier.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/mailbox.h>

#include "engine.h"
#include "simulate.h"

/* A message as its sender posts it: the payload the receiver gets. */
typedef struct {
    int from, to;
    int64_t bytes, pieces;
    int64_t transposed;          /* of bytes, those of pairs whose op transposes (unpacked transposing) */
    double posted;
} sent_message;

/* The step of a rank's transfers under a schedule without steps. */
enum { ONE_STEP = 0 };

typedef struct {
    const relay_plan *plan;
    const machine *m;
    relay_schedule schedule;
    int64_t esz;
    sent_message *sent;          /* every rank's sends, rank by rank */
    int64_t *first_sent;         /* nranks + 1: rank r's are [first_sent[r], first_sent[r+1]) */
    sg_bar_t barrier;            /* alltoallv's entry and exit */
    double *rank_seconds;
    relay_prediction *out;
} simulation;

/* An actor's data: its rank and the simulation. */
typedef struct {
    simulation *sim;
    int rank;
} rank_actor;

/* How a rank goes through one step. */
typedef struct {
    int barriers;                /* enter and leave it with every rank (alltoallv) */
    int unpack_on_arrival;       /* unpack each message as it lands (p2p, rounds) */
} step_style;

/* ---- what a rank moves --------------------------------------------------- */

static int64_t message_pieces(const rl_span *spans, const rl_message *msg)
{
    int64_t pieces = 0;
    for (int64_t i = msg->first; i < msg->first + msg->count; i++) pieces += rl_span_pieces(&spans[i]);
    return pieces;
}

/* Whether pair's op transposes (T or C; plan.c's rl_op_transposes is not
 * exported from the executor library this one links). */
static int pair_transposes(const relay_plan *p, int64_t pair) { return p->pairs[pair].op != RELAY_OP_N; }

/* Of a message's elements, those of pairs whose op transposes. */
static int64_t message_transposed(const relay_plan *p, const rl_span *spans, const rl_message *msg)
{
    int64_t elems = 0;
    for (int64_t i = msg->first; i < msg->first + msg->count; i++)
        if (pair_transposes(p, spans[i].pair)) elems += rl_span_elems(&spans[i]);
    return elems;
}

/* The sends of every rank as payloads, in section order. */
static int fill_sent(simulation *sim)
{
    const relay_plan *p = sim->plan;
    sim->first_sent = malloc(((size_t)p->nranks + 1) * sizeof *sim->first_sent);
    if (!sim->first_sent) return -1;
    sim->first_sent[0] = 0;
    for (int r = 0; r < p->nranks; r++) sim->first_sent[r + 1] = sim->first_sent[r] + p->sections[r]->nsend;
    sim->sent = malloc((size_t)(sim->first_sent[p->nranks] ? sim->first_sent[p->nranks] : 1) * sizeof *sim->sent);
    if (!sim->sent) return -1;
    for (int r = 0; r < p->nranks; r++) {
        const rl_section *s = p->sections[r];
        for (int k = 0; k < s->nsend; k++) {
            const rl_message *msg = &s->send[k];
            sim->sent[sim->first_sent[r] + k] = (sent_message){r,
                                                               (int)msg->peer,
                                                               msg->elems * sim->esz,
                                                               message_pieces(s->send_spans, msg),
                                                               message_transposed(p, s->send_spans, msg) * sim->esz,
                                                               0};
        }
    }
    return 0;
}

/* Indices 0..n-1 of a rank's sends or receives in increasing step (in
 * section order within a step); NULL when out of memory. */
typedef struct {
    int64_t step;
    int index;
} stepped_index;

static int by_step(const void *x, const void *y)
{
    const stepped_index *a = x, *b = y;
    return a->step != b->step ? (a->step > b->step) - (a->step < b->step) : (a->index > b->index) - (a->index < b->index);
}

static int *in_step_order(const int64_t *rounds, int n)
{
    int *order = malloc((size_t)(n ? n : 1) * sizeof *order);
    stepped_index *sorted = rounds ? malloc((size_t)(n ? n : 1) * sizeof *sorted) : NULL;
    if (!order || (rounds && !sorted)) {
        free(order);
        return NULL;
    }
    for (int k = 0; k < n; k++) order[k] = k;
    if (rounds) {
        for (int k = 0; k < n; k++) sorted[k] = (stepped_index){rounds[k], k};
        qsort(sorted, (size_t)n, sizeof *sorted, by_step);
        for (int k = 0; k < n; k++) order[k] = sorted[k].index;
    }
    free(sorted);
    return order;
}

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

/* What a step of a rank holds: its sends (indices into its sent
 * messages), how many messages it receives, whether it copies locally. */
typedef struct {
    int64_t step;
    const int *sends;
    int nsends, nrecvs;
    int copies;
} rank_step;

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
    sent_message *sent = sim->sent + sim->first_sent[rank];
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
            double seconds = copy_seconds(sim->m, msg->bytes, msg->pieces, msg->transposed);
            if (unpack_on_arrival) spend(seconds);
            else unpack += seconds;
        }
    }
    return unpack;
}

static void run_step(simulation *sim, int rank, const rank_step *st, step_style style, step_scratch *x)
{
    const rl_section *s = sim->plan->sections[rank];
    const sent_message *sent = sim->sent + sim->first_sent[rank];
    double pack = 0;
    for (int k = 0; k < st->nsends; k++)
        pack += copy_seconds(sim->m, sent[st->sends[k]].bytes, sent[st->sends[k]].pieces, 0) + sim->m->message_seconds;
    spend(pack);
    if (style.barriers) sg_barrier_wait(sim->barrier);
    post_step(sim, rank, st, x);
    for (int64_t i = 0; i < s->nlocal && st->copies; i++) {
        int64_t bytes = rl_local_span_elems(&s->local[i]) * sim->esz;
        spend(copy_seconds(sim->m, bytes, rl_local_span_pieces(&s->local[i]), pair_transposes(sim->plan, s->local[i].pair) ? bytes : 0));
    }
    double unpack = land_messages(sim, st, style.unpack_on_arrival, x);
    if (style.barriers) sg_barrier_wait(sim->barrier);
    spend(unpack);
    sg_comm_wait_all(x->send_comms, (size_t)st->nsends);
}

/* ---- one rank ------------------------------------------------------------ */

static step_style style_of(relay_schedule schedule)
{
    return (step_style){.barriers = schedule == RELAY_SCHED_ALLTOALLV,
                        .unpack_on_arrival = schedule == RELAY_SCHED_P2P || schedule == RELAY_SCHED_ROUNDS};
}

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

/* The steps of a rank in order: under rounds each step it has something in
 * (sends and receives sorted by step), else one step holding everything,
 * which every rank runs (alltoallv's barriers need them all). */
static void run_steps(simulation *sim, int rank, const int *sends, const int *recvs, step_scratch *x)
{
    const rl_section *s = sim->plan->sections[rank];
    step_style style = style_of(sim->schedule);
    if (sim->schedule != RELAY_SCHED_ROUNDS) {
        run_step(sim, rank, &(rank_step){ONE_STEP, sends, s->nsend, s->nrecv, 1}, style, x);
        return;
    }
    int64_t local_step = s->nlocal ? s->local_round : -1;
    int i = 0, j = 0;
    while (i < s->nsend || j < s->nrecv || local_step >= 0) {
        int64_t step = INT64_MAX;
        if (i < s->nsend && s->send_round[sends[i]] < step) step = s->send_round[sends[i]];
        if (j < s->nrecv && s->recv_round[recvs[j]] < step) step = s->recv_round[recvs[j]];
        if (local_step >= 0 && local_step < step) step = local_step;
        rank_step st = {step, sends + i, 0, 0, local_step == step};
        while (i + st.nsends < s->nsend && s->send_round[sends[i + st.nsends]] == step) st.nsends++;
        while (j + st.nrecvs < s->nrecv && s->recv_round[recvs[j + st.nrecvs]] == step) st.nrecvs++;
        run_step(sim, rank, &st, style, x);
        i += st.nsends;
        j += st.nrecvs;
        if (st.copies) local_step = -1;
    }
}

static void run_rank(int argc, char **argv)
{
    const rank_actor *a = sg_actor_self_get_data();
    simulation *sim = a->sim;
    const rl_section *s = sim->plan->sections[a->rank];
    int *sends = in_step_order(s->send_round, s->nsend);
    int *recvs = in_step_order(s->recv_round, s->nrecv);
    step_scratch x;
    if (!sends || !recvs || alloc_scratch(&x, s->nsend, s->nrecv)) {
        fprintf(stderr, "relay_plan_predict: out of memory simulating rank %d\n", a->rank);
        abort();
    }
    run_steps(sim, a->rank, sends, recvs, &x);
    sim->rank_seconds[a->rank] = simgrid_get_clock();
    free_scratch(&x);
    free(sends);
    free(recvs);
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
    simulation sim = {p, m, schedule, (int64_t)relay_type_size(p->type), NULL, NULL, NULL, rank_seconds, out};
    *out = (relay_prediction){.schedule = schedule};
    rank_actor *actors = malloc((size_t)p->nranks * sizeof *actors);
    int failed = !actors || fill_sent(&sim);
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
    free(sim.sent);
    free(sim.first_sent);
    return failed ? -1 : 0;
}
