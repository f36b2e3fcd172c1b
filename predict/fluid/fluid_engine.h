/* fluid_engine.h — relay's own flow-level simulation engine, for plans
 * whose messages are too many for SimGrid's (docs/design.md section 10):
 * the same model as the SimGrid platform relay builds (platform.c: CM02's
 * max-min sharing of links, weighted by each route's latency, a message of
 * S bytes alone on its route taking the route's latency + S / bandwidth, a
 * node's loopback a fat pipe, a node's cores shared by the work of its
 * ranks), with the sharing of the links solved once per batch of events
 * instead of once per event.
 * Activities are flows of bytes between ranks and work of seconds on a
 * rank's node; when one ends, the engine tells its owner through the
 * caller's `done`, which may start others. */
#ifndef RELAY_PREDICT_FLUID_ENGINE_H
#define RELAY_PREDICT_FLUID_ENGINE_H

#include <stdint.h>

#include "machine.h"

typedef struct fluid_engine fluid_engine;

typedef enum { FLUID_FLOW, FLUID_WORK } fluid_kind;

/* Called when an activity of `owner` (the caller's number) ends, at
 * fluid_now. */
typedef void fluid_done(void *ctx, fluid_kind kind, int64_t owner);

/* Called once every activity of a batch (those ending at one time) was
 * told, so that an owner sees all that ended together before acting on
 * them (a rank takes every message landed at once, as SimGrid's actors
 * do). */
typedef void fluid_settled(void *ctx);

/* An engine for nranks ranks placed on m's nodes as platform.c places
 * them; NULL when m's topology is not modelled (fluid_models) or out of
 * memory. */
fluid_engine *fluid_create(const machine *m, int nranks, fluid_done *done, fluid_settled *settled, void *ctx);
void fluid_free(fluid_engine *e);

/* The simulated time, in seconds from the start. */
double fluid_now(const fluid_engine *e);

/* Starts a flow of bytes from one rank to another, or work of seconds on
 * a core of the rank's node: 0, or -1 out of memory. */
int fluid_flow(fluid_engine *e, int from, int to, int64_t bytes, int64_t owner);
int fluid_work(fluid_engine *e, int rank, double seconds, int64_t owner);

/* Runs until no activity is left, calling `done` as they end and
 * `settled` after each batch: 0, FLUID_NO_MEMORY, or FLUID_STALLED when
 * activities are left that nothing moves (a flow of rate 0: a machine whose
 * links have no bandwidth). */
enum { FLUID_NO_MEMORY = -1, FLUID_STALLED = -2 };

int fluid_run(fluid_engine *e);

#endif
