/* shm_replay.c — a replay's two halves of a message through the
 * shared-memory window (shm.h; shm_window.c bound it).
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
 * of the landing's ranks, every rank of which takes part (rl_shm_settles)
 * and enters it having unpacked all it received.
 *
 * Under a memory cap the same two notices go chunk by chunk, as credits:
 * the receiver sends "empty" for a slot of its chunk buffer (its segment
 * of the window) when it begins a step and after it took the chunk there,
 * and the sender packs the next chunk into the slot only once that
 * "empty" came.  A step's "empty"s and "full"s are as many as its chunks,
 * and both ends count them alike (binding compared the cuts), so no
 * notice of one step or replay is taken for another's. */
#include "shm.h"
#include "transform_bind.h"
#include "transform_pack.h"

int rl_shm_send(rl_transform_exec *x, int k)
{
    int r = x->sec->nrecv + k, rc = MPI_SUCCESS;
    if (x->shm.empty_due[k]) rc = MPI_Wait(&x->shm.empty.req[r], MPI_STATUS_IGNORE);
    x->shm.empty_due[k] = 0;
    if (rc == MPI_SUCCESS) rc = MPI_Win_sync(x->shm.win); /* the receiver's loads before these stores */
    if (rc != MPI_SUCCESS) return rc;
    rl_transform_pack_to(x, k, x->shm.land[2 * k]);
    rc = MPI_Win_sync(x->shm.win); /* the stores before "full" */
    if (rc == MPI_SUCCESS) rc = MPI_Start(&x->shm.empty.req[r]);
    x->shm.empty_due[k] = rc == MPI_SUCCESS;
    return rc == MPI_SUCCESS ? MPI_Start(&x->reqs[r]) : rc;
}

int rl_shm_take(rl_transform_exec *x, int k)
{
    int rc = MPI_Win_sync(x->shm.win); /* the sender's stores before these loads */
    if (rc != MPI_SUCCESS) return rc;
    rl_transform_unpack_from(x, k, x->shm.area + x->shm.land_off[2 * k]);
    rc = MPI_Win_sync(x->shm.win); /* the loads before "empty" */
    return rc == MPI_SUCCESS ? rl_notice_send(&x->shm.empty, k) : rc;
}

int rl_shm_done(rl_transform_exec *x)
{
    int rc = rl_notices_send_rest(x, &x->shm.empty);
    if (rc == MPI_SUCCESS && x->sec->nrecv) rc = MPI_Waitall(x->sec->nrecv, x->shm.empty.req, MPI_STATUSES_IGNORE);
    return rc == MPI_SUCCESS && x->shm.settle ? MPI_Barrier(x->shm.node) : rc;
}

/* ---- chunks under a memory cap -------------------------------------- */

static int peer_of(const rl_message *msg, int k) { return (int)msg[k].peer; }

int rl_shm_chunk_wait_empty(rl_transform_exec *x, int k)
{
    return MPI_Recv(rl_no_bytes(), 0, MPI_BYTE, peer_of(x->sec->send, k), TAG_SHM_EMPTY, x->comm, MPI_STATUS_IGNORE);
}

int rl_shm_chunk_send(rl_transform_exec *x, int k, int64_t chunk, int slot, MPI_Request *full)
{
    const rl_capped_side *side = &x->capped.sends;
    int rc = MPI_Win_sync(x->shm.win); /* the receiver's loads before these stores */
    if (rc != MPI_SUCCESS) return rc;
    rl_transform_pack_chunk(x, &side->set, (int)chunk, side->chunks[chunk].elems, x->shm.land[2 * k + slot]);
    rc = MPI_Win_sync(x->shm.win); /* the stores before "full" */
    return rc == MPI_SUCCESS ? MPI_Isend(rl_no_bytes(), 0, MPI_BYTE, peer_of(x->sec->send, k), TAG_SHM_FULL, x->comm, full) : rc;
}

int rl_shm_chunk_expect(rl_transform_exec *x, int k, MPI_Request *full, MPI_Request *empty)
{
    int peer = peer_of(x->sec->recv, k), rc = MPI_Wait(empty, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS) rc = MPI_Irecv(rl_no_bytes(), 0, MPI_BYTE, peer, TAG_SHM_FULL, x->comm, full);
    /* This rank's loads from the slot (a chunk taken, or one MPI put there
     * in an earlier step) before "empty". */
    if (rc == MPI_SUCCESS) rc = MPI_Win_sync(x->shm.win);
    return rc == MPI_SUCCESS ? MPI_Isend(rl_no_bytes(), 0, MPI_BYTE, peer, TAG_SHM_EMPTY, x->comm, empty) : rc;
}

int rl_shm_chunk_take(rl_transform_exec *x, int64_t chunk)
{
    const rl_capped_side *side = &x->capped.recvs;
    int rc = MPI_Win_sync(x->shm.win); /* the sender's stores before these loads */
    if (rc != MPI_SUCCESS) return rc;
    char *slot = rl_message_set_at(&side->set, (int)chunk); /* in this rank's segment of the window */
    rl_transform_unpack_chunk(x, &side->set, (int)chunk, side->chunks[chunk].elems, slot);
    return MPI_SUCCESS;
}
