/* resize_bench.c — the four schedules on ReSHAPE's resizes, in one job.
 *
 * An n x n double matrix of nb x nb blocks moves between nearly-square
 * grids inside one communicator of 8 ranks (expansions 2x2 -> 2x4,
 * 2x3 -> 2x4, 2x2 -> 2x3 and the matching shrinks).  For each move the
 * plan is made four times, with the rounds (ReSHAPE's steps), p2p,
 * alltoallv and neighbor schedules, all four are bound, and their replays are
 * interleaved (round robin, so that the machine's drift hits them alike).
 * Printed: the median over R replays of the slowest rank's time, and each
 * schedule's ratio to p2p.
 *
 *   mpiexec -n 8 resize_bench [n] [nb] [R] */
#include <stdio.h>
#include <stdlib.h>

#include "relay/relay.h"

enum { RANKS = 8, SCHEDULES = 4 };
static const relay_schedule schedules[SCHEDULES] = {RELAY_SCHED_ROUNDS, RELAY_SCHED_P2P, RELAY_SCHED_ALLTOALLV,
                                                    RELAY_SCHED_NEIGHBOR};
static const int moves[][4] = {{2, 2, 2, 4}, {2, 4, 2, 2}, {2, 3, 2, 4}, {2, 4, 2, 3}, {2, 2, 2, 3}, {2, 3, 2, 2}};

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static relay_layout *grid(int64_t n, int64_t nb, int pr, int pc)
{
    relay_layout *l;
    relay_layout_block_cyclic(&l, n, n, nb, nb, pr, pc, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR);
    return l;
}

static void run_move(const int mv[4], int64_t n, int64_t nb, int reps, int rank)
{
    relay_layout *src = grid(n, nb, mv[0], mv[1]), *dst = grid(n, nb, mv[2], mv[3]);
    relay_exec *ex[SCHEDULES];
    int rounds = 0;
    for (int s = 0; s < SCHEDULES; s++) {
        relay_plan *p;
        relay_plan_options o;
        relay_plan_options_init(&o);
        o.schedule = schedules[s];
        if (relay_plan_transform(&p, RANKS, dst, src, RELAY_OP_N, RELAY_DOUBLE, &o) ||
            relay_exec_create(&ex[s], p, MPI_COMM_WORLD)) {
            fprintf(stderr, "resize_bench: %s\n", relay_last_error());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (s == 0) rounds = relay_plan_rounds(p);
        relay_plan_free(p);
    }
    double *a = calloc((size_t)relay_layout_local_elems(dst, rank) + 1, sizeof *a);
    double *b = calloc((size_t)relay_layout_local_elems(src, rank) + 1, sizeof *b);
    double *t = malloc((size_t)(SCHEDULES * reps) * sizeof *t);
    for (int r = -1; r < reps; r++)
        for (int s = 0; s < SCHEDULES; s++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            relay_exec_run(ex[s], (void *const[]){a}, (const void *const[]){b}, NULL, NULL);
            double dt = MPI_Wtime() - t0;
            MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (r >= 0) t[s * reps + r] = dt;
        }
    double med[SCHEDULES];
    for (int s = 0; s < SCHEDULES; s++) {
        qsort(t + s * reps, (size_t)reps, sizeof *t, cmp_double);
        med[s] = t[s * reps + reps / 2];
        relay_exec_free(ex[s]);
    }
    if (rank == 0)
        printf("| %dx%d -> %dx%d | %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", mv[0], mv[1], mv[2],
               mv[3], mv[0] * mv[1] < mv[2] * mv[3] ? "expand" : "shrink", rounds, 1e3 * med[0], 1e3 * med[1],
               1e3 * med[2], 1e3 * med[3], med[0] / med[1], med[2] / med[1], med[3] / med[1]);
    free(a);
    free(b);
    free(t);
    relay_layout_free(src);
    relay_layout_free(dst);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int64_t n = argc > 1 ? atoll(argv[1]) : 4096, nb = argc > 2 ? atoll(argv[2]) : 64;
    int reps = argc > 3 ? atoi(argv[3]) : 9;
    if (size != RANKS || n < 1 || nb < 1 || reps < 1) {
        if (rank == 0) fprintf(stderr, "usage: mpiexec -n %d resize_bench [n] [nb] [R]\n", RANKS);
        MPI_Finalize();
        return 2;
    }
    if (rank == 0)
        printf("| move | kind | rounds steps | rounds ms | p2p ms | alltoallv ms | neighbor ms | rounds/p2p | alltoallv/p2p "
               "| neighbor/p2p |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t k = 0; k < sizeof moves / sizeof *moves; k++) run_move(moves[k], n, nb, reps, rank);
    MPI_Finalize();
    return 0;
}
