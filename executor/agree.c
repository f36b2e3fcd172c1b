/* agree.c — ranks agreeing on a verdict (agree.h): one MPI_Allreduce of
 * the failure flags and the values that travel with them. */
#include <string.h>

#include "agree.h"
#include "error.h"
#include "mpi_error.h"

relay_status rl_agree_first(MPI_Comm comm, int failed, uint64_t *values, int n, int *first_failing)
{
    if (n < 0 || n > RL_AGREE_MAX_VALUES) return rl_fail(RELAY_ERR_ARG, "rl_agree_first: %d values", n);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    /* size - rank is largest for the lowest rank, so the maximum names it. */
    uint64_t v[1 + RL_AGREE_MAX_VALUES] = {failed ? (uint64_t)(size - rank) : 0};
    if (n) memcpy(v + 1, values, (size_t)n * sizeof *values);
    int rc = MPI_Allreduce(MPI_IN_PLACE, v, 1 + n, MPI_UINT64_T, MPI_MAX, comm);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "MPI_Allreduce agreeing on a verdict");
    if (n) memcpy(values, v + 1, (size_t)n * sizeof *values);
    *first_failing = v[0] ? size - (int)v[0] : -1;
    return RELAY_OK;
}

relay_status rl_agree_values(MPI_Comm comm, relay_status local, uint64_t *values, int n, const char *what)
{
    int first;
    relay_status st = rl_agree_first(comm, local != RELAY_OK, values, n, &first);
    if (st || local) return st ? st : local;
    return first >= 0 ? rl_fail(RELAY_ERR_MISMATCH, "%s failed on another rank", what) : RELAY_OK;
}

relay_status rl_agree(MPI_Comm comm, relay_status local, const char *what)
{
    return rl_agree_values(comm, local, NULL, 0, what);
}
