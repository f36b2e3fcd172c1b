/* hsumma_tune.c — choosing HSUMMA's groups on the machine itself: the
 * autotuner that times a few outer steps of every grouping (the paper's
 * conclusion: "using few iterations of HSUMMA") through the HSUMMA replay
 * (hsumma_exec.c).  The model's alternative, measuring the network, is
 * network.c. */
#include <math.h>

#include "agree.h"
#include "error.h"
#include "hsumma_dist.h"
#include "hsumma_exec.h"
#include "mpi_error.h"
#include "relay/exec.h"

enum { TUNE_REPS = 3 };

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
    relay_status st = rl_agree(comm, rl_hsumma_exec_create(&x, &g, rank), "preparing an autotuning candidate");
    if (!st) st = rl_hsumma_exec_bind(x, comm); /* agreed inside */
    if (!st) st = rl_hsumma_exec_start(x, s->c, s->a, s->b, NULL, NULL);
    double best = INFINITY;
    for (int r = 0; r <= TUNE_REPS && !st; r++) { /* r = 0 warms up */
        int rc = MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        st = rl_hsumma_exec_run_outer(x, outer_steps);
        double t = MPI_Wtime() - t0;
        st = rl_agree(comm, rc == MPI_SUCCESS ? st : rl_mpi_fail(rc, "MPI_Barrier"), "an autotuning replay");
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
    uint64_t fp[RL_AGREE_SAME];
    rl_agree_same_init(fp, p->fingerprint);
    relay_status st = rl_agree_values(comm, local, fp, RL_AGREE_SAME, "relay_hsumma_autotune: checking the arguments");
    if (st) return st;
    return rl_agree_same(fp) ? RELAY_OK : rl_fail(RELAY_ERR_MISMATCH, "relay_hsumma_autotune: ranks hold different plans");
}

/* Times every grouping; the fastest wins, fewer groups on a tie. */
static relay_status tune(const relay_plan *p, MPI_Comm comm, int outer_steps, int *best_i, int *best_j)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    const relay_hsumma_params *hp = &p->hsumma->params;
    scratch s = {0};
    relay_status st = rl_agree(comm, scratch_alloc(&s, hp, rank), "relay_hsumma_autotune's scratch operands");
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
