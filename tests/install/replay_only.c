/* replay_only.c — an application that only replays shipped plans: it links
 * the executor library alone (relay::exec, pkg-config relay-exec), loads
 * its own section of a plan file, replays it twice over zeroed buffers and
 * reports the plan's remote bytes.  Built against the installed package by
 * tests/install/install.sh.
 *
 *   mpiexec -n P consumer_replay FILE */
#include <stdio.h>
#include <stdlib.h>

#include <relay/relay.h>

static int fail(const char *what, relay_status st)
{
    fprintf(stderr, "replay_only: %s: %s: %s\n", what, relay_status_str(st), relay_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}

/* One zeroed buffer per transform pair and side, sized as the plan says. */
static void **buffers(const relay_plan *p, int is_dst, int rank)
{
    int count = relay_plan_count(p);
    void **b = calloc((size_t)count, sizeof *b);
    for (int k = 0; b && k < count; k++)
        b[k] = calloc((size_t)relay_plan_buffer_elems(p, is_dst, k, rank) + 1, relay_type_size(relay_plan_type(p)));
    return b;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 2) {
        if (rank == 0) fprintf(stderr, "usage: consumer_replay FILE\n");
        MPI_Finalize();
        return 2;
    }
    relay_plan *plan;
    relay_status st = relay_plan_load(&plan, argv[1], rank);
    if (st) return fail("relay_plan_load", st);
    void **dst = buffers(plan, 1, rank), **src = buffers(plan, 0, rank);
    relay_exec *ex;
    if ((st = relay_exec_create(&ex, plan, MPI_COMM_WORLD))) return fail("relay_exec_create", st);
    for (int it = 0; it < 2; it++)
        if ((st = relay_exec_run(ex, dst, (const void *const *)src, NULL, NULL))) return fail("relay_exec_run", st);
    relay_plan_stats stats;
    if ((st = relay_plan_get_stats(plan, &stats))) return fail("relay_plan_get_stats", st);
    if (rank == 0) printf("replayed: %lld remote bytes\n", (long long)stats.bytes_remote);
    relay_exec_free(ex);
    for (int k = 0; k < relay_plan_count(plan); k++) {
        free(dst[k]);
        free(src[k]);
    }
    free(dst);
    free(src);
    relay_plan_free(plan);
    MPI_Finalize();
    return 0;
}
