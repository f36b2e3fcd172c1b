/* stats.h — a transform plan's statistics from its structure alone. */
#ifndef RELAY_STATS_H
#define RELAY_STATS_H

#include "volumes.h"

/* Fills p->stats from the volumes between ranks of p's pairs (logical
 * receivers, as rl_volumes_compute gives them), p's sigma, and each pair's
 * grids: no section is looked at, so a rank that builds only its own
 * section finds the whole plan's numbers. */
void rl_transform_stats(relay_plan *p, const rl_volumes *v);

#endif
