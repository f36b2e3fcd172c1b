/* shm_replay.c — a replay's two halves of a message through the
 * shared-memory window (shm.h; shm_window.c bound it and makes them the
 * transport rl_transport_window).
 *
 * Sender (start): waits for the receiver's "empty" of the replay before
 * (none before the first), packs the message from B straight into its
 * landing area in the receiver's segment of the window, MPI_Win_sync, then
 * starts the receive of this replay's "empty" and the send of "full".
 * Receiver (wait): its "full" landed (MPI_Waitany with the staged
 * receives), MPI_Win_sync, unpacks from its landing area into A,
 * MPI_Win_sync, sends "empty".  The sender's next start waits for that
 * "empty", not its wait: a replay's wait needs nothing of its receivers but
 * what staged MPI needs, and every rank sends all its "empty"s of a replay
 * before it returns from that replay's wait, so a start never waits for a
 * rank that is itself waiting in a start.
 * A borrowed landing (shm_landing.c) is shared with other executors,
 * whose next replay may pack into a segment where another sender's message
 * of this one is still being unpacked: there the wait ends with a barrier
 * of the landing's ranks, every rank of which takes part
 * and enters it having unpacked all it received.
 *
 * Under a memory cap the same two notices go chunk by chunk, as credits:
 * the receiver sends "empty" for a slot of its chunk buffer (its segment
 * of the window) when it begins a step and after it took the chunk there,
 * and the sender packs the next chunk into the slot only once that
 * "empty" came.  A step's "empty"s and "full"s are as many as its chunks,
 * and both ends count them alike (binding compared the cuts), so no
 * notice of one step or replay is taken for another's. */
#include "exchange.h"
#include "shm.h"
#include "staged.h"
#include "transform_control.h"
#include "transform_pack.h"
#include "transform_timing.h"
#include "transport.h"

/* Waits for the "empty" of the replay before, packs message k into its
 * landing area and starts "full". */
static int send_into_window(rl_transform_exec *x, int k)
{
    int r = x->set.recv.n + k, rc = MPI_SUCCESS;
    if (x->shm.empty_due[k]) rc = rl_deadline_wait(&x->deadline, &x->shm.empty.req[r]);
    x->shm.empty_due[k] = 0;
    if (rc == MPI_SUCCESS) rc = MPI_Win_sync(x->shm.win); /* the receiver's loads before these stores */
    if (rc != MPI_SUCCESS) return rc;
    rl_control_put(x, x->shm.land[2 * k]);
    rl_transform_pack_to(x, k, x->shm.land[2 * k] + x->set.control);
    rc = MPI_Win_sync(x->shm.win); /* the stores before "full" */
    if (rc == MPI_SUCCESS) rc = MPI_Start(&x->shm.empty.req[r]);
    x->shm.empty_due[k] = rc == MPI_SUCCESS;
    return rc == MPI_SUCCESS ? MPI_Start(&x->reqs[r]) : rc;
}

/* The sender of message k, timed as its packing. */
int rl_shm_send(rl_transform_exec *x, int k)
{
    double t0 = rl_clock(x);
    int rc = send_into_window(x, k);
    rl_time_since(x, RL_PACK, rl_row_send(x, k), t0);
    return rc;
}

/* The receiver of message k, its "full" landed: unpacks it into A and
 * sends "empty". */
int rl_shm_take(rl_transform_exec *x, int k)
{
    int rc = MPI_Win_sync(x->shm.win); /* the sender's stores before these loads */
    if (rc != MPI_SUCCESS) return rc;
    rl_control_take(x, k, x->shm.area + x->shm.land_off[2 * k]);
    rl_transform_unpack_from(x, k, x->shm.area + x->shm.land_off[2 * k] + x->set.control);
    rc = MPI_Win_sync(x->shm.win); /* the loads before "empty" */
    return rc == MPI_SUCCESS ? rl_notice_send(&x->shm.empty, k) : rc;
}

/* A replay's end, even after a failure (the senders wait for "empty"):
 * sends the "empty" of messages it did not take and waits for its
 * "empty"s to leave; with a borrowed landing that some rank uses, a
 * barrier of its ranks. */
int rl_shm_finish(rl_transform_exec *x, int rc)
{
    if (!x->shm.n && !x->shm.settle) return rc;
    int done = rl_notices_send_rest(x, &x->shm.empty);
    if (done == MPI_SUCCESS && x->set.recv.n) done = rl_deadline_waitall(&x->deadline, x->set.recv.n, x->shm.empty.req);
    if (done == MPI_SUCCESS && x->shm.settle) done = MPI_Barrier(x->shm.node);
    return rc == MPI_SUCCESS ? done : rc;
}

/* ---- chunks under a memory cap -------------------------------------- */

static int peer_of(const rl_msg *msg, int k) { return (int)msg[k].peer; }

/* Under a memory cap: the sender of send message k waits for its
 * receiver's "empty" of the next slot (the receiver took the chunk before
 * it there, or began the step). */
int rl_shm_chunk_wait_free(rl_transform_exec *x, int k)
{
    return MPI_Recv(rl_no_bytes(), 0, MPI_BYTE, peer_of(x->set.send.msg, k), TAG_SHM_EMPTY, x->comm, MPI_STATUS_IGNORE);
}

/* ... packs chunk `chunk` of its set into slot `slot` and starts "full". */
int rl_shm_chunk_send(rl_transform_exec *x, int k, int64_t chunk, int slot, MPI_Request *full)
{
    const rl_capped_side *side = &x->capped.sends;
    int rc = MPI_Win_sync(x->shm.win); /* the receiver's loads before these stores */
    if (rc != MPI_SUCCESS) return rc;
    rl_transform_pack_chunk(x, &side->walks, (int)chunk, side->chunks->msg[chunk].elems, x->shm.land[2 * k + slot]);
    rc = MPI_Win_sync(x->shm.win); /* the stores before "full" */
    return rc == MPI_SUCCESS ? MPI_Isend(rl_no_bytes(), 0, MPI_BYTE, peer_of(x->set.send.msg, k), TAG_SHM_FULL, x->comm, full) : rc;
}

/* The receiver of receive message k, for the next chunk of a slot: posts
 * the chunk's "full" and sends "empty" (once that slot's "empty" before it
 * has left), the slot free for the sender. */
int rl_shm_chunk_expect(rl_transform_exec *x, int k, int64_t chunk, int slot, MPI_Request *full, MPI_Request *empty)
{
    int peer = peer_of(x->set.recv.msg, k), rc = MPI_Wait(empty, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS) rc = MPI_Irecv(rl_no_bytes(), 0, MPI_BYTE, peer, TAG_SHM_FULL, x->comm, full);
    /* This rank's loads from the slot (a chunk taken, or one MPI put there
     * in an earlier step) before "empty". */
    if (rc == MPI_SUCCESS) rc = MPI_Win_sync(x->shm.win);
    return rc == MPI_SUCCESS ? MPI_Isend(rl_no_bytes(), 0, MPI_BYTE, peer, TAG_SHM_EMPTY, x->comm, empty) : rc;
}

/* The receiver, the chunk's "full" landed: the chunk taken from its slot
 * into A. */
int rl_shm_chunk_take(rl_transform_exec *x, int q, int64_t chunk)
{
    const rl_capped_side *side = &x->capped.recvs;
    int rc = MPI_Win_sync(x->shm.win); /* the sender's stores before these loads */
    if (rc != MPI_SUCCESS) return rc;
    char *slot = rl_msg_at(side->chunks, (int)chunk); /* in this rank's segment of the window */
    rl_transform_unpack_chunk(x, &side->walks, (int)chunk, side->chunks->msg[chunk].elems, slot);
    return MPI_SUCCESS;
}

int rl_shm_expect_full(rl_transform_exec *x, int k) { return rl_staged_start(x, k); }
