/* simulate.h — one replay of a transform plan, simulated with SimGrid's
 * S4U actors (one per rank) on a machine's platform (platform.h).  Runs
 * SimGrid's engine, which can be made once per process: predict.c calls it
 * in a child process of its own. */
#ifndef RELAY_PREDICT_SIMULATE_H
#define RELAY_PREDICT_SIMULATE_H

#include "machine.h"
#include "plan_internal.h"
#include "relay/predict.h"

/* Simulates p (every section loaded) replayed with schedule (not AUTO) on
 * m: fills *out and rank_seconds[0..nranks).  0, or -1 when the platform
 * or the simulation's memory could not be had. */
int simulate_replay(const relay_plan *p, const machine *m, relay_schedule schedule, relay_prediction *out,
                    double *rank_seconds);

#endif
