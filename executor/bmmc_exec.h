/* bmmc_exec.h — the executor's BMMC replay (bmmc_exec.c), bound and driven
 * by exec.c like a transform. */
#ifndef RELAY_BMMC_EXEC_H
#define RELAY_BMMC_EXEC_H

#include <mpi.h>

#include "plan_internal.h"

typedef struct rl_bmmc_exec rl_bmmc_exec;

/* Prepares a validated BMMC plan for `rank`: partners and buffers, no MPI
 * call, so that every rank can agree on success before binding.  On
 * failure *out may hold a partial preparation: free it. */
relay_status rl_bmmc_exec_create(rl_bmmc_exec **out, const rl_bmmc *b, int rank);
/* Creates the persistent requests on comm (the executor's own duplicate). */
relay_status rl_bmmc_exec_bind(rl_bmmc_exec *x, MPI_Comm comm);
relay_status rl_bmmc_exec_start(rl_bmmc_exec *x, const void *in);
relay_status rl_bmmc_exec_wait(rl_bmmc_exec *x, void *out);
int64_t rl_bmmc_exec_extra_bytes(const rl_bmmc_exec *x);  /* held while bound */
int64_t rl_bmmc_exec_remote_bytes(const rl_bmmc_exec *x); /* sent plus received per replay */
void rl_bmmc_exec_free(rl_bmmc_exec *x);

#endif
