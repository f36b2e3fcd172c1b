/* exchange.c — what binding and replaying transports share (exchange.h):
 * the exchange of a few bytes with the other end of each message that the
 * agreements of direct.c, pull.c and shm/ use, an opt-in transport's
 * environment switch, and the receiver's notices to the sender. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "exchange.h"
#include "mpi_error.h"
#include "transform_pack.h"

relay_status rl_transform_swap(rl_transform_exec *x, const rl_swap *items, const char *what)
{
    const rl_msgset *s = &x->set;
    int n = s->send.n + s->recv.n, nreq = 0, rc = MPI_SUCCESS;
    MPI_Request *reqs = rl_malloc_array(2 * (size_t)n, sizeof *reqs);
    if (!reqs) return RL_NOMEM();
    for (int k = 0; k < n && rc == MPI_SUCCESS; k++) {
        int sending = k < s->send.n, peer = rl_msg_of(s, k)->peer;
        int own = sending ? TAG_SENDER_SIDE : TAG_RECEIVER_SIDE, other = sending ? TAG_RECEIVER_SIDE : TAG_SENDER_SIDE;
        if (items[k].out) rc = MPI_Isend(items[k].out, items[k].out_bytes, MPI_BYTE, peer, own, x->comm, &reqs[nreq++]);
        if (rc == MPI_SUCCESS && items[k].in)
            rc = MPI_Irecv(items[k].in, items[k].in_bytes, MPI_BYTE, peer, other, x->comm, &reqs[nreq++]);
    }
    if (rc == MPI_SUCCESS) rc = MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
    free(reqs);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, what);
}

/* ---- the opt-in transports' switch, and notices ------------------------ */

relay_status rl_env_choice(const char *name, const char *const *values, int nvalues, int *choice)
{
    const char *v = getenv(name);
    *choice = 0;
    if (!v || !*v) return RELAY_OK;
    for (int i = 0; i < nvalues; i++)
        if (!strcmp(v, values[i])) {
            *choice = i;
            return RELAY_OK;
        }
    return rl_fail(RELAY_ERR_ARG, "%s=%.40s: expected %s, %s%s%s", name, v, values[0], values[1], nvalues > 2 ? " or " : "",
                   nvalues > 2 ? values[2] : "");
}

relay_status rl_notices_create(rl_transform_exec *x, rl_notices *n, const rl_transport *t, int tag)
{
    const rl_msgset *s = &x->set;
    int total = s->recv.n + s->send.n, rc = MPI_SUCCESS;
    n->req = rl_malloc_array((size_t)total + 1, sizeof *n->req);
    n->sent = rl_calloc((size_t)s->recv.n + 1, 1);
    if (!n->req || !n->sent) return RL_NOMEM();
    for (int k = 0; k < total; k++) n->req[k] = MPI_REQUEST_NULL;
    for (int k = 0; k < s->recv.n && rc == MPI_SUCCESS; k++)
        if (x->recv_via[k] == t) rc = MPI_Send_init(rl_no_bytes(), 0, MPI_BYTE, (int)s->recv.msg[k].peer, tag, x->comm, &n->req[k]);
    for (int k = 0; k < s->send.n && rc == MPI_SUCCESS; k++)
        if (x->send_via[k] == t) rc = MPI_Recv_init(rl_no_bytes(), 0, MPI_BYTE, (int)s->send.msg[k].peer, tag, x->comm, &n->req[s->recv.n + k]);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "creating the requests of notices");
}

int rl_notice_send(rl_notices *n, int k)
{
    int rc = MPI_Start(&n->req[k]);
    n->sent[k] = rc == MPI_SUCCESS;
    return rc;
}

int rl_notices_send_rest(const rl_transform_exec *x, rl_notices *n)
{
    int rc = MPI_SUCCESS;
    for (int k = 0; n->req && k < x->set.recv.n; k++) {
        int started = n->req[k] != MPI_REQUEST_NULL && !n->sent[k] ? MPI_Start(&n->req[k]) : MPI_SUCCESS;
        rc = rc == MPI_SUCCESS ? started : rc;
        n->sent[k] = 0;
    }
    return rc;
}

int64_t rl_notices_bytes(const rl_transform_exec *x, const rl_notices *n)
{
    return n->req ? (x->set.recv.n + x->set.send.n) * (int64_t)sizeof(MPI_Request) + x->set.recv.n : 0;
}

void rl_notices_free(const rl_transform_exec *x, rl_notices *n)
{
    int total = x->set.recv.n + x->set.send.n;
    for (int k = 0; n->req && k < total; k++)
        if (n->req[k] != MPI_REQUEST_NULL) MPI_Request_free(&n->req[k]);
    free(n->req);
    free(n->sent);
    n->req = NULL;
    n->sent = NULL;
}
