/* p2p.h — the parts of the p2p schedule (p2p.c) that a schedule sending
 * its messages in another order reuses. */
#ifndef RELAY_P2P_H
#define RELAY_P2P_H

#include "schedule.h"

/* Starts every receive; *direct is where the requests of the direct
 * sends' runs begin (rl_p2p_send advances it). */
int rl_p2p_start_receives(rl_transform_exec *x, MPI_Request **direct);
/* Send k on its way: packed and started, its runs posted, its B offered
 * or packed into the receiver's landing area, as binding agreed. */
int rl_p2p_send(rl_transform_exec *x, int k, MPI_Request **direct);
/* p2p's wait and binding. */
int rl_p2p_wait(rl_transform_exec *x);
relay_status rl_p2p_bind(rl_transform_exec *x, relay_status local);

#endif
