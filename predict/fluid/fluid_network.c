/* fluid_network.c — links and routes of a machine's network for relay's
 * own flow-level engine (fluid_network.h). */
#include <stdint.h>

#include "fluid_network.h"
#include "platform.h"

/* Levels of the tree: nodes and switches.  An element of level l has up[l]
 * parents (nodes one, switches below the top `down`); under[l] nodes lie
 * under it (below the top level, down^l); the elements of level l are
 * (nodes / under[l]) * choices[l], choices[l] being the product of the up
 * counts below l; 2 links (up and down) per parent each. */
static void fat_tree_network(fluid_network *n, const machine *m)
{
    fat_tree t;
    platform_fat_tree(m, n->nodes, &t);
    int64_t hosts = t.below_top * t.top_down;
    n->levels = t.levels;
    n->under[0] = n->choices[0] = 1;
    n->base[0] = 0;
    for (int l = 0; l < t.levels; l++) {
        n->up[l] = l == 0 ? 1 : t.down;
        n->under[l + 1] = n->under[l] * (l + 1 == t.levels ? t.top_down : t.down);
        n->choices[l + 1] = n->choices[l] * n->up[l];
        n->base[l + 1] = n->base[l] + 2 * (hosts / n->under[l]) * n->choices[l] * n->up[l];
    }
    n->nlinks = n->base[t.levels];
}

/* The network, whether or not its links can be numbered in an int32. */
static void network_of(fluid_network *n, const machine *m, int nranks)
{
    *n = (fluid_network){.topology = m->topology, .nodes = platform_nodes(m, nranks)};
    if (m->topology == MACHINE_STAR) n->nlinks = 2 * (int64_t)n->nodes;
    if (m->topology == MACHINE_FAT_TREE) fat_tree_network(n, m);
}

int fluid_models(const machine *m, int nranks)
{
    if (m->topology == MACHINE_FAT_TREE) {
        fat_tree t;
        platform_fat_tree(m, platform_nodes(m, nranks), &t);
        if (t.levels > FLUID_MAX_LEVELS) return 0;
    } else if (m->topology != MACHINE_NODE && m->topology != MACHINE_STAR) {
        return 0;
    }
    fluid_network n;
    network_of(&n, m, nranks);
    return n.nlinks <= INT32_MAX;
}

int fluid_network_init(fluid_network *n, const machine *m, int nranks)
{
    if (!fluid_models(m, nranks)) return -1;
    network_of(n, m, nranks);
    return 0;
}

/* The link up (down: its other direction) from the element of level l
 * over `node` reached by parent choices `chosen`, to its parent `parent`. */
static int32_t tree_link(const fluid_network *n, int l, int64_t node, int64_t chosen, int64_t parent, int down)
{
    int64_t element = node / n->under[l] * n->choices[l] + chosen;
    return (int32_t)(n->base[l] + 2 * (element * n->up[l] + parent) + down);
}

/* Up from `from` to the lowest level whose element holds `to` too, each
 * level's parent (to / choices[l]) mod up[l], as SimGrid's fat tree routes;
 * then down the same parents' links to `to`. */
static void tree_route(const fluid_network *n, int64_t from, int64_t to, fluid_route *r)
{
    int top = 1;
    while (from / n->under[top] != to / n->under[top]) top++;
    int64_t chosen = 0;
    for (int l = 0; l < top; l++) {
        int64_t parent = to / n->choices[l] % n->up[l];
        r->link[r->nlinks++] = tree_link(n, l, from, chosen, parent, 0);
        chosen = chosen * n->up[l] + parent;
    }
    for (int l = top - 1; l >= 0; l--) {
        int64_t parent = chosen % n->up[l];
        chosen /= n->up[l];
        r->link[r->nlinks++] = tree_link(n, l, to, chosen, parent, 1);
    }
}

void fluid_route_between(const fluid_network *n, const machine *m, int from_node, int to_node, fluid_route *r)
{
    r->nlinks = 0;
    if (n->topology == MACHINE_STAR) {
        r->link[r->nlinks++] = 2 * from_node;
        r->link[r->nlinks++] = 2 * to_node + 1;
    } else if (n->topology == MACHINE_FAT_TREE) {
        tree_route(n, from_node, to_node, r);
    }
    r->latency = r->nlinks * m->link_latency;
}
