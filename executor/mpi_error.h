/* mpi_error.h — the one way relay reports a failed MPI call. */
#ifndef RELAY_MPI_ERROR_H
#define RELAY_MPI_ERROR_H

#include "relay/status.h"

/* Records "WHAT failed: <MPI's error string>" and returns RELAY_ERR_MPI. */
relay_status rl_mpi_fail(int rc, const char *what);

#endif
