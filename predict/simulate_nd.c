/* simulate_nd.c — the simulated replay of an N-D plan.  Each rank derives
 * its transfers from the plan's header (nd_transfers.h), groups them into
 * messages as the executor does (executor/nd/nd_messages.c), and its actor
 * replays them as executor/nd/nd_exec.c does, p2p (the one schedule an
 * N-D plan replays with):
 *
 *   post every receive            one message per peer of what origins read
 *                                 from B (tag 0), one per transfer a replica
 *                                 passes on (tags 1, 2, ... between the
 *                                 same two ranks);
 *   pack and send                 each message read from B: its copy, then
 *                                 message_seconds as it is posted;
 *   copy                          the transfers the rank makes to itself;
 *   as each message lands         post the sends that pass its transfers
 *                                 on (no packing: they leave from where
 *                                 they landed), then unpack it;
 *   wait for the sends.
 *
 * A pack, unpack or copy costs its bytes and piece_seconds per move the
 * executor's walk makes over its transfers (plan_format/nd_walk_order.h).
 * Partial pieces are added as they land at an unpack's cost each (the
 * executor's order among pieces, and the last pass of alpha and beta when
 * they are not 1 and 0, are not modelled).  Every rank's messages are held
 * at once: O(the plan's transfers). */
#include <stdio.h>
#include <stdlib.h>

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>

#include "engine.h"
#include "nd_layout.h"
#include "nd_transfers.h"
#include "nd_walk_order.h"
#include "simulate_kinds.h"

/* One message of a rank: what moving it costs, and for a send that passes
 * a transfer on, the receive that brings it. */
typedef struct {
    int peer, tag;
    int64_t first;               /* its first transfer in the part's list */
    int64_t bytes, pieces, transposed;
    int from;                    /* passed on: the receive it waits for; else -1 */
} nd_message;

typedef struct {
    int nsend, nrecv;
    nd_message *send, *recv;
    int *starts_first, *starts;  /* per receive (CSR): the sends it lets start */
    double local_seconds;        /* the copies to itself */
} rank_work;

typedef struct {
    const machine *m;
    rank_work *ranks;
    relay_prediction *out;
    double *rank_seconds;
} nd_sim;

typedef struct {
    nd_sim *sim;
    int rank;
} nd_actor;

/* ---- the messages of one rank ------------------------------------------- */

/* Whether unpacking a pair's transfers transposes: A's fastest-varying
 * dimension is not B's (the walk reads B's in runs and writes A's across). */
static int pair_transposes(const rl_nd_pair *pair)
{
    const relay_nd_layout *a = pair->dst, *b = pair->src;
    int fastest_a = a->order == RELAY_ROW_MAJOR ? a->ndims - 1 : 0;
    int fastest_b = b->order == RELAY_ROW_MAJOR ? b->ndims - 1 : 0;
    return pair->perm[fastest_a] != fastest_b;
}

/* Adds t to msg: its bytes, and as pieces the moves the executor's walk
 * makes over it (nd_walk_order.h: one rectangle per pair of runs of the
 * two innermost dimensions, at every index of the outer ones). */
static void add_transfer(nd_message *msg, const relay_plan *p, const rl_nd_transfer *t)
{
    const rl_nd_pair *pair = &p->nd->pairs[t->pair];
    int64_t bytes = t->elems * (int64_t)relay_type_size(p->type);
    rl_nd_order order;
    rl_nd_walk_order(&order, pair);
    msg->bytes += bytes;
    msg->pieces += rl_nd_walk_moves(&order, t);
    msg->transposed += pair_transposes(pair) ? bytes : 0;
}

/* The messages of a sorted transfer list, as the executor groups them: a
 * peer's transfers read from B as one, each passed on alone, numbered
 * 1, 2, ... among those between the same two ranks. */
static nd_message *group(const relay_plan *p, const rl_nd_transfer *v, int64_t n, int *count)
{
    int messages = 0;
    for (int64_t i = 0; i < n; i++) messages += i == 0 || v[i].peer != v[i - 1].peer || v[i].forwarded;
    nd_message *out = malloc((size_t)(messages ? messages : 1) * sizeof *out);
    if (!out) return NULL;
    int at = -1;
    for (int64_t i = 0; i < n; i++) {
        int same_peer = i > 0 && v[i].peer == v[i - 1].peer;
        if (!same_peer || v[i].forwarded) {
            int tag = !v[i].forwarded ? 0 : same_peer ? out[at].tag + 1 : 1;
            out[++at] = (nd_message){v[i].peer, tag, i, 0, 0, 0, -1};
        }
        add_transfer(&out[at], p, &v[i]);
    }
    *count = messages;
    return out;
}

/* A received transfer's (pair, origin), which a rank receives once, and
 * the receive that brings it. */
typedef struct {
    int64_t key;
    int recv;
} landing;

static int64_t landing_key(const rl_nd_transfer *t) { return (int64_t)t->pair << 32 | (uint32_t)t->origin; }

static int by_key(const void *x, const void *y)
{
    int64_t a = ((const landing *)x)->key, b = ((const landing *)y)->key;
    return (a > b) - (a < b);
}

/* Points each send passed on at the receive that brings its transfer. */
static int link_passed_on(rank_work *w, const rl_nd_part *part)
{
    landing *v = malloc((size_t)(part->nrecv ? part->nrecv : 1) * sizeof *v);
    if (!v) return -1;
    int64_t n = 0;
    for (int i = 0; i < w->nrecv; i++) {
        int64_t end = i + 1 < w->nrecv ? w->recv[i + 1].first : part->nrecv;
        for (int64_t j = w->recv[i].first; j < end; j++) v[n++] = (landing){landing_key(&part->recv[j]), i};
    }
    qsort(v, (size_t)n, sizeof *v, by_key);
    int failed = 0;
    for (int i = 0; i < w->nsend && !failed; i++) {
        if (!w->send[i].tag) continue;
        landing key = {landing_key(&part->send[w->send[i].first]), 0};
        const landing *l = n ? bsearch(&key, v, (size_t)n, sizeof *v, by_key) : NULL;
        if (l) w->send[i].from = l->recv;
        else failed = 1;
    }
    free(v);
    if (failed) fprintf(stderr, "relay_plan_predict: rank %d passes on a transfer it never receives\n", part->rank);
    return failed ? -1 : 0;
}

/* Per receive, the sends passed on that its landing starts (CSR). */
static int index_starts(rank_work *w)
{
    w->starts_first = calloc((size_t)w->nrecv + 1, sizeof *w->starts_first);
    w->starts = malloc((size_t)(w->nsend ? w->nsend : 1) * sizeof *w->starts);
    if (!w->starts_first || !w->starts) return -1;
    for (int i = 0; i < w->nsend; i++)
        if (w->send[i].from >= 0) w->starts_first[w->send[i].from + 1]++;
    for (int r = 0; r < w->nrecv; r++) w->starts_first[r + 1] += w->starts_first[r];
    for (int i = 0; i < w->nsend; i++) /* fills each receive's range, then shifts starts_first back */
        if (w->send[i].from >= 0) w->starts[w->starts_first[w->send[i].from]++] = i;
    for (int r = w->nrecv; r > 0; r--) w->starts_first[r] = w->starts_first[r - 1];
    w->starts_first[0] = 0;
    return 0;
}

static double local_seconds(const machine *m, const relay_plan *p, const rl_nd_part *part)
{
    double seconds = 0;
    for (int64_t i = 0; i < part->nlocal; i++) {
        nd_message copy = {0};
        add_transfer(&copy, p, &part->local[i]);
        seconds += copy_seconds(m, copy.bytes, copy.pieces, copy.transposed);
    }
    return seconds;
}

static int derive_rank(rank_work *w, const relay_plan *p, const machine *m, int rank)
{
    rl_nd_part part;
    if (rl_nd_part_derive(&part, p, rank, RL_ND_SENDS | RL_ND_RECEIVES)) {
        fprintf(stderr, "relay_plan_predict: rank %d: %s\n", rank, relay_last_error());
        return -1;
    }
    w->send = group(p, part.send, part.nsend, &w->nsend);
    w->recv = group(p, part.recv, part.nrecv, &w->nrecv);
    int failed = !w->send || !w->recv || link_passed_on(w, &part) || index_starts(w);
    w->local_seconds = local_seconds(m, p, &part);
    rl_nd_part_free(&part);
    return failed ? -1 : 0;
}

static void free_work(rank_work *w, int nranks)
{
    for (int r = 0; w && r < nranks; r++) {
        free(w[r].send);
        free(w[r].recv);
        free(w[r].starts_first);
        free(w[r].starts);
    }
    free(w);
}

/* ---- one rank's replay --------------------------------------------------- */

typedef struct {
    sg_comm_t *sends, *recvs;
    pair_message **landed;
    int *slot;                   /* recvs[k] lands in landed[slot[k]] */
} nd_scratch;

static void post_send(const nd_sim *sim, int rank, const nd_message *msg, nd_scratch *x, int *nposted)
{
    x->sends[(*nposted)++] = tagged_send_async(sim->m, rank, msg->peer, msg->tag, msg->bytes);
}

/* Waits for the receives: as each lands, the sends that pass it on leave,
 * then it is unpacked. */
static void land_messages(const nd_sim *sim, int rank, nd_scratch *x, int *nposted)
{
    const rank_work *w = &sim->ranks[rank];
    for (int pending = w->nrecv; pending > 0;) {
        int k = (int)sg_comm_wait_any(x->recvs, (size_t)pending), i = x->slot[k];
        pair_landed(sim->out, x->landed[i]);
        for (int j = w->starts_first[i]; j < w->starts_first[i + 1]; j++) post_send(sim, rank, &w->send[w->starts[j]], x, nposted);
        spend(copy_seconds(sim->m, w->recv[i].bytes, w->recv[i].pieces, w->recv[i].transposed));
        pending--;
        x->recvs[k] = x->recvs[pending];
        x->slot[k] = x->slot[pending];
    }
}

static void run_rank(int argc, char **argv)
{
    const nd_actor *a = sg_actor_self_get_data();
    const nd_sim *sim = a->sim;
    const rank_work *w = &sim->ranks[a->rank];
    size_t ns = (size_t)(w->nsend ? w->nsend : 1), nr = (size_t)(w->nrecv ? w->nrecv : 1);
    nd_scratch x = {malloc(ns * sizeof *x.sends), malloc(nr * sizeof *x.recvs), malloc(nr * sizeof *x.landed),
                    malloc(nr * sizeof *x.slot)};
    if (!x.sends || !x.recvs || !x.landed || !x.slot) {
        fprintf(stderr, "relay_plan_predict: out of memory simulating rank %d\n", a->rank);
        abort();
    }
    for (int i = 0; i < w->nrecv; i++) {
        x.slot[i] = i;
        x.recvs[i] = tagged_receive_async(w->recv[i].peer, a->rank, w->recv[i].tag, &x.landed[i]);
    }
    int nposted = 0;
    for (int i = 0; i < w->nsend; i++)
        if (w->send[i].from < 0) {
            spend(copy_seconds(sim->m, w->send[i].bytes, w->send[i].pieces, 0));
            post_send(sim, a->rank, &w->send[i], &x, &nposted);
        }
    spend(w->local_seconds);
    land_messages(sim, a->rank, &x, &nposted);
    sg_comm_wait_all(x.sends, (size_t)nposted);
    sim->rank_seconds[a->rank] = simgrid_get_clock();
    free(x.sends);
    free(x.recvs);
    free(x.landed);
    free(x.slot);
}

int simulate_nd(const relay_plan *p, const machine *m, relay_prediction *out, double *rank_seconds)
{
    nd_sim sim = {m, calloc((size_t)p->nranks, sizeof *sim.ranks), out, rank_seconds};
    *out = (relay_prediction){.schedule = RELAY_SCHED_P2P};
    nd_actor *actors = malloc((size_t)p->nranks * sizeof *actors);
    int failed = !actors || !sim.ranks;
    for (int r = 0; !failed && r < p->nranks; r++) failed = derive_rank(&sim.ranks[r], p, m, r);
    if (!failed) failed = start_engine(m, p->nranks);
    for (int r = 0; !failed && r < p->nranks; r++) actors[r] = (nd_actor){&sim, r};
    if (!failed) failed = run_actors(m, p->nranks, run_rank, actors, sizeof *actors, rank_seconds, out);
    free(actors);
    free_work(sim.ranks, p->nranks);
    return failed ? -1 : 0;
}
