/* mpi_check.h — the collective check the MPI tests of the executor share:
 * a check passes only when it holds on every rank of MPI_COMM_WORLD, so
 * every rank takes part in each one (an MPI_Allreduce), and a failure
 * prints what was checked (rank 0) and each failing rank's last relay
 * error.  check_summary prints the counts and gives the exit status. */
#ifndef RELAY_TESTS_MPI_CHECK_H
#define RELAY_TESTS_MPI_CHECK_H

#include <stdio.h>

#include <mpi.h>

#include "relay/status.h"

static int checks_passed, checks_failed;

static void check(int ok, const char *what)
{
    int all, me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (all) checks_passed++;
    else {
        checks_failed++;
        if (me == 0) printf("FAILED: %s\n", what);
        if (!ok) printf("  rank %d: last error: %s\n", me, relay_last_error());
    }
}

static int check_summary(const char *test)
{
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 0) printf("%s: %d passed, %d failed\n", test, checks_passed, checks_failed);
    return checks_failed ? 1 : 0;
}

#endif
