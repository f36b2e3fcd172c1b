/* shim.c — what relay's Fortran module needs done in C.
 *
 * MPI's Fortran bindings hand communicators over as integers (MPI_Fint;
 * mpi_f08's type(MPI_Comm) holds one in MPI_VAL), and only C's
 * MPI_Comm_f2c turns them into an MPI_Comm (relay_exec_create's is in
 * buffers.c, which records the executor's buffers too).  And the module's own checks
 * record their messages where relay_last_error() reads them, through
 * relay_internal_fail, which is variadic and so out of Fortran's reach.
 *
 * Only the module's wrappers call these, from inside librelay_fortran, so
 * they are not exported (no RELAY_API); their relay_fortran_ prefix keeps a
 * static build's names in relay's namespace. */
#include "error.h"
#include "relay/exec.h"

relay_status relay_fortran_hsumma_measure_network(MPI_Fint comm, relay_hsumma_network *net)
{
    return relay_hsumma_measure_network(MPI_Comm_f2c(comm), net);
}

relay_status relay_fortran_hsumma_autotune(relay_plan **out, const relay_plan *p, MPI_Fint comm, int outer_steps)
{
    return relay_hsumma_autotune(out, p, MPI_Comm_f2c(comm), outer_steps);
}

relay_status relay_fortran_exec_tune(relay_plan *p, MPI_Fint comm, int replays)
{
    return relay_exec_tune(p, MPI_Comm_f2c(comm), replays);
}

relay_status relay_fortran_fail(relay_status s, const char *message)
{
    return relay_internal_fail(s, "%s", message);
}
