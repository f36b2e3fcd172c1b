/* transform_bind.c — what binding p2p replays settles with the other end
 * of each message (transform_exec.c calls it after creating the staged
 * requests): the exchange of a few bytes per message that both this file's
 * agreement and transform_pull.c's use, and the agreement on direct
 * messages, which travel run by run from B into A without packing. */
#include <limits.h>

#include "error.h"
#include "mpi_error.h"
#include "transform_bind.h"

relay_status rl_transform_swap(rl_transform_exec *x, const rl_swap *items, const char *what)
{
    const rl_section *s = x->sec;
    int n = s->nsend + s->nrecv, nreq = 0, rc = MPI_SUCCESS;
    MPI_Request *reqs = rl_malloc_array(2 * (size_t)n, sizeof *reqs);
    if (!reqs) return RL_NOMEM();
    for (int k = 0; k < n && rc == MPI_SUCCESS; k++) {
        int sending = k < s->nsend, peer = (int)(sending ? s->send[k].peer : s->recv[k - s->nsend].peer);
        int own = sending ? TAG_SENDER_SIDE : TAG_RECEIVER_SIDE, other = sending ? TAG_RECEIVER_SIDE : TAG_SENDER_SIDE;
        if (items[k].out) rc = MPI_Isend(items[k].out, items[k].out_bytes, MPI_BYTE, peer, own, x->comm, &reqs[nreq++]);
        if (rc == MPI_SUCCESS && items[k].in)
            rc = MPI_Irecv(items[k].in, items[k].in_bytes, MPI_BYTE, peer, other, x->comm, &reqs[nreq++]);
    }
    if (rc == MPI_SUCCESS) rc = MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
    free(reqs);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, what);
}

/* ---- direct messages ---------------------------------------------------- */

/* A message whose every lattice is a few long contiguous runs in the
 * sender's B and in the receiver's A, with nothing to transform (op N, one
 * element order), needs no packing.  Under p2p each run travels as one MPI
 * message, straight from B into A (or into its place in the receive
 * buffer, where a lattice's runs are consecutive, and then unpacked, when
 * a replay's alpha is not 1 or beta not 0).  Shared-memory MPI moves a
 * contiguous message with a single copy, so a remote element costs one
 * memory pass instead of three; runs shorter than DIRECT_MIN_BYTES are
 * packed instead, where a message per run would cost more than the copy.
 * These transfers use MPI_Isend/MPI_Irecv: their buffers are the user's,
 * which may change at every replay.  Each side sees only its own half of a
 * lattice, so binding exchanges one byte per message and side. */
enum { DIRECT_MIN_BYTES = 16 * 1024 };

/* The runs of a lattice stored untransposed at ld in order o: column-major,
 * piece column j is one run of count_r*rows*cols elements at off +
 * j*step_c when the pieces stack down whole columns (row-major: piece row
 * i, likewise).  Those are the lattice's units in a message (the planner
 * fuses pieces that stack on both sides), so there the runs follow one
 * another in the same order. */
static int lattice_runs(relay_order o, const rl_span *sp, size_t esz, rl_direct_runs *r)
{
    int cm = o == RELAY_COL_MAJOR;
    int64_t len = cm ? sp->rows : sp->cols, count = cm ? sp->count_r : sp->count_c, step = cm ? sp->step_r : sp->step_c;
    int64_t width = cm ? sp->cols : sp->rows;
    if ((count > 1 && step != len) || (width > 1 && count * len != sp->ld)) return 0;
    *r = (rl_direct_runs){count * len * width * (int64_t)esz, cm ? sp->count_c : sp->count_r, cm ? sp->step_c : sp->step_r};
    return 1;
}

static int lattice_is_direct(const rl_transform_exec *x, const rl_span *sp)
{
    const rl_pair_info *pi = &x->pairs[sp->pair];
    rl_direct_runs r;
    return pi->op == RELAY_OP_N && pi->src_order == pi->dst_order && lattice_runs(pi->dst_order, sp, x->esz, &r) &&
           r.bytes >= DIRECT_MIN_BYTES && r.bytes <= INT_MAX;
}

static char side_is_direct(const rl_transform_exec *x, const rl_message *m, const rl_span *spans)
{
    for (int64_t i = m->first; i < m->first + m->count; i++)
        if (!lattice_is_direct(x, &spans[i])) return 0;
    return 1;
}

/* Collective in effect: each rank tells each peer of a message whether its
 * side of the message is direct; both ends then agree on the AND. */
static relay_status exchange_direct(rl_transform_exec *x)
{
    const rl_section *s = x->sec;
    int n = s->nsend + s->nrecv;
    char *mine = rl_malloc_array((size_t)n, 1), *theirs = rl_malloc_array((size_t)n, 1);
    rl_swap *items = rl_calloc((size_t)n, sizeof *items);
    relay_status st = !mine || !theirs || !items ? RL_NOMEM() : RELAY_OK;
    for (int k = 0; !st && k < n; k++) {
        int sending = k < s->nsend;
        const rl_message *m = sending ? &s->send[k] : &s->recv[k - s->nsend];
        mine[k] = side_is_direct(x, m, sending ? s->send_spans : s->recv_spans);
        items[k] = (rl_swap){&mine[k], 1, &theirs[k], 1};
    }
    if (!st) st = rl_transform_swap(x, items, "agreeing on direct messages");
    for (int k = 0; !st && k < n; k++) {
        if (k < s->nsend) x->send_direct[k] = mine[k] && theirs[k];
        else x->recv_direct[k - s->nsend] = mine[k] && theirs[k];
    }
    free(mine);
    free(theirs);
    free(items);
    return st;
}

/* The runs of the lattices of direct messages (count 0 elsewhere);
 * returns how many runs there are. */
static int64_t find_direct_runs(const rl_transform_exec *x, const rl_message *msg, int nmsg, const char *direct,
                                const rl_span *spans, rl_direct_runs *runs)
{
    int64_t n = 0;
    for (int k = 0; k < nmsg; k++)
        for (int64_t i = msg[k].first; direct[k] && i < msg[k].first + msg[k].count; i++) {
            lattice_runs(x->pairs[spans[i].pair].dst_order, &spans[i], x->esz, &runs[i]);
            n += runs[i].count;
        }
    return n;
}

relay_status rl_transform_agree_direct(rl_transform_exec *x)
{
    const rl_section *s = x->sec;
    relay_status st = exchange_direct(x);
    if (st) return st;
    x->nstaged_recv = 0;
    for (int k = 0; k < s->nrecv; k++) x->nstaged_recv += !x->recv_direct[k];
    x->send_runs = rl_calloc((size_t)s->nsend_spans + 1, sizeof *x->send_runs);
    x->recv_runs = rl_calloc((size_t)s->nrecv_spans + 1, sizeof *x->recv_runs);
    if (!x->send_runs || !x->recv_runs) return RL_NOMEM();
    x->ndirect_recv_runs = find_direct_runs(x, s->recv, s->nrecv, x->recv_direct, s->recv_spans, x->recv_runs);
    x->ndirect_runs = x->ndirect_recv_runs + find_direct_runs(x, s->send, s->nsend, x->send_direct, s->send_spans, x->send_runs);
    x->direct_reqs = rl_malloc_array((size_t)x->ndirect_runs, sizeof *x->direct_reqs);
    return x->direct_reqs ? RELAY_OK : RL_NOMEM();
}
