/* nd_plan.c — planning N-D transforms (relay/nd.h).
 *
 * An N-D plan is its header: the layouts, ops and permutations, checked,
 * and the node map.  Each rank derives its own messages from it when it
 * binds (plan_format/nd_transfers.c), so planning a million-message
 * reshape costs what its statistics cost: every rank's receives, counted
 * once here, in parallel. */
#include <stdio.h>
#include <string.h>

#include "codec.h"
#include "error.h"
#include "nd_transfers.h"
#include "planner_internal.h"

static relay_status check_nd_options(const relay_plan_options *o, int nranks)
{
    if (o->relabel != RELAY_RELABEL_NONE)
        return rl_fail(RELAY_ERR_UNSUPPORTED, "N-D plan: relabeling is not available for N-D layouts (use RELAY_RELABEL_NONE)");
    if (o->schedule != RELAY_SCHED_AUTO && o->schedule != RELAY_SCHED_P2P)
        return rl_fail(RELAY_ERR_UNSUPPORTED, "N-D plan: schedule %d; N-D plans replay point to point (auto or p2p)", (int)o->schedule);
    if (o->max_buffer_bytes)
        return rl_fail(RELAY_ERR_UNSUPPORTED, "N-D plan: a memory cap (max_buffer_bytes) is not available for N-D layouts");
    return rl_check_options(o, nranks);
}

static relay_status check_nd_args(relay_plan **out, int nranks, int count, const relay_nd_layout *const *dst,
                                  const relay_nd_layout *const *src, const relay_op *ops)
{
    if (!out || !dst || !src || !ops) return rl_fail(RELAY_ERR_ARG, "N-D plan: NULL argument");
    if (nranks < 1 || nranks > RELAY_MAX_RANKS)
        return rl_fail(RELAY_ERR_ARG, "N-D plan: nranks = %d is not in [1, %d]", nranks, RELAY_MAX_RANKS);
    if (count < 1 || count > RELAY_MAX_PAIRS)
        return rl_fail(RELAY_ERR_ARG, "N-D plan: count = %d pairs is not in [1, %d]", count, RELAY_MAX_PAIRS);
    return RELAY_OK;
}

/* The permutation of pair k: the caller's, else what op implies (the
 * identity for N, the axes reversed for T and C). */
static void pair_perm(rl_nd_pair *pair, const int *perm, int ndims)
{
    for (int k = 0; k < ndims; k++)
        pair->perm[k] = perm ? perm[k] : pair->op == RELAY_OP_N ? k : ndims - 1 - k;
}

/* Checks each pair as the caller gave it, then keeps copies of its layouts. */
static relay_status copy_pairs(relay_plan *p, const relay_nd_layout *const *dst, const relay_nd_layout *const *src,
                               const relay_op *ops, const int *const *perms)
{
    for (int k = 0; k < p->nd->count; k++) {
        char what[64];
        snprintf(what, sizeof what, "N-D plan, pair %d", k);
        if (!dst[k] || !src[k]) return rl_fail(RELAY_ERR_ARG, "%s: a layout is NULL", what);
        rl_nd_pair given = {.op = ops[k], .dst = (relay_nd_layout *)dst[k], .src = (relay_nd_layout *)src[k]};
        pair_perm(&given, perms ? perms[k] : NULL, dst[k]->ndims);
        relay_status st = rl_nd_check_pair(&given, p->nranks, p->type, what);
        if (st) return st;
        rl_nd_pair *pair = &p->nd->pairs[k];
        memcpy(pair->perm, given.perm, sizeof pair->perm);
        pair->op = given.op;
        if ((st = rl_nd_layout_clone(&pair->dst, dst[k])) || (st = rl_nd_layout_clone(&pair->src, src[k]))) return st;
    }
    return RELAY_OK;
}

static relay_status copy_node_map(relay_plan *p, const int *node_of_rank)
{
    if (!node_of_rank) return RELAY_OK;
    if (!(p->nd->node_of_rank = rl_malloc_array((size_t)p->nranks, sizeof *p->nd->node_of_rank))) return RL_NOMEM();
    for (int r = 0; r < p->nranks; r++) p->nd->node_of_rank[r] = node_of_rank[r];
    return RELAY_OK;
}

/* Statistics saturate at 2^63 - 1 rather than wrap: 16 replicas of a
 * 2^56-element array move more bytes than an int64_t counts. */
static void add_saturating(int64_t *sum, int64_t a, int64_t b)
{
    int64_t product, total;
    if (rl_mul_overflows(a, b, &product) || rl_add_overflows(*sum, product, &total)) total = INT64_MAX;
    *sum = total;
}

/* One rank's receives, counted into s: a message per peer for what was
 * read from B, and one per transfer passed on by a replica (nd_messages.h). */
static relay_status count_rank(const relay_plan *p, int rank, relay_plan_stats *s)
{
    rl_nd_part part;
    relay_status st = rl_nd_part_derive(&part, p, rank, RL_ND_RECEIVES);
    if (st) return st;
    int64_t esz = (int64_t)relay_type_size(p->type);
    for (int64_t i = 0; i < part.nrecv; i++) {
        const rl_nd_transfer *t = &part.recv[i];
        add_saturating(&s->bytes_remote, t->elems, esz);
        s->messages += i == 0 || t->peer != part.recv[i - 1].peer || t->forwarded;
    }
    for (int pass = 0; pass < 2; pass++) {
        const rl_nd_transfer *v = pass ? part.local : part.recv;
        for (int64_t i = 0, n = pass ? part.nlocal : part.nrecv; i < n; i++) {
            int64_t boxes = 1;
            for (int k = 0; k < p->nd->pairs[v[i].pair].dst->ndims; k++) boxes *= rl_nd_transfer_runs(&v[i], k);
            add_saturating(&s->bytes_total, v[i].elems, esz);
            add_saturating(&s->pieces, boxes, 1);
        }
    }
    rl_nd_part_free(&part);
    return RELAY_OK;
}

/* What forwarding changes, per rank: the bytes it sends and receives, and
 * those it packs (a transfer passed on is sent from where it landed). */
typedef struct {
    int64_t busiest;         /* the most any rank sends or receives */
    int64_t packed;          /* packed by all ranks together */
    int64_t passed_on;       /* the most transfers one rank passes on to one peer: each its own tag */
} traffic;

static relay_status rank_traffic(const relay_plan *p, int rank, traffic *t)
{
    rl_nd_part part;
    relay_status st = rl_nd_part_derive(&part, p, rank, RL_ND_SENDS | RL_ND_RECEIVES);
    if (st) return st;
    int64_t sent = 0, received = 0, run = 0;
    for (int64_t i = 0; i < part.nsend; i++) {
        const rl_nd_transfer *s = &part.send[i];
        sent += s->elems;
        t->packed += s->forwarded ? 0 : s->elems;
        run = s->forwarded ? (i > 0 && part.send[i - 1].peer == s->peer ? run + 1 : 1) : 0;
        if (run > t->passed_on) t->passed_on = run;
    }
    for (int64_t i = 0; i < part.nrecv; i++) received += part.recv[i].elems;
    if (sent > t->busiest) t->busiest = sent;
    if (received > t->busiest) t->busiest = received;
    rl_nd_part_free(&part);
    return RELAY_OK;
}

static relay_status plan_traffic(const relay_plan *p, traffic *total)
{
    relay_status st = RELAY_OK;
    *total = (traffic){0, 0, 0};
#pragma omp parallel if (p->nranks >= RL_PARALLEL_RANKS)
    {
        traffic mine = {0, 0, 0};
        relay_status my_st = RELAY_OK;
#pragma omp for schedule(dynamic, 16)
        for (int r = 0; r < p->nranks; r++)
            if (!my_st) my_st = rank_traffic(p, r, &mine);
#pragma omp critical
        {
            if (my_st && !st) st = my_st;
            if (mine.busiest > total->busiest) total->busiest = mine.busiest;
            if (mine.passed_on > total->passed_on) total->passed_on = mine.passed_on;
            total->packed += mine.packed;
        }
    }
    return st;
}

static void set_forwarding(relay_plan *p, int forward)
{
    for (int k = 0; k < p->nd->count; k++) p->nd->pairs[k].forward = forward && rl_nd_replicas(p->nd->pairs[k].dst) > 1;
}

/* How replicated destinations receive: as the options say, or under
 * auto whichever way leaves the busiest rank fewer bytes to send or
 * receive; on a tie, the one that packs fewer (on a shared-memory node
 * the copies are the cost: 8 tensors from 4 ranks to 2 x 2 replicas
 * replay faster forwarded, docs/benchmarks.md), and
 * direct if that ties too (its messages start at once), or if forwarding
 * would need more tags between two ranks than every MPI has. */
static relay_status choose_replicas(relay_plan *p, relay_replicas how)
{
    int replicated = 0;
    for (int k = 0; k < p->nd->count; k++) replicated |= rl_nd_replicas(p->nd->pairs[k].dst) > 1;
    if (!replicated || how != RELAY_REPLICAS_AUTO) {
        set_forwarding(p, how == RELAY_REPLICAS_FORWARD);
        return RELAY_OK;
    }
    traffic direct, forward;
    set_forwarding(p, 1);
    relay_status st = plan_traffic(p, &forward);
    set_forwarding(p, 0);
    if (!st) st = plan_traffic(p, &direct);
    int faster = forward.busiest < direct.busiest || (forward.busiest == direct.busiest && forward.packed < direct.packed);
    set_forwarding(p, !st && faster && forward.passed_on <= RL_ND_GUARANTEED_TAGS);
    return st;
}

static relay_status count_stats(relay_plan *p)
{
    relay_status st = RELAY_OK;
    relay_plan_stats total = {0};
#pragma omp parallel if (p->nranks >= RL_PARALLEL_RANKS)
    {
        relay_plan_stats mine = {0};
        relay_status my_st = RELAY_OK;
#pragma omp for schedule(dynamic, 16)
        for (int r = 0; r < p->nranks; r++)
            if (!my_st) my_st = count_rank(p, r, &mine);
#pragma omp critical
        {
            if (my_st && !st) st = my_st;
            add_saturating(&total.bytes_total, mine.bytes_total, 1);
            add_saturating(&total.bytes_remote, mine.bytes_remote, 1);
            total.messages += mine.messages;
            add_saturating(&total.pieces, mine.pieces, 1);
        }
    }
    total.bytes_remote_identity = total.bytes_remote;
    p->stats = total;
    return st;
}

relay_status relay_plan_nd_batch(relay_plan **out, int nranks, int count, const relay_nd_layout *const *dst,
                                 const relay_nd_layout *const *src, const relay_op *ops, const int *const *perms, relay_type type,
                                 const relay_plan_options *opts)
{
    relay_plan_options defaults;
    relay_plan_options_init(&defaults);
    const relay_plan_options *o = opts ? opts : &defaults;
    relay_status st = check_nd_args(out, nranks, count, dst, src, ops);
    if (!st) st = check_nd_options(o, nranks);
    if (st) return st;
    relay_plan *p = NULL;
    if ((st = rl_nd_plan_new(&p, nranks, count, type))) return st;
    st = copy_pairs(p, dst, src, ops, perms);
    if (!st) st = copy_node_map(p, o->node_of_rank);
    if (!st) st = choose_replicas(p, o->replicas);
    if (!st) st = count_stats(p);
    if (st) {
        relay_plan_free(p);
        return st;
    }
    p->fingerprint = rl_plan_hash(p);
    *out = p;
    return RELAY_OK;
}

relay_status relay_plan_nd(relay_plan **out, int nranks, const relay_nd_layout *dst, const relay_nd_layout *src, relay_op op,
                           const int *perm, relay_type type, const relay_plan_options *opts)
{
    return relay_plan_nd_batch(out, nranks, 1, &dst, &src, &op, perm ? &perm : NULL, type, opts);
}
