/* hsumma_exec.h — the executor's SUMMA/HSUMMA replay (hsumma_exec.c),
 * bound and driven by exec.c like the other plan kinds. */
#ifndef RELAY_HSUMMA_EXEC_H
#define RELAY_HSUMMA_EXEC_H

#include <mpi.h>

#include "plan_internal.h"
#include "relay/exec.h"

typedef struct rl_hsumma_exec rl_hsumma_exec;

/* Prepares rank's part of a checked HSUMMA plan (local sizes, panel
 * buffers), no MPI call, so that every rank can agree on success before
 * binding.  On failure *out may hold a partial preparation: free it. */
relay_status rl_hsumma_exec_create(rl_hsumma_exec **out, const rl_hsumma *h, int rank);
/* Collective over comm (the executor's own duplicate): settles the groups
 * (measuring the network when the plan leaves them to bind time), splits
 * the four communicators and, with MPI-4, creates persistent broadcasts. */
relay_status rl_hsumma_exec_bind(rl_hsumma_exec *x, MPI_Comm comm);
relay_status rl_hsumma_exec_start(rl_hsumma_exec *x, void *c, const void *a, const void *b, const void *alpha,
        const void *beta);
/* Runs the whole product: the broadcasts are blocking, as in the paper. */
relay_status rl_hsumma_exec_wait(rl_hsumma_exec *x);
/* Runs only the first max_outer outer steps (autotuning; -1: all). */
relay_status rl_hsumma_exec_run_outer(rl_hsumma_exec *x, int64_t max_outer);
void rl_hsumma_exec_report(const rl_hsumma_exec *x, relay_hsumma_report *r);
int64_t rl_hsumma_exec_extra_bytes(const rl_hsumma_exec *x);
int64_t rl_hsumma_exec_remote_bytes(const rl_hsumma_exec *x);
void rl_hsumma_exec_free(rl_hsumma_exec *x);

#endif
