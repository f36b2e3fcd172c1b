/* mpi_error.c — turning an MPI error code into relay's error convention. */
#include <mpi.h>

#include "error.h"
#include "mpi_error.h"

relay_status rl_mpi_fail(int rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    return rl_fail(RELAY_ERR_MPI, "%s failed: %s", what, msg);
}
