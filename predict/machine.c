/* machine.c — reads a machine file: one `key = value` a line, `#` starts a
 * comment, blank lines ignored; every key at most once.  Numbers are C
 * floating-point literals (1e-6, 12.5e9); counts are integers.  What each
 * key means is in machine.h and docs/design.md ("Prediction"). */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "machine.h"

static const char *const topology_words[] = {
    [MACHINE_NODE] = "node", [MACHINE_STAR] = "star", [MACHINE_FAT_TREE] = "fat-tree",
    [MACHINE_TORUS] = "torus", [MACHINE_DRAGONFLY] = "dragonfly",
};

/* A key: where its value goes, whether it is a count, its smallest value,
 * and which topology needs it (a machine_topology, or one of the words below). */
typedef struct {
    const char *key;
    size_t at;
    int is_count;
    double min;
    int needed_by;
} machine_key;

/* EVERY_TOPOLOGY: all; NETWORK: all but node; OPTIONAL: none. */
enum { EVERY_TOPOLOGY = -1, OPTIONAL = -2, NETWORK = -3 };

#define AT(field) offsetof(machine, field)
static const machine_key keys[] = {
    {"ranks_per_node", AT(ranks_per_node), 1, 1, EVERY_TOPOLOGY},
    {"memory_bandwidth", AT(memory_bandwidth), 0, 1, EVERY_TOPOLOGY},
    {"transpose_bandwidth", AT(transpose_bandwidth), 0, 1, OPTIONAL},
    {"cores_per_node", AT(cores_per_node), 1, 1, OPTIONAL},
    {"piece_seconds", AT(piece_seconds), 0, 0, OPTIONAL},
    {"message_seconds", AT(message_seconds), 0, 0, OPTIONAL},
    {"gemm_flops", AT(gemm_flops), 0, 1, OPTIONAL},
    {"node_bandwidth", AT(node_bandwidth), 0, 1, EVERY_TOPOLOGY},
    {"node_latency", AT(node_latency), 0, 0, EVERY_TOPOLOGY},
    {"link_bandwidth", AT(link_bandwidth), 0, 1, NETWORK},
    {"link_latency", AT(link_latency), 0, 0, NETWORK},
    {"switch_radix", AT(switch_radix), 1, 4, MACHINE_FAT_TREE},
    {"chassis_per_group", AT(chassis_per_group), 1, 1, MACHINE_DRAGONFLY},
    {"routers_per_chassis", AT(routers_per_chassis), 1, 1, MACHINE_DRAGONFLY},
    {"nodes_per_router", AT(nodes_per_router), 1, 1, MACHINE_DRAGONFLY},
    {"chassis_links", AT(chassis_links), 1, 1, MACHINE_DRAGONFLY},
    {"router_links", AT(router_links), 1, 1, MACHINE_DRAGONFLY},
    {"group_links", AT(group_links), 1, 1, MACHINE_DRAGONFLY},
};
#undef AT
enum { NKEYS = sizeof keys / sizeof keys[0] };

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && strchr(" \t\r\n", s[n - 1])) s[--n] = '\0';
    return s;
}

static int find_key(const char *key)
{
    for (int i = 0; i < NKEYS; i++)
        if (!strcmp(keys[i].key, key)) return i;
    return -1;
}

static int find_topology(const char *word)
{
    for (int t = 0; t < (int)(sizeof topology_words / sizeof topology_words[0]); t++)
        if (!strcmp(topology_words[t], word)) return t;
    return -1;
}

/* Stores value in m's field of key k; -1 when it is not a number in range. */
static int store_value(machine *m, const machine_key *k, const char *value)
{
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (end == value || *end || errno || !isfinite(v) || v < k->min) return -1;
    if (!k->is_count) {
        *(double *)((char *)m + k->at) = v;
        return 0;
    }
    if (v != floor(v) || v > 1 << 30) return -1;
    *(int *)((char *)m + k->at) = (int)v;
    return 0;
}

typedef struct {
    machine m;
    int seen[NKEYS];
    int topology_seen;
} machine_reading;

/* One line, comment already cut: 0, or a RELAY_ERR_FORMAT with its words. */
static relay_status read_line(machine_reading *r, char *line, const char *path, int lineno)
{
    char *text = trim(line);
    if (!*text) return RELAY_OK;
    char *eq = strchr(text, '=');
    if (!eq) return rl_fail(RELAY_ERR_FORMAT, "%s:%d: expected `key = value`", path, lineno);
    *eq = '\0';
    char *key = trim(text), *value = trim(eq + 1);
    if (!strcmp(key, "topology")) {
        int t = find_topology(value);
        if (t < 0 || r->topology_seen)
            return rl_fail(RELAY_ERR_FORMAT, "%s:%d: topology: %s", path, lineno,
                           r->topology_seen ? "given twice" : "not node, star, fat-tree, torus or dragonfly");
        r->m.topology = (machine_topology)t;
        r->topology_seen = 1;
        return RELAY_OK;
    }
    int k = find_key(key);
    if (k < 0) return rl_fail(RELAY_ERR_FORMAT, "%s:%d: unknown key `%s`", path, lineno, key);
    if (r->seen[k]) return rl_fail(RELAY_ERR_FORMAT, "%s:%d: %s given twice", path, lineno, key);
    if (store_value(&r->m, &keys[k], value))
        return rl_fail(RELAY_ERR_FORMAT, "%s:%d: %s = `%s`: not %s >= %g", path, lineno, key, value,
                       keys[k].is_count ? "an integer" : "a number", keys[k].min);
    r->seen[k] = 1;
    return RELAY_OK;
}

/* Every key the topology needs is there. */
static relay_status check_complete(const machine_reading *r, const char *path)
{
    if (!r->topology_seen) return rl_fail(RELAY_ERR_FORMAT, "%s: no topology", path);
    for (int k = 0; k < NKEYS; k++) {
        int by = keys[k].needed_by;
        int needed = by == EVERY_TOPOLOGY || by == (int)r->m.topology || (by == NETWORK && r->m.topology != MACHINE_NODE);
        if (needed && !r->seen[k])
            return rl_fail(RELAY_ERR_FORMAT, "%s: %s is missing (topology %s)", path, keys[k].key,
                           topology_words[r->m.topology]);
    }
    if (r->m.topology == MACHINE_FAT_TREE && r->m.switch_radix % 2)
        return rl_fail(RELAY_ERR_FORMAT, "%s: switch_radix %d is odd", path, r->m.switch_radix);
    return RELAY_OK;
}

relay_status machine_read(machine *m, const char *path)
{
    if (!m || !path) return rl_fail(RELAY_ERR_ARG, "machine_read: null argument");
    FILE *f = fopen(path, "r");
    if (!f) return rl_fail(RELAY_ERR_IO, "cannot open machine file %s", path);
    machine_reading r = {.m.gemm_flops = MACHINE_DEFAULT_GEMM_FLOPS};
    char line[1024];
    relay_status st = RELAY_OK;
    for (int lineno = 1; !st && fgets(line, sizeof line, f); lineno++) {
        if (!strchr(line, '\n') && !feof(f)) st = rl_fail(RELAY_ERR_FORMAT, "%s:%d: line too long", path, lineno);
        line[strcspn(line, "#")] = '\0';
        if (!st) st = read_line(&r, line, path, lineno);
    }
    if (!st && ferror(f)) st = rl_fail(RELAY_ERR_IO, "cannot read machine file %s", path);
    fclose(f);
    if (!st) st = check_complete(&r, path);
    if (!st) *m = r.m;
    return st;
}
