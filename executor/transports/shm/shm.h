/* shm.h — messages through a shared-memory window (RELAY_SHM=on, or a
 * tuning's window choice): under p2p, the sender of a message between two
 * ranks of one node packs it straight into the receiver's landing area, a
 * segment of an MPI-3 shared-memory window of the node's ranks, and the
 * receiver unpacks it from there into A: two passes over its elements
 * instead of three (pack, MPI's copy, unpack).  Under a memory cap
 * (schedules/capped.c) the same chunk by chunk: the receiver's chunk
 * buffer is its segment, and each chunk lands in one of its two slots.
 *   shm_window.c  binding: the switch, the agreement with each message's
 *                 other end, the node's window and where each message
 *                 lands, the requests; freeing them
 *   shm_replay.c  a replay's halves: pack and "full" (start), unpack and
 *                 "empty" (wait); and a capped replay's chunks
 *   shm_landing.c landing areas that outlive executors, for callers that
 *                 free executors where a window's collective free would
 *                 hang (RL_EXEC_SHARED_LANDINGS: relay_scalapack); and
 *                 the one step that allocates a node's window, for both
 * They call exchange.c, staged.c and transform_pack.c, nothing above
 * (the schedules reach them through the transport table: shm_window.c
 * defines rl_transport_window, transport.h); shm_window.c calls
 * shm_replay.c and shm_landing.c. */
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

/* Collective over node: a shared-memory window whose segment here holds
 * `bytes`, at *area, locked for load/store (MPI_Win_lock_all); or the
 * error, saying `what` failed (*win is then the window, unlocked, if only
 * the lock failed).  In shm_landing.c, which shm_window.c calls. */
relay_status rl_shm_allocate(MPI_Comm node, int64_t bytes, char **area, MPI_Win *win, const char *what);

/* A landing area shared by the executors over one set of a node's ranks
 * (shm_landing.c), and what one executor borrows of it: the window, this
 * rank's segment, and whether any rank of the set uses it (then each
 * replay ends with a barrier of the set). */
typedef struct rl_landing rl_landing;
typedef struct {
    MPI_Win win;
    char *area;
    int settle;
} rl_landing_lease;
/* The landing over the ranks of node (the executor's split, size > 1), as
 * a set; made if there is none (every rank of node does so together). */
relay_status rl_landing_find(rl_landing **out, MPI_Comm node);
/* Collective over node, the landing's ranks: a window whose segment here
 * holds `bytes` (a new one for all of them if any needs more), and
 * whether any of them `uses` it.  The window's ranks are numbered as
 * node's were when it was made, which may be another executor's order:
 * MPI_Win_get_group tells. */
relay_status rl_landing_reserve(rl_landing *l, MPI_Comm node, int64_t bytes, int uses, rl_landing_lease *lease);

/* Binding p2p replays, after the direct and pulled messages are agreed:
 * which of the others travel through the window, the window itself and
 * the requests that replace their staged ones.  Binding a memory cap's
 * replays (schedules/capped.c): which messages' chunks travel through it,
 * and the window, each rank's segment its chunks' receive buffer.
 * Collective on the executor's communicator (one MPI_Allreduce says
 * whether any rank wants the window; only then is the communicator split
 * by node). */
relay_status rl_shm_bind(rl_transform_exec *x);
/* Bytes it holds: the landing area (under a memory cap, the chunks'
 * receive buffer, which rl_capped_bytes then leaves out), the landing
 * addresses, the requests. */
int64_t rl_shm_bytes(const rl_transform_exec *x);
/* Collective on the node's ranks where a window was made (as freeing the
 * executor is). */
void rl_shm_free(rl_transform_exec *x);

/* A replay's steps (shm_replay.c), as the transport's table names them
 * (transport.h).  p2p: the receiver expects "full" of message k; the
 * sender, timed as its packing, waits for "empty" of the replay before,
 * packs into the landing area and starts "full"; the receiver, "full"
 * landed, unpacks into A and sends "empty"; a replay's end, even after a
 * failure (the senders wait for "empty"), sends the "empty"s not sent and
 * waits for them to leave, with a borrowed landing a barrier of its ranks.
 * Under a memory cap, chunk by chunk (transport.h's chunk steps). */
int rl_shm_expect_full(rl_transform_exec *x, int k);
int rl_shm_send(rl_transform_exec *x, int k);
int rl_shm_take(rl_transform_exec *x, int k);
int rl_shm_finish(rl_transform_exec *x, int rc);
int rl_shm_chunk_expect(rl_transform_exec *x, int q, int64_t chunk, int slot, MPI_Request *full, MPI_Request *empty);
int rl_shm_chunk_wait_free(rl_transform_exec *x, int s);
int rl_shm_chunk_send(rl_transform_exec *x, int s, int64_t chunk, int slot, MPI_Request *full);
int rl_shm_chunk_take(rl_transform_exec *x, int q, int64_t chunk);

#endif
