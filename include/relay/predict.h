/* relay/predict.h — how long a transform plan's replay would take on a
 * given machine, predicted before running it (issue 38).
 *
 * A flow-level simulation (SimGrid's S4U actors, one per rank): each rank
 * packs, sends, receives, unpacks and copies locally in the order its
 * schedule runs them; pack, unpack and copies take bytes / the machine's
 * memory bandwidth (plus a cost per piece), and SimGrid moves the messages
 * over the machine's network (latency, bandwidth, topology, contention).
 * A machine is a small text file (docs/design.md, "Prediction"; relay
 * ships tools/machines/NAME.machine).  No MPI is needed: a 65,536-rank plan
 * is predicted on a laptop.
 *
 * Declarations only: link relay::predict (libRelay_predict), which exists
 * where relay was built with SimGrid; the executor never links it. */
#ifndef RELAY_PREDICT_H
#define RELAY_PREDICT_H

#include "relay/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The slowest messages a prediction lists, and the schedules at most. */
enum { RELAY_PREDICT_SLOWEST = 8, RELAY_PREDICT_MAX_SCHEDULES = 4 };

/* One message: sender, receiver, bytes, and the simulated seconds from
 * when its sender posted it to when it landed at its receiver. */
typedef struct {
    int from, to;
    int64_t bytes;
    double seconds;
} relay_predicted_message;

typedef struct {
    relay_schedule schedule;     /* the schedule simulated (never AUTO) */
    double seconds;              /* the predicted replay: the slowest rank's time */
    int slowest_rank;            /* that rank (the lowest of a tie) */
    int64_t messages;            /* messages simulated */
    int nslowest;                /* entries of slowest: min(messages, RELAY_PREDICT_SLOWEST) */
    relay_predicted_message slowest[RELAY_PREDICT_SLOWEST]; /* slowest first */
} relay_prediction;

/* The schedules plan p can be replayed with, which relay_plan_predict
 * takes: p2p, alltoallv and neighbor for every transform plan, rounds too
 * for a plan made with rounds (only its sections hold steps); a capped
 * plan (relay_plan_max_buffer_bytes) replays in rounds alone.  Writes
 * *count <= RELAY_PREDICT_MAX_SCHEDULES entries of schedules, in the order
 * p2p, rounds, alltoallv, neighbor.  RELAY_ERR_UNSUPPORTED for a plan that
 * is not a transform (BMMC, HSUMMA, N-D). */
RELAY_API relay_status relay_predict_schedules(const relay_plan *p, relay_schedule *schedules, int *count);

/* Predicts one replay of transform plan p, which must hold every section
 * (read with rank -1), replayed with `schedule` (AUTO: the plan's own) on
 * the machine described by the file machine_path, ranks placed on nodes in
 * blocks of the machine's ranks_per_node.  Fills *out and, unless NULL,
 * rank_seconds[r] for each of the plan's ranks: when rank r finished.
 * The simulation runs in a child process (fork): SimGrid's engine can be
 * made once per process, and so each call starts afresh.
 * RELAY_ERR_ARG: NULL p, machine_path or out, a plan missing sections, a
 * schedule it cannot be replayed with; RELAY_ERR_IO / RELAY_ERR_FORMAT: the
 * machine file cannot be read, or is not one (the line at fault named);
 * RELAY_ERR_UNSUPPORTED: not a transform plan; RELAY_ERR_NOMEM: the
 * simulation ran out of memory or failed.  On failure out and
 * rank_seconds are unchanged. */
RELAY_API relay_status relay_plan_predict(const relay_plan *p, const char *machine_path, relay_schedule schedule,
                                          relay_prediction *out, double *rank_seconds);

/* Predicts every schedule plan p can be replayed with
 * (relay_predict_schedules) on the machine machine_path, as
 * relay_plan_predict does, and gives the predictions as a tuning that
 * relay_plan_set_tuning can record in p: choices[k] the k-th schedule
 * (p2p unpacked) with its predicted seconds, best the fastest (the first
 * of a tie), ranks_per_node the job shape the simulation placed the ranks
 * in (blocks of the machine's ranks_per_node, the last node holding what
 * is left), replays 1, machine the file's name without its directory and
 * ".machine" (cut to 31 characters, any but printable ASCII as '?').
 * Errors as relay_plan_predict's; on failure *out is unchanged. */
RELAY_API relay_status relay_predict_tuning(const relay_plan *p, const char *machine_path, relay_tuning *out);

#ifdef __cplusplus
}
#endif
#endif
