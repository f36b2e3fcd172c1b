/* hsumma_exec.h — the SUMMA/HSUMMA replay (hsumma_exec.c) as the autotuner
 * (hsumma_tune.c) drives it: a few outer steps at a time.  The executor's
 * facade reaches it through rl_exec_hsumma (exec_kind.h) instead. */
#ifndef RELAY_HSUMMA_EXEC_H
#define RELAY_HSUMMA_EXEC_H

#include <mpi.h>

#include "plan_internal.h"

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
/* Runs the first max_outer outer steps (-1: the whole product); the
 * broadcasts are blocking, as in the paper. */
relay_status rl_hsumma_exec_run_outer(rl_hsumma_exec *x, int64_t max_outer);
void rl_hsumma_exec_free(rl_hsumma_exec *x);

#endif
