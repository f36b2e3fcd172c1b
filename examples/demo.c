/* demo.c — relay end to end: plan, inspect, replay, verify.
 *
 * Plans A := alpha * B^T + beta * A for an n x n double matrix moving from a
 * 32 x 32 block-cyclic layout to a 128 x 128 one on the ranks of
 * MPI_COMM_WORLD (a 1 x P grid to a near-square grid), prints what the plan
 * moves, replays it several times over fresh inputs and checks every element
 * against the global formula B(i, j) = i + n*j.
 *
 *   mpiexec -n 4 relay-demo [n] [replays] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "relay/relay.h"


static int near_square_rows(int p)
{
    int r = 1;
    for (int d = 1; d * d <= p; d++)
        if (p % d == 0) r = d;
    return r;
}

static double b_value(int64_t i, int64_t j, int64_t n, int replay) { return (double)(i + n * j) + replay; }

/* Fills this rank's part of B from the global formula. */
static void fill_b(const relay_layout *lb, int rank, double *b, int64_t n, int replay)
{
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            int owner;
            int64_t idx;
            relay_layout_locate(lb, i, j, &owner, &idx);
            if (owner == rank) b[idx] = b_value(i, j, n, replay);
        }
}

/* Counts elements of A on this rank that differ from alpha * B(j, i) + beta * A0. */
static int64_t count_wrong(const relay_layout *la, int rank, const double *a, int64_t n, int replay,
                           double alpha, double beta, double a0)
{
    int64_t wrong = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            int owner;
            int64_t idx;
            relay_layout_locate(la, i, j, &owner, &idx);
            if (owner == rank && a[idx] != alpha * b_value(j, i, n, replay) + beta * a0) wrong++;
        }
    return wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int64_t n = argc > 1 ? atoll(argv[1]) : 1000;
    int replays = argc > 2 ? atoi(argv[2]) : 5;
    int pr = near_square_rows(P);

    relay_layout *la, *lb;
    CHECK(relay_layout_block_cyclic(&lb, n, n, 32, 32, 1, P, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR));
    CHECK(relay_layout_block_cyclic(&la, n, n, 128, 128, pr, P / pr, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR));
    relay_plan *plan;
    double t0 = MPI_Wtime();
    CHECK(relay_plan_transform(&plan, P, la, lb, RELAY_OP_T, RELAY_DOUBLE, NULL));
    double plan_s = MPI_Wtime() - t0;
    relay_plan_stats stats;
    CHECK(relay_plan_get_stats(plan, &stats));
    if (rank == 0)
        printf("plan: A(%lldx%lld, 128x128 on %dx%d) := 2 * B^T - A, B in 32x32 on 1x%d, %d ranks\n"
               "      %lld pieces, %lld messages, %.1f MiB moved, %.1f MiB remote, planned in %.3f s\n",
               (long long)n, (long long)n, pr, P / pr, P, P, (long long)stats.pieces, (long long)stats.messages,
               stats.bytes_total / 1048576.0, stats.bytes_remote / 1048576.0, plan_s);

    relay_exec *ex;
    CHECK(relay_exec_create(&ex, plan, MPI_COMM_WORLD));
    int64_t na = relay_plan_buffer_elems(plan, 1, 0, rank), nb = relay_plan_buffer_elems(plan, 0, 0, rank);
    double *a = malloc((size_t)(na ? na : 1) * sizeof *a), *b = malloc((size_t)(nb ? nb : 1) * sizeof *b);
    double alpha = 2.0, beta = -1.0, a0 = 3.0, best = INFINITY;
    int64_t wrong = 0;
    for (int r = 0; r < replays; r++) {
        fill_b(lb, rank, b, n, r);
        for (int64_t k = 0; k < na; k++) a[k] = a0;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        CHECK(relay_exec_run(ex, (void *const[]){a}, (const void *const[]){b}, &alpha, &beta));
        double t = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (t < best) best = t;
        wrong += count_wrong(la, rank, a, n, r, alpha, beta, a0);
    }
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("replay: %d replays, best %.4f s, verified: %s (%lld wrong elements)\n", replays, best,
               wrong ? "NO" : "yes", (long long)wrong);
    free(a);
    free(b);
    relay_exec_free(ex);
    relay_plan_free(plan);
    relay_layout_free(la);
    relay_layout_free(lb);
    MPI_Finalize();
    return wrong ? 1 : 0;
}
