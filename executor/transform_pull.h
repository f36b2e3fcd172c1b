/* transform_pull.h — messages the receiver reads from the sender's B
 * (transform_pull.c): agreeing on them at bind, and replaying them. */
#ifndef RELAY_TRANSFORM_PULL_H
#define RELAY_TRANSFORM_PULL_H

#include "transform.h"

/* RELAY_PULL from the environment: off (unset or empty), on or all. */
relay_status rl_pull_mode_from_env(rl_pull_mode *mode);

/* Binding p2p replays, after the direct messages are agreed: with each
 * peer, which messages are pulled; their requests replace the staged ones.
 * Collective in effect, like the agreement on direct messages. */
relay_status rl_transform_agree_pulls(rl_transform_exec *x);

/* A replay.  The sender of pulled message k (as the section numbers its
 * sends) offers its B: it starts the receive of "read" and sends the
 * addresses. */
int rl_transform_offer(rl_transform_exec *x, int k);
/* The receiver of pulled message k, its addresses landed: reads and moves
 * every tile into A, then tells the sender (a failed read is recorded
 * for rl_transform_pulls_done). */
int rl_transform_pull(rl_transform_exec *x, int k);
/* Waits for this replay's "read" messages, both ways; a read that failed
 * becomes the replay's error.  Where the replay failed before it read
 * everything (completed 0), it first says "read" for the messages it did
 * not read, so that their senders do not wait forever. */
relay_status rl_transform_pulls_done(rl_transform_exec *x, int completed);

/* Bytes the pulled messages hold: bounce buffers, tasks, walks, requests. */
int64_t rl_transform_pulls_bytes(const rl_transform_exec *x);
void rl_transform_pulls_free(rl_transform_exec *x);

#endif
