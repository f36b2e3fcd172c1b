/* exec_kind.h — what the executor's facade (exec.c) asks of each plan kind.
 *
 * relay_exec holds what every kind shares: its own communicator, the
 * agreement of all ranks on the plan, the replay-in-flight flag and the
 * argument checks common to all kinds.  Everything else is the kind's, behind
 * one table of operations chosen once from the plan's kind at
 * relay_exec_create, and an opaque state the kind's prepare creates:
 *   rl_exec_transform  sections, messages, pack buffers (transform_exec.c)
 *   rl_exec_bmmc       a factored BMMC permutation (bmmc_exec.c)
 *   rl_exec_hsumma     the SUMMA/HSUMMA product (hsumma_exec.c)
 *   rl_exec_nd         an N-D plan's transfers, derived at prepare (nd/nd_exec.c)
 *   rl_exec_index      an index plan's section as a message set, replayed
 *                      through the schedules and transports (index/index_exec.c) */
#ifndef RELAY_EXEC_KIND_H
#define RELAY_EXEC_KIND_H

#include <mpi.h>

#include "exec_internal.h"
#include "plan_internal.h"
#include "relay/exec.h"

/* What exec.c tells a kind's prepare about the communicator. */
typedef struct {
    int rank, nranks;        /* this rank and the communicator's size */
    int peers_checked;       /* check_peers follows (if not, what only it needs is not made) */
    int shared_landings;     /* RL_EXEC_SHARED_LANDINGS (exec_internal.h) */
    int team;                /* OpenMP threads for this rank's moves (team.h) */
    const relay_exec_options *options; /* where the buffers live (never NULL; the facade
                                          refuses other memory than the host's for kinds
                                          that do not read it) */
} rl_exec_setup;

typedef struct {
    /* Whether a rank needs its own section of the plan (else it derives
     * its part from the plan's header). */
    int needs_section;
    /* This rank's part of plan p, with no MPI call, so that every rank can
     * agree on success before binding.  On failure *state may hold a
     * partial preparation: free frees it. */
    relay_status (*prepare)(void **state, const relay_plan *p, const rl_exec_setup *setup);
    /* Collective over comm (the caller's), before bind: checks this rank's
     * part against its peers', where a plan's parts could disagree (a
     * plan file may lie in one rank's section); the verdict is agreed.
     * NULL for kinds whose every part derives from the agreed header.
     * Skipped for executors bound on repeat, whose callers made the plan. */
    relay_status (*check_peers)(void *state, MPI_Comm comm);
    /* Collective over comm, the executor's communicator, which outlives
     * the state: requests, communicators, agreements among ranks.  `lent`
     * (an executor bound on repeat: may be NULL) is the caller's scratch for
     * the first replay's messages, which outlives the state too. */
    relay_status (*bind)(void *state, MPI_Comm comm, relay_internal_scratch *lent);
    /* What only repeated replays pay for (persistent requests, agreements
     * with peers), split from bind so that an executor bound on repeat
     * (exec_internal.h) runs its first replay without it: collective over
     * comm, the executor's own duplicate from then on; called before the
     * first replay or, bound on repeat, the second.  NULL for kinds whose
     * bind does everything. */
    relay_status (*bind_replays)(void *state, MPI_Comm comm);
    /* Takes the replay's buffers (dst and src are not NULL) and starts it.
     * Arguments it refuses (RELAY_ERR_ARG) are refused before anything
     * starts. */
    relay_status (*start)(void *state, void *const *dst, const void *const *src, const void *alpha, const void *beta);
    /* One replay over NaN buffers of the kind's sizes (rl_stand_in_replay),
     * started and completed: what a rank whose start was refused runs so
     * that its peers complete. */
    relay_status (*stand_in)(void *state);
    relay_status (*wait)(void *state);
    /* A deadline for each replay from the next on (seconds; 0: none): its
     * waits poll and, past it, return RELAY_ERR_TIMEOUT; the replay is
     * then abandoned, and free cancels what it can and waits for no peer.
     * NULL for the kinds whose replays wait without one. */
    void (*deadline)(void *state, double seconds);
    void (*memory)(const void *state, relay_exec_memory *m);
    /* NULL for the kinds that are not HSUMMA. */
    void (*hsumma_report)(const void *state, relay_hsumma_report *r);
    /* Timing replays (relay_exec_time, relay_exec_timings); NULL for the
     * kinds that do not time theirs. */
    relay_status (*time)(void *state, int on);
    void (*timings)(const void *state, int64_t *replays, relay_exec_timing *out, int *count);
    /* How the replays run (relay_exec_tune, relay/plan.h's tuning): `choose`
     * sets it after every rank agreed on the plan and before bind, the same
     * choice on every rank (no MPI call, cannot fail); `replayed` says how
     * they run once bound (binding may settle on p2p, packed 1 where this
     * rank's p2p messages are all packed).  NULL for the kinds that have
     * one way to replay. */
    void (*choose)(void *state, const relay_tuning_choice *c);
    void (*replayed)(const void *state, relay_tuning_choice *c);
    /* The memory kind, stream and settled transport it replays with; NULL
     * for the kinds that replay over host memory alone. */
    void (*options)(const void *state, relay_exec_options *opt);
    void (*free)(void *state); /* NULL or partial states too */
} rl_exec_kind;

extern const rl_exec_kind rl_exec_transform, rl_exec_bmmc, rl_exec_hsumma, rl_exec_nd, rl_exec_index;

/* relay_exec_create replaying as `choice` says, whatever the plan's tuning
 * (collective; the same choice on every rank): relay_exec_tune's
 * candidates (tune.c). */
relay_status rl_exec_create_choosing(relay_exec **out, const relay_plan *p, MPI_Comm comm, const relay_tuning_choice *choice);
/* How the executor replays (its kind's `replayed`; zeros for the kinds
 * that have one way): relay_exec_schedule's answer, and an N-D
 * executor's forwarding. */
void rl_exec_replayed(const relay_exec *e, relay_tuning_choice *c);
/* The fewest and most of the executor's ranks on one node, as its
 * creation agreed. */
void rl_exec_job_shape(const relay_exec *e, int *fewest, int *most);

#endif
