/* nd_transfers.c — deriving one rank's transfers of an N-D plan from its
 * header (nd_transfers.h).
 *
 * Per pair, in three steps:
 *   1. cut: along each of A's dimensions, the rank's own coordinate (of A's
 *      layout when it receives, of B's when it sends) meets the other
 *      layout's coordinates: a list of runs for each other coordinate that
 *      shares indices with it (nd_cut.h), none at all when the rank's own
 *      array is empty;
 *   2. peers: the other side's mesh positions whose coordinates all have
 *      runs are the candidate peers (every replica of a destination; one
 *      chosen replica per group of a source, every partial piece);
 *   3. the transfer with a peer is the product of its coordinates' run
 *      lists, kept when the replica rule (nd_replicas.h) picks this pair of
 *      ranks.
 * Both ends compute the run list of a pair of coordinates from the same two
 * coordinates, so they derive the same runs in the same order. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "nd_replicas.h"
#include "nd_transfers.h"

/* ---- checks every N-D pair passes ----------------------------------------- */

static relay_status check_perm(const rl_nd_pair *pair, int ndims, const char *what)
{
    int seen[RELAY_ND_MAX_DIMS] = {0}, identity = 1;
    for (int k = 0; k < ndims; k++) {
        int j = pair->perm[k];
        if (j < 0 || j >= ndims || seen[j]++)
            return rl_fail(RELAY_ERR_ARG, "%s: the permutation is not one of %d axes (entry %d is %d)", what, ndims, k, j);
        identity &= j == k;
    }
    if (pair->op == RELAY_OP_N && !identity)
        return rl_fail(RELAY_ERR_ARG, "%s: op N moves axes as they are; permuting them is op T (or C to conjugate)", what);
    if (pair->op != RELAY_OP_N && pair->op != RELAY_OP_T && pair->op != RELAY_OP_C)
        return rl_fail(RELAY_ERR_ARG, "%s: op %d is not N, T or C", what, (int)pair->op);
    return RELAY_OK;
}

static relay_status check_groups(const rl_nd_pair *pair, int nranks, const char *what)
{
    const relay_nd_layout *sides[2] = {pair->dst, pair->src};
    for (int i = 0; i < 2; i++)
        if (sides[i]->min_ranks > nranks)
            return rl_fail(RELAY_ERR_ARG, "%s: %s's mesh holds rank %d, outside a communicator of %d ranks", what, i ? "B" : "A",
                           sides[i]->min_ranks - 1, nranks);
    for (int m = 0; m < pair->dst->mesh_ndims; m++)
        if (pair->dst->place[m].kind == RELAY_PARTIAL)
            return rl_fail(RELAY_ERR_ARG, "%s: A's mesh dimension %d is partial; a destination holds whole values (a partial placement is for sources)",
                           what, m);
    return RELAY_OK;
}

relay_status rl_nd_check_pair(const rl_nd_pair *pair, int nranks, relay_type type, const char *what)
{
    if (!pair->dst || !pair->src) return rl_fail(RELAY_ERR_ARG, "%s: a layout is NULL", what);
    if (relay_type_size(type) == 0) return rl_fail(RELAY_ERR_ARG, "%s: element type %d is not one relay moves", what, (int)type);
    int d = pair->dst->ndims;
    if (pair->src->ndims != d)
        return rl_fail(RELAY_ERR_ARG, "%s: A has %d dimensions and B %d", what, d, pair->src->ndims);
    relay_status st = check_perm(pair, d, what);
    for (int k = 0; !st && k < d; k++)
        if (pair->dst->shape[k] != pair->src->shape[pair->perm[k]])
            st = rl_fail(RELAY_ERR_ARG, "%s: A's dimension %d has %lld elements but B's dimension %d, which the permutation puts there, has %lld",
                         what, k, (long long)pair->dst->shape[k], pair->perm[k], (long long)pair->src->shape[pair->perm[k]]);
    return st ? st : check_groups(pair, nranks, what);
}

/* ---- 3. the transfers, collected ------------------------------------------ */

typedef struct {
    rl_nd_transfer *v;
    int64_t n, cap;
} transfer_list;

static relay_status push_transfer(transfer_list *list, const rl_nd_transfer *t)
{
    if (list->n == list->cap) {
        int64_t cap = list->cap ? 2 * list->cap : 8;
        rl_nd_transfer *grown = realloc(list->v, (size_t)cap * sizeof *grown);
        if (!grown) return RL_NOMEM();
        list->v = grown;
        list->cap = cap;
    }
    list->v[list->n++] = *t;
    return RELAY_OK;
}

/* Coordinate `coord`'s index in a cut, or -1. */
static int64_t find_coord(const rl_nd_dim_cut *c, int64_t coord)
{
    int64_t lo = 0, hi = c->ncoords;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (c->coords[mid] < coord) lo = mid + 1;
        else hi = mid;
    }
    return lo < c->ncoords && c->coords[lo] == coord ? lo : -1;
}

/* The transfer with the peer whose coordinates are at index `at[k]` of
 * each dimension's cut: pointers into the cuts, which the part keeps. */
static void make_transfer(rl_nd_transfer *t, const rl_nd_dim_cut *cuts, const int64_t *at, int ndims)
{
    t->elems = 1;
    for (int k = 0; k < ndims; k++) {
        int64_t first = cuts[k].first[at[k]];
        t->nprogs[k] = cuts[k].first[at[k] + 1] - first;
        t->runs[k] = cuts[k].runs.v + first;
        t->elems *= cuts[k].extent[at[k]]; /* at most the receiver's local elements: no overflow */
    }
}

/* ---- 2. the peers of one pair --------------------------------------------- */

typedef struct {
    const relay_plan *p;
    const rl_nd_pair *pair;
    int pair_index, rank, receiving;
    int my_coords[RELAY_ND_MAX_MESH];
    int64_t my_position;                   /* on my side's mesh */
    rl_nd_dim_cut cuts[RELAY_ND_MAX_DIMS];
    rl_nd_replica_rule rule;               /* B's replica each receiver reads */
    transfer_list *out;                    /* sends or receives, by `receiving` */
    transfer_list *local;
    transfer_list *forwards;               /* receiving: what a replica passes on (sends) */
    int64_t work;
} pair_job;

/* Whether the pair forwards among A's replicas (below). */
static int forwarding(const rl_nd_pair *pair) { return pair->forward && rl_nd_replicas(pair->dst) > 1; }

/* The other side's candidate coordinates along its mesh dimension m. */
static int64_t candidates(const pair_job *job, int m, const int64_t **list, int64_t *all)
{
    const relay_nd_layout *other = job->receiving ? job->pair->src : job->pair->dst;
    const rl_nd_place *pl = &other->place[m];
    if (pl->kind == RELAY_SHARD) {
        int k = pl->dim;
        if (job->receiving) /* B's dimension pl->dim is A's k with perm[k] = pl->dim */
            for (k = 0; job->pair->perm[k] != pl->dim; k++) {}
        *list = job->cuts[k].coords;
        return job->cuts[k].ncoords;
    }
    *list = NULL; /* every coordinate: 0 .. *all-1; one for a replicate dimension whose group, not its replicas, is visited */
    *all = pl->kind == RELAY_REPLICATE && (job->receiving || forwarding(job->pair)) ? 1 : other->mesh_shape[m];
    return *all;
}

/* ---- forwarding among a destination's replicas ----------------------------- */

/* A forwarding pair (pair->forward, A replicated) moves each source
 * group's elements to one replica of each destination group, its entry,
 * and from there down a binomial tree over the group's replicas, counted
 * from the entry: replica e + rel receives from e + (rel without its
 * highest bit) and passes the same bytes on to e + rel + 2^j for every
 * 2^j > rel.  A replica that holds the source group itself (where the
 * two layouts share ranks) reads its own instead, and its children get
 * the elements packed from its B. */

/* One destination group as seen for one source group: where its tree
 * starts and how to name its members. */
typedef struct {
    pair_job *job;
    const int *dcoords, *scoords;        /* the groups (replicate coordinates ignored) */
    int64_t replicas, entry;
} tree;

static int tree_rank(const tree *t, int64_t rel)
{
    const relay_nd_layout *dst = t->job->pair->dst;
    return dst->mesh_ranks[rl_nd_replica_position(dst, t->dcoords, (t->entry + rel) % t->replicas)];
}

static int tree_holds(const tree *t, int64_t rel) { return rl_nd_member_index(t->job->pair->src, t->scoords, tree_rank(t, rel)) >= 0; }

static int64_t tree_parent(int64_t rel) { return rel & ~((int64_t)1 << (63 - __builtin_clzll((unsigned long long)rel))); }

/* The entry: the lowest replica that holds the source group, found over
 * whichever group has fewer replicas; else one spread by the groups'
 * positions. */
static int64_t entry_replica(const relay_nd_layout *dst, const int *dcoords, const relay_nd_layout *src, const int *scoords)
{
    int64_t rd = rl_nd_replicas(dst), rs = rl_nd_replicas(src), best = -1;
    for (int64_t i = 0; rd <= rs && i < rd; i++)
        if (rl_nd_member_index(src, scoords, dst->mesh_ranks[rl_nd_replica_position(dst, dcoords, i)]) >= 0) return i;
    for (int64_t i = 0; rd > rs && i < rs; i++) {
        int64_t j = rl_nd_member_index(dst, dcoords, src->mesh_ranks[rl_nd_replica_position(src, scoords, i)]);
        if (j >= 0 && (best < 0 || j < best)) best = j;
    }
    return best >= 0 ? best : (rl_nd_replica_position(src, scoords, 0) + rl_nd_replica_position(dst, dcoords, 0)) % rd;
}

static tree tree_of(pair_job *job, const int *dcoords, const int *scoords)
{
    tree t = {job, dcoords, scoords, rl_nd_replicas(job->pair->dst), 0};
    t.entry = entry_replica(job->pair->dst, dcoords, job->pair->src, scoords);
    return t;
}

/* The rank that packs from B what member rel gets: its nearest ancestor
 * (itself included) that holds the source group, else the replica the
 * rule picks for the entry.  O(log replicas). */
static relay_status tree_origin(const tree *t, int64_t rel, int *origin)
{
    for (;; rel = tree_parent(rel)) {
        if (tree_holds(t, rel)) {
            *origin = tree_rank(t, rel);
            return RELAY_OK;
        }
        if (rel == 0) break;
    }
    const relay_nd_layout *dst = t->job->pair->dst;
    int64_t position = rl_nd_replica_position(dst, t->dcoords, t->entry);
    return rl_nd_source_replica(&t->job->rule, t->scoords, dst->mesh_ranks[position], position, origin);
}

/* ---- 3'. the transfers of one peer ----------------------------------------- */

static relay_status emit(pair_job *job, transfer_list *to, int peer, int origin, const int64_t *at, int64_t partial)
{
    rl_nd_transfer t = {.pair = job->pair_index, .peer = peer, .origin = origin, .partial = partial,
                        .forwarded = origin != peer && origin != job->rank};
    make_transfer(&t, job->cuts, at, job->pair->dst->ndims);
    return push_transfer(to, &t);
}

/* In a forwarding pair: this replica's transfer of source group `coords`
 * (its own, from its parent, or for the entry from the origin) and those
 * it passes on to its children that do not hold the group. */
static relay_status receive_in_tree(pair_job *job, const int *coords, const int64_t *at, int64_t partial)
{
    tree t = tree_of(job, job->my_coords, coords);
    int64_t rel = (rl_nd_replica_index(job->pair->dst, job->my_coords) - t.entry + t.replicas) % t.replicas;
    int origin;
    relay_status st = tree_origin(&t, rel, &origin);
    if (st) return st;
    int peer = origin == job->rank || rel == 0 ? origin : tree_rank(&t, tree_parent(rel));
    st = emit(job, peer == job->rank ? job->local : job->out, peer, origin, at, partial);
    for (int64_t step = 1; !st && step < t.replicas; step <<= 1)
        if (step > rel && rel + step < t.replicas && !tree_holds(&t, rel + step))
            st = emit(job, job->forwards, tree_rank(&t, rel + step), origin, at, partial);
    return st;
}

/* Receiving source group `coords`: from the replica the rule picks, or in
 * a forwarding pair as its tree says. */
static relay_status receive_group(pair_job *job, const int *coords, const int64_t *at, int64_t partial)
{
    if (forwarding(job->pair)) return receive_in_tree(job, coords, at, partial);
    int peer;
    relay_status st = rl_nd_source_replica(&job->rule, coords, job->rank, job->my_position, &peer);
    return st ? st : emit(job, peer == job->rank ? job->local : job->out, peer, peer, at, partial);
}

/* Sending my group to the destination at `coords`, if it reads it from me
 * (in a forwarding pair, whose sender visits groups: to the group's entry,
 * if I am its origin). */
static relay_status send_group(pair_job *job, const int *coords, const int64_t *at, int64_t partial)
{
    const relay_nd_layout *dst = job->pair->dst;
    int64_t position = rl_nd_mesh_position(dst, coords);
    int peer = dst->mesh_ranks[position], reader;
    relay_status st;
    if (forwarding(job->pair)) {
        tree t = tree_of(job, coords, job->my_coords);
        peer = tree_rank(&t, 0);
        st = tree_origin(&t, 0, &reader);
    } else {
        st = rl_nd_source_replica(&job->rule, job->my_coords, peer, position, &reader);
    }
    if (st || reader != job->rank || peer == job->rank) return st; /* the receiving pass keeps local transfers */
    return emit(job, job->out, peer, job->rank, at, partial);
}

/* The transfer with the other side's mesh position at `coords`. */
static relay_status visit_peer(pair_job *job, const int *coords)
{
    const relay_nd_layout *dst = job->pair->dst, *src = job->pair->src;
    int64_t at[RELAY_ND_MAX_DIMS], partial = 0;
    job->work++;
    for (int k = 0; k < dst->ndims; k++) {
        int coord = job->receiving ? rl_nd_dim_coord(src, job->pair->perm[k], coords) : rl_nd_dim_coord(dst, k, coords);
        if ((at[k] = find_coord(&job->cuts[k], coord)) < 0) return RELAY_OK;
    }
    const int *src_coords = job->receiving ? coords : job->my_coords;
    for (int m = 0; m < src->mesh_ndims; m++)
        if (src->place[m].kind == RELAY_PARTIAL) partial = partial * src->mesh_shape[m] + src_coords[m];
    return job->receiving ? receive_group(job, coords, at, partial) : send_group(job, coords, at, partial);
}

/* Every combination of the other side's candidate coordinates. */
static relay_status visit_peers(pair_job *job)
{
    const relay_nd_layout *other = job->receiving ? job->pair->src : job->pair->dst;
    int nm = other->mesh_ndims, coords[RELAY_ND_MAX_MESH];
    const int64_t *lists[RELAY_ND_MAX_MESH];
    int64_t counts[RELAY_ND_MAX_MESH], all[RELAY_ND_MAX_MESH], i[RELAY_ND_MAX_MESH] = {0};
    for (int m = 0; m < nm; m++)
        if ((counts[m] = candidates(job, m, &lists[m], &all[m])) == 0) return RELAY_OK;
    for (;;) {
        for (int m = 0; m < nm; m++) coords[m] = (int)(lists[m] ? lists[m][i[m]] : i[m]);
        relay_status st = visit_peer(job, coords);
        if (st) return st;
        int m = nm - 1;
        while (m >= 0 && ++i[m] == counts[m]) i[m--] = 0;
        if (m < 0) return RELAY_OK;
    }
}

/* ---- one pair, one direction ------------------------------------------------------ */

/* What the part has derived so far: the run lists transfers point into,
 * kept for its life, and the work the derivation may still take. */
typedef struct {
    rl_nd_runs **v;
    int64_t n, cap;
    int64_t work, allowance;
} derivation;

static relay_status keep_cut(derivation *dv, rl_nd_runs *runs)
{
    if (dv->n == dv->cap) {
        int64_t cap = dv->cap ? 2 * dv->cap : 8;
        rl_nd_runs **grown = realloc(dv->v, (size_t)cap * sizeof *grown);
        if (!grown) return RL_NOMEM();
        dv->v = grown;
        dv->cap = cap;
    }
    dv->v[dv->n++] = runs;
    return RELAY_OK;
}

static void free_kept(rl_nd_runs **v, int64_t n)
{
    for (int64_t i = 0; v && i < n; i++) free(v[i]);
    free(v);
}

/* Whether the rank's own array of the pair holds no element: then it
 * neither sends nor receives any, whatever the cuts. */
static int holds_nothing(const relay_nd_layout *mine, const int *coords)
{
    int64_t extents[RELAY_ND_MAX_DIMS];
    rl_nd_local_extents(mine, coords, extents);
    for (int k = 0; k < mine->ndims; k++)
        if (extents[k] == 0) return 1;
    return 0;
}

/* The work a pair may take beyond the budget: a few steps per rank of its
 * meshes and per block of the rank's own array along each dimension (the
 * transfers and progressions it makes are allowed for as they come). */
static int64_t pair_allowance(const rl_nd_pair *pair, const relay_nd_layout *mine, const int *coords)
{
    int64_t steps = pair->dst->mesh_size + pair->src->mesh_size;
    for (int k = 0; k < mine->ndims; k++) {
        rl_nd_blocks x;
        rl_nd_blocks_of(mine, k, rl_nd_dim_coord(mine, k, coords), &x);
        steps += x.count;
    }
    return 8 * steps;
}

static relay_status over_budget(const derivation *dv, const relay_plan *p, int k, int rank)
{
    if (dv->work <= RL_ND_WORK_BUDGET + dv->allowance) return RELAY_OK;
    return rl_fail(RELAY_ERR_UNSUPPORTED,
                   "N-D plan: deriving rank %d's transfers of pair %d of %d takes more than %lld steps, far more than its cuts and "
                   "meshes should: relay refuses to derive them",
                   rank, k, p->nd->count, (long long)(RL_ND_WORK_BUDGET + dv->allowance));
}

static relay_status derive_pair(const relay_plan *p, int k, int rank, int receiving, transfer_list *out, transfer_list *local,
                                transfer_list *forwards, derivation *dv)
{
    const rl_nd_pair *pair = &p->nd->pairs[k];
    const relay_nd_layout *mine = receiving ? pair->dst : pair->src;
    pair_job job = {.p = p, .pair = pair, .pair_index = k, .rank = rank, .receiving = receiving, .out = out, .local = local,
                    .forwards = forwards};
    job.my_position = rl_nd_position_of(mine, rank);
    if (job.my_position < 0) return RELAY_OK;
    rl_nd_mesh_coords(mine, job.my_position, job.my_coords);
    if (holds_nothing(mine, job.my_coords)) return RELAY_OK;
    dv->allowance += pair_allowance(pair, mine, job.my_coords);
    rl_nd_replica_rule_init(&job.rule, pair->src, p->nd->node_of_rank);
    int64_t made = out->n + local->n + forwards->n;
    relay_status st = RELAY_OK;
    int d = pair->dst->ndims;
    for (int a = 0; a < d && !st; a++) {
        int dim_in_mine = receiving ? a : pair->perm[a];
        st = rl_nd_cut_dimension(&job.cuts[a], pair, a, receiving, rl_nd_dim_coord(mine, dim_in_mine, job.my_coords), &job.work);
        dv->allowance += 8 * job.cuts[a].runs.n;
    }
    if (!st) st = visit_peers(&job);
    dv->work += job.work + job.rule.work;
    dv->allowance += 8 * (out->n + local->n + forwards->n - made);
    if (!st) st = over_budget(dv, p, k, rank);
    for (int a = 0; a < d; a++) {
        if (!st && job.cuts[a].runs.v && (st = keep_cut(dv, job.cuts[a].runs.v)) == RELAY_OK) job.cuts[a].runs.v = NULL;
        rl_nd_dim_cut_free(&job.cuts[a]);
    }
    rl_nd_replica_rule_free(&job.rule);
    return st;
}

/* ---- the part ---------------------------------------------------------------- */

/* Message order, the same at both ends: by peer; a peer's transfers read
 * from B by their origin (one message) before those passed on (one message
 * each); then by pair and origin. */
static int by_peer_then_pair(const void *a, const void *b)
{
    const rl_nd_transfer *x = a, *y = b;
    int fx = rl_nd_forwarded(x), fy = rl_nd_forwarded(y);
    if (x->peer != y->peer) return x->peer < y->peer ? -1 : 1;
    if (fx != fy) return fx - fy;
    if (x->pair != y->pair) return x->pair < y->pair ? -1 : 1;
    return (x->origin > y->origin) - (x->origin < y->origin);
}

void rl_nd_part_free(rl_nd_part *part)
{
    if (!part) return;
    free(part->send);
    free(part->recv);
    free(part->local);
    free_kept(part->cuts, part->ncuts);
    memset(part, 0, sizeof *part);
}

relay_status rl_nd_part_derive(rl_nd_part *out, const relay_plan *p, int rank, unsigned which)
{
    transfer_list send = {0}, recv = {0}, local = {0}, ignored = {0};
    derivation dv = {0};
    relay_status st = RELAY_OK;
    for (int k = 0; k < p->nd->count && !st; k++) {
        if (which & RL_ND_SENDS) st = derive_pair(p, k, rank, 0, &send, &ignored, &ignored, &dv);
        if (!st)
            st = derive_pair(p, k, rank, 1, (which & RL_ND_RECEIVES) ? &recv : &ignored, &local, (which & RL_ND_SENDS) ? &send : &ignored, &dv);
        ignored.n = 0;
    }
    free(ignored.v);
    if (st) {
        free(send.v);
        free(recv.v);
        free(local.v);
        free_kept(dv.v, dv.n);
        return st;
    }
    if (send.n) qsort(send.v, (size_t)send.n, sizeof *send.v, by_peer_then_pair);
    if (recv.n) qsort(recv.v, (size_t)recv.n, sizeof *recv.v, by_peer_then_pair);
    *out = (rl_nd_part){rank, send.n, recv.n, local.n, send.v, recv.v, local.v, dv.v, dv.n, dv.work};
    return RELAY_OK;
}
