/* tune.c — choosing how a transform plan is replayed, on the machine itself
 * (relay_exec_tune).  One executor per way the executor can replay the
 * plan's sections (exec.c's rl_exec_create_choosing), all bound at once
 * over the same scratch buffers and timed in turns, so that a change in
 * the machine's load falls on every choice alike: a replay's time is the
 * slowest rank's from a barrier, a choice's the median of its replays.
 * The result is the plan's tuning (plan_format/tuning.c), which
 * relay_exec_create follows in jobs of the same shape.  FFTW's wisdom is
 * the model: measure once, keep the answer with what it was measured on. */
#include <stdlib.h>
#include <string.h>

#include "agree.h"
#include "error.h"
#include "exec_kind.h"
#include "mpi_error.h"
#include "team.h"

enum { TUNE_WARMUP = 2, TUNE_MAX_REPLAYS = 1000 };

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
    if (p->kind != RELAY_PLAN_TRANSFORM)
        return rl_fail(RELAY_ERR_UNSUPPORTED, "relay_exec_tune: only transform plans choose a schedule (relay_hsumma_autotune "
                                              "tunes an HSUMMA plan's groups)");
    if (replays < 1 || replays > TUNE_MAX_REPLAYS)
        return rl_fail(RELAY_ERR_ARG, "relay_exec_tune: %d timed replays; expected 1 to %d", replays, TUNE_MAX_REPLAYS);
    return RELAY_OK;
}

/* The fewest and most of comm's ranks on one node. */
static relay_status job_shape(MPI_Comm comm, int *fewest, int *most)
{
    int node_ranks;
    (void)rl_team_size(comm, &node_ranks);
    uint64_t v[2] = {(uint64_t)node_ranks, (uint64_t)(INT32_MAX - node_ranks)};
    relay_status st = rl_agree_values(comm, RELAY_OK, v, 2, "relay_exec_tune: the job's shape");
    *most = (int)v[0];
    *fewest = INT32_MAX - (int)v[1];
    return st;
}

/* Zeroed buffers of this rank's sizes (NaN would do as well: nothing is
 * checked, but zeros keep denormal and NaN arithmetic out of the times). */
static relay_status scratch_alloc(tuning_run *t, const relay_plan *p, int rank)
{
    size_t esz = relay_type_size(p->type);
    t->count = p->count;
    t->dst = rl_calloc((size_t)p->count, sizeof *t->dst);
    t->src = rl_calloc((size_t)p->count, sizeof *t->src);
    if (!t->dst || !t->src) return RL_NOMEM();
    for (int k = 0; k < p->count; k++) {
        t->dst[k] = rl_calloc((size_t)relay_plan_buffer_elems(p, 1, k, rank) + 1, esz);
        t->src[k] = rl_calloc((size_t)relay_plan_buffer_elems(p, 0, k, rank) + 1, esz);
        if (!t->dst[k] || !t->src[k]) return RL_NOMEM();
    }
    return RELAY_OK;
}

/* Binds choice c as the next candidate, unless binding settled on
 * something else (a collective whose counts do not fit ints replays p2p,
 * which is timed already).  *direct: whether some rank's p2p messages
 * travel direct (asked of the first, unpacked p2p, candidate). */
static relay_status add_candidate(tuning_run *t, const relay_plan *p, relay_tuning_choice c, int *direct)
{
    relay_exec *e = NULL;
    relay_status st = rl_agree(t->comm, rl_exec_create_choosing(&e, p, t->comm, &c), "relay_exec_tune: binding a choice");
    relay_tuning_choice got = {0};
    if (!st) relay_exec_schedule(e, &got.schedule, &got.packed);
    if (!st && direct) {
        uint64_t some = !got.packed;
        st = rl_agree_values(t->comm, RELAY_OK, &some, 1, "relay_exec_tune: direct messages");
        *direct = some != 0;
    }
    if (st || got.schedule != c.schedule) {
        relay_exec_free(e);
        return st;
    }
    t->choice[t->n] = c;
    t->exec[t->n++] = e;
    return RELAY_OK;
}

/* p2p (direct runs, then all packed if some rank has direct runs), rounds
 * where the sections have steps, alltoallv, neighbor. */
static relay_status bind_candidates(tuning_run *t, const relay_plan *p)
{
    int direct = 0;
    relay_status st = add_candidate(t, p, (relay_tuning_choice){RELAY_SCHED_P2P, 0, 0}, &direct);
    if (!st && direct) st = add_candidate(t, p, (relay_tuning_choice){RELAY_SCHED_P2P, 1, 0}, NULL);
    if (!st && p->schedule == RELAY_SCHED_ROUNDS) st = add_candidate(t, p, (relay_tuning_choice){RELAY_SCHED_ROUNDS, 0, 0}, NULL);
    if (!st) st = add_candidate(t, p, (relay_tuning_choice){RELAY_SCHED_ALLTOALLV, 0, 0}, NULL);
    if (!st) st = add_candidate(t, p, (relay_tuning_choice){RELAY_SCHED_NEIGHBOR, 0, 0}, NULL);
    return st;
}

/* One replay of candidate k from a barrier: this rank's seconds. */
static relay_status timed_replay(tuning_run *t, int k, double *seconds)
{
    int rc = MPI_Barrier(t->comm);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "MPI_Barrier in relay_exec_tune");
    double t0 = MPI_Wtime();
    relay_status st = relay_exec_run(t->exec[k], t->dst, (const void *const *)t->src, NULL, NULL);
    *seconds = MPI_Wtime() - t0;
    return st;
}

/* Warm-up rounds, then `replays` rounds of one replay per candidate, each
 * round starting at the next candidate; times[k * replays + r] becomes
 * the slowest rank's time of candidate k's replay r. */
static relay_status time_candidates(tuning_run *t, int replays, double *times)
{
    relay_status st = RELAY_OK;
    double ignored;
    for (int r = 0; r < TUNE_WARMUP && !st; r++) {
        for (int k = 0; k < t->n && !st; k++) st = timed_replay(t, k, &ignored);
        st = rl_agree(t->comm, st, "relay_exec_tune: a warm-up replay");
    }
    for (int r = 0; r < replays && !st; r++) {
        for (int i = 0; i < t->n && !st; i++) {
            int k = (r + i) % t->n;
            st = timed_replay(t, k, &times[k * replays + r]);
        }
        st = rl_agree(t->comm, st, "relay_exec_tune: a timed replay");
    }
    int rc = st ? MPI_SUCCESS : MPI_Allreduce(MPI_IN_PLACE, times, t->n * replays, MPI_DOUBLE, MPI_MAX, t->comm);
    return st ? st : rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "MPI_Allreduce of relay_exec_tune's times");
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The tuning the times give: every rank computes the same from the same
 * reduced times; the first of equally fast choices wins. */
static void summarise(const tuning_run *t, double *times, int replays, int fewest, int most, relay_tuning *out)
{
    *out = (relay_tuning){.ntimed = t->n, .ranks_per_node_min = fewest, .ranks_per_node_max = most, .replays = replays};
    for (int k = 0; k < t->n; k++) {
        out->choices[k] = t->choice[k];
        out->choices[k].seconds = median(times + k * replays, replays);
        if (out->choices[k].seconds < out->choices[out->best].seconds) out->best = k;
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
    st = rl_agree(t.comm, st, "relay_exec_tune: checking the arguments");
    if (!st) st = job_shape(t.comm, &fewest, &most);
    if (!st) st = rl_agree(t.comm, scratch_alloc(&t, p, rank), "relay_exec_tune: the scratch buffers");
    if (!st) st = bind_candidates(&t, p);
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
