/* team.h — how many OpenMP threads one rank's moves use, and how many of
 * the communicator's ranks share this rank's node (team.c). */
#ifndef RELAY_TEAM_H
#define RELAY_TEAM_H

#include <mpi.h>

/* Collective over comm: OpenMP's thread count for this rank
 * (omp_get_max_threads), capped at this rank's share of the CPUs that
 * comm's ranks on its node may run on; at least 1.  *node_ranks becomes
 * the count of comm's ranks on this rank's node (1 if MPI cannot say). */
int rl_team_size(MPI_Comm comm, int *node_ranks);

#endif
