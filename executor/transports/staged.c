/* staged.c — staged messages (staged.h, and the transport
 * rl_transport_staged, transport.h): each message packed into its place in
 * the pack buffer and moved by one MPI message, whose request binding
 * creates once (MPI_Recv_init, MPI_Send_init); under a memory cap each
 * chunk packed into its slot and moved by one MPI message of its own.
 * Messages over INT_MAX bytes travel as whole wire units (rl_wire_shape).
 * Every message travels so until binding agrees on another transport.
 * A whole message's control word leads its packed form
 * (transform_control.h); a chunk carries none. */
#include "mpi_error.h"
#include "staged.h"
#include "transform_pack.h"
#include "transform_control.h"
#include "transform_timing.h"
#include "transport.h"

int rl_staged_post(rl_transform_exec *x, int k, int persistent)
{
    int receiving = k < x->set.recv.n, m = receiving ? k : k - x->set.recv.n, count;
    const rl_msg_side *side = receiving ? &x->set.recv : &x->set.send;
    const rl_msg *msg = &side->msg[m];
    char *buf = side->buf + side->byte_off[m];
    MPI_Datatype type;
    rl_wire_shape(x, msg->elems * (int64_t)x->esz + x->set.control, &count, &type);
    int peer = msg->peer;
    if (receiving)
        return persistent ? MPI_Recv_init(buf, count, type, peer, TAG_STAGED, x->comm, &x->reqs[k])
                          : MPI_Irecv(buf, count, type, peer, TAG_STAGED, x->comm, &x->reqs[k]);
    return persistent ? MPI_Send_init(buf, count, type, peer, TAG_STAGED, x->comm, &x->reqs[k])
                      : MPI_Isend(buf, count, type, peer, TAG_STAGED, x->comm, &x->reqs[k]);
}

int rl_staged_start(rl_transform_exec *x, int k) { return x->bound ? MPI_Start(&x->reqs[k]) : rl_staged_post(x, k, 0); }

relay_status rl_staged_create_requests(rl_transform_exec *x)
{
    int rc = MPI_SUCCESS;
    for (int k = 0; k < x->set.recv.n + x->set.send.n && rc == MPI_SUCCESS; k++) rc = rl_staged_post(x, k, 1);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "creating persistent requests");
}

/* ---- the transport ---------------------------------------------------- */

static int receive(rl_transform_exec *x, int k) { return rl_staged_start(x, k); }

static int send(rl_transform_exec *x, int k)
{
    double t0 = rl_clock(x);
    rl_transform_pack(x, k);
    rl_control_put(x, rl_msg_at(&x->set.send, k));
    rl_time_since(x, RL_PACK, rl_row_send(x, k), t0);
    return rl_staged_start(x, x->set.recv.n + k);
}

static int take(rl_transform_exec *x, int k)
{
    rl_control_take(x, k, rl_msg_at(&x->set.recv, k));
    rl_transform_unpack(x, k);
    return MPI_SUCCESS;
}

/* Chunk `chunk` of a side (schedules/capped.c) on its way, from or into
 * its slot. */
static int post_chunk(rl_transform_exec *x, const rl_capped_side *side, int64_t chunk, int sending, MPI_Request *req)
{
    const rl_msg *m = &side->chunks->msg[chunk];
    int count;
    MPI_Datatype type;
    rl_wire_shape(x, m->elems * (int64_t)x->esz, &count, &type);
    void *buf = rl_msg_at(side->chunks, (int)chunk);
    return sending ? MPI_Isend(buf, count, type, m->peer, m->tag, x->comm, req)
                   : MPI_Irecv(buf, count, type, m->peer, m->tag, x->comm, req);
}

static int chunk_expect(rl_transform_exec *x, int q, int64_t chunk, int slot, MPI_Request *landed, MPI_Request *freed)
{
    return post_chunk(x, &x->capped.recvs, chunk, 0, landed);
}

static int chunk_send(rl_transform_exec *x, int s, int64_t chunk, int slot, MPI_Request *req)
{
    const rl_capped_side *side = &x->capped.sends;
    rl_transform_pack_chunk(x, &side->walks, (int)chunk, side->chunks->msg[chunk].elems, rl_msg_at(side->chunks, (int)chunk));
    return post_chunk(x, side, chunk, 1, req);
}

static int chunk_take(rl_transform_exec *x, int q, int64_t chunk)
{
    const rl_capped_side *side = &x->capped.recvs;
    rl_transform_unpack_chunk(x, &side->walks, (int)chunk, side->chunks->msg[chunk].elems, rl_msg_at(side->chunks, (int)chunk));
    return MPI_SUCCESS;
}

const rl_transport rl_transport_staged = {
    .name = "staged",
    .stages_sends = 1,
    .stages_receives = 1,
    .receive = receive,
    .send = send,
    .take = take,
    .chunk_expect = chunk_expect,
    .chunk_send = chunk_send,
    .chunk_take = chunk_take,
};
