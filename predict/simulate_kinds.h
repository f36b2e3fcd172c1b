/* simulate_kinds.h — the simulated replays of the plans that carry no
 * sections, whose ranks derive their part from the plan's parameters:
 * HSUMMA (simulate_hsumma.c), BMMC (simulate_bmmc.c) and N-D
 * (simulate_nd.c).  Like
 * simulate_replay (simulate.h) each runs SimGrid's engine, once per
 * process. */
#ifndef RELAY_PREDICT_SIMULATE_KINDS_H
#define RELAY_PREDICT_SIMULATE_KINDS_H

#include "machine.h"
#include "plan_internal.h"
#include "relay/predict.h"

/* Simulates the first max_outer outer steps (all: -1) of HSUMMA plan p on
 * m: fills *out and rank_seconds[0..nranks).  0, or -1 when the platform
 * or the simulation's memory could not be had. */
int simulate_hsumma(const relay_plan *p, const machine *m, int64_t max_outer, relay_prediction *out,
                    double *rank_seconds);

/* Simulates BMMC plan p on m, the same way. */
int simulate_bmmc(const relay_plan *p, const machine *m, relay_prediction *out, double *rank_seconds);

/* Simulates N-D plan p's replay (p2p) on m, the same way; -1 also when a
 * rank's transfers cannot be derived (the reason on stderr). */
int simulate_nd(const relay_plan *p, const machine *m, relay_prediction *out, double *rank_seconds);

#endif
