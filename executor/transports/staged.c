/* staged.c — staged messages (staged.h): each message packed into its
 * place in the pack buffer and moved by one MPI message, whose request
 * binding creates once (MPI_Recv_init, MPI_Send_init).  Messages over
 * INT_MAX bytes travel as whole wire units (rl_wire_shape). */
#include "mpi_error.h"
#include "staged.h"
#include "transform_pack.h"

int rl_staged_post(rl_transform_exec *x, int k, int persistent)
{
    const rl_section *s = x->sec;
    int receiving = k < s->nrecv, m = receiving ? k : k - s->nrecv, count;
    const rl_message *msg = receiving ? &s->recv[m] : &s->send[m];
    const rl_message_set *set = receiving ? &x->recvs : &x->sends;
    char *buf = set->buf + set->byte_off[m];
    MPI_Datatype type;
    rl_wire_shape(x, msg->elems, &count, &type);
    int peer = (int)msg->peer;
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
    for (int k = 0; k < x->sec->nrecv + x->sec->nsend && rc == MPI_SUCCESS; k++) rc = rl_staged_post(x, k, 1);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "creating persistent requests");
}
