/* relay/predict.h — how long a plan's replay would take on a given
 * machine, predicted before running it.
 *
 * A flow-level simulation (SimGrid's S4U actors, one per rank): each rank
 * does what the executor does, in its order.  A transform plan's rank
 * packs, sends, receives, unpacks and copies locally in the order its
 * schedule runs them; a BMMC plan's permutes inside itself, exchanges one
 * block with each partner and places the blocks as they land; an HSUMMA
 * (or SUMMA) plan's broadcasts its panels between and inside groups step
 * by step (MPICH's binomial or Van de Geijn's broadcast, as the plan's
 * cost model names) and multiplies each piece into C at the machine's
 * gemm_flops; an N-D plan's packs its messages, passes on as they land
 * the transfers a replica forwards, and unpacks.  Copies take bytes / the machine's memory bandwidth (plus a
 * cost per piece), and SimGrid moves the messages over the machine's
 * network (latency, bandwidth, topology, contention).  A transform plan of
 * more than 20,000 messages on a node, star or fat-tree machine is
 * simulated by relay's own flow-level engine instead, the same model with
 * its sharing solved once per batch of events (RELAY_PREDICT_ENGINE=simgrid
 * or fluid in the environment chooses).
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
    relay_schedule schedule;     /* the schedule simulated (AUTO only for BMMC and HSUMMA plans, P2P for N-D) */
    double seconds;              /* the predicted replay: the slowest rank's time */
    int slowest_rank;            /* that rank (the lowest of a tie) */
    int64_t messages;            /* messages simulated */
    int nslowest;                /* entries of slowest: min(messages, RELAY_PREDICT_SLOWEST) */
    relay_predicted_message slowest[RELAY_PREDICT_SLOWEST]; /* slowest first */
    /* HSUMMA plans alone (0 for others): */
    double comm_seconds;         /* the slowest rank's time in broadcasts (the paper's communication time) */
    double compute_seconds;      /* the slowest rank's time in gemms and panel copies */
    int group_rows, group_cols;  /* the groups simulated (chosen here where the plan left them to bind) */
    int64_t steps;               /* the outer steps simulated */
} relay_prediction;

/* The schedules plan p can be replayed with, which relay_plan_predict
 * takes: p2p, alltoallv and neighbor for every transform plan, rounds too
 * for a plan made with rounds (only its sections hold steps); a capped
 * plan (relay_plan_max_buffer_bytes) replays in rounds alone.  Writes
 * *count <= RELAY_PREDICT_MAX_SCHEDULES entries of schedules, in the order
 * p2p, rounds, alltoallv, neighbor.  A BMMC or HSUMMA plan replays one way
 * only: one entry, RELAY_SCHED_AUTO; an N-D plan p2p alone: one entry,
 * RELAY_SCHED_P2P. */
RELAY_API relay_status relay_predict_schedules(const relay_plan *p, relay_schedule *schedules, int *count);

/* Predicts one replay of plan p on the machine described by the file
 * machine_path.  A transform plan must hold every section (read with rank
 * -1) and is replayed with `schedule` (AUTO: the plan's own); a BMMC or
 * HSUMMA plan takes AUTO alone, and its prediction's schedule is AUTO; an
 * N-D plan takes P2P (or AUTO, meaning P2P).
 * Ranks are placed on nodes in blocks of the machine's ranks_per_node.  Fills *out and, unless NULL,
 * rank_seconds[r] for each of the plan's ranks: when rank r finished.
 * The simulation runs in a child process (fork): SimGrid's engine can be
 * made once per process, and so each call starts afresh.
 * RELAY_ERR_ARG: NULL p, machine_path or out, a plan missing sections, a
 * schedule it cannot be replayed with, RELAY_PREDICT_ENGINE asking for what
 * cannot be; RELAY_ERR_IO / RELAY_ERR_FORMAT: the
 * machine file cannot be read, or is not one (the line at fault named);
 * RELAY_ERR_NOMEM: the
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

/* relay_plan_predict of HSUMMA plan p, its first outer_steps outer steps
 * alone (0, or more than the plan has: all): a large grid's every step
 * costs minutes of simulation, and the steps of an evenly divided product
 * are alike, so a few steps times (steps of the plan) / out->steps
 * predict the whole.  The times are those of the steps simulated.
 * RELAY_ERR_ARG for a negative outer_steps or a plan not HSUMMA; else as
 * relay_plan_predict. */
RELAY_API relay_status relay_plan_predict_hsumma(const relay_plan *p, const char *machine_path, int64_t outer_steps,
                                                 relay_prediction *out, double *rank_seconds);

#ifdef __cplusplus
}
#endif
#endif
