/* machine.h — a machine as relay's prediction sees it, read from a small
 * key = value file of relay's own (tools/machines/NAME.machine, format in
 * docs/design.md "Prediction"): how ranks sit on nodes, how fast a rank
 * packs and unpacks, and the network that joins the nodes.  platform.c
 * turns it into a SimGrid platform sized to a plan's ranks. */
#ifndef RELAY_PREDICT_MACHINE_H
#define RELAY_PREDICT_MACHINE_H

#include "relay/status.h"

/* How nodes are joined.  node: one node holds every rank; star: every
 * node has one link to one crossbar; fat-tree: k-ary fat tree of
 * switch_radix-port switches; torus: 3-D torus of the nodes; dragonfly:
 * groups of chassis of routers, of nodes_per_router nodes each. */
typedef enum { MACHINE_NODE, MACHINE_STAR, MACHINE_FAT_TREE, MACHINE_TORUS, MACHINE_DRAGONFLY } machine_topology;

typedef struct {
    machine_topology topology;
    int ranks_per_node;          /* ranks r*k .. r*k+k-1 on node r (block mapping) */
    double memory_bandwidth;     /* bytes/s one rank packs, unpacks or copies, on a core of its own */
    double transpose_bandwidth;  /* bytes/s of the same when the pair's op transposes (0: memory_bandwidth) */
    int cores_per_node;          /* cores a node's ranks share for their copies (0: a core each) */
    double piece_seconds;        /* per piece packed, unpacked or copied (0: not modelled) */
    double message_seconds;      /* per message sent, with its packing (0: not modelled) */
    double gemm_flops;           /* flop/s of one rank's local gemm on a core of its own (HSUMMA) */
    double link_bandwidth;       /* bytes/s of each network link, each direction */
    double link_latency;         /* seconds per network link crossed */
    double node_bandwidth;       /* bytes/s between two ranks of one node */
    double node_latency;         /* seconds between two ranks of one node */
    int switch_radix;            /* fat-tree: ports per switch (even, >= 4) */
    int chassis_per_group, routers_per_chassis, nodes_per_router; /* dragonfly */
    int chassis_links, router_links, group_links;                 /* dragonfly: parallel links */
} machine;

/* gemm_flops where a machine file does not give it: a core of today's
 * servers multiplying doubles (docs/design.md, "Prediction"). */
#define MACHINE_DEFAULT_GEMM_FLOPS 1e10

/* Reads path into m; RELAY_ERR_IO when it cannot be read, RELAY_ERR_FORMAT
 * naming the line when a line is not `key = value` of a known key with a
 * value in range, or a key the topology needs is missing.  m unchanged on
 * failure. */
relay_status machine_read(machine *m, const char *path);

#endif
