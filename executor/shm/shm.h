/* shm.h — messages through a shared-memory window (opt-in: RELAY_SHM=on):
 * under p2p, the sender of a message between two ranks of one node packs
 * it straight into the receiver's landing area, a segment of an MPI-3
 * shared-memory window of the node's ranks, and the receiver unpacks it
 * from there into A: two passes over its elements instead of three (pack,
 * MPI's copy, unpack).
 *   shm_window.c  binding: the switch, the agreement with each message's
 *                 other end, the node's window and where each message
 *                 lands, the requests; freeing them
 *   shm_replay.c  a replay's halves: pack and "full" (start), unpack and
 *                 "empty" (wait)
 * They call transform_bind.c and transform_pack.c, nothing above. */
#ifndef RELAY_SHM_H
#define RELAY_SHM_H

#include "transform.h"

/* RELAY_SHM from the environment: RL_SHM_TUNED where it is unset or
 * empty (the choice replayed decides: a tuning's window flag), else off
 * (0) or on (1), above any choice. */
enum { RL_SHM_TUNED = -1 };
relay_status rl_shm_mode_from_env(int *mode);
/* Whether a replay of choice c offers its on-node messages to the window. */
int rl_shm_wanted(const rl_transform_exec *x, const relay_tuning_choice *c);

/* Binding p2p replays, after the direct and pulled messages are agreed:
 * which of the others travel through the window, the window itself and
 * the requests that replace their staged ones.  Collective on the
 * executor's communicator (one MPI_Allreduce says whether any rank wants
 * the window; only then is the communicator split by node). */
relay_status rl_shm_bind(rl_transform_exec *x);
/* Bytes it holds: the landing area, the landing addresses, the requests. */
int64_t rl_shm_bytes(const rl_transform_exec *x);
/* Collective on the node's ranks where a window was made (as freeing the
 * executor is). */
void rl_shm_free(rl_transform_exec *x);

/* A replay.  The sender of message k (as the section numbers its sends):
 * waits for "empty" of the replay before, packs into the landing area and
 * sends "full". */
int rl_shm_send(rl_transform_exec *x, int k);
/* The receiver of message k, its "full" landed: unpacks it into A and
 * sends "empty". */
int rl_shm_take(rl_transform_exec *x, int k);
/* A replay's end: sends the "empty" of messages it did not take (a replay
 * that failed half-way still releases their senders) and waits for its
 * "empty"s to leave. */
int rl_shm_done(rl_transform_exec *x);

#endif
