/* platform.h — a machine (machine.h) as the SimGrid platform the
 * simulation runs on: one cluster whose hosts are the nodes, named
 * node-0, node-1, ..., sized to hold a plan's ranks. */
#ifndef RELAY_PREDICT_PLATFORM_H
#define RELAY_PREDICT_PLATFORM_H

#include <stdint.h>

#include "machine.h"

/* Nodes that hold nranks ranks at m's ranks per node (node: one). */
int platform_nodes(const machine *m, int nranks);

/* A k-ary fat tree of switches of 2 * down ports (down = switch_radix / 2
 * down and as many up), `levels` levels of them, the fewest with
 * down^levels >= nodes; each switch has `down` children but the top ones,
 * which take just enough (top_down) of the subtrees of below_top nodes
 * under each switch of the level below the top.  Nodes that hold
 * below_top * top_down >= nodes, the surplus idle.  SimGrid's FAT_TREE
 * (platform.c) and relay's own routes (fluid_network.c) build this one. */
typedef struct {
    int down, levels, top_down;
    int64_t below_top;
} fat_tree;
void platform_fat_tree(const machine *m, int nodes, fat_tree *t);

/* A node's cores run CORE_SPEED flops a second: a rank's copy of s
 * seconds on a core of its own is an execution of s * CORE_SPEED flops,
 * which SimGrid shares among the node's cores with the other ranks'. */
#define CORE_SPEED 1e9

/* The cores of each node of a plan of nranks ranks: the machine's
 * cores_per_node, or (0) as many as the node holds ranks. */
int platform_cores(const machine *m, int nranks);

/* Has SimGrid load the platform of at least `nodes` nodes of `cores` cores,
 * the topology's shape the smallest of its kind that holds them (surplus
 * nodes idle), through a temporary file (SimGrid reads platforms from
 * files only), removed at once.  Returns 0, or -1 when the file cannot be
 * written. */
int platform_load(const machine *m, int nodes, int cores);

#endif
