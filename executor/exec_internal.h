/* exec_internal.h — creating an executor for a caller that replays many
 * plans, most of them once: relay_scalapack's plan cache, whose calls with
 * ever-new arguments must cost no more than ScaLAPACK's.
 *
 * relay_exec_create duplicates the communicator and binds everything a
 * replay needs at once.  For a one-off call both are waste: a duplicate is
 * a collective of its own, and persistent requests and the agreement of
 * peers on direct messages pay off only from the second replay.  With
 * RL_EXEC_BIND_ON_REPEAT the first replay runs on comm itself, point to
 * point, every message packed, with requests of its own; the second
 * duplicates comm and binds the rest (the kind's bind_replays) before it
 * runs.  The caller keeps comm alive as long as the executor, sets
 * MPI_ERRORS_RETURN on it, and completes each first replay before it
 * starts another on comm (of any executor).  (Executors' nonblocking
 * collectives stay on their own duplicates: Open MPI 4.1 was seen to hang
 * when MPI_Ialltoallv of several executors shared one communicator.)
 * With RL_EXEC_SHARED_LANDINGS (below) its bound replays may go through a
 * shared-memory window that freeing the executor leaves alone.
 * A first replay stages its messages in memory the caller lends
 * (`scratch`, may be NULL: then the executor's own, held for that replay
 * alone), so that calls with new arguments reuse warm pages (buffers.c).
 * Exported under relay_ names, like relay_internal_fail, for
 * relay_scalapack alone; declared only here. */
#ifndef RELAY_EXEC_INTERNAL_H
#define RELAY_EXEC_INTERNAL_H

#include "relay/exec.h"

/* RL_EXEC_SHARED_LANDINGS: where bound p2p replays use a shared-memory
 * window (RELAY_SHM=on; the drop-in does not tune), they borrow their
 * landing area from one that outlives the executor: one per set of a
 * node's ranks, freed at MPI_Finalize (executor/transports/shm/shm_landing.c).
 * Freeing such an executor is local: no MPI_Win_free waits for the node. */
enum { RL_EXEC_BIND_ON_REPEAT = 1, RL_EXEC_SHARED_LANDINGS = 2 };

/* Memory lent to first replays: zero-initialised by its owner, used by one
 * replay at a time, released by relay_internal_scratch_release. */
typedef struct {
    char *buf;
    size_t bytes;
} relay_internal_scratch;

/* relay_exec_create with flags (0: relay_exec_create itself) and the
 * scratch of first replays (used only with RL_EXEC_BIND_ON_REPEAT). */
RELAY_API relay_status relay_internal_exec_create(relay_exec **out, const relay_plan *p, MPI_Comm comm, unsigned flags,
                                                  relay_internal_scratch *scratch);
RELAY_API void relay_internal_scratch_release(relay_internal_scratch *s);

/* A rank whose plan could not be made (`local` says why) takes part in the
 * agreement its peers run inside relay_internal_exec_create on comm, so
 * that every rank fails together instead of the others waiting for it;
 * returns local.  Collective with their relay_internal_exec_create. */
RELAY_API relay_status relay_internal_exec_join_failed(MPI_Comm comm, relay_status local);

#endif
