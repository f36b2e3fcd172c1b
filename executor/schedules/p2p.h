/* p2p.h — the parts of the p2p schedule (p2p.c) that a schedule sending
 * its messages in another order reuses. */
#ifndef RELAY_P2P_H
#define RELAY_P2P_H

#include "schedule.h"

/* Starts every receive. */
int rl_p2p_start_receives(rl_transform_exec *x);
/* Send k on its way, by the transport binding agreed on for it. */
int rl_p2p_send(rl_transform_exec *x, int k);
/* p2p's wait and binding. */
int rl_p2p_wait(rl_transform_exec *x);
relay_status rl_p2p_bind(rl_transform_exec *x, relay_status local);

#endif
