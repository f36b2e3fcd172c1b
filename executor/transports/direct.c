/* direct.c — direct messages (transport.h): a message whose every lattice
 * is a few long contiguous runs at both ends travels run by run, straight
 * from B into A, without packing.
 *
 * A message whose every lattice is a few long contiguous runs in the
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
 * can and the sizes agree; otherwise both pack, which is always right.
 *
 * Having no packed form, a direct message sends its control word
 * (transform_control.h) as one small MPI message of its own, ahead of its
 * runs. */
#include <limits.h>
#include <stdlib.h>

#include "error.h"
#include "exchange.h"
#include "transform_control.h"
#include "transform_lower.h"
#include "transform_pack.h"
#include "transform_timing.h"
#include "transport.h"

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
 * card; both ends go direct where both can and their runs agree (every
 * message is staged yet: direct is the first transport to agree). */
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
        if (!mine[k].direct || theirs[k].direct != 1 || !same_runs(&mine[k], &theirs[k])) continue;
        if (k < s->nsend) x->send_via[k] = &rl_transport_direct;
        else x->recv_via[k - s->nsend] = &rl_transport_direct;
    }
    free(mine);
    free(theirs);
    free(items);
    return st;
}

/* The runs of the lattices of direct messages (count 0 elsewhere), and
 * each message's first request among the runs', numbered from `first` on;
 * returns the request after the last. */
static int64_t find_direct_runs(rl_transform_exec *x, const rl_message *msg, int nmsg, const rl_transport **via,
                                const rl_span *spans, rl_direct_runs *runs, int64_t *first_req, int64_t first)
{
    for (int k = 0; k < nmsg; k++) {
        first_req[k] = first;
        first += via[k] == &rl_transport_direct && x->set.control; /* the control word's */
        for (int64_t i = msg[k].first; via[k] == &rl_transport_direct && i < msg[k].first + msg[k].count; i++) {
            lattice_runs(x->pairs[spans[i].pair].dst_order, &spans[i], x->esz, &runs[i]);
            first += runs[i].count;
        }
    }
    return first;
}

/* Binding, the first agreement: which messages travel direct (both ends
 * agree), their runs and their requests' room. */
static relay_status agree(rl_transform_exec *x)
{
    const rl_section *s = x->sec;
    relay_status st = exchange_direct(x);
    if (st) return st;
    x->send_runs = rl_calloc((size_t)s->nsend_spans + 1, sizeof *x->send_runs);
    x->recv_runs = rl_calloc((size_t)s->nrecv_spans + 1, sizeof *x->recv_runs);
    x->direct_first = rl_malloc_array((size_t)s->nrecv + (size_t)s->nsend + 1, sizeof *x->direct_first);
    if (!x->send_runs || !x->recv_runs || !x->direct_first) return RL_NOMEM();
    x->ndirect_recv_runs = find_direct_runs(x, s->recv, s->nrecv, x->recv_via, s->recv_spans, x->recv_runs, x->direct_first, 0);
    x->ndirect_runs = find_direct_runs(x, s->send, s->nsend, x->send_via, s->send_spans, x->send_runs,
                                       x->direct_first + s->nrecv, x->ndirect_recv_runs);
    x->direct_reqs = rl_malloc_array((size_t)x->ndirect_runs, sizeof *x->direct_reqs);
    for (int64_t k = 0; x->direct_reqs && k < x->ndirect_runs; k++) x->direct_reqs[k] = MPI_REQUEST_NULL;
    x->direct_words = rl_calloc((size_t)s->nrecv + (size_t)s->nsend + 1, sizeof *x->direct_words);
    return x->direct_reqs && x->direct_words ? RELAY_OK : RL_NOMEM();
}

/* ---- a replay ---------------------------------------------------------- */

/* Direct message k's control word (the replay's, sending), request *req. */
static int post_word(rl_transform_exec *x, int k, int sending, MPI_Request *req)
{
    rl_control *w = &x->direct_words[sending ? x->sec->nrecv + k : k];
    int peer = (int)(sending ? x->sec->send[k].peer : x->sec->recv[k].peer);
    if (!sending) return MPI_Irecv(w, (int)sizeof *w, MPI_BYTE, peer, TAG_CONTROL, x->comm, req);
    rl_control_put(x, w);
    return MPI_Isend(w, (int)sizeof *w, MPI_BYTE, peer, TAG_CONTROL, x->comm, req);
}

/* One MPI message per run of the lattices of direct message k: from B
 * (sending), or into A or its place in the receive buffer (receiving),
 * after its control word's. */
static int post(rl_transform_exec *x, int k, int sending)
{
    const rl_section *s = x->sec;
    const rl_message *m = sending ? &s->send[k] : &s->recv[k];
    const rl_span *spans = sending ? s->send_spans : s->recv_spans;
    const rl_direct_runs *runs = sending ? x->send_runs : x->recv_runs;
    char *staged = !sending && x->set.recv.buf ? x->set.recv.buf + x->set.recv.byte_off[k] + x->set.control
                                               : NULL; /* k is a send's index when sending */
    MPI_Request *req = x->direct_reqs + x->direct_first[sending ? s->nrecv + k : k];
    int rc = x->set.control ? post_word(x, k, sending, req++) : MPI_SUCCESS;
    int64_t n = 0;
    for (int64_t i = m->first; i < m->first + m->count; i++) {
        const rl_span *sp = &spans[i];
        char *base = sending ? (char *)x->src[sp->pair] : x->direct_into_a ? x->dst[sp->pair] : NULL;
        for (int64_t q = 0; q < runs[i].count && rc == MPI_SUCCESS; q++, n++) {
            int tag = TAG_RUN_BASE + (int)(n % TAG_RUNS), bytes = (int)runs[i].bytes, peer = (int)m->peer;
            char *at = base ? rl_elem_at(base, sp->off + q * runs[i].stride, x->esz) : staged;
            rc = sending ? MPI_Isend(at, bytes, MPI_BYTE, peer, tag, x->comm, req++)
                         : MPI_Irecv(at, bytes, MPI_BYTE, peer, tag, x->comm, req++);
            if (!base) staged += bytes;
        }
    }
    return rc;
}

/* Where alpha is 1 and beta 0 the runs land in A itself; else in the
 * receive buffer, unpacked at the wait's end. */
static int receive(rl_transform_exec *x, int k)
{
    x->direct_into_a = x->scalars.alpha_one && x->scalars.beta_zero;
    return post(x, k, 0);
}

static int send(rl_transform_exec *x, int k) { return post(x, k, 1); }

/* Waits for requests no single received message accounts for, timed. */
static int wait_all_timed(rl_transform_exec *x, int64_t n, MPI_Request *reqs)
{
    double t0 = rl_clock(x);
    int rc = n ? rl_deadline_waitall(&x->deadline, (int)n, reqs) : MPI_SUCCESS;
    rl_time_since(x, RL_WAIT, rl_row_completion(x), t0);
    return rc;
}

/* The runs received (and unpacked where they landed in the receive
 * buffer), then the runs sent. */
static int finish(rl_transform_exec *x, int rc)
{
    if (rc == MPI_SUCCESS) rc = wait_all_timed(x, x->ndirect_recv_runs, x->direct_reqs);
    for (int k = 0; k < x->set.recv.n && rc == MPI_SUCCESS; k++)
        if (x->recv_via[k] == &rl_transport_direct) rl_control_take(x, k, &x->direct_words[k]);
    for (int k = 0; k < x->set.recv.n && rc == MPI_SUCCESS && !x->direct_into_a; k++)
        if (x->recv_via[k] == &rl_transport_direct) rl_transform_unpack_timed(x, k);
    if (rc == MPI_SUCCESS) rc = wait_all_timed(x, x->ndirect_runs - x->ndirect_recv_runs, x->direct_reqs + x->ndirect_recv_runs);
    return rc;
}

const rl_transport rl_transport_direct = {
    .name = "direct",
    .stages_sends = 0,
    .stages_receives = 1, /* where alpha is not 1 or beta not 0 */
    .agree = agree,
    .receive = receive,
    .send = send,
    .finish = finish,
};
