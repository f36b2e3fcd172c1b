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
 * and enters it having unpacked all it received. */
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
    rl_transform_pack_to(x, k, x->shm.land[k]);
    rc = MPI_Win_sync(x->shm.win); /* the stores before "full" */
    if (rc == MPI_SUCCESS) rc = MPI_Start(&x->shm.empty.req[r]);
    x->shm.empty_due[k] = rc == MPI_SUCCESS;
    return rc == MPI_SUCCESS ? MPI_Start(&x->reqs[r]) : rc;
}

int rl_shm_take(rl_transform_exec *x, int k)
{
    int rc = MPI_Win_sync(x->shm.win); /* the sender's stores before these loads */
    if (rc != MPI_SUCCESS) return rc;
    rl_transform_unpack_from(x, k, x->shm.area + x->shm.land_off[k]);
    rc = MPI_Win_sync(x->shm.win); /* the loads before "empty" */
    return rc == MPI_SUCCESS ? rl_notice_send(&x->shm.empty, k) : rc;
}

int rl_shm_done(rl_transform_exec *x)
{
    int rc = rl_notices_send_rest(x, &x->shm.empty);
    if (rc == MPI_SUCCESS && x->sec->nrecv) rc = MPI_Waitall(x->sec->nrecv, x->shm.empty.req, MPI_STATUSES_IGNORE);
    return rc == MPI_SUCCESS && x->shm.settle ? MPI_Barrier(x->shm.node) : rc;
}
