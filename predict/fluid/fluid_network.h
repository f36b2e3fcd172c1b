/* fluid_network.h — a machine's network as relay's own flow-level engine
 * (fluid_engine.c) sees it: numbered links, each direction of each cable
 * one link of the machine's link_bandwidth, and the route between two
 * nodes, the same SimGrid builds (platform.c) for the topologies it
 * covers: node (no network), star and fat tree.  A torus or dragonfly is
 * left to SimGrid. */
#ifndef RELAY_PREDICT_FLUID_NETWORK_H
#define RELAY_PREDICT_FLUID_NETWORK_H

#include <stdint.h>

#include "machine.h"

/* Links a route crosses at most: up and down a fat tree of up to 8
 * levels (18-port-pair switches: 18^8 nodes). */
enum { FLUID_MAX_LEVELS = 8, FLUID_MAX_LINKS = 2 * FLUID_MAX_LEVELS };

/* The links a flow crosses (none: between ranks of one node, through its
 * loopback) and their latency. */
typedef struct {
    int nlinks;
    int32_t link[FLUID_MAX_LINKS];
    double latency;
} fluid_route;

/* A fat tree (platform.h's fat_tree) as an extended generalized fat tree:
 * an element of level l (0: the nodes) has up[l] parents; under[l] nodes
 * lie under each element of level l, reached through choices[l] different
 * combinations of parents; the links up from level l start at base[l]. */
typedef struct {
    machine_topology topology;
    int nodes;                   /* nodes the network joins (platform_nodes) */
    int64_t nlinks;
    int levels;
    int64_t up[FLUID_MAX_LEVELS], under[FLUID_MAX_LEVELS + 1], choices[FLUID_MAX_LEVELS + 1];
    int64_t base[FLUID_MAX_LEVELS + 1];
} fluid_network;

/* Whether relay's engine models m's network for nranks ranks: a node, a
 * star, or a fat tree of at most FLUID_MAX_LEVELS levels whose links
 * number at most INT32_MAX. */
int fluid_models(const machine *m, int nranks);

/* The network of m sized to nranks ranks: 0, or -1 when fluid_models is
 * false. */
int fluid_network_init(fluid_network *n, const machine *m, int nranks);

/* The route between two different nodes (SimGrid's: up a fat tree to the
 * lowest common switch, each level's parent chosen by the destination,
 * D-mod-k, then down; a star: the sender's link up, the receiver's down). */
void fluid_route_between(const fluid_network *n, const machine *m, int from_node, int to_node, fluid_route *r);

#endif
