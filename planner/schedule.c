/* schedule.c — the order in which a replay moves its messages.
 *
 *   p2p        one wave: every rank starts all its messages at once and
 *              unpacks each as it lands;
 *   alltoallv  one collective exchange of all messages;
 *   rounds     contention-free steps: in each step a rank sends at most one
 *              message and receives at most one;
 *   auto       resolved here from the plan's statistics (rl_auto_schedule).
 *
 * Rounds are an edge colouring of the bipartite multigraph whose left
 * vertices are senders, right vertices receivers and edges messages: a
 * colour class is a matching, that is one contention-free step.  By König's
 * theorem max-degree colours suffice; the colouring below reaches it by the
 * classic alternating-path argument: to colour edge (u, v), take colour a
 * free at u and b free at v; if a is taken at v, swap a and b along the
 * a/b-alternating path that starts at v (it cannot reach u in a bipartite
 * graph), after which a is free at both ends.  A rank's local copies are
 * one more edge, from the rank as sender to itself as receiver, so they
 * take a step of their own, as the copies of ReSHAPE's schedule do. */
#include <string.h>

#include "error.h"
#include "planner_internal.h"

/* Colour tables: at[v * degree + c] = the vertex joined to v by an edge of
 * colour c, or -1.  Senders are vertices 0..P-1, receivers P..2P-1. */
typedef struct {
    int32_t *at;
    int32_t *lowest_free;  /* every colour below it is taken at that vertex */
    int64_t degree;
    int32_t *path;         /* scratch for one alternating path */
} colouring;

static int32_t *slot(const colouring *g, int32_t v, int64_t c) { return &g->at[(int64_t)v * g->degree + c]; }

static int64_t free_colour(colouring *g, int32_t v)
{
    int64_t c = g->lowest_free[v];
    while (*slot(g, v, c) >= 0) c++;
    g->lowest_free[v] = (int32_t)c;
    return c;
}

static void join(colouring *g, int32_t u, int32_t v, int64_t c)
{
    *slot(g, u, c) = v;
    *slot(g, v, c) = u;
}

static void part(colouring *g, int32_t u, int32_t v, int64_t c)
{
    *slot(g, u, c) = -1;
    *slot(g, v, c) = -1;
    if (c < g->lowest_free[u]) g->lowest_free[u] = (int32_t)c;
    if (c < g->lowest_free[v]) g->lowest_free[v] = (int32_t)c;
}

/* Swaps colours a and b along the alternating path from v that begins with
 * an edge of colour a. */
static void flip_path(colouring *g, int32_t v, int64_t a, int64_t b)
{
    int64_t len = 0;
    g->path[len++] = v;
    for (int64_t c = a; *slot(g, v, c) >= 0; c = c == a ? b : a) {
        v = *slot(g, v, c);
        g->path[len++] = v;
    }
    for (int64_t i = 0; i + 1 < len; i++) part(g, g->path[i], g->path[i + 1], i % 2 ? b : a);
    for (int64_t i = 0; i + 1 < len; i++) join(g, g->path[i], g->path[i + 1], i % 2 ? a : b);
}

static void colour_edge(colouring *g, int32_t u, int32_t v)
{
    int64_t a = free_colour(g, u), b = free_colour(g, v);
    if (*slot(g, v, a) >= 0) flip_path(g, v, a, b);
    join(g, u, v, a);
}

/* The most transfers a rank sends or receives, its local copies counting
 * as one (they take a step in which it neither sends nor receives). */
static int64_t max_degree(const rl_transfers *t)
{
    int64_t d = 0, *in = rl_calloc((size_t)t->n, sizeof *in);
    if (!in) return -1;
    for (int y = 0; y < t->n; y++) {
        if (t->start[y + 1] - t->start[y] > d) d = t->start[y + 1] - t->start[y];
        for (int64_t e = t->start[y]; e < t->start[y + 1]; e++) in[t->to[e]]++;
    }
    for (int x = 0; x < t->n; x++) d = in[x] > d ? in[x] : d;
    free(in);
    return d;
}

/* Each transfer's step is the colour of its edge. */
static void record_rounds(rl_transfers *t, const colouring *g)
{
    for (int32_t u = 0; u < t->n; u++)
        for (int64_t c = 0; c < g->degree; c++) {
            int32_t v = *slot(g, u, c);
            if (v >= 0) t->step[rl_transfer_find(t, u, v - t->n)] = c;
        }
}

static relay_status colour_rounds(relay_plan *p, rl_transfers *t)
{
    int64_t degree = max_degree(t), vertices = 2 * (int64_t)t->n;
    if (degree < 0) return RL_NOMEM();
    colouring g = {0};
    g.degree = degree;
    g.at = rl_malloc_array((size_t)(vertices * (degree ? degree : 1)), sizeof *g.at);
    g.lowest_free = rl_calloc((size_t)vertices, sizeof *g.lowest_free);
    g.path = rl_malloc_array((size_t)vertices + 1, sizeof *g.path);
    relay_status st = !g.at || !g.lowest_free || !g.path ? rl_fail(RELAY_ERR_NOMEM,
        "rounds schedule: cannot allocate the %lld x %lld colour table", (long long)vertices, (long long)degree)
        : RELAY_OK;
    if (!st) {
        memset(g.at, 0xff, (size_t)(vertices * degree) * sizeof *g.at);
        for (int32_t u = 0; u < t->n; u++)
            for (int64_t e = t->start[u]; e < t->start[u + 1]; e++) colour_edge(&g, u, t->n + t->to[e]);
        record_rounds(t, &g);
        p->rounds = (int32_t)degree;
    }
    free(g.at);
    free(g.lowest_free);
    free(g.path);
    return st;
}

/* ReSHAPE's table where it applies, else the colouring. */
static relay_status plan_rounds(relay_plan *p, const rl_volumes *v, rl_transfers *t)
{
    int applied = 0;
    relay_status st = rl_transfers_build(t, v, p->sigma);
    if (!st) st = rl_reshape_schedule(p, t, &applied);
    if (!st && !applied) st = colour_rounds(p, t);
    return st;
}

/* ---- a section's steps ------------------------------------------------------- */

static relay_status section_steps(rl_section *s, const rl_transfers *t)
{
    s->send_round = rl_malloc_array((size_t)s->nsend, sizeof *s->send_round);
    s->recv_round = rl_malloc_array((size_t)s->nrecv, sizeof *s->recv_round);
    if (!s->send_round || !s->recv_round) return RL_NOMEM();
    for (int k = 0; k < s->nsend; k++) s->send_round[k] = t->step[rl_transfer_find(t, s->rank, (int)s->send[k].peer)];
    for (int k = 0; k < s->nrecv; k++) s->recv_round[k] = t->step[rl_transfer_find(t, (int)s->recv[k].peer, s->rank)];
    if (s->nlocal) s->local_round = t->step[rl_transfer_find(t, s->rank, s->rank)];
    return RELAY_OK;
}

relay_status rl_schedule_sections(relay_plan *p, const rl_transfers *t)
{
    if (p->schedule != RELAY_SCHED_ROUNDS) return RELAY_OK;
    for (int r = 0; r < p->nranks; r++) {
        rl_section *s = p->sections[r];
        if (!s) continue;
        relay_status st = section_steps(s, t);
        if (st) return st;
        s->checksum = rl_section_hash(s, p->count);
    }
    return RELAY_OK;
}

/* The auto rule.  A collective exchange pays off when nearly every pair of
 * ranks talks and messages are small (latency-bound): MPI's Alltoallv
 * algorithms then beat independent point-to-point messages.  Otherwise
 * p2p, which overlaps unpacking with the transfers still in flight.  Rounds
 * are never chosen automatically: on shared-memory nodes and uncontended
 * networks their step-by-step pacing only adds waits; ask for them where
 * the network punishes many-to-one contention. */
enum { AUTO_A2A_MAX_MEAN_BYTES = 16 * 1024 };

static relay_schedule auto_schedule(const relay_plan *p)
{
    int64_t pairs = (int64_t)p->nranks * (p->nranks - 1);
    const relay_plan_stats *s = &p->stats;
    if (p->nranks < 3 || s->messages == 0) return RELAY_SCHED_P2P;
    int dense = 2 * s->messages >= pairs;
    int small = s->bytes_remote <= AUTO_A2A_MAX_MEAN_BYTES * s->messages;
    return dense && small ? RELAY_SCHED_ALLTOALLV : RELAY_SCHED_P2P;
}

relay_status rl_schedule_plan(relay_plan *p, relay_schedule requested, const rl_volumes *v, rl_transfers *t)
{
    memset(t, 0, sizeof *t);
    /* A memory cap stages one step's message at a time: rounds. */
    p->schedule = p->max_buffer_bytes ? RELAY_SCHED_ROUNDS : requested == RELAY_SCHED_AUTO ? auto_schedule(p) : requested;
    p->rounds = 1;
    return p->schedule == RELAY_SCHED_ROUNDS ? plan_rounds(p, v, t) : RELAY_OK;
}
