/* team.c — the thread team of one rank's pack, unpack and transform.
 *
 * OpenMP sizes a team by the CPUs one process may use, not knowing that
 * other ranks of the job share them: four unbound ranks on two cores each
 * start two threads, and eight threads then take turns on two cores while
 * every parallel region waits at its barrier for a thread that is not
 * running, several times slower than one thread per rank.  So the executor caps its team at its
 * rank's share of the CPUs its node's ranks can run on: the union of their
 * affinity masks, divided among them.  Ranks bound to disjoint CPU sets
 * (Slurm's --cpus-per-task) keep their sets; unbound ranks split the node.
 * Only the ranks of the executor's communicator are counted: other jobs'
 * processes are not visible here. */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>

#include "team.h"

/* How many CPUs the node's ranks (node: their communicator) may run on. */
static int node_cpus(MPI_Comm node)
{
#ifdef __linux__
    cpu_set_t mine, all;
    CPU_ZERO(&mine);
    if (sched_getaffinity(0, sizeof mine, &mine) != 0) CPU_ZERO(&mine);
    if (MPI_Allreduce(&mine, &all, (int)sizeof mine, MPI_UNSIGNED_CHAR, MPI_BOR, node) != MPI_SUCCESS) return 0;
    return CPU_COUNT(&all);
#else
    int procs = omp_get_num_procs(), most = 0;
    MPI_Allreduce(&procs, &most, 1, MPI_INT, MPI_MAX, node);
    return most;
#endif
}

int rl_team_size(MPI_Comm comm, int *node_ranks)
{
    int wanted = omp_get_max_threads(), ranks = 1, cpus = 0;
    MPI_Comm node;
    *node_ranks = 1;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS) return wanted;
    MPI_Comm_size(node, &ranks);
    *node_ranks = ranks;
    cpus = node_cpus(node);
    MPI_Comm_free(&node);
    int share = cpus / ranks;
    if (cpus == 0) share = wanted; /* the masks could not be read: OpenMP's own choice */
    if (share < 1) share = 1;
    return wanted < share ? wanted : share;
}
