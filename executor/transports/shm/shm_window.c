/* shm_window.c — binding messages through a shared-memory window (shm.h)
 * and freeing them; the transport rl_transport_window (transport.h) of
 * these steps and shm_replay.c's.
 *
 * Binding p2p replays, after direct and pulled messages are agreed:
 *   switch    one MPI_Allreduce: does any rank have RELAY_SHM=on?  If
 *             none does, nothing more (no split, no window);
 *   node      the executor's communicator split by node
 *             (MPI_COMM_TYPE_SHARED), and each message's peer found in it;
 *   cards     each end of each message says whether it is willing: the
 *             switch on, the peer on this node, the node holding more than
 *             one rank, the message neither direct nor pulled; it travels
 *             through the window only where both are;
 *   window    each rank of the node allocates (MPI_Win_allocate_shared,
 *             not contiguous) a landing area for the packed messages it
 *             receives through it, each at an ALIGN-padded offset like a
 *             pack buffer's, and tells each sender its offset; the sender
 *             finds the receiver's segment with MPI_Win_shared_query.  An
 *             executor created with RL_EXEC_SHARED_LANDINGS borrows the
 *             window from a landing that outlives it instead
 *             (shm_landing.c);
 *   requests  the staged request of each such message becomes a zero-byte
 *             "full" (sender to receiver); "empty" goes the other way
 *             (rl_notices_create).  MPI_Win_lock_all is held from here to
 *             rl_shm_free, as loads and stores on a shared window under
 *             the unified model want, with MPI_Win_sync around each notice
 *             (shm_replay.c).
 * Binding a memory cap's replays, the same steps but: a message is willing
 * where the cap's chunks reach 4 KiB (a cap of 8 KiB or more); the
 * landing area is the receiver's chunk buffer, whole (it replaces the one
 * binding allocated), and each sender learns where its two slots lie; no
 * requests (the chunks post their notices as they go, shm_replay.c). */
#include <stdint.h>
#include <stdlib.h>

#include "error.h"
#include "exchange.h"
#include "mpi_error.h"
#include "shm.h"
#include "transform_pack.h"
#include "transport.h"

relay_status rl_shm_mode_from_env(int *mode)
{
    static const char *const values[] = {"off", "on"};
    const char *v = getenv("RELAY_SHM");
    *mode = RL_SHM_TUNED;
    return v && *v ? rl_env_choice("RELAY_SHM", values, 2, mode) : RELAY_OK;
}

int rl_shm_wanted(const rl_transform_exec *x, const relay_tuning_choice *c)
{
    int fits = x->capped.cap ? c->schedule == RELAY_SCHED_ROUNDS && !x->shm.shared : c->schedule == RELAY_SCHED_P2P && !c->packed;
    if (x->device || !fits) return 0;
    return x->shm.env == RL_SHM_TUNED ? c->window : x->shm.env;
}

/* ---- node and cards ---------------------------------------------------- */

/* Under a memory cap, a cap whose chunks (half the cap, with two slots)
 * cannot reach this stays with MPI: its eager protocol sends small chunks
 * without waiting for the receiver, where the window waits for the
 * receiver's "empty" before each chunk, a round trip per chunk that tiny
 * chunks pay over and over (docs/benchmarks.md, "A memory cap").  Both ends
 * see the same cap, so they agree. */
enum { SMALLEST_WINDOW_CHUNK = 4096 };

/* Per message (sends, then receives): its peer's rank in the node's
 * communicator, or MPI_UNDEFINED. */
static relay_status node_ranks(rl_transform_exec *x, int *peer_in_node)
{
    const rl_msgset *s = &x->set;
    int n = s->send.n + s->recv.n;
    MPI_Group all, node;
    int rc = MPI_Comm_group(x->comm, &all);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_group(x->shm.node, &node);
    int *peers = rl_malloc_array((size_t)n + 1, sizeof *peers);
    if (!peers) return RL_NOMEM();
    for (int k = 0; k < n; k++) peers[k] = rl_msg_of(s, k)->peer;
    if (rc == MPI_SUCCESS) rc = MPI_Group_translate_ranks(all, n, peers, node, peer_in_node);
    free(peers);
    MPI_Group_free(&all);
    MPI_Group_free(&node);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "finding the peers on this node");
}

static int willing(const rl_transform_exec *x, int k, int peer_in_node)
{
    const rl_msgset *s = &x->set;
    int sending = k < s->send.n, m = sending ? k : k - s->send.n;
    if (!x->shm.on || x->shm.node == MPI_COMM_NULL || peer_in_node == MPI_UNDEFINED || rl_msg_of(s, k)->elems <= 0) return 0;
    if (x->capped.cap) return x->capped.cap / x->capped.slots >= SMALLEST_WINDOW_CHUNK; /* every chunked message is staged */
    return (sending ? x->send_via[m] : x->recv_via[m]) == &rl_transport_staged;
}

/* The cards: the messages through the window, and how many (n). */
static relay_status agree(rl_transform_exec *x, const int *peer_in_node)
{
    const rl_msgset *s = &x->set;
    int n = s->send.n + s->recv.n;
    char *mine = rl_malloc_array((size_t)n + 1, 1), *theirs = rl_calloc((size_t)n + 1, 1);
    rl_swap *items = rl_calloc((size_t)n + 1, sizeof *items);
    relay_status st = mine && theirs && items ? RELAY_OK : RL_NOMEM();
    for (int k = 0; !st && k < n; k++) { /* only with peers on this node: the others never ask */
        mine[k] = (char)willing(x, k, peer_in_node[k]);
        if (peer_in_node[k] != MPI_UNDEFINED) items[k] = (rl_swap){&mine[k], 1, &theirs[k], 1};
    }
    if (!st) st = rl_transform_swap(x, items, "agreeing on messages through the shared-memory window");
    for (int k = 0; !st && k < n; k++) {
        if (!mine[k] || !theirs[k]) continue;
        if (k < s->send.n) x->send_via[k] = &rl_transport_window;
        else x->recv_via[k - s->send.n] = &rl_transport_window;
        x->shm.n++;
    }
    free(mine);
    free(theirs);
    free(items);
    return st;
}

/* ---- the window -------------------------------------------------------- */

/* The bytes of this rank's landing area and where each message lands in
 * it (land_off[2 * k], both entries alike): the packed messages one after
 * another, each with its control word ahead. */
static int64_t message_landings(rl_transform_exec *x)
{
    const rl_msgset *s = &x->set;
    int64_t bytes = 0;
    for (int k = 0; k < s->recv.n; k++) {
        x->shm.land_off[2 * k] = x->shm.land_off[2 * k + 1] = bytes;
        if (x->recv_via[k] == &rl_transport_window) bytes += rl_padded_bytes(s->recv.msg[k].elems * (int64_t)x->esz + s->control);
    }
    return bytes;
}

/* The same under a memory cap: the chunks' receive buffer, whole, where any
 * chunk lands, and where each message's two slots lie
 * (land_off[2 * k + slot], rl_msg_side_slots). */
static int64_t chunk_landings(rl_transform_exec *x)
{
    const rl_capped_side *chunks = &x->capped.recvs;
    int any = 0;
    for (int k = 0; k < x->set.recv.n; k++) {
        int64_t c = chunks->first[k];
        x->shm.land_off[2 * k] = chunks->chunks->byte_off[c];
        x->shm.land_off[2 * k + 1] = chunks->chunks->byte_off[c + (chunks->first[k + 1] - c > 1)];
        any |= x->recv_via[k] == &rl_transport_window;
    }
    return any ? rl_msg_side_bytes(chunks->chunks) : 0;
}

/* This rank's landing area: its own window's segment (every rank of the
 * node takes part, with 0 bytes where it receives nothing through it),
 * locked for load/store; or borrowed from a landing that outlives it.
 * Under a memory cap the area becomes the chunks' receive buffer, in place
 * of the one binding allocated, so the cap still bounds what is staged. */
static relay_status allocate_area(rl_transform_exec *x)
{
    int64_t bytes = x->capped.cap ? chunk_landings(x) : message_landings(x);
    if (x->shm.landing) {
        rl_landing_lease lease;
        relay_status st = rl_landing_reserve(x->shm.landing, x->shm.node, bytes, x->shm.n > 0, &lease);
        x->shm.win = lease.win;
        x->shm.area = lease.area;
        x->shm.settle = lease.settle;
        return st;
    }
    relay_status st = rl_shm_allocate(x->shm.node, bytes, &x->shm.area, &x->shm.win,
                                      "MPI_Win_allocate_shared of the landing areas");
    x->shm.locked = st == RELAY_OK;
    if (!st && x->capped.cap && bytes) {
        rl_msg_side_drop(x->capped.recvs.chunks);
        x->capped.recvs.chunks->buf = x->shm.area;
    }
    return st;
}

/* The receivers of the sends through the window as the window numbers
 * them: as the node's communicator does, or for a borrowed window, as the
 * communicator it was made over did (another executor's, perhaps in
 * another order).  receiver[k] is set where send k goes through it. */
static relay_status window_ranks(const rl_transform_exec *x, const int *peer_in_node, int *receiver)
{
    const rl_msgset *s = &x->set;
    int n = 0;
    for (int k = 0; k < s->send.n; k++) {
        receiver[k] = peer_in_node[k];
        n += x->send_via[k] == &rl_transport_window;
    }
    if (!x->shm.landing || n == 0) return RELAY_OK; /* none: the window may not even exist */
    int *mine = rl_malloc_array((size_t)n, sizeof *mine), *theirs = rl_malloc_array((size_t)n, sizeof *theirs);
    if (!mine || !theirs) {
        free(mine);
        free(theirs);
        return RL_NOMEM();
    }
    for (int k = 0, i = 0; k < s->send.n; k++)
        if (x->send_via[k] == &rl_transport_window) mine[i++] = peer_in_node[k];
    MPI_Group node = MPI_GROUP_NULL, win = MPI_GROUP_NULL;
    int rc = MPI_Comm_group(x->shm.node, &node);
    if (rc == MPI_SUCCESS) rc = MPI_Win_get_group(x->shm.win, &win);
    if (rc == MPI_SUCCESS) rc = MPI_Group_translate_ranks(node, n, mine, win, theirs);
    for (int k = 0, i = 0; rc == MPI_SUCCESS && k < s->send.n; k++)
        if (x->send_via[k] == &rl_transport_window) receiver[k] = theirs[i++];
    if (node != MPI_GROUP_NULL) MPI_Group_free(&node);
    if (win != MPI_GROUP_NULL) MPI_Group_free(&win);
    free(mine);
    free(theirs);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "numbering the receivers as the window does");
}

/* Each receiver tells each sender where in its area the message lands
 * (under a memory cap, where each slot of its chunks does). */
static relay_status find_landings(rl_transform_exec *x, const int *peer_in_node)
{
    const rl_msgset *s = &x->set;
    int n = s->send.n + s->recv.n;
    int64_t *off = rl_calloc(2 * (size_t)s->send.n + 1, sizeof *off);
    rl_swap *items = rl_calloc((size_t)n + 1, sizeof *items);
    int *receiver = rl_malloc_array((size_t)s->send.n + 1, sizeof *receiver);
    relay_status st = off && items && receiver ? RELAY_OK : RL_NOMEM();
    if (!st) st = window_ranks(x, peer_in_node, receiver);
    for (int k = 0; !st && k < s->send.n; k++)
        if (x->send_via[k] == &rl_transport_window) items[k] = (rl_swap){NULL, 0, &off[2 * k], 2 * sizeof *off};
    for (int k = 0; !st && k < s->recv.n; k++)
        if (x->recv_via[k] == &rl_transport_window)
            items[s->send.n + k] = (rl_swap){&x->shm.land_off[2 * k], 2 * sizeof *off, NULL, 0};
    if (!st) st = rl_transform_swap(x, items, "telling the senders where their messages land");
    for (int k = 0; !st && k < s->send.n; k++) {
        if (x->send_via[k] != &rl_transport_window) continue;
        MPI_Aint size;
        int unit;
        char *base;
        int rc = MPI_Win_shared_query(x->shm.win, receiver[k], &size, &unit, &base);
        if (rc != MPI_SUCCESS) st = rl_mpi_fail(rc, "MPI_Win_shared_query of a receiver's landing area");
        for (int slot = 0; slot < 2 && !st; slot++) x->shm.land[2 * k + slot] = base + off[2 * k + slot];
    }
    free(off);
    free(items);
    free(receiver);
    return st;
}

/* ---- requests ---------------------------------------------------------- */

/* A window message's staged request becomes its zero-byte "full". */
static int repost_full(rl_transform_exec *x, int k)
{
    const rl_msgset *s = &x->set;
    int receiving = k < s->recv.n, peer = (int)(receiving ? s->recv.msg[k].peer : s->send.msg[k - s->recv.n].peer);
    int rc = MPI_Request_free(&x->reqs[k]);
    if (rc != MPI_SUCCESS) return rc;
    return receiving ? MPI_Recv_init(rl_no_bytes(), 0, MPI_BYTE, peer, TAG_SHM_FULL, x->comm, &x->reqs[k])
                     : MPI_Send_init(rl_no_bytes(), 0, MPI_BYTE, peer, TAG_SHM_FULL, x->comm, &x->reqs[k]);
}

/* Under p2p; a memory cap's chunks post notices of their own, chunk by
 * chunk (shm_replay.c). */
static relay_status create_requests(rl_transform_exec *x)
{
    const rl_msgset *s = &x->set;
    int rc = MPI_SUCCESS;
    if (x->capped.cap) return RELAY_OK;
    for (int k = 0; k < s->recv.n && rc == MPI_SUCCESS; k++)
        if (x->recv_via[k] == &rl_transport_window) rc = repost_full(x, k);
    for (int k = 0; k < s->send.n && rc == MPI_SUCCESS; k++)
        if (x->send_via[k] == &rl_transport_window) rc = repost_full(x, s->recv.n + k);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "creating the requests of messages through the window");
    return rl_notices_create(x, &x->shm.empty, &rl_transport_window, TAG_SHM_EMPTY);
}

/* ---- binding ------------------------------------------------------------ */

static relay_status allocate(rl_transform_exec *x)
{
    const rl_msgset *s = &x->set;
    x->shm.land = rl_calloc(2 * (size_t)s->send.n + 1, sizeof *x->shm.land);
    x->shm.land_off = rl_calloc(2 * (size_t)s->recv.n + 1, sizeof *x->shm.land_off);
    x->shm.empty_due = rl_calloc((size_t)s->send.n + 1, 1);
    return x->shm.land && x->shm.land_off && x->shm.empty_due ? RELAY_OK : RL_NOMEM();
}

/* The node's communicator, kept only where it holds more than this rank. */
static relay_status split_by_node(rl_transform_exec *x)
{
    int rc = MPI_Comm_split_type(x->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &x->shm.node), size = 0;
    if (rc == MPI_SUCCESS) rc = MPI_Comm_size(x->shm.node, &size);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "MPI_Comm_split_type by node");
    if (size < 2) MPI_Comm_free(&x->shm.node);
    return RELAY_OK;
}

relay_status rl_shm_bind(rl_transform_exec *x)
{
    const rl_msgset *s = &x->set;
    int any = 0, rc = MPI_Allreduce(&x->shm.on, &any, 1, MPI_INT, MPI_MAX, x->comm);
    relay_status st = rc == MPI_SUCCESS ? allocate(x) : rl_mpi_fail(rc, "MPI_Allreduce of RELAY_SHM");
    if (st || !any) return st;
    st = split_by_node(x);
    if (st || x->shm.node == MPI_COMM_NULL) return st; /* alone on its node: no peer of it asks */
    if (x->shm.shared) st = rl_landing_find(&x->shm.landing, x->shm.node);
    if (st) return st;
    int *peer_in_node = rl_malloc_array((size_t)s->send.n + (size_t)s->recv.n + 1, sizeof *peer_in_node);
    st = peer_in_node ? node_ranks(x, peer_in_node) : RL_NOMEM();
    if (!st) st = agree(x, peer_in_node);
    if (!st) st = allocate_area(x);
    if (!st) st = find_landings(x, peer_in_node);
    free(peer_in_node);
    return st ? st : create_requests(x);
}

/* ---- what it holds ------------------------------------------------------ */

int64_t rl_shm_bytes(const rl_transform_exec *x)
{
    const rl_msgset *s = &x->set;
    if (!x->shm.land) return 0;
    int64_t area = 0;
    for (int k = 0; k < s->recv.n; k++)
        if (x->recv_via[k] == &rl_transport_window)
            area = x->capped.cap ? rl_msg_side_bytes(x->capped.recvs.chunks)
                                 : x->shm.land_off[2 * k] + rl_padded_bytes(s->recv.msg[k].elems * (int64_t)x->esz + s->control);
    return area + rl_notices_bytes(x, &x->shm.empty) + s->send.n * (int64_t)(1 + 2 * sizeof *x->shm.land) +
           s->recv.n * (int64_t)(2 * sizeof *x->shm.land_off);
}

/* The last replay's "empty"s, received before the window goes. */
static void receive_due(rl_transform_exec *x)
{
    for (int k = 0; x->shm.empty_due && k < x->set.send.n; k++)
        if (x->shm.empty_due[k]) MPI_Wait(&x->shm.empty.req[x->set.recv.n + k], MPI_STATUS_IGNORE);
}

void rl_shm_free(rl_transform_exec *x)
{
    receive_due(x);
    rl_msg_side *chunks = x->capped.recvs.chunks;
    if (chunks && chunks->buf && chunks->buf == x->shm.area) chunks->buf = NULL; /* the window's */
    rl_notices_free(x, &x->shm.empty);
    if (!x->shm.landing) { /* a borrowed window stays the landing's */
        if (x->shm.locked) MPI_Win_unlock_all(x->shm.win);
        if (x->shm.win != MPI_WIN_NULL) MPI_Win_free(&x->shm.win);
    }
    if (x->shm.node != MPI_COMM_NULL) MPI_Comm_free(&x->shm.node);
    free(x->shm.land);
    free(x->shm.land_off);
    free(x->shm.empty_due);
}

/* ---- the transport (transport.h) -------------------------------------- */

const rl_transport rl_transport_window = {
    .name = "shared-memory window",
    .stages_sends = 0,
    .stages_receives = 0,
    .agree = rl_shm_bind,
    .receive = rl_shm_expect_full,
    .send = rl_shm_send,
    .take = rl_shm_take,
    .finish = rl_shm_finish,
    .chunk_expect = rl_shm_chunk_expect,
    .chunk_wait_free = rl_shm_chunk_wait_free,
    .chunk_send = rl_shm_chunk_send,
    .chunk_take = rl_shm_chunk_take,
};
