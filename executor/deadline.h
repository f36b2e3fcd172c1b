/* deadline.h — a replay's deadline (relay_exec_set_deadline, RELAY_DEADLINE):
 * waits that poll MPI and give the replay up once it has passed
 * (deadline.c).
 *
 * Neither MPI this project runs on detects a peer that does not take part
 * (docs/troubleshooting.md: no working ULFM), so a wait with a deadline
 * polls (MPI_Test* in a loop) and abandons the replay when the clock
 * passes it: what the requests still hold is cancelled where MPI can and
 * left to MPI where it cannot, when the executor is freed.  Without a
 * deadline the waits are MPI's own blocking calls, as before. */
#ifndef RELAY_DEADLINE_H
#define RELAY_DEADLINE_H

#include <mpi.h>

typedef struct {
    double seconds;          /* per replay; 0: none */
    double at;               /* this replay's: MPI_Wtime() past which waits give up; 0: none */
    int expired;             /* a wait gave up: the replay is abandoned, the executor can only be freed */
} rl_deadline;

/* At a replay's start: its deadline, seconds from now (none if none). */
void rl_deadline_arm(rl_deadline *d);

/* MPI_Wait, MPI_Waitany and MPI_Waitall, polled up to d's deadline where
 * one is armed.  Past it: d->expired set, RL_DEADLINE_PASSED returned, the
 * requests left as they are.  Else MPI's error code. */
enum { RL_DEADLINE_PASSED = MPI_ERR_OTHER };
int rl_deadline_wait(rl_deadline *d, MPI_Request *req);
int rl_deadline_waitany(rl_deadline *d, int n, MPI_Request *reqs, int *index);
int rl_deadline_waitall(rl_deadline *d, int n, MPI_Request *reqs);

/* A request of an abandoned replay made harmless before it is freed: a
 * receive or send cancelled (MPI_Cancel), then polled for a moment; the
 * request freed either way.  Returns whether it completed (cancelled or
 * done), so that the memory it reads or writes may be freed: where it did
 * not, MPI may still use that memory, and the caller keeps it.  Collective
 * requests cannot be cancelled: the caller leaves them alone. */
int rl_deadline_abandon(MPI_Request *req);
/* Memory an abandoned replay's requests may still use, kept for the
 * process's life (reachable, never freed). */
void rl_deadline_keep(void *buf);

#endif
