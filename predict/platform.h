/* platform.h — a machine (machine.h) as the SimGrid platform the
 * simulation runs on: one cluster whose hosts are the nodes, named
 * node-0, node-1, ..., sized to hold a plan's ranks. */
#ifndef RELAY_PREDICT_PLATFORM_H
#define RELAY_PREDICT_PLATFORM_H

#include <stdio.h>

#include "machine.h"

/* Nodes that hold nranks ranks at m's ranks per node (node: one). */
int platform_nodes(const machine *m, int nranks);

/* Writes the platform XML for at least `nodes` nodes to f; the topology's
 * shape is the smallest of its kind that holds them (surplus nodes idle).
 * Returns 0, or -1 when f fails. */
int platform_write(const machine *m, int nodes, FILE *f);

/* Writes the platform to a temporary file and has SimGrid load it (SimGrid
 * reads platforms from files only); the file is removed at once.  Returns
 * 0, or -1 when the temporary file cannot be written. */
int platform_load(const machine *m, int nodes);

#endif
