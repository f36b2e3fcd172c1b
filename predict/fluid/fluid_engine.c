/* fluid_engine.c — relay's own flow-level engine (fluid_engine.h).
 *
 * Between events every activity goes at a constant rate: a flow over
 * network links at its share of them, weighted as SimGrid's CM02 weights
 * it (solve_links); a flow inside a node at the node's bandwidth (its
 * loopback is a fat pipe); work at a core's speed, or its share of the
 * node's cores.  An event is an activity ending or a flow's latency
 * running out.  Two things make it cheaper than SimGrid, which solves the
 * sharing after every event and moves every flow as an action of its own:
 * activities whose events come within SAME_TIME of their own duration
 * after the next event's time are taken with it (a batch), and the links'
 * sharing is solved again, whole, only after batches that started or
 * ended a flow over network links. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fluid_engine.h"
#include "fluid_network.h"
#include "platform.h"

/* An activity whose event comes within this fraction of its own duration
 * after the next event is taken with it, ending that little early.  3e-4
 * keeps every rank within 0.12% of SimGrid on the plans both simulate;
 * 1e-4 keeps it within 0.025% but takes the 65,536-rank plan about twice
 * as long (docs/benchmarks.md). */
#define SAME_TIME 3e-4

/* An activity in flight: what every event reads.  A flow's rate, weight
 * and route, which the links' solve reads, lie in arrays of their own
 * beside (a million flows in flight are 40 MB here, 128 with their
 * routes). */
typedef struct {
    double left;                 /* bytes or seconds still to go */
    double since;                /* when it began (a flow: when it was posted) */
    double ready_at;             /* a flow moves no bytes before its latency ran out */
    int64_t owner;
    int32_t node;                /* work: the node whose cores run it */
    int8_t kind, ready, crosses; /* crosses: a flow over network links */
} activity;

/* A link's room per unit of weight of its flows not yet fixed, as pushed. */
typedef struct {
    double per_weight;
    int32_t link;
} keyed_link;

/* An activity that ended, told to its owner after its batch. */
typedef struct {
    int8_t kind;
    int64_t owner;
} ended_activity;

struct fluid_engine {
    const machine *m;
    fluid_network net;
    double cores;                /* of each node */
    fluid_done *done;
    fluid_settled *settled;
    void *ctx;
    double now;
    activity *act;               /* the activities in flight, 0 .. n-1 */
    double *rate;                /* per second, until the next event */
    double *flow_weight;         /* a flow's weight in sharing a link: 1 / its route's latency */
    fluid_route *route;
    int64_t n, cap;
    int *busy;                   /* per node: work running on its cores */
    int links_changed;           /* a flow over links started or ended since the last solve */
    /* the solve's, per link */
    double *room, *weight;       /* bandwidth not yet given, and the weight of its flows not yet fixed */
    int64_t *flows, *first;      /* its flows not yet fixed; where its flows start in members */
    int64_t *members;            /* the flows of each link, link after link */
    int64_t members_cap;
    keyed_link *heap;
    int64_t heap_n;
    ended_activity *ended;
    int64_t ended_cap;
};

static int node_of(const fluid_engine *e, int rank)
{
    return e->m->topology == MACHINE_NODE ? 0 : rank / e->m->ranks_per_node;
}

fluid_engine *fluid_create(const machine *m, int nranks, fluid_done *done, fluid_settled *settled, void *ctx)
{
    fluid_engine *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    *e = (fluid_engine){.m = m, .cores = platform_cores(m, nranks), .done = done, .settled = settled, .ctx = ctx};
    if (fluid_network_init(&e->net, m, nranks)) {
        free(e);
        return NULL;
    }
    size_t links = (size_t)(e->net.nlinks ? e->net.nlinks : 1);
    e->busy = calloc((size_t)e->net.nodes, sizeof *e->busy);
    e->room = malloc(links * sizeof *e->room);
    e->weight = malloc(links * sizeof *e->weight);
    e->flows = malloc(links * sizeof *e->flows);
    e->first = malloc((links + 1) * sizeof *e->first);
    e->heap = malloc(links * sizeof *e->heap);
    if (!e->busy || !e->room || !e->weight || !e->flows || !e->first || !e->heap) {
        fluid_free(e);
        return NULL;
    }
    return e;
}

void fluid_free(fluid_engine *e)
{
    if (!e) return;
    free(e->act);
    free(e->rate);
    free(e->flow_weight);
    free(e->route);
    free(e->busy);
    free(e->room);
    free(e->weight);
    free(e->flows);
    free(e->first);
    free(e->members);
    free(e->heap);
    free(e->ended);
    free(e);
}

double fluid_now(const fluid_engine *e) { return e->now; }

/* ---- activities ---------------------------------------------------------- */

/* *buf resized to cap elements of esz bytes: 0, or -1 (*buf kept). */
static int resize(void *buf, int64_t cap, size_t esz)
{
    void *grown = realloc(*(void **)buf, (size_t)cap * esz);
    if (!grown) return -1;
    *(void **)buf = grown;
    return 0;
}

/* Room for n elements of esz bytes in *buf, holding *cap: 0, or -1. */
static int reserve(void *buf, int64_t *cap, int64_t n, size_t esz)
{
    if (n <= *cap) return 0;
    int64_t want = *cap ? 2 * *cap : 64;
    if (want < n) want = n;
    if (resize(buf, want, esz)) return -1;
    *cap = want;
    return 0;
}

/* Room for one more activity in each of its arrays. */
static int grow(fluid_engine *e)
{
    if (e->n < e->cap) return 0;
    int64_t cap = e->cap ? 2 * e->cap : 64;
    if (resize(&e->act, cap, sizeof *e->act) || resize(&e->rate, cap, sizeof *e->rate) ||
        resize(&e->flow_weight, cap, sizeof *e->flow_weight) || resize(&e->route, cap, sizeof *e->route))
        return -1;
    e->cap = cap;
    return 0;
}

int fluid_flow(fluid_engine *e, int from, int to, int64_t bytes, int64_t owner)
{
    if (grow(e)) return -1;
    int64_t i = e->n++;
    int fn = node_of(e, from), tn = node_of(e, to);
    fluid_route *r = &e->route[i];
    if (fn == tn) *r = (fluid_route){.latency = e->m->node_latency};
    else fluid_route_between(&e->net, e->m, fn, tn, r);
    e->act[i] = (activity){.left = (double)bytes, .since = e->now, .ready_at = e->now + r->latency, .owner = owner,
                           .kind = FLUID_FLOW, .crosses = r->nlinks > 0};
    e->flow_weight[i] = r->latency > 0 ? 1 / r->latency : 1;   /* CM02: no latency, penalty 1 */
    e->rate[i] = 0;
    return 0;
}

int fluid_work(fluid_engine *e, int rank, double seconds, int64_t owner)
{
    if (grow(e)) return -1;
    int64_t i = e->n++;
    e->act[i] = (activity){.left = seconds, .since = e->now, .owner = owner, .node = node_of(e, rank),
                           .kind = FLUID_WORK, .ready = 1};
    e->rate[i] = 0;
    e->busy[e->act[i].node]++;
    return 0;
}

/* Activity i leaves: the last takes its place. */
static void remove_activity(fluid_engine *e, int64_t i)
{
    int64_t last = --e->n;
    e->act[i] = e->act[last];
    e->rate[i] = e->rate[last];
    e->flow_weight[i] = e->flow_weight[last];
    e->route[i] = e->route[last];
}

/* ---- the links' max-min sharing ------------------------------------------ */

static void heap_push(fluid_engine *e, double per_weight, int32_t link)
{
    int64_t i = e->heap_n++;
    while (i > 0 && e->heap[(i - 1) / 2].per_weight > per_weight) {
        e->heap[i] = e->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    e->heap[i] = (keyed_link){per_weight, link};
}

static keyed_link heap_pop(fluid_engine *e)
{
    keyed_link top = e->heap[0], last = e->heap[--e->heap_n];
    int64_t i = 0;
    for (int64_t c; (c = 2 * i + 1) < e->heap_n; i = c) {
        if (c + 1 < e->heap_n && e->heap[c + 1].per_weight < e->heap[c].per_weight) c++;
        if (e->heap[c].per_weight >= last.per_weight) break;
        e->heap[i] = e->heap[c];
    }
    if (e->heap_n) e->heap[i] = last;
    return top;
}

/* A flow in flight over network links: the links' solve gives its rate. */
static int on_links(const activity *a) { return a->crosses && a->ready; }

/* A link's bandwidth not yet given per unit of weight of its flows not yet
 * fixed.  Rounding can leave a saturated link a hair below nothing: its
 * flows then get a hair above nothing, never a rate of 0 that no event
 * would end (the next solve gives them their due). */
static double room_per_weight(const fluid_engine *e, int32_t l)
{
    return fmax(e->room[l], 1e-12 * e->m->link_bandwidth) / e->weight[l];
}

/* Each link's flows, link after link (members), and the heap of links by
 * room per weight. */
static int gather_links(fluid_engine *e)
{
    int64_t links = e->net.nlinks, total = 0;
    memset(e->flows, 0, (size_t)links * sizeof *e->flows);
    memset(e->weight, 0, (size_t)links * sizeof *e->weight);
    for (int64_t i = 0; i < e->n; i++)
        if (on_links(&e->act[i]))
            for (int k = 0; k < e->route[i].nlinks; k++) {
                e->flows[e->route[i].link[k]]++;
                e->weight[e->route[i].link[k]] += e->flow_weight[i];
            }
    for (int64_t l = 0; l < links; l++) {
        e->first[l] = total;
        total += e->flows[l];
    }
    e->first[links] = total;
    if (reserve(&e->members, &e->members_cap, total, sizeof *e->members)) return -1;
    for (int64_t i = 0; i < e->n; i++)
        if (on_links(&e->act[i])) {
            e->rate[i] = -1;                     /* not fixed yet */
            for (int k = 0; k < e->route[i].nlinks; k++) e->members[e->first[e->route[i].link[k]]++] = i;
        }
    e->heap_n = 0;
    for (int64_t l = links - 1; l >= 0; l--) {
        e->first[l + 1] = e->first[l];
        e->room[l] = e->m->link_bandwidth;
        if (e->flows[l]) heap_push(e, room_per_weight(e, (int32_t)l), (int32_t)l);
    }
    e->first[0] = 0;
    return 0;
}

/* Flow i's rate is fixed: its links lose it. */
static void fix_flow(fluid_engine *e, int64_t i, double rate)
{
    e->rate[i] = rate;
    for (int j = 0; j < e->route[i].nlinks; j++) {
        int32_t l = e->route[i].link[j];
        e->room[l] -= rate;
        e->weight[l] -= e->flow_weight[i];
        e->flows[l]--;
    }
}

/* Weighted progressive filling, SimGrid's max-min with sharing penalties
 * (CM02 gives each flow the latency of its route as its penalty, so that
 * a short route gets more of a shared link than a long one, as TCP does):
 * the link of least room per unit of weight fixes each of its flows at its
 * weight times that; their other links lose it.  A link's room per weight
 * only grows as flows are fixed (each at no more than it), so a link is
 * pushed again only when it comes off the heap stale: the heap holds each
 * link once, and the link that comes off it current is the least. */
static int solve_links(fluid_engine *e)
{
    if (gather_links(e)) return -1;
    while (e->heap_n) {
        keyed_link k = heap_pop(e);
        if (!e->flows[k.link]) continue;
        double per_weight = room_per_weight(e, k.link);
        if (per_weight > k.per_weight) {
            heap_push(e, per_weight, k.link);
            continue;
        }
        for (int64_t m = e->first[k.link]; m < e->first[k.link + 1]; m++) {
            int64_t i = e->members[m];
            if (e->rate[i] < 0) fix_flow(e, i, per_weight * e->flow_weight[i]);
        }
    }
    e->links_changed = 0;
    return 0;
}

/* ---- events ------------------------------------------------------------ */

/* The rate of an activity that does not cross links: a flow inside a node
 * at the node's bandwidth, work at a core's speed or its share of them. */
static double own_rate(const fluid_engine *e, const activity *a)
{
    if (a->kind == FLUID_FLOW) return e->m->node_bandwidth;
    return e->busy[a->node] <= e->cores ? 1.0 : e->cores / e->busy[a->node];
}

/* When activity i's next event comes, at the rate set for the coming stretch. */
static double event_of(const fluid_engine *e, int64_t i)
{
    const activity *a = &e->act[i];
    if (!a->ready) return a->ready_at;
    if (a->left <= 0) return e->now;
    return e->rate[i] > 0 ? e->now + a->left / e->rate[i] : INFINITY;
}

/* Sets the rates of the activities that do not cross links (the links'
 * flows have theirs from solve_links) and returns the next event's time. */
static double set_rates(fluid_engine *e)
{
    double next = INFINITY;
    for (int64_t i = 0; i < e->n; i++) {
        if (e->act[i].ready && !e->act[i].crosses) e->rate[i] = own_rate(e, &e->act[i]);
        next = fmin(next, event_of(e, i));
    }
    return next;
}

/* Moves every activity on to time t: those whose event comes by t (or
 * within SAME_TIME of their duration after it) end or become ready, the
 * others advance.  Returns how many ended (in e->ended), or -1 out of
 * memory. */
static int64_t advance_to(fluid_engine *e, double t)
{
    double dt = t - e->now;
    int64_t ended = 0;
    for (int64_t i = 0; i < e->n; i++) {
        activity *a = &e->act[i];
        double when = event_of(e, i);
        if (when > t + SAME_TIME * (when - a->since)) {
            if (a->ready) a->left -= e->rate[i] * dt;
        } else if (!a->ready) {
            a->ready = 1;
            a->since = t;
            e->links_changed |= a->crosses;
        } else {
            if (reserve(&e->ended, &e->ended_cap, ended + 1, sizeof *e->ended)) return -1;
            e->ended[ended++] = (ended_activity){a->kind, a->owner};
            if (a->kind == FLUID_WORK) e->busy[a->node]--;
            e->links_changed |= a->crosses;
            remove_activity(e, i--);
        }
    }
    e->now = t;
    return ended;
}

int fluid_run(fluid_engine *e)
{
    while (e->n) {
        if (e->links_changed && solve_links(e)) return FLUID_NO_MEMORY;
        double next = set_rates(e);
        if (!isfinite(next)) return FLUID_STALLED;
        int64_t ended = advance_to(e, next);
        if (ended < 0) return FLUID_NO_MEMORY;
        for (int64_t k = 0; k < ended; k++) e->done(e->ctx, e->ended[k].kind, e->ended[k].owner);
        e->settled(e->ctx);
    }
    return 0;
}
