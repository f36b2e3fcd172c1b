/* tune.c — choosing how a transform plan is replayed, on the machine itself
 * (relay_exec_tune).  One executor per way the executor can replay the
 * plan's sections (exec.c's rl_exec_create_choosing), all bound at once
 * over the same scratch buffers and timed in turns, so that a change in
 * the machine's load falls on every choice alike: a replay's time is the
 * slowest rank's from the agreement that starts it, a choice's the median
 * of its replays, the one kept the fastest (tune_pick.c).
 * The result is the plan's tuning (plan_format/tuning.c), which
 * relay_exec_create follows in jobs of the same shape.  FFTW's wisdom is
 * the model: measure once, keep the answer with what it was measured on. */
#include <stdlib.h>
#include <string.h>

#include "agree.h"
#include "balanced_order.h"
#include "error.h"
#include "exec_kind.h"
#include "mpi_error.h"
#include "tune_pick.h"

enum { TUNE_WARMUP = 2 };

/* The choices being timed, their executors, and the scratch buffers every
 * one of them replays over. */
typedef struct {
    MPI_Comm comm;           /* a duplicate of the caller's */
    int n;
    relay_tuning_choice choice[RELAY_TUNING_MAX_CHOICES];
    relay_exec *exec[RELAY_TUNING_MAX_CHOICES];
    int count;               /* the plan's pairs */
    void **dst, **src;
} tuning_run;

static relay_status check_arguments(const relay_plan *p, MPI_Comm comm, int replays)
{
    if (!p || comm == MPI_COMM_NULL) return rl_fail(RELAY_ERR_ARG, "relay_exec_tune: NULL plan or MPI_COMM_NULL");
    if (p->kind != RELAY_PLAN_TRANSFORM && p->kind != RELAY_PLAN_ND)
        return rl_fail(RELAY_ERR_UNSUPPORTED, "relay_exec_tune: only transform and N-D plans choose how they replay "
                                              "(relay_hsumma_autotune tunes an HSUMMA plan's groups)");
    if (replays < 1 || replays > RELAY_TUNE_MAX_REPLAYS)
        return rl_fail(RELAY_ERR_ARG, "relay_exec_tune: %d timed replays; expected 1 to %d", replays, RELAY_TUNE_MAX_REPLAYS);
    return RELAY_OK;
}

/* Every rank's arguments checked, and the same replay count everywhere
 * (the loops and the reduction of the times follow it): its largest and,
 * as its complement, its smallest. */
static relay_status agree_arguments(MPI_Comm comm, relay_status local, int replays)
{
    uint64_t v[2] = {(uint64_t)(replays > 0 ? replays : 0), (uint64_t)(INT32_MAX - (replays > 0 ? replays : 0))};
    relay_status st = rl_agree_values(comm, local, v, 2, "relay_exec_tune: checking the arguments");
    if (!st && (int)v[0] != INT32_MAX - (int)v[1])
        return rl_fail(RELAY_ERR_MISMATCH, "relay_exec_tune: ranks ask for different replay counts (%d to %d)",
                       INT32_MAX - (int)v[1], (int)v[0]);
    return st;
}

/* Zeroed buffers of this rank's sizes (NaN would do as well: nothing is
 * checked, but zeros keep denormal and NaN arithmetic out of the times). */
static relay_status scratch_alloc(tuning_run *t, const relay_plan *p, int rank)
{
    size_t esz = relay_type_size(p->type);
    t->dst = rl_calloc((size_t)relay_plan_count(p), sizeof *t->dst);
    t->src = rl_calloc((size_t)relay_plan_count(p), sizeof *t->src);
    if (!t->dst || !t->src) return RL_NOMEM();
    t->count = relay_plan_count(p);
    for (int k = 0; k < t->count; k++) {
        t->dst[k] = rl_calloc((size_t)relay_plan_buffer_elems(p, 1, k, rank) + 1, esz);
        t->src[k] = rl_calloc((size_t)relay_plan_buffer_elems(p, 0, k, rank) + 1, esz);
        if (!t->dst[k] || !t->src[k]) return RL_NOMEM();
    }
    return RELAY_OK;
}

/* Binds choice c as the next candidate, unless binding settled on
 * something else: a collective whose counts do not fit ints replays p2p,
 * which is timed already, and a choice through the shared-memory window
 * where no rank shares a node with a peer (or RELAY_SHM=off, or a cap's
 * chunks are too small for it) is plain p2p (or plain rounds).
 * *direct: whether some rank's p2p messages travel direct (asked of the
 * first, unpacked p2p, candidate). */
static relay_status add_candidate(tuning_run *t, const relay_plan *p, relay_tuning_choice c, int *direct)
{
    relay_exec *e = NULL;
    relay_status st = rl_agree(t->comm, rl_exec_create_choosing(&e, p, t->comm, &c), "relay_exec_tune: binding a choice");
    relay_tuning_choice got = {0};
    if (!st) rl_exec_replayed(e, &got);
    uint64_t some[2] = {!got.packed, (uint64_t)got.window}; /* any rank's direct or window messages */
    if (!st) st = rl_agree_values(t->comm, RELAY_OK, some, 2, "relay_exec_tune: how messages travel");
    if (!st && direct) *direct = some[0] != 0;
    if (st || got.schedule != c.schedule || got.forward != c.forward || (c.window && !some[1])) {
        relay_exec_free(e);
        return st;
    }
    t->choice[t->n] = c;
    t->exec[t->n++] = e;
    return RELAY_OK;
}

/* p2p (direct runs, then all packed if some rank has direct runs, then
 * on-node messages through a shared-memory window), rounds where the
 * sections have steps, alltoallv, neighbor; under a memory cap, which the
 * other schedules would not keep, rounds alone, through MPI and through
 * the window.  An N-D plan:
 * replicas receiving directly and, where a destination is replicated,
 * forwarding. */
static relay_status bind_candidates(tuning_run *t, const relay_plan *p)
{
    if (p->kind == RELAY_PLAN_ND) {
        relay_status st = add_candidate(t, p, (relay_tuning_choice){.schedule = RELAY_SCHED_P2P}, NULL);
        if (!st && rl_nd_plan_replicated(p->nd)) st = add_candidate(t, p, (relay_tuning_choice){.schedule = RELAY_SCHED_P2P, .forward = 1}, NULL);
        return st;
    }
    if (p->max_buffer_bytes) {
        relay_status st = add_candidate(t, p, (relay_tuning_choice){.schedule = RELAY_SCHED_ROUNDS}, NULL);
        return st ? st : add_candidate(t, p, (relay_tuning_choice){.schedule = RELAY_SCHED_ROUNDS, .window = 1}, NULL);
    }
    int direct = 0;
    relay_status st = add_candidate(t, p, (relay_tuning_choice){.schedule = RELAY_SCHED_P2P}, &direct);
    if (!st && direct) st = add_candidate(t, p, (relay_tuning_choice){.schedule = RELAY_SCHED_P2P, .packed = 1}, NULL);
    if (!st) st = add_candidate(t, p, (relay_tuning_choice){.schedule = RELAY_SCHED_P2P, .window = 1}, NULL);
    if (!st && p->schedule == RELAY_SCHED_ROUNDS) st = add_candidate(t, p, (relay_tuning_choice){.schedule = RELAY_SCHED_ROUNDS}, NULL);
    if (!st) st = add_candidate(t, p, (relay_tuning_choice){.schedule = RELAY_SCHED_ALLTOALLV}, NULL);
    if (!st) st = add_candidate(t, p, (relay_tuning_choice){.schedule = RELAY_SCHED_NEIGHBOR}, NULL);
    return st;
}

/* Warm-up rounds, then `replays` rounds of one replay per candidate, in
 * the balanced order of balanced_order.h; times[k * replays + r] becomes
 * the slowest rank's time of candidate k's replay r.  Each replay starts
 * when every rank agreed that the one before succeeded: the agreement is
 * the barrier its time starts from, and a failure stops all ranks at
 * once. */
static relay_status time_candidates(tuning_run *t, int replays, double *times)
{
    relay_status st = RELAY_OK, agreed = RELAY_OK;
    int warmup = TUNE_WARMUP * t->n, total = warmup + replays * t->n;
    for (int step = 0; step < total; step++) {
        int r = (step - warmup) / t->n, k = step < warmup ? step % t->n : rl_balanced_order(r, (step - warmup) % t->n, t->n);
        agreed = rl_agree(t->comm, st, "relay_exec_tune: a replay");
        if (agreed) break;
        double t0 = MPI_Wtime();
        st = relay_exec_run(t->exec[k], t->dst, (const void *const *)t->src, NULL, NULL);
        if (step >= warmup) times[k * replays + r] = MPI_Wtime() - t0;
    }
    st = agreed ? agreed : rl_agree(t->comm, st, "relay_exec_tune: the last replay");
    int rc = st ? MPI_SUCCESS : MPI_Allreduce(MPI_IN_PLACE, times, t->n * replays, MPI_DOUBLE, MPI_MAX, t->comm);
    return st ? st : rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "MPI_Allreduce of relay_exec_tune's times");
}

/* The tuning the times give: every rank computes the same from the same
 * reduced times (the choice kept: tune_pick.c). */
static void summarise(const tuning_run *t, const double *times, int replays, int fewest, int most, relay_tuning *out)
{
    double medians[RELAY_TUNING_MAX_CHOICES];
    *out = (relay_tuning){.ntimed = t->n, .ranks_per_node_min = fewest, .ranks_per_node_max = most, .replays = replays};
    out->best = rl_tune_pick(times, t->n, replays, medians);
    for (int k = 0; k < t->n; k++) {
        out->choices[k] = t->choice[k];
        out->choices[k].seconds = medians[k];
    }
}

static void tuning_run_free(tuning_run *t)
{
    for (int k = 0; k < t->n; k++) relay_exec_free(t->exec[k]);
    for (int k = 0; k < t->count; k++) {
        free(t->dst[k]);
        free(t->src[k]);
    }
    free(t->dst);
    free(t->src);
    if (t->comm != MPI_COMM_NULL) MPI_Comm_free(&t->comm);
}

relay_status relay_exec_tune(relay_plan *p, MPI_Comm comm, int replays)
{
    relay_status st = check_arguments(p, comm, replays);
    if (comm == MPI_COMM_NULL) return st;
    tuning_run t = {.comm = MPI_COMM_NULL};
    int rc = MPI_Comm_dup(comm, &t.comm);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "MPI_Comm_dup in relay_exec_tune");
    MPI_Comm_set_errhandler(t.comm, MPI_ERRORS_RETURN);
    int rank, fewest = 0, most = 0;
    MPI_Comm_rank(t.comm, &rank);
    st = agree_arguments(t.comm, st, replays);
    if (!st) st = rl_agree(t.comm, scratch_alloc(&t, p, rank), "relay_exec_tune: the scratch buffers");
    if (!st) st = bind_candidates(&t, p);
    if (!st) rl_exec_job_shape(t.exec[0], &fewest, &most); /* every candidate agreed on it */
    double *times = st ? NULL : rl_calloc((size_t)t.n * (size_t)replays, sizeof *times);
    if (!st) st = rl_agree(t.comm, times ? RELAY_OK : RL_NOMEM(), "relay_exec_tune: the table of times");
    if (!st) st = time_candidates(&t, replays, times);
    relay_tuning tuning;
    if (!st) summarise(&t, times, replays, fewest, most, &tuning);
    if (!st) st = relay_plan_set_tuning(p, &tuning);
    free(times);
    tuning_run_free(&t);
    return st;
}
