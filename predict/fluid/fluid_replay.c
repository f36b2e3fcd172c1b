/* fluid_replay.c — a transform plan's replay simulated on relay's own
 * flow-level engine (fluid_engine.h), for plans with more messages than
 * SimGrid's engine gets through in minutes.  Each rank goes through the
 * steps simulate.c's actors go through (replay_steps.h), as a state
 * machine the engine's events drive instead of an actor's code:
 *
 *   begin a step: pack its sends (work);
 *   (alltoallv: wait at a barrier of every rank;)
 *   post its receives and sends: a message moves once both its sender
 *       posted it and its receiver posted the step's receives (SimGrid's
 *       mailboxes, one per receiver and step);
 *   copy the local pieces, in the step that holds them (work);
 *   take the messages as they land: p2p and rounds unpack each batch
 *       taken at once (work), taking what landed meanwhile after it;
 *       alltoallv and neighbor unpack them all at the end (alltoallv
 *       after a second barrier);
 *   wait for the step's sends to land; then the next step.
 * A message's time runs from its posting to its taking, as in simulate.c. */
#include <stdio.h>
#include <stdlib.h>

#include "engine.h"
#include "fluid_engine.h"
#include "fluid_replay.h"
#include "replay_steps.h"

/* Where a rank is in its step. */
typedef enum { PACKING, ENTERING, COPYING, LANDING, LEAVING, UNPACKING_ALL, SENDING, FINISHED } phase;

typedef struct {
    rank_steps steps;
    int k;                       /* the step it is in */
    phase at;
    int working;                 /* work of its own in flight (packing, copying, unpacking) */
    int recvs_left, sends_left;  /* of the step: receives not landed, sends not landed */
    int64_t landed;              /* landed and not taken: a list through next_landed (-1: none) */
    double unpack_later;         /* alltoallv, neighbor: the step's unpacking, done at its end */
    int64_t posted_step;         /* the step whose receives it posted last (-1: none yet) */
    int64_t next_incoming;       /* its first incoming message (incoming) of a step not yet posted */
    int woken;                   /* in the replay's woken list */
} rank_state;

typedef struct {
    const relay_plan *plan;
    const machine *m;
    step_style style;
    replay_sends sends;
    fluid_engine *e;
    rank_state *ranks;
    int64_t nmsg;
    int64_t *incoming, *first_incoming; /* each rank's incoming messages, in step order */
    char *sender_posted;         /* per message */
    int64_t *next_landed;        /* per message */
    int at_barrier;
    int *woken, nwoken;          /* ranks to take what landed once the engine settles */
    int failed;
    relay_prediction *out;
    double *rank_seconds;
} replay;

static void begin_step(replay *rp, int r);

/* ---- work and flows ---------------------------------------------------- */

static void work(replay *rp, int r, phase then, double seconds)
{
    rp->ranks[r].at = then;
    rp->ranks[r].working = 1;
    if (fluid_work(rp->e, r, seconds, r)) rp->failed = 1;
}

static void start_message(replay *rp, int64_t msg)
{
    const sent_message *s = &rp->sends.sent[msg];
    if (fluid_flow(rp->e, s->from, s->to, s->bytes, msg)) rp->failed = 1;
}

/* ---- a step's ends --------------------------------------------------------- */

static void step_done(replay *rp, int r)
{
    rank_state *rs = &rp->ranks[r];
    if (++rs->k < rs->steps.nsteps) {
        begin_step(rp, r);
        return;
    }
    rs->at = FINISHED;
    rp->rank_seconds[r] = fluid_now(rp->e);
}

static void wait_sends(replay *rp, int r)
{
    rp->ranks[r].at = SENDING;
    if (!rp->ranks[r].sends_left) step_done(rp, r);
}

static void unpack_all(replay *rp, int r)
{
    rank_state *rs = &rp->ranks[r];
    double seconds = rs->unpack_later;
    rs->unpack_later = 0;
    if (seconds > 0) work(rp, r, UNPACKING_ALL, seconds);
    else wait_sends(rp, r);
}

static void arrive_at_barrier(replay *rp, int r, phase waiting);

static void end_receives(replay *rp, int r)
{
    if (rp->style.barriers) arrive_at_barrier(rp, r, LEAVING);
    else unpack_all(rp, r);
}

/* Takes what landed: unpacks it at once (p2p, rounds) or later. */
static void take_landed(replay *rp, int r)
{
    rank_state *rs = &rp->ranks[r];
    double unpack = 0;
    for (int64_t msg = rs->landed; msg >= 0; msg = rp->next_landed[msg]) {
        const sent_message *s = &rp->sends.sent[msg];
        record_predicted(rp->out, s->from, s->to, s->bytes, fluid_now(rp->e) - s->posted);
        unpack += unpack_seconds(rp->m, s);
    }
    rs->landed = -1;
    if (!rp->style.unpack_on_arrival) rs->unpack_later += unpack;
    else if (unpack > 0) {
        work(rp, r, LANDING, unpack);
        return;
    }
    if (!rs->recvs_left) end_receives(rp, r);
}

/* ---- posting ----------------------------------------------------------- */

/* Posts the step's receives (starting the messages already posted to
 * them) and sends (starting those whose receiver posted their step). */
static void post_step(replay *rp, int r)
{
    rank_state *rs = &rp->ranks[r];
    const rank_step *st = &rs->steps.steps[rs->k];
    rs->recvs_left = st->nrecvs;
    rs->sends_left = st->nsends;
    rs->posted_step = st->step;
    for (; rs->next_incoming < rp->first_incoming[r + 1]; rs->next_incoming++) {
        int64_t msg = rp->incoming[rs->next_incoming];
        if (rp->sends.sent[msg].step != st->step) break;
        if (rp->sender_posted[msg]) start_message(rp, msg);
    }
    for (int k = 0; k < st->nsends; k++) {
        int64_t msg = rp->sends.first[r] + st->sends[k];
        sent_message *s = &rp->sends.sent[msg];
        s->posted = fluid_now(rp->e);
        rp->sender_posted[msg] = 1;
        if (rp->ranks[s->to].posted_step == s->step) start_message(rp, msg);
    }
    double copies = st->copies ? local_copy_seconds(rp->m, rp->plan, r) : 0;
    if (copies > 0) work(rp, r, COPYING, copies);
    else {
        rs->at = LANDING;
        take_landed(rp, r);
    }
}

/* alltoallv's barriers: the last rank to arrive lets every one go on. */
static void arrive_at_barrier(replay *rp, int r, phase waiting)
{
    rp->ranks[r].at = waiting;
    if (++rp->at_barrier < rp->plan->nranks) return;
    rp->at_barrier = 0;
    for (int q = 0; q < rp->plan->nranks; q++) {
        if (rp->ranks[q].at != waiting) continue;
        if (waiting == ENTERING) post_step(rp, q);
        else unpack_all(rp, q);
    }
}

static void packed(replay *rp, int r)
{
    if (rp->style.barriers) arrive_at_barrier(rp, r, ENTERING);
    else post_step(rp, r);
}

static void begin_step(replay *rp, int r)
{
    rank_state *rs = &rp->ranks[r];
    double pack = step_pack_seconds(rp->m, rp->sends.sent + rp->sends.first[r], &rs->steps.steps[rs->k]);
    if (pack > 0) work(rp, r, PACKING, pack);
    else packed(rp, r);
}

/* ---- events ------------------------------------------------------------ */

/* Rank r takes what landed once every activity ending now has ended. */
static void wake(replay *rp, int r)
{
    if (rp->ranks[r].woken) return;
    rp->ranks[r].woken = 1;
    rp->woken[rp->nwoken++] = r;
}

static void work_done(replay *rp, int r)
{
    rank_state *rs = &rp->ranks[r];
    rs->working = 0;
    if (rs->at == PACKING) packed(rp, r);
    else if (rs->at == COPYING || rs->at == LANDING) {
        rs->at = LANDING;
        wake(rp, r);
    } else if (rs->at == UNPACKING_ALL) wait_sends(rp, r);
}

static void message_landed(replay *rp, int64_t msg)
{
    const sent_message *s = &rp->sends.sent[msg];
    rank_state *from = &rp->ranks[s->from], *to = &rp->ranks[s->to];
    to->recvs_left--;
    rp->next_landed[msg] = to->landed;
    to->landed = msg;
    if (to->at == LANDING && !to->working) wake(rp, s->to);
    if (!--from->sends_left && from->at == SENDING) step_done(rp, s->from);
}

static void activity_done(void *ctx, fluid_kind kind, int64_t owner)
{
    if (kind == FLUID_WORK) work_done(ctx, (int)owner);
    else message_landed(ctx, owner);
}

static void take_what_landed(void *ctx)
{
    replay *rp = ctx;
    while (rp->nwoken) {
        int r = rp->woken[--rp->nwoken];
        rp->ranks[r].woken = 0;
        if (rp->ranks[r].at == LANDING && !rp->ranks[r].working) take_landed(rp, r);
    }
}

/* ---- set-up ------------------------------------------------------------ */

/* Each rank's incoming messages, in step order (by_step). */
static int index_incoming(replay *rp)
{
    int n = rp->plan->nranks;
    rp->first_incoming = calloc((size_t)n + 1, sizeof *rp->first_incoming);
    rp->incoming = malloc((size_t)(rp->nmsg ? rp->nmsg : 1) * sizeof *rp->incoming);
    stepped *sorted = malloc((size_t)(rp->nmsg ? rp->nmsg : 1) * sizeof *sorted);
    if (!rp->first_incoming || !rp->incoming || !sorted) {
        free(sorted);
        return -1;
    }
    for (int64_t msg = 0; msg < rp->nmsg; msg++) rp->first_incoming[rp->sends.sent[msg].to + 1]++;
    for (int r = 0; r < n; r++) rp->first_incoming[r + 1] += rp->first_incoming[r];
    for (int64_t msg = 0; msg < rp->nmsg; msg++)
        sorted[rp->first_incoming[rp->sends.sent[msg].to]++] = (stepped){rp->sends.sent[msg].step, msg};
    for (int r = n; r > 0; r--) rp->first_incoming[r] = rp->first_incoming[r - 1];
    rp->first_incoming[0] = 0;
    for (int r = 0; r < n; r++)
        qsort(sorted + rp->first_incoming[r], (size_t)(rp->first_incoming[r + 1] - rp->first_incoming[r]), sizeof *sorted,
              by_step);
    for (int64_t k = 0; k < rp->nmsg; k++) rp->incoming[k] = sorted[k].index;
    free(sorted);
    return 0;
}

static int set_up(replay *rp, relay_schedule schedule)
{
    int n = rp->plan->nranks;
    if (replay_sends_fill(&rp->sends, rp->plan, schedule)) return -1;
    rp->nmsg = rp->sends.first[n];
    rp->ranks = calloc((size_t)n, sizeof *rp->ranks);
    rp->sender_posted = calloc((size_t)(rp->nmsg ? rp->nmsg : 1), 1);
    rp->next_landed = malloc((size_t)(rp->nmsg ? rp->nmsg : 1) * sizeof *rp->next_landed);
    rp->woken = malloc((size_t)n * sizeof *rp->woken);
    rp->e = fluid_create(rp->m, n, activity_done, take_what_landed, rp);
    if (!rp->ranks || !rp->sender_posted || !rp->next_landed || !rp->woken || !rp->e || index_incoming(rp)) return -1;
    for (int r = 0; r < n; r++) {
        rank_state *rs = &rp->ranks[r];
        *rs = (rank_state){.k = -1, .landed = -1, .posted_step = -1, .next_incoming = rp->first_incoming[r]};
        if (rank_steps_of(rp->plan, schedule, r, &rs->steps)) return -1;
    }
    return 0;
}

static void tear_down(replay *rp)
{
    for (int r = 0; rp->ranks && r < rp->plan->nranks; r++) rank_steps_free(&rp->ranks[r].steps);
    free(rp->ranks);
    free(rp->sender_posted);
    free(rp->next_landed);
    free(rp->woken);
    free(rp->incoming);
    free(rp->first_incoming);
    fluid_free(rp->e);
    replay_sends_free(&rp->sends);
}

/* Every rank finished: else one waits for a message never sent (on stderr). */
static int all_finished(const replay *rp)
{
    for (int r = 0; r < rp->plan->nranks; r++)
        if (rp->ranks[r].at != FINISHED) {
            fprintf(stderr, "relay_plan_predict: rank %d never finished its step %lld (the plan's steps do not match)\n",
                    r, (long long)rp->ranks[r].steps.steps[rp->ranks[r].k].step);
            return 0;
        }
    return 1;
}

int fluid_simulate_replay(const relay_plan *p, const machine *m, relay_schedule schedule, relay_prediction *out,
                          double *rank_seconds)
{
    *out = (relay_prediction){.schedule = schedule};
    replay rp = {.plan = p, .m = m, .style = replay_style(schedule), .out = out, .rank_seconds = rank_seconds};
    int failed = set_up(&rp, schedule);
    for (int r = 0; !failed && r < p->nranks; r++) step_done(&rp, r); /* into its first step, or finished */
    if (!failed) {
        int run = fluid_run(rp.e);
        if (run == FLUID_STALLED) fprintf(stderr, "relay_plan_predict: flows that nothing moves (links of no bandwidth?)\n");
        failed = run || rp.failed || !all_finished(&rp);
    }
    if (!failed) summarise(p->nranks, rank_seconds, out);
    tear_down(&rp);
    return failed ? -1 : 0;
}
