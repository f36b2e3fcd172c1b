/* staged.h — staged messages (staged.c): packed into the pack buffer and
 * moved by one MPI message each, persistent once the replays are bound. */
#ifndef RELAY_STAGED_H
#define RELAY_STAGED_H

#include "transform.h"

/* Creates x->reqs[k], staged receive k (k < nrecv) or send k - nrecv:
 * persistent (MPI_Recv_init, MPI_Send_init) or, for one replay,
 * started (MPI_Irecv, MPI_Isend).  Returns an MPI error code. */
int rl_staged_post(rl_transform_exec *x, int k, int persistent);
/* Staged message k (as rl_staged_post numbers them) on its way: its
 * persistent request started, or before the replays are bound a request
 * of its own. */
int rl_staged_start(rl_transform_exec *x, int k);
/* Binding: one persistent request per message. */
relay_status rl_staged_create_requests(rl_transform_exec *x);

#endif
