/* pull.h — messages the receiver reads from the sender's B (pull.c, the
 * transport rl_transport_pull): its switch, and what it holds. */
#ifndef RELAY_PULL_H
#define RELAY_PULL_H

#include "transform.h"

/* RELAY_PULL from the environment: off (unset or empty), on or all. */
relay_status rl_pull_mode_from_env(rl_pull_mode *mode);

/* Bytes the pulled messages hold: bounce buffers, tasks, walks, requests. */
int64_t rl_transform_pulls_bytes(const rl_transform_exec *x);
void rl_transform_pulls_free(rl_transform_exec *x);

#endif
