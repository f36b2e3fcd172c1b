/* nd_replicas.c — a layout's groups and replicas, and the rule that picks
 * the source replica a receiver reads (nd_replicas.h). */
#include <string.h>

#include "error.h"
#include "nd_replicas.h"

/* ---- groups and replicas ---------------------------------------------------- */

int64_t rl_nd_replica_position(const relay_nd_layout *l, const int *coords, int64_t i)
{
    int c[RELAY_ND_MAX_MESH];
    memcpy(c, coords, (size_t)l->mesh_ndims * sizeof *c);
    for (int m = l->mesh_ndims - 1; m >= 0; m--)
        if (l->place[m].kind == RELAY_REPLICATE) {
            c[m] = (int)(i % l->mesh_shape[m]);
            i /= l->mesh_shape[m];
        }
    return rl_nd_mesh_position(l, c);
}

int64_t rl_nd_replica_index(const relay_nd_layout *l, const int *coords)
{
    int64_t i = 0;
    for (int m = 0; m < l->mesh_ndims; m++)
        if (l->place[m].kind == RELAY_REPLICATE) i = i * l->mesh_shape[m] + coords[m];
    return i;
}

int64_t rl_nd_member_index(const relay_nd_layout *l, const int *coords, int rank)
{
    int64_t at = rl_nd_position_of(l, rank);
    int own[RELAY_ND_MAX_MESH];
    if (at < 0) return -1;
    rl_nd_mesh_coords(l, at, own);
    for (int m = 0; m < l->mesh_ndims; m++)
        if (l->place[m].kind != RELAY_REPLICATE && own[m] != coords[m]) return -1;
    return rl_nd_replica_index(l, own);
}

/* ---- the table of one group's replicas by node --------------------------------- */

/* A node's replicas: by_node[first .. first + count). */
struct rl_nd_node_slot {
    int32_t node, first, count;
};

static int rank_of_replica(const rl_nd_replica_rule *r, const int *coords, int64_t i)
{
    return r->src->mesh_ranks[rl_nd_replica_position(r->src, coords, i)];
}

/* node's slot (one with count 0 where it has none yet). */
static struct rl_nd_node_slot *slot_of(const rl_nd_replica_rule *r, int32_t node)
{
    uint64_t at = (uint64_t)node * 0x9E3779B97F4A7C15u >> 20;
    for (;; at++) {
        struct rl_nd_node_slot *s = &r->slots[at & (uint64_t)(r->nslots - 1)];
        if (s->count == 0 || s->node == node) return s;
    }
}

/* The group's replicas counted per node, then placed in by_node by node
 * and, within one, in replica order: a counting sort whose counters are
 * the slots of a hash table (nodes are any of the plan's ranks). */
static relay_status build_table(rl_nd_replica_rule *r, const int *coords, int64_t group)
{
    int64_t n = r->replicas, nslots = 2;
    while (nslots < 2 * n) nslots *= 2;
    free(r->by_node);
    free(r->slots);
    r->group = -1;
    r->by_node = rl_malloc_array((size_t)n, sizeof *r->by_node);
    r->slots = rl_calloc((size_t)nslots, sizeof *r->slots);
    int32_t *node = rl_malloc_array((size_t)n, sizeof *node);
    if (!r->by_node || !r->slots || !node) {
        free(node);
        return RL_NOMEM();
    }
    r->nslots = nslots;
    for (int64_t i = 0; i < n; i++) {
        node[i] = r->node_of_rank[rank_of_replica(r, coords, i)];
        struct rl_nd_node_slot *s = slot_of(r, node[i]);
        s->node = node[i];
        s->count++;
    }
    int32_t next = 0;
    for (int64_t k = 0; k < nslots; k++) {
        r->slots[k].first = next;
        next += r->slots[k].count;
    }
    for (int64_t i = 0; i < n; i++) r->by_node[slot_of(r, node[i])->first++] = (int32_t)i; /* first: a cursor */
    for (int64_t k = 0; k < nslots; k++) r->slots[k].first -= r->slots[k].count;
    free(node);
    r->group = group;
    r->work += n;
    return RELAY_OK;
}

/* ---- the rule ------------------------------------------------------------------- */

void rl_nd_replica_rule_init(rl_nd_replica_rule *r, const relay_nd_layout *src, const int32_t *node_of_rank)
{
    *r = (rl_nd_replica_rule){.src = src, .node_of_rank = node_of_rank, .replicas = rl_nd_replicas(src), .group = -1};
}

void rl_nd_replica_rule_free(rl_nd_replica_rule *r)
{
    free(r->by_node);
    free(r->slots);
    r->by_node = NULL;
    r->slots = NULL;
    r->group = -1;
}

relay_status rl_nd_source_replica(rl_nd_replica_rule *r, const int *coords, int dst_rank, int64_t dst_position, int *rank)
{
    int64_t group = rl_nd_replica_position(r->src, coords, 0), turn = dst_position + group;
    if (r->replicas == 1 || rl_nd_member_index(r->src, coords, dst_rank) >= 0) {
        *rank = r->replicas == 1 ? r->src->mesh_ranks[group] : dst_rank;
        return RELAY_OK;
    }
    if (r->node_of_rank) {
        relay_status st = r->group == group ? RELAY_OK : build_table(r, coords, group);
        if (st) return st;
        const struct rl_nd_node_slot *s = slot_of(r, r->node_of_rank[dst_rank]);
        if (s->count) {
            *rank = rank_of_replica(r, coords, r->by_node[s->first + turn % s->count]);
            return RELAY_OK;
        }
    }
    *rank = rank_of_replica(r, coords, turn % r->replicas);
    return RELAY_OK;
}
