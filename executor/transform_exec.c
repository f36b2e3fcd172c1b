/* exec.c — binding a plan to a communicator and replaying it.
 *
 * relay_exec_create (collective) validates this rank's section, allocates the
 * pack buffers, agrees with every other rank on the plan (fingerprint and
 * communicator size, one MPI_Allreduce), duplicates the communicator and
 * creates one persistent request per message.  A replay follows the plan's
 * schedule:
 *   p2p:       start: start all receives; pack each message and start its
 *              send.  wait: copy the local pieces straight from B to A;
 *              MPI_Waitany and unpack+transform each message as it lands;
 *              wait for the sends.
 *   rounds:    start: start all receives; pack and start step 0's send.
 *              wait: per step, the local pieces if it is theirs; wait for
 *              its receive and unpack it, wait for its send, pack and start
 *              the next one.
 *   alltoallv: start: pack everything, start one (non-blocking or, with
 *              MPI-4, persistent) MPI_Alltoallv.  wait: local pieces, wait,
 *              unpack everything.  Its int counts limit it to pack buffers
 *              below 2 GiB; past that every rank replays p2p instead.
 * Large pieces are cut into column chunks so that OpenMP threads share them. */
#include <limits.h>
#include <string.h>

#include "bmmc_exec.h"
#include "error.h"
#include "hsumma_dist.h"
#include "hsumma_exec.h"
#include "mpi_error.h"
#include "kernels.h"
#include "plan_internal.h"
#include "relay/exec.h"

enum {
    CHUNK_ELEMS = 1 << 15,      /* a task moves at most about this many elements */
    PARALLEL_ELEMS = 1 << 16,   /* fewer elements than this are not worth a thread team */
    WIRE_UNIT = 1 << 16,        /* messages over INT_MAX bytes travel in units of this many bytes */
    ALIGN = 64
};

/* A share of one piece: A columns [c0, c1) of piece `piece`, which starts
 * at element `pos` of its message (0 for local pieces). */
typedef struct {
    int64_t piece, c0, c1, pos;
} task;

typedef struct {
    task *tasks;
    int64_t ntasks;
    int64_t *first;          /* per message: its tasks are [first[k], first[k+1]) */
    int64_t *byte_off;       /* per message: offset in the pack buffer */
    char *buf;
} message_set;

typedef struct {
    relay_op op;
    relay_order dst_order, src_order;
} pair_info;

struct relay_exec {
    MPI_Comm comm;
    int rank, nranks;
    relay_type type;
    size_t esz;
    int count;
    pair_info *pairs;
    rl_section *sec;
    message_set sends, recvs;
    task *local_tasks;
    int64_t nlocal_tasks;
    MPI_Request *reqs;       /* nrecv receives, then nsend sends */
    int first_send;          /* sends start at the first peer above this rank and
                                wrap around, so no rank is everybody's first target */
    relay_schedule schedule; /* as replayed */
    char *send_direct, *recv_direct; /* p2p: messages that travel piece by piece, unpacked */
    int nstaged_recv;        /* receives that are not direct */
    int64_t ndirect_recv_pieces, ndirect_pieces;
    MPI_Request *direct_reqs; /* direct receive pieces, then direct send pieces */
    int direct_into_a;       /* this replay receives direct pieces straight into A */
    int32_t rounds;
    int *send_at, *recv_at;  /* rounds: the message of each step, or -1 */
    int *a2a;                /* alltoallv: send counts, send displacements,
                                receive counts, receive displacements (bytes) */
    MPI_Request a2a_req;
    rl_bmmc_exec *bmmc;      /* BMMC plans: the whole replay (bmmc_exec.c) */
    rl_hsumma_exec *hsumma;  /* HSUMMA plans: the whole replay (hsumma_exec.c) */
    /* The replay in flight. */
    int active;
    void **dst;
    const void **src;
    rl_scalars scalars;
};

/* ---- tasks: pieces cut into column chunks ----------------------------- */

static int64_t chunk_cols(int64_t rows, int64_t cols)
{
    int64_t per = CHUNK_ELEMS / (rows > 0 ? rows : 1);
    if (per < 1) per = 1;
    return per < cols ? per : cols;
}

static int64_t count_tasks(int64_t rows, int64_t cols)
{
    int64_t per = chunk_cols(rows, cols);
    return (cols + per - 1) / per;
}

static int64_t append_tasks(task *t, int64_t piece, int64_t rows, int64_t cols, int64_t pos)
{
    int64_t per = chunk_cols(rows, cols), n = 0;
    for (int64_t c0 = 0; c0 < cols; c0 += per) t[n++] = (task){piece, c0, c0 + per < cols ? c0 + per : cols, pos};
    return n;
}

static relay_status build_local_tasks(relay_exec *e)
{
    const rl_section *s = e->sec;
    int64_t n = 0;
    for (int64_t i = 0; i < s->nlocal; i++) n += count_tasks(s->local[i].rows, s->local[i].cols);
    e->local_tasks = rl_malloc_array((size_t)n, sizeof *e->local_tasks);
    if (!e->local_tasks) return RL_NOMEM();
    e->nlocal_tasks = 0;
    for (int64_t i = 0; i < s->nlocal; i++)
        e->nlocal_tasks += append_tasks(e->local_tasks + e->nlocal_tasks, i, s->local[i].rows, s->local[i].cols, 0);
    return RELAY_OK;
}

/* Bytes a message occupies in the pack buffer (rounded for alignment and,
 * past INT_MAX, to whole wire units). */
static int64_t padded_bytes(int64_t bytes)
{
    int64_t unit = bytes > INT_MAX ? WIRE_UNIT : ALIGN;
    return (bytes + unit - 1) / unit * unit;
}

static relay_status build_message_set(message_set *ms, const rl_message *msg, int nmsg, const rl_piece *pieces, size_t esz)
{
    int64_t ntasks = 0, bytes = 0;
    for (int k = 0; k < nmsg; k++) {
        for (int64_t i = msg[k].first; i < msg[k].first + msg[k].count; i++) ntasks += count_tasks(pieces[i].rows, pieces[i].cols);
        int64_t b;
        if (rl_mul_overflows(msg[k].elems, (int64_t)esz, &b) || rl_add_overflows(bytes, padded_bytes(b), &bytes))
            return rl_fail(RELAY_ERR_ARG, "message of %lld elements is too large", (long long)msg[k].elems);
    }
    ms->tasks = rl_malloc_array((size_t)ntasks, sizeof *ms->tasks);
    ms->first = rl_malloc_array((size_t)nmsg + 1, sizeof *ms->first);
    ms->byte_off = rl_malloc_array((size_t)nmsg + 1, sizeof *ms->byte_off);
    ms->buf = bytes ? aligned_alloc(ALIGN, (size_t)bytes) : NULL;
    if (!ms->tasks || !ms->first || !ms->byte_off || (bytes && !ms->buf))
        return rl_fail(RELAY_ERR_NOMEM, "cannot allocate %lld bytes of message buffers", (long long)bytes);
    ms->ntasks = 0;
    ms->byte_off[0] = 0;
    for (int k = 0; k < nmsg; k++) {
        int64_t pos = 0;
        ms->first[k] = ms->ntasks;
        for (int64_t i = msg[k].first; i < msg[k].first + msg[k].count; i++) {
            ms->ntasks += append_tasks(ms->tasks + ms->ntasks, i, pieces[i].rows, pieces[i].cols, pos);
            pos += pieces[i].rows * pieces[i].cols;
        }
        ms->byte_off[k + 1] = ms->byte_off[k] + padded_bytes(msg[k].elems * (int64_t)esz);
    }
    ms->first[nmsg] = ms->ntasks;
    return RELAY_OK;
}

static void free_message_set(message_set *ms)
{
    free(ms->tasks);
    free(ms->first);
    free(ms->byte_off);
    free(ms->buf);
}

/* ---- one task's memory move ------------------------------------------ */

static char *at(void *base, int64_t elems, size_t esz) { return (char *)base + (size_t)elems * esz; }

/* A side's view starting at A-column c0 of a piece stored at off/ld. */
static rl_side side_at(void *base, int64_t off, int64_t ld, relay_order order, int transposed, int64_t c0, size_t esz)
{
    int64_t r = transposed ? c0 : 0, c = transposed ? 0 : c0;
    rl_side s = {at(base, off + rl_elem_offset(order, ld, r, c), esz), ld, order, transposed};
    return s;
}

/* The packed form of a piece: B's own element order, stored tightly. */
static int64_t packed_ld(const pair_info *pi, int64_t rows, int64_t cols)
{
    int t = rl_op_transposes(pi->op);
    int64_t brows = t ? cols : rows, bcols = t ? rows : cols;
    return pi->src_order == RELAY_COL_MAJOR ? brows : bcols;
}

static void pack_task(const relay_exec *e, const task *t, char *msgbuf)
{
    const rl_piece *p = &e->sec->send_pieces[t->piece];
    const pair_info *pi = &e->pairs[p->pair];
    int tr = rl_op_transposes(pi->op);
    rl_side from = side_at((void *)e->src[p->pair], p->off, p->ld, pi->src_order, tr, t->c0, e->esz);
    rl_side to = side_at(msgbuf, t->pos, packed_ld(pi, p->rows, p->cols), pi->src_order, tr, t->c0, e->esz);
    rl_copy(e->type, to, from, p->rows, t->c1 - t->c0);
}

static void unpack_task(const relay_exec *e, const task *t, char *msgbuf)
{
    const rl_piece *p = &e->sec->recv_pieces[t->piece];
    const pair_info *pi = &e->pairs[p->pair];
    int tr = rl_op_transposes(pi->op);
    rl_side from = side_at(msgbuf, t->pos, packed_ld(pi, p->rows, p->cols), pi->src_order, tr, t->c0, e->esz);
    rl_side to = side_at(e->dst[p->pair], p->off, p->ld, pi->dst_order, 0, t->c0, e->esz);
    rl_move(&e->scalars, pi->op == RELAY_OP_C, to, from, p->rows, t->c1 - t->c0);
}

static void local_task(const relay_exec *e, const task *t)
{
    const rl_local_piece *p = &e->sec->local[t->piece];
    const pair_info *pi = &e->pairs[p->pair];
    rl_side from = side_at((void *)e->src[p->pair], p->src_off, p->src_ld, pi->src_order, rl_op_transposes(pi->op), t->c0, e->esz);
    rl_side to = side_at(e->dst[p->pair], p->dst_off, p->dst_ld, pi->dst_order, 0, t->c0, e->esz);
    rl_move(&e->scalars, pi->op == RELAY_OP_C, to, from, p->rows, t->c1 - t->c0);
}

/* Packs (or unpacks) message k of a set, its tasks shared among threads. */
static void move_message(const relay_exec *e, const message_set *ms, int64_t elems, int k, int packing)
{
    char *buf = ms->buf + ms->byte_off[k];
#pragma omp parallel for schedule(dynamic, 1) if (elems >= PARALLEL_ELEMS)
    for (int64_t t = ms->first[k]; t < ms->first[k + 1]; t++) {
        if (packing) pack_task(e, &ms->tasks[t], buf);
        else unpack_task(e, &ms->tasks[t], buf);
    }
}

static void move_locals(const relay_exec *e)
{
    int64_t elems = 0;
    for (int64_t i = 0; i < e->sec->nlocal; i++) elems += e->sec->local[i].rows * e->sec->local[i].cols;
#pragma omp parallel for schedule(dynamic, 1) if (elems >= PARALLEL_ELEMS)
    for (int64_t t = 0; t < e->nlocal_tasks; t++) local_task(e, &e->local_tasks[t]);
}

/* ---- binding ---------------------------------------------------------- */

/* MPI count and datatype of a message of `elems` elements. */
static void wire_shape(int64_t elems, size_t esz, MPI_Datatype unit, int *count, MPI_Datatype *type)
{
    int64_t bytes = elems * (int64_t)esz;
    if (bytes <= INT_MAX) {
        *count = (int)bytes;
        *type = MPI_BYTE;
    } else {
        *count = (int)(padded_bytes(bytes) / WIRE_UNIT);
        *type = unit;
    }
}


static relay_status create_requests(relay_exec *e)
{
    const rl_section *s = e->sec;
    MPI_Datatype unit;
    int rc = MPI_Type_contiguous(WIRE_UNIT, MPI_BYTE, &unit);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&unit);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "MPI_Type_contiguous");
    e->reqs = rl_malloc_array((size_t)s->nrecv + (size_t)s->nsend, sizeof *e->reqs);
    if (!e->reqs) {
        MPI_Type_free(&unit);
        return RL_NOMEM();
    }
    for (int k = 0; k < s->nrecv + s->nsend; k++) e->reqs[k] = MPI_REQUEST_NULL;
    for (int k = 0; k < s->nrecv && rc == MPI_SUCCESS; k++) {
        int count;
        MPI_Datatype type;
        wire_shape(s->recv[k].elems, e->esz, unit, &count, &type);
        rc = MPI_Recv_init(e->recvs.buf + e->recvs.byte_off[k], count, type, (int)s->recv[k].peer, 0, e->comm, &e->reqs[k]);
    }
    for (int k = 0; k < s->nsend && rc == MPI_SUCCESS; k++) {
        int count;
        MPI_Datatype type;
        wire_shape(s->send[k].elems, e->esz, unit, &count, &type);
        rc = MPI_Send_init(e->sends.buf + e->sends.byte_off[k], count, type, (int)s->send[k].peer, 0, e->comm,
                           &e->reqs[s->nrecv + k]);
    }
    MPI_Type_free(&unit); /* requests keep their own reference */
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "creating persistent requests");
}

/* Any address will do where a side has nothing to exchange, but not NULL. */
static char nothing;

static void *a2a_buf(const message_set *ms) { return ms->buf ? ms->buf : &nothing; }

/* ---- direct messages ----------------------------------------------------- */

/* A message whose every piece is one contiguous run in the sender's B and in
 * the receiver's A, with nothing to transform (op N, one element order),
 * needs no packing.  Under p2p its pieces travel as one MPI message each,
 * straight from B into A (or into the receive buffer and then unpacked, when
 * a replay's alpha is not 1 or beta not 0).  Shared-memory MPI moves such a
 * run with a single copy, so a remote element costs one memory pass instead
 * of three.  These transfers use MPI_Isend/MPI_Irecv: their buffers are the
 * user's, which may change at every replay.  Each side sees only its own
 * half of a piece, so binding exchanges one byte per message and side. */
enum { TAG_STAGED = 0, TAG_SENDER_SIDE = 1, TAG_RECEIVER_SIDE = 2, TAG_PIECE_BASE = 3, TAG_PIECES = 30000 };

static int contiguous_run(relay_order o, int64_t rows, int64_t cols, int64_t ld)
{
    return o == RELAY_COL_MAJOR ? rows == ld || cols == 1 : cols == ld || rows == 1;
}

static char side_is_direct(const relay_exec *e, const rl_message *m, const rl_piece *pieces)
{
    for (int64_t i = m->first; i < m->first + m->count; i++) {
        const rl_piece *pc = &pieces[i];
        const pair_info *pi = &e->pairs[pc->pair];
        if (pi->op != RELAY_OP_N || pi->src_order != pi->dst_order || !contiguous_run(pi->dst_order, pc->rows, pc->cols, pc->ld) ||
            pc->rows * pc->cols * (int64_t)e->esz > INT_MAX)
            return 0;
    }
    return 1;
}

static int64_t count_pieces(const rl_message *msg, int nmsg, const char *direct)
{
    int64_t n = 0;
    for (int k = 0; k < nmsg; k++) n += direct[k] ? msg[k].count : 0;
    return n;
}

/* Collective in effect: each rank tells each peer of a message whether its
 * side of the message is direct; both ends then agree on the AND. */
static relay_status agree_direct(relay_exec *e)
{
    const rl_section *s = e->sec;
    int n = s->nsend + s->nrecv;
    char *mine = rl_malloc_array((size_t)n, 1), *theirs = rl_malloc_array((size_t)n, 1);
    MPI_Request *reqs = rl_malloc_array(2 * (size_t)n, sizeof *reqs);
    e->send_direct = rl_calloc((size_t)s->nsend + 1, 1);
    e->recv_direct = rl_calloc((size_t)s->nrecv + 1, 1);
    relay_status st = !mine || !theirs || !reqs || !e->send_direct || !e->recv_direct ? RL_NOMEM() : RELAY_OK;
    int rc = MPI_SUCCESS;
    for (int k = 0; !st && k < n && rc == MPI_SUCCESS; k++) {
        int sending = k < s->nsend;
        const rl_message *m = sending ? &s->send[k] : &s->recv[k - s->nsend];
        mine[k] = side_is_direct(e, m, sending ? s->send_pieces : s->recv_pieces);
        rc = MPI_Isend(&mine[k], 1, MPI_CHAR, (int)m->peer, sending ? TAG_SENDER_SIDE : TAG_RECEIVER_SIDE, e->comm, &reqs[2 * k]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Irecv(&theirs[k], 1, MPI_CHAR, (int)m->peer, sending ? TAG_RECEIVER_SIDE : TAG_SENDER_SIDE, e->comm,
                           &reqs[2 * k + 1]);
    }
    if (!st && rc == MPI_SUCCESS) rc = MPI_Waitall(2 * n, reqs, MPI_STATUSES_IGNORE);
    if (!st && rc != MPI_SUCCESS) st = rl_mpi_fail(rc, "agreeing on direct messages");
    for (int k = 0; !st && k < n; k++) {
        if (k < s->nsend) e->send_direct[k] = mine[k] && theirs[k];
        else e->recv_direct[k - s->nsend] = mine[k] && theirs[k];
    }
    free(mine);
    free(theirs);
    free(reqs);
    if (st) return st;
    e->ndirect_recv_pieces = count_pieces(s->recv, s->nrecv, e->recv_direct);
    e->ndirect_pieces = e->ndirect_recv_pieces + count_pieces(s->send, s->nsend, e->send_direct);
    for (int k = 0; k < s->nrecv; k++) e->nstaged_recv += !e->recv_direct[k];
    e->direct_reqs = rl_malloc_array((size_t)e->ndirect_pieces, sizeof *e->direct_reqs);
    return e->direct_reqs ? RELAY_OK : RL_NOMEM();
}

/* ---- schedules --------------------------------------------------------- */

static void index_steps(int *at, const int64_t *step, int nmsg)
{
    for (int k = 0; k < nmsg; k++) at[step[k]] = k;
}

/* Rounds: which send and which receive (if any) each step holds. */
static relay_status build_steps(relay_exec *e, int32_t rounds)
{
    e->rounds = rounds;
    e->send_at = rl_malloc_array((size_t)rounds, sizeof *e->send_at);
    e->recv_at = rl_malloc_array((size_t)rounds, sizeof *e->recv_at);
    if (!e->send_at || !e->recv_at) return RL_NOMEM();
    for (int32_t r = 0; r < rounds; r++) e->send_at[r] = e->recv_at[r] = -1;
    if (e->sec->nsend) index_steps(e->send_at, e->sec->send_round, e->sec->nsend);
    if (e->sec->nrecv) index_steps(e->recv_at, e->sec->recv_round, e->sec->nrecv);
    return RELAY_OK;
}

static void a2a_side(int *counts, int *displs, const rl_message *msg, int nmsg, const int64_t *byte_off, size_t esz)
{
    for (int k = 0; k < nmsg; k++) {
        counts[msg[k].peer] = (int)(msg[k].elems * (int64_t)esz);
        displs[msg[k].peer] = (int)byte_off[k];
    }
}

/* Alltoallv's byte counts and displacements.  They are ints: when a pack
 * buffer reaches 2 GiB they cannot describe it, and a2a stays NULL. */
static relay_status build_a2a(relay_exec *e)
{
    if (e->sends.byte_off[e->sec->nsend] > INT_MAX || e->recvs.byte_off[e->sec->nrecv] > INT_MAX) return RELAY_OK;
    e->a2a = rl_calloc(4 * (size_t)e->nranks, sizeof *e->a2a);
    if (!e->a2a) return RL_NOMEM();
    int n = e->nranks;
    a2a_side(e->a2a, e->a2a + n, e->sec->send, e->sec->nsend, e->sends.byte_off, e->esz);
    a2a_side(e->a2a + 2 * n, e->a2a + 3 * n, e->sec->recv, e->sec->nrecv, e->recvs.byte_off, e->esz);
    return RELAY_OK;
}

/* With MPI-4, alltoallv is a persistent collective created once like the
 * point-to-point requests; before MPI-4 each replay starts MPI_Ialltoallv. */
static relay_status create_a2a_request(relay_exec *e)
{
#if MPI_VERSION >= 4
    int n = e->nranks, *c = e->a2a;
    int rc = MPI_Alltoallv_init(a2a_buf(&e->sends), c, c + n, MPI_BYTE, a2a_buf(&e->recvs), c + 2 * n, c + 3 * n, MPI_BYTE,
                                e->comm, MPI_INFO_NULL, &e->a2a_req);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "MPI_Alltoallv_init");
#else
    (void)e;
    return RELAY_OK;
#endif
}

/* Everything this rank prepares before it knows whether all ranks agree. */
static relay_status prepare_local(relay_exec *e, const relay_plan *p)
{
    const rl_section *s = p->sections[e->rank];
    relay_status st = rl_section_validate(s, p);
    if (!st) st = rl_section_clone(&e->sec, s, p->count);
    if (st) return st;
    e->count = p->count;
    e->type = p->type;
    e->esz = relay_type_size(p->type);
    e->pairs = rl_malloc_array((size_t)p->count, sizeof *e->pairs);
    e->dst = rl_calloc((size_t)p->count, sizeof *e->dst);
    e->src = rl_calloc((size_t)p->count, sizeof *e->src);
    if (!e->pairs || !e->dst || !e->src) return RL_NOMEM();
    for (int k = 0; k < p->count; k++)
        e->pairs[k] = (pair_info){p->pairs[k].op, p->pairs[k].dst->order, p->pairs[k].src->order};
    st = build_message_set(&e->sends, e->sec->send, e->sec->nsend, e->sec->send_pieces, e->esz);
    if (!st) st = build_message_set(&e->recvs, e->sec->recv, e->sec->nrecv, e->sec->recv_pieces, e->esz);
    if (!st) st = build_local_tasks(e);
    while (e->first_send < e->sec->nsend && e->sec->send[e->first_send].peer < e->rank) e->first_send++;
    e->schedule = p->schedule;
    if (!st && e->schedule == RELAY_SCHED_ROUNDS) st = build_steps(e, p->rounds);
    if (!st && e->schedule == RELAY_SCHED_ALLTOALLV) st = build_a2a(e);
    return st;
}

/* Problems a rank can have with a plan, agreed on by MPI_MAX across ranks. */
enum { AGREE_FP, AGREE_NOT_FP, AGREE_SIZE, AGREE_SECTION, AGREE_LOCAL, AGREE_NO_A2A, AGREE_N };

/* Also settles the replayed schedule: alltoallv only if every rank can. */
static relay_status agree(relay_exec *e, MPI_Comm comm, const relay_plan *p, int has_section, relay_status local)
{
    int size = e->nranks;
    uint64_t v[AGREE_N] = {p->fingerprint, ~p->fingerprint, size != p->nranks, !has_section, local != RELAY_OK,
                           e->schedule == RELAY_SCHED_ALLTOALLV && !e->a2a};
    int rc = MPI_Allreduce(MPI_IN_PLACE, v, AGREE_N, MPI_UINT64_T, MPI_MAX, comm);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "MPI_Allreduce in relay_exec_create");
    if (local) return local; /* keep this rank's own message */
    if (v[AGREE_SIZE])
        return rl_fail(RELAY_ERR_MISMATCH, "the communicator has %d ranks but a rank's plan was made for a different count (this rank's: %d)",
                       size, p->nranks);
    if (v[AGREE_FP] != ~v[AGREE_NOT_FP])
        return rl_fail(RELAY_ERR_MISMATCH, "ranks hold different plans (fingerprints differ)");
    if (v[AGREE_SECTION]) return rl_fail(RELAY_ERR_MISMATCH, "a rank's plan lacks that rank's own section");
    if (v[AGREE_LOCAL]) return rl_fail(RELAY_ERR_MISMATCH, "another rank could not prepare its part of the plan");
    if (v[AGREE_NO_A2A]) e->schedule = RELAY_SCHED_P2P;
    return RELAY_OK;
}

/* A BMMC plan needs no section: every rank derives its part from the
 * factors, which are checked first. */
static relay_status prepare_bmmc(relay_exec *e, const relay_plan *p)
{
    e->schedule = RELAY_SCHED_P2P;
    e->dst = rl_calloc(1, sizeof *e->dst);
    if (!e->dst) return RL_NOMEM();
    relay_status st = p->bmmc ? rl_bmmc_validate(p->bmmc) : rl_fail(RELAY_ERR_FORMAT, "BMMC plan without its factors");
    return st || e->rank >= p->nranks ? st : rl_bmmc_exec_create(&e->bmmc, p->bmmc, e->rank);
}

/* Nor does an HSUMMA plan: its parameters give every rank its part. */
static relay_status prepare_hsumma(relay_exec *e, const relay_plan *p)
{
    e->schedule = RELAY_SCHED_P2P;
    relay_status st = p->hsumma ? rl_hsumma_check(&p->hsumma->params, RELAY_ERR_FORMAT)
                                : rl_fail(RELAY_ERR_FORMAT, "HSUMMA plan without its parameters");
    return st || e->rank >= p->nranks ? st : rl_hsumma_exec_create(&e->hsumma, p->hsumma, e->rank);
}

/* Binds what the plan's kind needs on the executor's own communicator. */
static relay_status bind(relay_exec *e)
{
    if (e->bmmc) return rl_bmmc_exec_bind(e->bmmc, e->comm);
    if (e->hsumma) return rl_hsumma_exec_bind(e->hsumma, e->comm);
    relay_status st = e->schedule == RELAY_SCHED_ALLTOALLV ? create_a2a_request(e) : create_requests(e);
    return st || e->schedule != RELAY_SCHED_P2P ? st : agree_direct(e);
}

relay_status relay_exec_create(relay_exec **out, const relay_plan *p, MPI_Comm comm)
{
    if (!out || !p) return rl_fail(RELAY_ERR_ARG, "relay_exec_create: NULL argument");
    if (comm == MPI_COMM_NULL) return rl_fail(RELAY_ERR_ARG, "relay_exec_create: the communicator is MPI_COMM_NULL");
    relay_exec *e = calloc(1, sizeof *e);
    if (!e) return RL_NOMEM();
    e->comm = MPI_COMM_NULL;
    e->a2a_req = MPI_REQUEST_NULL;
    MPI_Comm_size(comm, &e->nranks);
    MPI_Comm_rank(comm, &e->rank);
    int sectionless = p->kind != RELAY_PLAN_TRANSFORM;
    int has_section = sectionless || (e->nranks == p->nranks && p->sections[e->rank] != NULL);
    relay_status st = p->kind == RELAY_PLAN_BMMC ? prepare_bmmc(e, p)
                      : p->kind == RELAY_PLAN_HSUMMA ? prepare_hsumma(e, p)
                      : has_section ? prepare_local(e, p) : RELAY_OK;
    st = agree(e, comm, p, has_section, st);
    if (!st) {
        int rc = MPI_Comm_dup(comm, &e->comm);
        if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(e->comm, MPI_ERRORS_RETURN);
        st = rc != MPI_SUCCESS ? rl_mpi_fail(rc, "MPI_Comm_dup") : bind(e);
    }
    if (st) {
        relay_exec_free(e);
        return st;
    }
    *out = e;
    return RELAY_OK;
}

/* ---- replay ----------------------------------------------------------- */

/* Each schedule's two halves; they return an MPI error code. */

static void pack(const relay_exec *e, int k) { move_message(e, &e->sends, e->sec->send[k].elems, k, 1); }
static void unpack(const relay_exec *e, int k) { move_message(e, &e->recvs, e->sec->recv[k].elems, k, 0); }

/* One MPI message per piece of direct message k: from B (sending), or into
 * A or its slot of the receive buffer (receiving).  *req advances. */
static int post_direct(relay_exec *e, int k, int sending, MPI_Request **req)
{
    const rl_section *s = e->sec;
    const rl_message *m = sending ? &s->send[k] : &s->recv[k];
    const rl_piece *pieces = sending ? s->send_pieces : s->recv_pieces;
    int rc = MPI_SUCCESS;
    int64_t pos = 0;
    for (int64_t i = m->first; i < m->first + m->count && rc == MPI_SUCCESS; i++) {
        const rl_piece *pc = &pieces[i];
        int bytes = (int)(pc->rows * pc->cols * (int64_t)e->esz), tag = TAG_PIECE_BASE + (int)((i - m->first) % TAG_PIECES);
        if (sending) rc = MPI_Isend(at((void *)e->src[pc->pair], pc->off, e->esz), bytes, MPI_BYTE, (int)m->peer, tag, e->comm, (*req)++);
        else {
            char *to = e->direct_into_a ? at(e->dst[pc->pair], pc->off, e->esz) : at(e->recvs.buf + e->recvs.byte_off[k], pos, e->esz);
            rc = MPI_Irecv(to, bytes, MPI_BYTE, (int)m->peer, tag, e->comm, (*req)++);
        }
        pos += pc->rows * pc->cols;
    }
    return rc;
}

static int start_p2p(relay_exec *e)
{
    const rl_section *s = e->sec;
    MPI_Request *direct = e->direct_reqs;
    int rc = MPI_SUCCESS;
    e->direct_into_a = e->scalars.alpha_one && e->scalars.beta_zero;
    for (int k = 0; k < s->nrecv && rc == MPI_SUCCESS; k++)
        rc = e->recv_direct[k] ? post_direct(e, k, 0, &direct) : MPI_Start(&e->reqs[k]);
    for (int n = 0; n < s->nsend && rc == MPI_SUCCESS; n++) {
        int k = (e->first_send + n) % s->nsend;
        if (e->send_direct[k]) {
            rc = post_direct(e, k, 1, &direct);
            continue;
        }
        pack(e, k);
        rc = MPI_Start(&e->reqs[s->nrecv + k]);
    }
    return rc;
}

static int wait_p2p(relay_exec *e)
{
    const rl_section *s = e->sec;
    int rc = MPI_SUCCESS;
    for (int n = 0; n < e->nstaged_recv && rc == MPI_SUCCESS; n++) {
        int k;
        rc = MPI_Waitany(s->nrecv, e->reqs, &k, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && k != MPI_UNDEFINED) unpack(e, k);
    }
    if (rc == MPI_SUCCESS && e->ndirect_recv_pieces)
        rc = MPI_Waitall((int)e->ndirect_recv_pieces, e->direct_reqs, MPI_STATUSES_IGNORE);
    for (int k = 0; k < s->nrecv && rc == MPI_SUCCESS && !e->direct_into_a; k++)
        if (e->recv_direct[k]) unpack(e, k);
    if (rc == MPI_SUCCESS && s->nsend) rc = MPI_Waitall(s->nsend, e->reqs + s->nrecv, MPI_STATUSES_IGNORE);
    if (rc == MPI_SUCCESS && e->ndirect_pieces > e->ndirect_recv_pieces)
        rc = MPI_Waitall((int)(e->ndirect_pieces - e->ndirect_recv_pieces), e->direct_reqs + e->ndirect_recv_pieces,
                         MPI_STATUSES_IGNORE);
    return rc;
}

static int start_step_send(relay_exec *e, int32_t step)
{
    if (step >= e->rounds || e->send_at[step] < 0) return MPI_SUCCESS;
    pack(e, e->send_at[step]);
    return MPI_Start(&e->reqs[e->sec->nrecv + e->send_at[step]]);
}

/* Receives are all posted up front, so a step's send never waits for its
 * receiver to arrive at that step; the pacing comes from each rank waiting
 * for its own step's receive before it starts the next send. */
static int start_rounds(relay_exec *e)
{
    int rc = e->sec->nrecv ? MPI_Startall(e->sec->nrecv, e->reqs) : MPI_SUCCESS;
    return rc == MPI_SUCCESS ? start_step_send(e, 0) : rc;
}

static int wait_rounds(relay_exec *e)
{
    int rc = MPI_SUCCESS;
    for (int32_t r = 0; r < e->rounds && rc == MPI_SUCCESS; r++) {
        if (r == e->sec->local_round) move_locals(e);
        if (e->recv_at[r] >= 0) {
            rc = MPI_Wait(&e->reqs[e->recv_at[r]], MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS) unpack(e, e->recv_at[r]);
        }
        if (rc == MPI_SUCCESS && e->send_at[r] >= 0) rc = MPI_Wait(&e->reqs[e->sec->nrecv + e->send_at[r]], MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS) rc = start_step_send(e, r + 1);
    }
    return rc;
}

static int start_a2a(relay_exec *e)
{
    for (int k = 0; k < e->sec->nsend; k++) pack(e, k);
#if MPI_VERSION >= 4
    return MPI_Start(&e->a2a_req);
#else
    int n = e->nranks, *c = e->a2a;
    return MPI_Ialltoallv(a2a_buf(&e->sends), c, c + n, MPI_BYTE, a2a_buf(&e->recvs), c + 2 * n, c + 3 * n, MPI_BYTE, e->comm,
                          &e->a2a_req);
#endif
}

static int wait_a2a(relay_exec *e)
{
    int rc = MPI_Wait(&e->a2a_req, MPI_STATUS_IGNORE);
    for (int k = 0; k < e->sec->nrecv && rc == MPI_SUCCESS; k++) unpack(e, k);
    return rc;
}

static relay_status check_buffers(const relay_exec *e, void *const *dst, const void *const *src)
{
    if (!dst || !src) return rl_fail(RELAY_ERR_ARG, "relay_exec_start: the dst or src array is NULL");
    for (int k = 0; k < e->count; k++) {
        if (e->sec->dst_elems[k] > 0 && !dst[k])
            return rl_fail(RELAY_ERR_ARG, "relay_exec_start: dst[%d] is NULL but rank %d holds %lld elements of it",
                           k, e->rank, (long long)e->sec->dst_elems[k]);
        if (e->sec->src_elems[k] > 0 && !src[k])
            return rl_fail(RELAY_ERR_ARG, "relay_exec_start: src[%d] is NULL but rank %d holds %lld elements of it",
                           k, e->rank, (long long)e->sec->src_elems[k]);
    }
    return RELAY_OK;
}

/* A BMMC replay moves opaque elements: one buffer each way, no scalars. */
static relay_status start_bmmc(relay_exec *e, void *const *dst, const void *const *src, const void *alpha, const void *beta)
{
    if (!dst || !src || !dst[0] || !src[0]) return rl_fail(RELAY_ERR_ARG, "relay_exec_start: a BMMC plan needs dst[0] and src[0]");
    if (alpha || beta) return rl_fail(RELAY_ERR_ARG, "relay_exec_start: a BMMC plan moves elements as they are; pass NULL alpha and beta");
    e->dst[0] = dst[0];
    return rl_bmmc_exec_start(e->bmmc, src[0]);
}

/* An HSUMMA replay: C in dst[0], A and B in src[0] and src[1]. */
static relay_status start_hsumma(relay_exec *e, void *const *dst, const void *const *src, const void *alpha, const void *beta)
{
    if (!dst || !src) return rl_fail(RELAY_ERR_ARG, "relay_exec_start: the dst or src array is NULL");
    return rl_hsumma_exec_start(e->hsumma, dst[0], src[0], src[1], alpha, beta);
}

relay_status relay_exec_start(relay_exec *e, void *const *dst, const void *const *src, const void *alpha, const void *beta)
{
    if (!e) return rl_fail(RELAY_ERR_ARG, "relay_exec_start: executor is NULL");
    if (e->active) return rl_fail(RELAY_ERR_ARG, "relay_exec_start: a replay is already in flight; call relay_exec_wait first");
    if (e->bmmc || e->hsumma) {
        relay_status st = e->bmmc ? start_bmmc(e, dst, src, alpha, beta) : start_hsumma(e, dst, src, alpha, beta);
        e->active = st == RELAY_OK;
        return st;
    }
    relay_status st = check_buffers(e, dst, src);
    if (st) return st;
    for (int k = 0; k < e->count; k++) {
        e->dst[k] = dst[k];
        e->src[k] = src[k];
    }
    rl_scalars_set(&e->scalars, e->type, alpha, beta);
    int rc = e->schedule == RELAY_SCHED_ALLTOALLV ? start_a2a(e) : e->schedule == RELAY_SCHED_ROUNDS ? start_rounds(e) : start_p2p(e);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "starting the replay");
    e->active = 1;
    return RELAY_OK;
}

relay_status relay_exec_wait(relay_exec *e)
{
    if (!e) return rl_fail(RELAY_ERR_ARG, "relay_exec_wait: executor is NULL");
    if (!e->active) return rl_fail(RELAY_ERR_ARG, "relay_exec_wait: no replay is in flight");
    e->active = 0;
    if (e->bmmc) return rl_bmmc_exec_wait(e->bmmc, e->dst[0]);
    if (e->hsumma) return rl_hsumma_exec_wait(e->hsumma);
    if (e->schedule != RELAY_SCHED_ROUNDS) move_locals(e); /* rounds copy in their own step */
    int rc = e->schedule == RELAY_SCHED_ALLTOALLV ? wait_a2a(e) : e->schedule == RELAY_SCHED_ROUNDS ? wait_rounds(e) : wait_p2p(e);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "completing the replay");
}

relay_status relay_exec_run(relay_exec *e, void *const *dst, const void *const *src, const void *alpha, const void *beta)
{
    relay_status st = relay_exec_start(e, dst, src, alpha, beta);
    return st ? st : relay_exec_wait(e);
}

relay_status relay_exec_get_memory(const relay_exec *e, relay_exec_memory *m)
{
    if (!e || !m) return rl_fail(RELAY_ERR_ARG, "relay_exec_get_memory: NULL argument");
    if (e->bmmc) {
        *m = (relay_exec_memory){rl_bmmc_exec_extra_bytes(e->bmmc), rl_bmmc_exec_remote_bytes(e->bmmc)};
        return RELAY_OK;
    }
    if (e->hsumma) {
        *m = (relay_exec_memory){rl_hsumma_exec_extra_bytes(e->hsumma), rl_hsumma_exec_remote_bytes(e->hsumma)};
        return RELAY_OK;
    }
    const rl_section *s = e->sec;
    int64_t remote = 0, extra = e->sends.byte_off[s->nsend] + e->recvs.byte_off[s->nrecv];
    for (int k = 0; k < s->nsend; k++) remote += s->send[k].elems * (int64_t)e->esz;
    for (int k = 0; k < s->nrecv; k++) remote += s->recv[k].elems * (int64_t)e->esz;
    extra += (e->sends.ntasks + e->recvs.ntasks + e->nlocal_tasks) * (int64_t)sizeof(task);
    extra += (int64_t)(s->nsend + s->nrecv) * (int64_t)(sizeof(MPI_Request) + 2 * sizeof(int64_t) + sizeof(rl_message));
    extra += (s->nsend_pieces + s->nrecv_pieces) * (int64_t)sizeof(rl_piece) + s->nlocal * (int64_t)sizeof(rl_local_piece);
    extra += e->a2a ? 4 * (int64_t)e->nranks * (int64_t)sizeof(int) : 0;
    extra += e->send_at ? 2 * (int64_t)e->rounds * (int64_t)sizeof(int) : 0;
    extra += e->ndirect_pieces * (int64_t)sizeof(MPI_Request) + (e->send_direct ? s->nsend + s->nrecv : 0);
    *m = (relay_exec_memory){extra, remote};
    return RELAY_OK;
}

relay_status relay_exec_hsumma_report(const relay_exec *e, relay_hsumma_report *r)
{
    if (!e || !r) return rl_fail(RELAY_ERR_ARG, "relay_exec_hsumma_report: NULL argument");
    if (!e->hsumma) return rl_fail(RELAY_ERR_ARG, "relay_exec_hsumma_report: the executor does not replay an HSUMMA plan");
    rl_hsumma_exec_report(e->hsumma, r);
    return RELAY_OK;
}

void relay_exec_free(relay_exec *e)
{
    if (!e) return;
    if (e->active) relay_exec_wait(e);
    int nreq = e->sec ? e->sec->nrecv + e->sec->nsend : 0;
    for (int k = 0; e->reqs && k < nreq; k++)
        if (e->reqs[k] != MPI_REQUEST_NULL) MPI_Request_free(&e->reqs[k]);
    if (e->a2a_req != MPI_REQUEST_NULL) MPI_Request_free(&e->a2a_req);
    rl_bmmc_exec_free(e->bmmc);
    rl_hsumma_exec_free(e->hsumma);
    if (e->comm != MPI_COMM_NULL) MPI_Comm_free(&e->comm);
    free(e->reqs);
    free(e->send_at);
    free(e->recv_at);
    free(e->send_direct);
    free(e->recv_direct);
    free(e->direct_reqs);
    free(e->a2a);
    free_message_set(&e->sends);
    free_message_set(&e->recvs);
    free(e->local_tasks);
    free(e->pairs);
    free(e->dst);
    free(e->src);
    rl_section_free(e->sec);
    free(e);
}
