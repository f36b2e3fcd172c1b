/* mpi_large.c — one message above 2 GiB (MPI's int counts cannot say how
 * many bytes it holds), at 2 ranks: rank 0 owns all of B, rank 1 all of A,
 * so the whole matrix (23,200 x 23,200 floats, 2.15 GB) travels as one
 * message, in 64 KiB wire units.  Every element of A is checked against the
 * function of its indices B was filled with.  Needs about 9 GB of memory;
 * ctest runs it only in the plain (non-sanitizer) build. */
#include <stdio.h>
#include <stdlib.h>

#include "relay/relay.h"

enum { N = 23200 };

/* Exact in float: below 2^24. */
static float value(int64_t i, int64_t j) { return (float)((i * 7 + j * 13) % 16777213); }

static relay_layout *one_block_on(int owner)
{
    relay_layout *l = NULL;
    int64_t splits[2] = {0, N};
    int owners[1] = {owner};
    relay_layout_grid(&l, 2, N, N, 1, splits, 1, splits, owners, NULL, NULL, RELAY_COL_MAJOR);
    return l;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "mpi_large runs at exactly 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    relay_layout *a = one_block_on(1), *b = one_block_on(0);
    relay_plan *p = NULL;
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.schedule = RELAY_SCHED_P2P;
    relay_status st = relay_plan_transform(&p, 2, a, b, RELAY_OP_N, RELAY_FLOAT, &o);
    relay_plan_stats stats = {0};
    if (!st) relay_plan_get_stats(p, &stats);
    size_t elems = (size_t)N * N;
    float *buf = malloc(elems * sizeof *buf); /* B on rank 0, A on rank 1 */
    int ok = st == RELAY_OK && buf && stats.bytes_remote == (int64_t)(elems * sizeof(float));
    if (ok && rank == 0)
        for (int64_t j = 0; j < N; j++)
            for (int64_t i = 0; i < N; i++) buf[i + j * N] = value(i, j);
    relay_exec *e = NULL;
    if (ok) st = relay_exec_create(&e, p, MPI_COMM_WORLD);
    if (ok && !st)
        st = relay_exec_run(e, (void *const[]){rank == 1 ? buf : NULL}, (const void *const[]){rank == 0 ? buf : NULL}, NULL,
                            NULL);
    ok = ok && st == RELAY_OK;
    int64_t wrong = 0;
    if (ok && rank == 1)
        for (int64_t j = 0; j < N; j++)
            for (int64_t i = 0; i < N; i++) wrong += buf[i + j * N] != value(i, j);
    if (!ok) fprintf(stderr, "rank %d: %s: %s\n", rank, relay_status_str(st), relay_last_error());
    if (rank == 1) printf("mpi_large: %lld-byte message, %lld wrong elements\n", (long long)stats.bytes_remote, (long long)wrong);
    ok = ok && wrong == 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    relay_exec_free(e);
    relay_plan_free(p);
    relay_layout_free(a);
    relay_layout_free(b);
    free(buf);
    MPI_Finalize();
    return ok ? 0 : 1;
}
