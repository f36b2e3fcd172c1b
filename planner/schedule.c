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

/* The message of a sorted message list that names peer (binary search). */
static int64_t message_to(const rl_message *m, int n, int64_t peer)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (m[mid].peer < peer) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* A rank's local copies are its edge to itself: they take a step in which
 * the rank neither sends nor receives, as a copy does in ReSHAPE. */
static int64_t max_degree(const relay_plan *p)
{
    int64_t d = 0;
    for (int r = 0; r < p->nranks; r++) {
        const rl_section *s = p->sections[r];
        int self = s->nlocal > 0;
        if (s->nsend + self > d) d = s->nsend + self;
        if (s->nrecv + self > d) d = s->nrecv + self;
    }
    return d;
}

static relay_status alloc_round_lists(relay_plan *p)
{
    for (int r = 0; r < p->nranks; r++) {
        rl_section *s = p->sections[r];
        s->send_round = rl_malloc_array((size_t)s->nsend, sizeof *s->send_round);
        s->recv_round = rl_malloc_array((size_t)s->nrecv, sizeof *s->recv_round);
        if (!s->send_round || !s->recv_round) return RL_NOMEM();
    }
    return RELAY_OK;
}

/* Writes each colour back as the step of the send and of the receive. */
static void record_rounds(relay_plan *p, const colouring *g)
{
    int32_t P = p->nranks;
    for (int32_t u = 0; u < P; u++)
        for (int64_t c = 0; c < g->degree; c++) {
            int32_t v = *slot(g, u, c);
            if (v < 0) continue;
            rl_section *from = p->sections[u], *to = p->sections[v - P];
            if (v - P == u) {
                from->local_round = c;
                continue;
            }
            from->send_round[message_to(from->send, from->nsend, v - P)] = c;
            to->recv_round[message_to(to->recv, to->nrecv, u)] = c;
        }
}

static relay_status colour_rounds(relay_plan *p)
{
    int64_t degree = max_degree(p), vertices = 2 * (int64_t)p->nranks;
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
        for (int32_t u = 0; u < p->nranks; u++) {
            const rl_section *s = p->sections[u];
            if (s->nlocal) colour_edge(&g, u, p->nranks + u);
            for (int k = 0; k < s->nsend; k++) colour_edge(&g, u, p->nranks + (int32_t)s->send[k].peer);
        }
        record_rounds(p, &g);
        p->rounds = (int32_t)degree;
    }
    free(g.at);
    free(g.lowest_free);
    free(g.path);
    return st;
}

/* ReSHAPE's table where it applies, else the colouring; then the sections'
 * checksums cover their steps. */
static relay_status plan_rounds(relay_plan *p)
{
    int applied = 0;
    relay_status st = alloc_round_lists(p);
    if (!st) st = rl_reshape_schedule(p, &applied);
    if (!st && !applied) st = colour_rounds(p);
    for (int r = 0; !st && r < p->nranks; r++) p->sections[r]->checksum = rl_section_hash(p->sections[r], p->count);
    return st;
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

relay_status rl_schedule_plan(relay_plan *p, relay_schedule requested)
{
    p->schedule = requested == RELAY_SCHED_AUTO ? auto_schedule(p) : requested;
    p->rounds = 1;
    return p->schedule == RELAY_SCHED_ROUNDS ? plan_rounds(p) : RELAY_OK;
}
