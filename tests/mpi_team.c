/* mpi_team.c — the thread team of an executor's moves (executor/team.c):
 * OpenMP's thread count, capped at the rank's share of the CPUs its node's
 * ranks may run on, computed here independently: the node's ranks found by
 * processor name, their CPUs as the union of every rank's affinity mask,
 * gathered whole.  Checked on MPI_COMM_WORLD and on halves of it (only the
 * communicator's ranks count), with OpenMP asking for 1, 2 and 64
 * threads.  Run at 1, 2, 3, 4 and 8 ranks; on a two-core machine 4 and 8
 * ranks must get one thread each whatever OpenMP asks.  The count of the
 * communicator's ranks on the node (the job's shape, relay_exec_tune) is
 * checked against the processor names too. */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"
#include "team.h"

/* The reference: this rank's share of its node's CPUs in comm, at least 1,
 * and comm's ranks on its node. */
static int expected_share(MPI_Comm comm, int *node_ranks)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    char name[MPI_MAX_PROCESSOR_NAME] = {0}, *names = calloc((size_t)n, MPI_MAX_PROCESSOR_NAME);
    int len;
    MPI_Get_processor_name(name, &len);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm);
    cpu_set_t mine, *masks = calloc((size_t)n, sizeof mine);
    CPU_ZERO(&mine);
    sched_getaffinity(0, sizeof mine, &mine);
    MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, masks, (int)sizeof mine, MPI_BYTE, comm);
    int ranks = 0, cpus = 0;
    for (int r = 0; r < n; r++) ranks += strcmp(names + (size_t)r * MPI_MAX_PROCESSOR_NAME, name) == 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        int used = 0;
        for (int r = 0; r < n && !used; r++)
            used = strcmp(names + (size_t)r * MPI_MAX_PROCESSOR_NAME, name) == 0 && CPU_ISSET(cpu, &masks[r]);
        cpus += used;
    }
    free(names);
    free(masks);
    *node_ranks = ranks;
    return cpus / ranks > 1 ? cpus / ranks : 1;
}

static void check_team(MPI_Comm comm, int asked, const char *what)
{
    omp_set_num_threads(asked);
    int node_ranks, node_ranks_seen;
    int share = expected_share(comm, &node_ranks), team = rl_team_size(comm, &node_ranks_seen), want = asked < share ? asked : share;
    if (team != want) printf("  rank with %d asked, share %d: team %d, expected %d\n", asked, share, team, want);
    check(team == want, what);
    check(node_ranks_seen == node_ranks, "the ranks on this rank's node are those of the communicator with its processor name");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int asks[] = {1, 2, 64};
    for (int k = 0; k < 3; k++) {
        check_team(MPI_COMM_WORLD, asks[k], "on the whole job, the team is OpenMP's count capped at the rank's share of its node");
        check_team(half, asks[k], "on half the ranks, only the communicator's ranks share the node");
    }
    omp_set_num_threads(64);
    int node_ranks;
    if (nranks >= 4 && omp_get_num_procs() <= 2)
        check(rl_team_size(MPI_COMM_WORLD, &node_ranks) == 1, "4 or more ranks on 2 cores: one thread each");
    MPI_Comm_free(&half);
    int status = check_summary("mpi_team");
    MPI_Finalize();
    return status;
}
