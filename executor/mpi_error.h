/* mpi_error.h — the one way relay reports a failed MPI call.  Inline, so
 * that relay_scalapack (a library of its own) reports MPI errors the same
 * way without the executor exporting it. */
#ifndef RELAY_MPI_ERROR_H
#define RELAY_MPI_ERROR_H

#include <mpi.h>

#include "error.h"

/* Records "WHAT failed: <MPI's error string>" and returns RELAY_ERR_MPI. */
static inline relay_status rl_mpi_fail(int rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    return rl_fail(RELAY_ERR_MPI, "%s failed: %s", what, msg);
}

#endif
