/* platform.c — the SimGrid platform of a machine: one <cluster> of
 * SimGrid's own topologies (FLAT for star and node, FAT_TREE, TORUS,
 * DRAGONFLY) with the machine's link bandwidth and latency on every link,
 * and its node bandwidth and latency on each host's loopback, which SimGrid
 * uses between actors of one host.  Links are full duplex (SPLITDUPLEX).
 * The shape is sized to the plan: the machine file describes a kind of
 * machine, not one installation. */
#define _DEFAULT_SOURCE /* mkstemps */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <simgrid/engine.h>

#include "platform.h"

int platform_nodes(const machine *m, int nranks)
{
    if (m->topology == MACHINE_NODE) return 1;
    return (int)(((int64_t)nranks + m->ranks_per_node - 1) / m->ranks_per_node);
}

int platform_cores(const machine *m, int nranks)
{
    if (m->cores_per_node > 0) return m->cores_per_node;
    return m->topology == MACHINE_NODE || nranks < m->ranks_per_node ? nranks : m->ranks_per_node;
}

static int ceil_div(int a, int b) { return (a + b - 1) / b; }

/* A SimGrid cluster topology: its topo_parameters (or "") and its hosts. */
typedef struct {
    char params[512];
    int64_t hosts;
} cluster_shape;

void platform_fat_tree(const machine *m, int nodes, fat_tree *t)
{
    t->down = m->switch_radix / 2;
    t->levels = 1;
    t->below_top = 1;
    while (t->below_top * t->down < nodes) {
        t->below_top *= t->down;
        t->levels++;
    }
    t->top_down = ceil_div(nodes, (int)t->below_top);
}

/* k-ary fat tree of switches of 2d ports (platform_fat_tree) as SimGrid's
 * "L;down...;up...;parallel...". */
static cluster_shape fat_tree_shape(const machine *m, int nodes)
{
    fat_tree t;
    platform_fat_tree(m, nodes, &t);
    int d = t.down, levels = t.levels, top_down = t.top_down;
    cluster_shape c = {.hosts = t.below_top * top_down};
    size_t n = (size_t)snprintf(c.params, sizeof c.params, "%d;", levels);
    for (int l = 0; l < levels; l++)
        n += (size_t)snprintf(c.params + n, sizeof c.params - n, "%d%c", l == levels - 1 ? top_down : d, l == levels - 1 ? ';' : ',');
    for (int l = 0; l < levels; l++)
        n += (size_t)snprintf(c.params + n, sizeof c.params - n, "%d%c", l == 0 ? 1 : d, l == levels - 1 ? ';' : ',');
    for (int l = 0; l < levels; l++) n += (size_t)snprintf(c.params + n, sizeof c.params - n, "1%s", l == levels - 1 ? "" : ",");
    return c;
}

/* The most cubic x <= y <= z with x * y * z == nodes exactly (the
 * shortest longest side, then the longest shortest), every side at least 2, as Blue Gene partitions are (1,024 nodes: 8 x 8 x 16); 0
 * when there is none or its longest side exceeds twice the cube root's
 * (a prime count of nodes). */
static int exact_torus(int nodes, int *x, int *y, int *z)
{
    int best = 0, limit = 2 * (int)ceil(cbrt((double)nodes) - 1e-9);
    for (int a = 2; a * a * a <= nodes; a++)
        for (int b = a; nodes % a == 0 && a * b * b <= nodes; b++) {
            int c = nodes / a / b;
            if ((nodes / a) % b || c > limit || (best && (c > best || (c == best && a <= *x)))) continue;
            *x = a, *y = b, *z = c;
            best = c;
        }
    return best > 0;
}

/* The exact torus where there is one, else the most cubic x * y * z >=
 * nodes, 2 x 2 x 1 at least: SimGrid 3.32 refuses tori of one or two nodes
 * ("Link 'nodes_link_from_0_to_0_UP' declared several times"). */
static cluster_shape torus_shape(int nodes)
{
    if (nodes < 4) nodes = 4;
    int x, y, z;
    if (!exact_torus(nodes, &x, &y, &z)) {
        x = (int)ceil(cbrt((double)nodes) - 1e-9);
        y = (int)ceil(sqrt((double)nodes / x) - 1e-9);
        z = ceil_div(nodes, x * y);
    }
    cluster_shape c = {.hosts = (int64_t)x * y * z};
    snprintf(c.params, sizeof c.params, "%d,%d,%d", x, y, z);
    return c;
}

/* Groups enough to hold the nodes: "G,group_links;C,chassis_links;R,router_links;N". */
static cluster_shape dragonfly_shape(const machine *m, int nodes)
{
    int per_group = m->chassis_per_group * m->routers_per_chassis * m->nodes_per_router;
    int groups = ceil_div(nodes, per_group);
    cluster_shape c = {.hosts = (int64_t)groups * per_group};
    snprintf(c.params, sizeof c.params, "%d,%d;%d,%d;%d,%d;%d", groups, m->group_links, m->chassis_per_group,
             m->chassis_links, m->routers_per_chassis, m->router_links, m->nodes_per_router);
    return c;
}

static cluster_shape shape_of(const machine *m, int nodes)
{
    if (m->topology == MACHINE_FAT_TREE) return fat_tree_shape(m, nodes);
    if (m->topology == MACHINE_TORUS) return torus_shape(nodes);
    if (m->topology == MACHINE_DRAGONFLY) return dragonfly_shape(m, nodes);
    return (cluster_shape){.hosts = nodes};
}

/* The platform XML for at least `nodes` nodes of `cores` cores, each
 * running CORE_SPEED flops a second, on f: 0, or -1 when f fails. */
static int platform_write(const machine *m, int nodes, int cores, FILE *f)
{
    static const char *const kinds[] = {
        [MACHINE_NODE] = "FLAT", [MACHINE_STAR] = "FLAT", [MACHINE_FAT_TREE] = "FAT_TREE",
        [MACHINE_TORUS] = "TORUS", [MACHINE_DRAGONFLY] = "DRAGONFLY",
    };
    cluster_shape shape = shape_of(m, nodes);
    int network = m->topology != MACHINE_NODE;
    fprintf(f, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
               "<platform version=\"4.1\">\n<zone id=\"machine\" routing=\"Full\">\n");
    fprintf(f, "<cluster id=\"nodes\" prefix=\"node-\" suffix=\"\" radical=\"0-%lld\" speed=\"%gf\" core=\"%d\""
               " bw=\"%.17gBps\" lat=\"%.17gs\" loopback_bw=\"%.17gBps\" loopback_lat=\"%.17gs\""
               " sharing_policy=\"SPLITDUPLEX\" topology=\"%s\"",
            (long long)shape.hosts - 1, CORE_SPEED, cores, network ? m->link_bandwidth : m->node_bandwidth,
            network ? m->link_latency : m->node_latency, m->node_bandwidth, m->node_latency, kinds[m->topology]);
    if (*shape.params) fprintf(f, " topo_parameters=\"%s\"", shape.params);
    fprintf(f, "/>\n</zone>\n</platform>\n");
    return fflush(f) || ferror(f) ? -1 : 0;
}

int platform_load(const machine *m, int nodes, int cores)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/relay-platform-XXXXXX.xml", dir && *dir ? dir : "/tmp");
    int fd = mkstemps(path, 4);
    if (fd < 0) return -1;
    FILE *f = fdopen(fd, "w");
    int failed = !f || platform_write(m, nodes, cores, f);
    if (f) fclose(f);
    else close(fd);
    if (!failed) simgrid_load_platform(path);
    unlink(path);
    return failed ? -1 : 0;
}
