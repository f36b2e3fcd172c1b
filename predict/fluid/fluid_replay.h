/* fluid_replay.h — one replay of a transform plan simulated on relay's
 * own flow-level engine (fluid_engine.h), as simulate_replay (simulate.h)
 * simulates it on SimGrid's: the same ranks' steps (replay_steps.h), the
 * same model, for plans with more messages than SimGrid gets through. */
#ifndef RELAY_PREDICT_FLUID_REPLAY_H
#define RELAY_PREDICT_FLUID_REPLAY_H

#include "machine.h"
#include "plan_internal.h"
#include "relay/predict.h"

/* Simulates p (every section loaded) replayed with schedule (not AUTO) on
 * m, a machine the engine models (fluid_models): fills *out and
 * rank_seconds[0..nranks).  0, or -1 out of memory or (on stderr) when the
 * plan's steps leave a rank waiting for a message never sent. */
int fluid_simulate_replay(const relay_plan *p, const machine *m, relay_schedule schedule, relay_prediction *out,
                          double *rank_seconds);

#endif
