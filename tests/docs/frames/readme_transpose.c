/* ranks: 4 */
/* readme_transpose.c — the frame of README.md's C example: A := alpha B^T
 * + beta A, iters times, B an n x n matrix in 32 x 32 blocks on a 1 x 4
 * grid, A in 128 x 128 blocks on 2 x 2 (grids numbered row-major, block
 * (0, 0) on process (0, 0), each process's smallest leading dimension).
 * The frame gives the example n, iters, alpha, beta and this rank's arrays a
 * and b, filled by ScaLAPACK's index arithmetic, and checks every element
 * of A against the same recurrence computed here. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "relay/relay.h"

/* A matrix in mb x mb blocks on an npr x npc grid. */
typedef struct {
    int64_t mb;
    int npr, npc;
} grid;

/* ScaLAPACK's NUMROC for block 0 on process 0. */
static int64_t numroc(int64_t n, int64_t nb, int p, int np)
{
    int64_t blocks = n / nb, count = blocks / np * nb;
    return count + (p < blocks % np ? nb : p == blocks % np ? n % nb : 0);
}

/* Which rank holds element (i, j) of the n x n matrix on g, and where. */
static int64_t locate(const grid *g, int64_t n, int64_t i, int64_t j, int *owner)
{
    int pr = (int)(i / g->mb % g->npr), pc = (int)(j / g->mb % g->npc);
    int64_t ld = numroc(n, g->mb, pr, g->npr);
    *owner = pr * g->npc + pc;
    return i / (g->mb * g->npr) * g->mb + i % g->mb + (j / (g->mb * g->npc) * g->mb + j % g->mb) * (ld > 1 ? ld : 1);
}

static int64_t local_elems(const grid *g, int64_t n, int rank)
{
    int64_t rows = numroc(n, g->mb, rank / g->npc, g->npr);
    return (rows > 1 ? rows : 1) * numroc(n, g->mb, rank % g->npc, g->npc);
}

static double b_value(int64_t i, int64_t j) { return (double)(1000 * i + j); }
static double a0_value(int64_t i, int64_t j) { return -(double)(i + 7 * j); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, owner;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int64_t n = 300;
    const int iters = 2;
    const grid gb = {32, 1, 4}, ga = {128, 2, 2};
    double alpha = 2, beta = 0.5;
    double *a = malloc((size_t)local_elems(&ga, n, rank) * sizeof *a + 1);
    double *b = malloc((size_t)local_elems(&gb, n, rank) * sizeof *b + 1);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            int64_t k = locate(&gb, n, i, j, &owner);
            if (owner == rank) b[k] = b_value(i, j);
            k = locate(&ga, n, i, j, &owner);
            if (owner == rank) a[k] = a0_value(i, j);
        }
    {
        @EXAMPLE@
    }
    long wrong = 0, total;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            int64_t k = locate(&ga, n, i, j, &owner);
            double want = a0_value(i, j);
            for (int it = 0; it < iters; it++) want = alpha * b_value(j, i) + beta * want;
            wrong += owner == rank && a[k] != want;
        }
    MPI_Allreduce(&wrong, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("README.md's C example: %ld wrong elements\n", total);
    free(a);
    free(b);
    MPI_Finalize();
    return total != 0;
}
