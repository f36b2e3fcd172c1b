/* hsumma_tune.c — choosing HSUMMA's groups on the machine itself: the
 * network's alpha and beta by ping-pong (for the model, section IV), and
 * the autotuner that times a few outer steps of every grouping (the
 * paper's conclusion: "using few iterations of HSUMMA"). */
#include <math.h>
#include <string.h>

#include "error.h"
#include "hsumma_dist.h"
#include "hsumma_exec.h"
#include "mpi_error.h"

enum {
    SMALL_BYTES = 8,
    LARGE_BYTES = 1 << 20,
    SMALL_REPS = 100,
    LARGE_REPS = 10,
    WARMUP_REPS = 3,
    TUNE_REPS = 3,
    TAG_PINGPONG = 1
};

/* Half the fastest round trip of `bytes` between ranks 0 and 1 (others: 0).
 * The minimum, not the mean: an oversubscribed rank's descheduling is not
 * the network. */
static int one_way_seconds(MPI_Comm comm, int rank, char *buf, int bytes, int reps, double *out)
{
    double best = INFINITY;
    int rc = MPI_SUCCESS;
    for (int r = -WARMUP_REPS; r < reps && rc == MPI_SUCCESS && rank < 2; r++) {
        double t0 = MPI_Wtime();
        if (rank == 0) {
            rc = MPI_Send(buf, bytes, MPI_BYTE, 1, TAG_PINGPONG, comm);
            if (rc == MPI_SUCCESS) rc = MPI_Recv(buf, bytes, MPI_BYTE, 1, TAG_PINGPONG, comm, MPI_STATUS_IGNORE);
        } else {
            rc = MPI_Recv(buf, bytes, MPI_BYTE, 0, TAG_PINGPONG, comm, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS) rc = MPI_Send(buf, bytes, MPI_BYTE, 0, TAG_PINGPONG, comm);
        }
        double t = (MPI_Wtime() - t0) / 2;
        if (r >= 0 && t < best) best = t;
    }
    *out = rank < 2 ? best : 0;
    return rc;
}

/* Every rank learns whether all succeeded; the failing rank keeps its message. */
static relay_status agree_ok(MPI_Comm comm, relay_status local, const char *what)
{
    int bad = local != RELAY_OK, any;
    int rc = MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, what);
    if (local) return local;
    return any ? rl_fail(RELAY_ERR_MISMATCH, "%s failed on another rank", what) : RELAY_OK;
}

static relay_status measure(MPI_Comm comm, relay_hsumma_network *net)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    char *buf = calloc(1, LARGE_BYTES);
    relay_status st = agree_ok(comm, buf ? RELAY_OK : RL_NOMEM(), "the ping-pong buffer");
    double t[2] = {0, 0};
    int rc = MPI_SUCCESS;
    if (!st) rc = one_way_seconds(comm, rank, buf, SMALL_BYTES, SMALL_REPS, &t[0]);
    if (!st && rc == MPI_SUCCESS) rc = one_way_seconds(comm, rank, buf, LARGE_BYTES, LARGE_REPS, &t[1]);
    free(buf);
    if (st) return st;
    /* Ranks 0 and 1 may fail alone; the others wait in the broadcast below. */
    st = agree_ok(comm, rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "the ping-pong of relay_hsumma_measure_network"),
                  "the ping-pong");
    if (st) return st;
    /* Hockney: t(m) = alpha + m beta through the two sizes. */
    double v[2] = {t[0], (t[1] - t[0]) / (LARGE_BYTES - SMALL_BYTES)};
    if (v[1] <= 0) v[1] = 1e-15;
    rc = MPI_Bcast(v, 2, MPI_DOUBLE, 0, comm);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "MPI_Bcast in relay_hsumma_measure_network");
    net->alpha = v[0];
    net->beta = v[1];
    return RELAY_OK;
}

relay_status relay_hsumma_measure_network(MPI_Comm comm, relay_hsumma_network *net)
{
    if (!net || comm == MPI_COMM_NULL) return rl_fail(RELAY_ERR_ARG, "relay_hsumma_measure_network: NULL argument");
    int size;
    MPI_Comm_size(comm, &size);
    *net = (relay_hsumma_network){0, 0, RELAY_BCAST_VAN_DE_GEIJN};
    if (size < 2) return RELAY_OK;
    MPI_Comm own;
    int rc = MPI_Comm_dup(comm, &own);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "MPI_Comm_dup in relay_hsumma_measure_network");
    MPI_Comm_set_errhandler(own, MPI_ERRORS_RETURN);
    relay_hsumma_network measured = *net;
    relay_status st = measure(own, &measured);
    MPI_Comm_free(&own);
    if (!st) *net = measured;
    return st;
}

/* ---- autotuning ----------------------------------------------------------------- */

/* Scratch operands for one rank, the same for every grouping. */
typedef struct {
    void *a, *b, *c;
} scratch;

static relay_status scratch_alloc(scratch *s, const relay_hsumma_params *p, int rank)
{
    size_t esz = relay_type_size(p->type);
    s->a = rl_calloc((size_t)rl_hsumma_local_elems(p, 0, rank), esz);
    s->b = rl_calloc((size_t)rl_hsumma_local_elems(p, 1, rank), esz);
    s->c = rl_calloc((size_t)rl_hsumma_local_elems(p, 2, rank), esz);
    return s->a && s->b && s->c ? RELAY_OK : RL_NOMEM();
}

/* The slowest rank's fastest time of the first outer_steps outer steps
 * with I x J groups. */
static relay_status time_grouping(const rl_hsumma *h, int I, int J, MPI_Comm comm, int rank, const scratch *s,
                                  int outer_steps, double *seconds)
{
    rl_hsumma g = *h;
    g.params.group_rows = I;
    g.params.group_cols = J;
    rl_hsumma_exec *x = NULL;
    relay_status st = agree_ok(comm, rl_hsumma_exec_create(&x, &g, rank), "preparing an autotuning candidate");
    if (!st) st = rl_hsumma_exec_bind(x, comm); /* agreed inside */
    if (!st) st = rl_hsumma_exec_start(x, s->c, s->a, s->b, NULL, NULL);
    double best = INFINITY;
    for (int r = 0; r <= TUNE_REPS && !st; r++) { /* r = 0 warms up */
        int rc = MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        st = rl_hsumma_exec_run_outer(x, outer_steps);
        double t = MPI_Wtime() - t0;
        st = agree_ok(comm, rc == MPI_SUCCESS ? st : rl_mpi_fail(rc, "MPI_Barrier"), "an autotuning replay");
        if (!st && (rc = MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm)) != MPI_SUCCESS)
            st = rl_mpi_fail(rc, "MPI_Allreduce in relay_hsumma_autotune");
        if (r > 0 && t < best) best = t;
    }
    rl_hsumma_exec_free(x);
    *seconds = best;
    return st;
}

/* The arguments every rank checks, and that all ranks hold the same plan:
 * agreed, so that no rank starts timing alone. */
static relay_status agree_plan(MPI_Comm comm, const relay_plan *p, int outer_steps)
{
    int size;
    MPI_Comm_size(comm, &size);
    relay_status local = !p->hsumma       ? rl_fail(RELAY_ERR_ARG, "relay_hsumma_autotune: not an HSUMMA plan")
                         : outer_steps < 1 ? rl_fail(RELAY_ERR_ARG, "relay_hsumma_autotune: outer_steps %d is below 1", outer_steps)
                         : size != p->nranks
                             ? rl_fail(RELAY_ERR_MISMATCH, "relay_hsumma_autotune: the communicator has %d ranks, the plan %d",
                                       size, p->nranks)
                             : RELAY_OK;
    uint64_t v[3] = {local != RELAY_OK, p->fingerprint, ~p->fingerprint};
    int rc = MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_UINT64_T, MPI_MAX, comm);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "MPI_Allreduce in relay_hsumma_autotune");
    if (local) return local;
    if (v[0]) return rl_fail(RELAY_ERR_MISMATCH, "relay_hsumma_autotune: another rank's arguments are wrong");
    return v[1] == ~v[2] ? RELAY_OK : rl_fail(RELAY_ERR_MISMATCH, "relay_hsumma_autotune: ranks hold different plans");
}

/* Times every grouping; the fastest wins, fewer groups on a tie. */
static relay_status tune(const relay_plan *p, MPI_Comm comm, int outer_steps, int *best_i, int *best_j)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    const relay_hsumma_params *hp = &p->hsumma->params;
    scratch s = {0};
    relay_status st = agree_ok(comm, scratch_alloc(&s, hp, rank), "relay_hsumma_autotune's scratch operands");
    double best = INFINITY;
    for (int I = 0, J = 0; !st && rl_hsumma_next_grouping(hp, &I, &J);) {
        double t;
        st = time_grouping(p->hsumma, I, J, comm, rank, &s, outer_steps, &t);
        if (!st && (t < best || (t == best && I * J < *best_i * *best_j))) {
            best = t;
            *best_i = I;
            *best_j = J;
        }
    }
    free(s.a);
    free(s.b);
    free(s.c);
    return st;
}

relay_status relay_hsumma_autotune(relay_plan **out, const relay_plan *p, MPI_Comm comm, int outer_steps)
{
    if (!out || !p || comm == MPI_COMM_NULL) return rl_fail(RELAY_ERR_ARG, "relay_hsumma_autotune: NULL argument");
    MPI_Comm own;
    int rc = MPI_Comm_dup(comm, &own);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "MPI_Comm_dup in relay_hsumma_autotune");
    MPI_Comm_set_errhandler(own, MPI_ERRORS_RETURN);
    int best_i = 1, best_j = 1;
    relay_status st = agree_plan(own, p, outer_steps);
    if (!st) st = tune(p, own, outer_steps, &best_i, &best_j);
    MPI_Comm_free(&own);
    if (st) return st;
    relay_hsumma_params tuned = p->hsumma->params;
    tuned.group_rows = best_i;
    tuned.group_cols = best_j;
    return rl_hsumma_plan_new(out, &tuned, RELAY_GROUPS_AUTOTUNE);
}
