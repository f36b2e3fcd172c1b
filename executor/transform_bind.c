/* transform_bind.c — what binding p2p replays settles with the other end
 * of each message (transform_exec.c calls it after creating the staged
 * requests): the exchange of a few bytes per message that this file's
 * agreement, transform_pull.c's and shm/'s use, and the agreement on direct
 * messages, which travel run by run from B into A without packing.  Also
 * the steps the opt-in transports share (transform_pull.c, shm/): their
 * environment switch, the receiver's notices to the sender, and dropping
 * the pack buffers no message stages in any more (p2p's, and a capped
 * replay's send buffer where every chunk goes through the window). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "mpi_error.h"
#include "transform_bind.h"
#include "transform_pack.h"

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
 * which may change at every replay.
 *
 * What binding checked of a plan read from bytes (transform_check.c) is
 * the packed form: which element of A each position of a message's packed
 * form becomes, the same at both ends.  A run-by-run transfer moves the
 * k-th element of the sender's runs to the k-th of the receiver's, so it
 * moves what was checked exactly when, at each end, the runs one after
 * another are the packed form (runs_in_packed_order), and both ends cut
 * the message into the same runs.  A plan file can describe one end of a
 * message otherwise (the same positions in another order, a
 * lattice split or merged at one end): each side tells the other whether
 * it could go direct and its runs' sizes, and both go direct only if both
 * can and the sizes agree; otherwise both pack, which is always right. */
enum { DIRECT_MIN_BYTES = 16 * 1024 };

/* The runs of a lattice stored untransposed at ld in order o: column-major,
 * piece column j is one run of count_r*rows*cols elements at off +
 * j*step_c when the pieces stack down whole columns (row-major: piece row
 * i, likewise). */
static int lattice_runs(relay_order o, const rl_span *sp, size_t esz, rl_direct_runs *r)
{
    int cm = o == RELAY_COL_MAJOR;
    int64_t len = cm ? sp->rows : sp->cols, count = cm ? sp->count_r : sp->count_c, step = cm ? sp->step_r : sp->step_c;
    int64_t width = cm ? sp->cols : sp->rows;
    if ((count > 1 && step != len) || (width > 1 && count * len != sp->ld)) return 0;
    *r = (rl_direct_runs){count * len * width * (int64_t)esz, cm ? sp->count_c : sp->count_r, cm ? sp->step_c : sp->step_r};
    return 1;
}

/* Whether lattice_runs' runs of sp, one after another, are its packed
 * form: the element they carry k-th is the packed form's k-th.  In the
 * runs (column-major) an element steps 1 down a piece's rows, rows down
 * the pieces, count_r*rows across columns and a piece column's size
 * across piece columns (row-major: the same across); the packed form's
 * steps must be these along every dimension of more than one index.  The
 * planner fuses pieces that stack at both ends, which makes it so. */
static int runs_in_packed_order(relay_order o, const rl_span *sp, const rl_pair_info *pi)
{
    rl_walk_side packed = rl_packed_form(sp, pi);
    int cm = o == RELAY_COL_MAJOR;
    int64_t run_r = cm ? 1 : sp->count_c * sp->cols, run_c = cm ? sp->count_r * sp->rows : 1;
    int64_t run_i = cm ? sp->rows : sp->count_c * sp->cols * sp->rows, run_j = cm ? sp->count_r * sp->rows * sp->cols : sp->cols;
    return (sp->rows == 1 || packed.rs == run_r) && (sp->cols == 1 || packed.cs == run_c) &&
           (sp->count_r == 1 || packed.step_r == run_i) && (sp->count_c == 1 || packed.step_c == run_j);
}

static int lattice_is_direct(const rl_transform_exec *x, const rl_span *sp)
{
    const rl_pair_info *pi = &x->pairs[sp->pair];
    rl_direct_runs r;
    return pi->op == RELAY_OP_N && pi->src_order == pi->dst_order && lattice_runs(pi->dst_order, sp, x->esz, &r) &&
           r.bytes >= DIRECT_MIN_BYTES && r.bytes <= INT_MAX && runs_in_packed_order(pi->dst_order, sp, pi);
}

/* What one end of a message tells the other at bind: whether its side
 * could go direct, and then the sizes of its runs in order, as groups of
 * equal runs (however the lattices group them).  A message whose runs
 * change size more often than RUN_GROUPS times is packed: the card holds
 * the sizes exactly, so two ends go direct only with the same runs. */
enum { RUN_GROUPS = 8 };

typedef struct {
    int64_t direct, groups;
    int64_t bytes[RUN_GROUPS], count[RUN_GROUPS];
} direct_card;

static direct_card side_card(const rl_transform_exec *x, const rl_message *m, const rl_span *spans)
{
    direct_card card = {.direct = 1};
    for (int64_t i = m->first; card.direct && i < m->first + m->count; i++) {
        rl_direct_runs r;
        card.direct = lattice_is_direct(x, &spans[i]) && lattice_runs(x->pairs[spans[i].pair].dst_order, &spans[i], x->esz, &r);
        if (card.direct && (card.groups == 0 || card.bytes[card.groups - 1] != r.bytes)) {
            card.direct = card.groups < RUN_GROUPS;
            if (card.direct) card.bytes[card.groups++] = r.bytes;
        }
        if (card.direct) card.count[card.groups - 1] += r.count;
    }
    return card.direct ? card : (direct_card){0};
}

static int same_runs(const direct_card *a, const direct_card *b)
{
    if (a->groups != b->groups) return 0;
    for (int64_t g = 0; g < a->groups; g++)
        if (a->bytes[g] != b->bytes[g] || a->count[g] != b->count[g]) return 0;
    return 1;
}

/* Collective in effect: each rank tells each peer of a message its side's
 * card; both ends go direct where both can and their runs agree. */
static relay_status exchange_direct(rl_transform_exec *x)
{
    const rl_section *s = x->sec;
    int n = s->nsend + s->nrecv;
    direct_card *mine = rl_malloc_array((size_t)n, sizeof *mine), *theirs = rl_malloc_array((size_t)n, sizeof *theirs);
    rl_swap *items = rl_calloc((size_t)n, sizeof *items);
    relay_status st = !mine || !theirs || !items ? RL_NOMEM() : RELAY_OK;
    for (int k = 0; !st && k < n; k++) {
        int sending = k < s->nsend;
        mine[k] = side_card(x, sending ? &s->send[k] : &s->recv[k - s->nsend], sending ? s->send_spans : s->recv_spans);
        items[k] = (rl_swap){&mine[k], sizeof *mine, &theirs[k], sizeof *theirs};
    }
    if (!st) st = rl_transform_swap(x, items, "agreeing on direct messages");
    for (int k = 0; !st && k < n; k++) {
        char direct = mine[k].direct && theirs[k].direct == 1 && same_runs(&mine[k], &theirs[k]);
        if (k < s->nsend) x->send_direct[k] = direct;
        else x->recv_direct[k - s->nsend] = direct;
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

/* ---- what the opt-in transports share ---------------------------------- */

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

relay_status rl_notices_create(rl_transform_exec *x, rl_notices *n, const char *send_flags, const char *recv_flags, int tag)
{
    const rl_section *s = x->sec;
    int total = s->nrecv + s->nsend, rc = MPI_SUCCESS;
    n->req = rl_malloc_array((size_t)total + 1, sizeof *n->req);
    n->sent = rl_calloc((size_t)s->nrecv + 1, 1);
    if (!n->req || !n->sent) return RL_NOMEM();
    for (int k = 0; k < total; k++) n->req[k] = MPI_REQUEST_NULL;
    for (int k = 0; k < s->nrecv && rc == MPI_SUCCESS; k++)
        if (recv_flags[k]) rc = MPI_Send_init(rl_no_bytes(), 0, MPI_BYTE, (int)s->recv[k].peer, tag, x->comm, &n->req[k]);
    for (int k = 0; k < s->nsend && rc == MPI_SUCCESS; k++)
        if (send_flags[k]) rc = MPI_Recv_init(rl_no_bytes(), 0, MPI_BYTE, (int)s->send[k].peer, tag, x->comm, &n->req[s->nrecv + k]);
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
    for (int k = 0; n->req && k < x->sec->nrecv; k++) {
        int started = n->req[k] != MPI_REQUEST_NULL && !n->sent[k] ? MPI_Start(&n->req[k]) : MPI_SUCCESS;
        rc = rc == MPI_SUCCESS ? started : rc;
        n->sent[k] = 0;
    }
    return rc;
}

int64_t rl_notices_bytes(const rl_transform_exec *x, const rl_notices *n)
{
    return n->req ? (x->sec->nrecv + x->sec->nsend) * (int64_t)sizeof(MPI_Request) + x->sec->nrecv : 0;
}

void rl_notices_free(const rl_transform_exec *x, rl_notices *n)
{
    int total = x->sec ? x->sec->nrecv + x->sec->nsend : 0;
    for (int k = 0; n->req && k < total; k++)
        if (n->req[k] != MPI_REQUEST_NULL) MPI_Request_free(&n->req[k]);
    free(n->req);
    free(n->sent);
    n->req = NULL;
    n->sent = NULL;
}

static int flagged(const char *flags, int k) { return flags && flags[k]; }

/* Under a cap: message k's chunks are [first[k], first[k + 1]). */
static void release_capped_sends(rl_transform_exec *x)
{
    const int64_t *first = x->capped.sends.first;
    for (int k = 0; k < x->sec->nsend; k++)
        if (!flagged(x->shm.send_on, k) && first[k + 1] > first[k]) return;
    rl_message_set_drop(&x->capped.sends.set);
}

void rl_transform_release_pack_buffers(rl_transform_exec *x)
{
    if (x->capped.cap) {
        release_capped_sends(x);
        return;
    }
    int staged_sends = 0, staged_recvs = 0;
    for (int k = 0; k < x->sec->nsend; k++)
        staged_sends += !x->send_direct[k] && !flagged(x->send_pulled, k) && !flagged(x->shm.send_on, k);
    for (int k = 0; k < x->sec->nrecv; k++) staged_recvs += !flagged(x->recv_pulled, k) && !flagged(x->shm.recv_on, k);
    if (!staged_sends) rl_message_set_drop(&x->sends);
    if (!staged_recvs) rl_message_set_drop(&x->recvs);
}
