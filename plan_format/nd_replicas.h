/* nd_replicas.h — the replicas of an N-D layout's groups, and which replica
 * of a source group a receiver reads (nd_replicas.c).
 *
 * A group is the ranks of a layout that differ only in their replicate
 * coordinates: they hold the same elements.  Groups are named by the
 * mesh coordinates of any of their ranks (replicate coordinates ignored),
 * replicas by their replicate coordinates counted in mesh order. */
#ifndef RELAY_ND_REPLICAS_H
#define RELAY_ND_REPLICAS_H

#include "nd_layout.h"

/* Mesh position of the i-th replica of the group at `coords`. */
int64_t rl_nd_replica_position(const relay_nd_layout *l, const int *coords, int64_t i);
/* The index of the replica at `coords` among its group's. */
int64_t rl_nd_replica_index(const relay_nd_layout *l, const int *coords);
/* rank's replica index in the group at `coords`, or -1 when it is not one
 * of that group's replicas. */
int64_t rl_nd_member_index(const relay_nd_layout *l, const int *coords, int rank);

/* The rule that picks the rank a receiver reads a source group from:
 *   - the receiver itself when it holds a replica of the group;
 *   - else, with a node map and a replica on the receiver's node, one of
 *     those, the (turn mod their count)-th in replica order;
 *   - else replica (turn mod replicas),
 * turn being the receiver's mesh position plus the group's (that of its
 * replica 0), so that receivers spread over the replicas.  With a node map
 * a table of the group's replicas by node is built once per group (the
 * last one asked about is kept): O(replicas) once, O(1) per receiver. */
typedef struct {
    const relay_nd_layout *src;
    const int32_t *node_of_rank;  /* NULL: no node map */
    int64_t replicas;
    int64_t group;                /* the group the table is built for (its replica 0's position), or -1 */
    int32_t *by_node;             /* its replica indices sorted by node, then index */
    struct rl_nd_node_slot *slots;/* open addressing: node -> its replicas in by_node */
    int64_t nslots;
    int64_t work;                 /* replicas tabled so far */
} rl_nd_replica_rule;

void rl_nd_replica_rule_init(rl_nd_replica_rule *r, const relay_nd_layout *src, const int32_t *node_of_rank);
void rl_nd_replica_rule_free(rl_nd_replica_rule *r);
/* The rank the receiver dst_rank, at dst_position on its own mesh, reads
 * the group at `coords` from (*rank; RELAY_ERR_NOMEM only). */
relay_status rl_nd_source_replica(rl_nd_replica_rule *r, const int *coords, int dst_rank, int64_t dst_position, int *rank);

#endif
