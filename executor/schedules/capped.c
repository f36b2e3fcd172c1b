/* capped.c — the schedule of a plan with a memory cap (schedule.h;
 * relay_plan_options.max_buffer_bytes): rounds, each step's messages in
 * chunks of at most half the cap, through two slots of a buffer of the
 * cap's size on each side, so that a rank's staging memory is bounded
 * whatever the messages' sizes, and a chunk travels while the next one is
 * packed and the one before it unpacked.
 *
 * A chunk is a list of sub-lattices of the message's lattices: whole
 * lattices while they fit, else runs of piece rows, runs of pieces of one
 * row, or bands of a single piece's rows (or of one row's columns).  The
 * cut follows the lattices' shapes alone, which a message's two ends
 * share, so sender and receiver cut it alike (binding compares a
 * signature of the shapes, rl_capped_signature, transform_exec.c) and each
 * packs or unpacks a chunk as a message of its own (transform_pack.c),
 * chunk j in slot j % 2 of its side's buffer.
 *
 * A step moves the chunks of its send and of its receive in order, two of
 * each in flight: chunk j is packed once chunk j - 2, which used its slot,
 * has left, and its receive is posted once chunk j - 2 has been unpacked.
 * A rank waits only for peers at the same step and an earlier chunk,
 * which they reach (a peer past it would have needed this rank's part),
 * so the steps cannot deadlock.  A cap too small for two slots (under 128
 * bytes, or one element) leaves one: one chunk at a time each way.
 *
 * Where binding put a message through the shared-memory window (shm/:
 * both ends on one node, RELAY_SHM=on or a tuning's window choice, a cap
 * whose chunks reach 4 KiB), the receiver's buffer is its segment of the
 * window: the sender packs each chunk straight into the receiver's slot
 * once the receiver's "empty" says the slot is free, and its "full" stands
 * for the chunk's message.  The order of the steps and chunks is the same, a
 * sender still waits only for a receiver at the same step and an earlier
 * chunk, and the cap still bounds the staging. */
#include "agree.h"
#include "capped.h"
#include "error.h"
#include "mpi_error.h"
#include "transform_lower.h"
#include "transform_pack.h"
#include "transform_timing.h"
#include "transport.h"

/* Cutting a rank's messages into more chunks than this is refused: the
 * cap is too small for the matrix (each chunk costs a message per replay
 * and a few hundred bytes of lists, which would defeat the cap). */
enum { MOST_CHUNKS = 1 << 20 };

/* ---- cutting messages into chunks ------------------------------------------ */

/* Sub-lattices and chunks as they are cut; counted only while spans is NULL. */
typedef struct {
    rl_span *spans;
    rl_message *chunks;
    int64_t nspans, nchunks;
    int64_t cap;             /* elements */
    int64_t filled;          /* elements in the last chunk */
    int fresh;               /* the next sub-lattice starts a chunk (a new message) */
    int64_t peer;
} chunker;

/* Whether the count is past the limit: cutting stops (and is refused). */
static int full(const chunker *c) { return c->nchunks > MOST_CHUNKS; }

/* Sub-lattice s into the last chunk, or a new one where it would not fit. */
static void emit(chunker *c, const rl_span *s)
{
    int64_t elems = rl_span_elems(s);
    if (c->fresh || c->filled + elems > c->cap) {
        if (c->chunks) c->chunks[c->nchunks] = (rl_message){c->peer, c->nspans, 0, 0};
        c->nchunks++;
        c->filled = 0;
        c->fresh = 0;
    }
    if (c->chunks) {
        c->spans[c->nspans] = *s;
        c->chunks[c->nchunks - 1].count++;
        c->chunks[c->nchunks - 1].elems += elems;
    }
    c->filled += elems;
    c->nspans++;
}

/* The strides of a lattice's pieces on this side (transform_pack.c's
 * buffer_side): B's, transposed by the op, or A's. */
typedef struct {
    int64_t rs, cs;
} piece_strides;

/* Pieces [i0, i0 + ni) x [j0, j0 + nj) of sp and, of each, rows
 * [r0, r0 + nr) and columns [c0, c0 + nc). */
static rl_span sub_span(const rl_span *sp, piece_strides st, int64_t i0, int64_t ni, int64_t j0, int64_t nj, int64_t r0,
                        int64_t nr, int64_t c0, int64_t nc)
{
    rl_span s = *sp;
    s.off = sp->off + i0 * sp->step_r + j0 * sp->step_c + r0 * st.rs + c0 * st.cs;
    s.count_r = ni;
    s.count_c = nj;
    s.step_r = ni > 1 ? sp->step_r : 0;
    s.step_c = nj > 1 ? sp->step_c : 0;
    s.rows = nr;
    s.cols = nc;
    if (nr != sp->rows || nc != sp->cols) s.fused = 0; /* a part of a piece travels as itself */
    return s;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Piece (i, j) of sp, larger than the cap: bands of its rows, or of one
 * row's columns where a row alone is larger. */
static void cut_piece(chunker *c, const rl_span *sp, piece_strides st, int64_t i, int64_t j)
{
    if (sp->cols <= c->cap) {
        int64_t band = c->cap / sp->cols;
        for (int64_t r0 = 0; r0 < sp->rows && !full(c); r0 += band) {
            rl_span s = sub_span(sp, st, i, 1, j, 1, r0, min64(band, sp->rows - r0), 0, sp->cols);
            emit(c, &s);
        }
        return;
    }
    for (int64_t r = 0; r < sp->rows && !full(c); r++)
        for (int64_t c0 = 0; c0 < sp->cols; c0 += c->cap) {
            rl_span s = sub_span(sp, st, i, 1, j, 1, r, 1, c0, min64(c->cap, sp->cols - c0));
            emit(c, &s);
        }
}

/* A lattice in the largest parts that fit the cap. */
static void cut_lattice(chunker *c, const rl_span *sp, piece_strides st)
{
    int64_t piece = sp->rows * sp->cols, row = piece * sp->count_c;
    if (row * sp->count_r <= c->cap) {
        emit(c, sp);
    } else if (row <= c->cap) {
        for (int64_t i0 = 0, k = c->cap / row; i0 < sp->count_r && !full(c); i0 += k) {
            rl_span s = sub_span(sp, st, i0, min64(k, sp->count_r - i0), 0, sp->count_c, 0, sp->rows, 0, sp->cols);
            emit(c, &s);
        }
    } else if (piece <= c->cap) {
        for (int64_t i = 0, k = c->cap / piece; i < sp->count_r && !full(c); i++)
            for (int64_t j0 = 0; j0 < sp->count_c && !full(c); j0 += k) {
                rl_span s = sub_span(sp, st, i, 1, j0, min64(k, sp->count_c - j0), 0, sp->rows, 0, sp->cols);
                emit(c, &s);
            }
    } else {
        for (int64_t i = 0; i < sp->count_r && !full(c); i++)
            for (int64_t j = 0; j < sp->count_c && !full(c); j++) cut_piece(c, sp, st, i, j);
    }
}

static piece_strides strides_of(const rl_span *sp, const rl_pair_info *pi, int sending)
{
    piece_strides st;
    if (sending) rl_strides(pi->src_order, sp->ld, rl_op_transposes(pi->op), &st.rs, &st.cs);
    else rl_strides(pi->dst_order, sp->ld, 0, &st.rs, &st.cs);
    return st;
}

/* Every message of a side, chunk by chunk; first[k] becomes message k's
 * first chunk (first[nmsg] the count) where c->spans is set. */
static void cut_messages(chunker *c, const rl_message *msg, int nmsg, const rl_span *spans, const rl_pair_info *pairs,
                         int sending, int64_t *first)
{
    for (int k = 0; k < nmsg && !full(c); k++) {
        if (first) first[k] = c->nchunks;
        c->fresh = 1;
        c->peer = msg[k].peer;
        for (int64_t i = msg[k].first; i < msg[k].first + msg[k].count; i++)
            cut_lattice(c, &spans[i], strides_of(&spans[i], &pairs[spans[i].pair], sending));
    }
    if (first) first[nmsg] = c->nchunks;
}

/* One side's chunks as a message set (one direction of it) whose
 * messages share one buffer, and their walks; the boxes, once walked, are
 * not kept. */
static relay_status build_side(rl_transform_exec *x, rl_capped_side *side, const rl_message *msg, int nmsg, const rl_span *spans,
                               int sending)
{
    chunker c = {.cap = x->capped.cap / (int64_t)x->esz / x->capped.slots};
    cut_messages(&c, msg, nmsg, spans, x->pairs, sending, NULL);
    if (full(&c))
        return rl_fail(RELAY_ERR_ARG, "the memory cap of %lld bytes cuts rank %d's %s into more than %d chunks: raise "
                                      "max_buffer_bytes",
                       (long long)x->capped.cap, x->rank, sending ? "sends" : "receives", MOST_CHUNKS);
    side->first = rl_malloc_array((size_t)nmsg + 1, sizeof *side->first);
    c.spans = rl_malloc_array((size_t)c.nspans, sizeof *c.spans);
    c.chunks = rl_malloc_array((size_t)c.nchunks, sizeof *c.chunks);
    relay_status st = side->first && c.spans && c.chunks ? RELAY_OK : RL_NOMEM();
    if (!st) {
        c.nspans = c.nchunks = c.filled = 0;
        cut_messages(&c, msg, nmsg, spans, x->pairs, sending, side->first);
        st = rl_transform_lower_chunks(&side->set, c.chunks, (int)c.nchunks, c.spans, x->pairs, sending, x->esz);
    }
    side->chunks = sending ? &side->set.send : &side->set.recv;
    if (!st) st = rl_walk_set_build(&side->walks, &side->set, side->chunks, sending);
    if (!st) st = rl_msgset_layout(&side->set);
    if (!st) rl_msg_side_slots(side->chunks, side->first, nmsg, x->capped.slots);
    rl_msgset_forget_boxes(&side->set);
    free(c.spans);
    free(c.chunks);
    return st;
}

relay_status rl_capped_prepare(rl_transform_exec *x, int64_t cap)
{
    const rl_section *s = x->sec;
    x->capped.cap = cap;
    /* Two slots of half the cap each, where they fit in the buffer the cap allows. */
    int64_t half = cap / (int64_t)x->esz / 2 * (int64_t)x->esz;
    x->capped.slots = half && 2 * rl_padded_bytes(half) <= rl_padded_bytes(cap) ? 2 : 1;
    relay_status st = build_side(x, &x->capped.sends, s->send, s->nsend, s->send_spans, 1);
    return st ? st : build_side(x, &x->capped.recvs, s->recv, s->nrecv, s->recv_spans, 0);
}

int64_t rl_capped_chunks(const rl_capped_side *side, int k) { return side->first[k + 1] - side->first[k]; }

/* The shapes of message m's lattices (and its chunk count), mixed: equal
 * at both ends exactly when they cut the message alike, for the cut
 * follows the shapes alone (a plan read from bytes could give its two
 * ends different shapes that pack to the same order uncapped). */
int64_t rl_capped_signature(const rl_capped_side *side, int k, const rl_message *m, const rl_span *spans)
{
    uint64_t h = (uint64_t)rl_capped_chunks(side, k);
    for (int64_t i = m->first; i < m->first + m->count; i++) {
        const rl_span *sp = &spans[i];
        int64_t shape[] = {sp->rows, sp->cols, sp->count_r, sp->count_c, sp->fused};
        for (int f = 0; f < 5; f++) {
            h = (h ^ (uint64_t)shape[f]) * 0x100000001b3u; /* FNV-1a's prime */
            h ^= h >> 29;
        }
    }
    return (int64_t)(h >> 1); /* any value compares; kept non-negative */
}

/* ---- a replay ------------------------------------------------------------------- */

/* The receives of a step: per slot, the chunk's request and, where its
 * transport tells the sender (the window's "empty"), the notice that frees
 * the slot. */
typedef struct {
    MPI_Request chunk[2], empty[2];
} step_receives;

/* Chunk j of receive message q expected in its slot. */
static int expect_chunk(rl_transform_exec *x, int q, int64_t j, step_receives *in)
{
    int slot = (int)(j % x->capped.slots);
    return x->recv_via[q]->chunk_expect(x, q, x->capped.recvs.first[q] + j, slot, &in->chunk[slot], &in->empty[slot]);
}

/* Chunk j of send message s, into its slot once the chunk before it there
 * (whose request is *req) has left, and on its way. */
static int send_chunk(rl_transform_exec *x, int s, int64_t j, MPI_Request *req)
{
    const rl_transport *via = x->send_via[s];
    double t0 = rl_clock(x);
    int rc = rl_deadline_wait(&x->deadline, req);
    if (rc == MPI_SUCCESS && via->chunk_wait_free) rc = via->chunk_wait_free(x, s);
    rl_time_since(x, RL_WAIT, rl_row_completion(x), t0);
    if (rc != MPI_SUCCESS) return rc;
    t0 = rl_clock(x);
    rc = via->chunk_send(x, s, x->capped.sends.first[s] + j, (int)(j % x->capped.slots), req);
    rl_time_since(x, RL_PACK, rl_row_send(x, s), t0);
    return rc;
}

/* Chunk j of receive message q (of nq chunks) from its slot into A, and
 * the slot's next chunk expected. */
static int receive_chunk(rl_transform_exec *x, int q, int64_t j, int64_t nq, step_receives *in)
{
    double t0 = rl_clock(x);
    int rc = rl_deadline_wait(&x->deadline, &in->chunk[j % x->capped.slots]);
    rl_time_since(x, RL_WAIT, rl_row_recv(x, q), t0);
    if (rc != MPI_SUCCESS) return rc;
    t0 = rl_clock(x);
    rc = x->recv_via[q]->chunk_take(x, q, x->capped.recvs.first[q] + j);
    rl_time_since(x, RL_UNPACK, rl_row_recv(x, q), t0);
    return rc == MPI_SUCCESS && j + x->capped.slots < nq ? expect_chunk(x, q, j + x->capped.slots, in) : rc;
}

/* A step whose replay passed its deadline: its requests cancelled where
 * MPI can (the chunk buffers, which MPI may still use, outlive the
 * executor: rl_transform_abandon). */
static void abandon_step(MPI_Request *sends, step_receives *in)
{
    for (int j = 0; j < 2; j++) {
        rl_deadline_abandon(&sends[j]);
        rl_deadline_abandon(&in->chunk[j]);
        rl_deadline_abandon(&in->empty[j]);
    }
}

/* Step r: the chunks of its send (message s) and of its receive (message
 * q) in order, chunk j in slot j % slots each way. */
static int capped_step(rl_transform_exec *x, int32_t r)
{
    const rl_capped *c = &x->capped;
    int s = x->send_at[r], q = x->recv_at[r], rc = MPI_SUCCESS;
    int64_t ns = s < 0 ? 0 : rl_capped_chunks(&c->sends, s), nq = q < 0 ? 0 : rl_capped_chunks(&c->recvs, q);
    MPI_Request sends[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    step_receives in = {{MPI_REQUEST_NULL, MPI_REQUEST_NULL}, {MPI_REQUEST_NULL, MPI_REQUEST_NULL}};
    for (int64_t j = 0; j < c->slots && j < nq && rc == MPI_SUCCESS; j++) rc = expect_chunk(x, q, j, &in);
    for (int64_t j = 0; (j < ns || j < nq) && rc == MPI_SUCCESS; j++) {
        if (j < ns) rc = send_chunk(x, s, j, &sends[j % c->slots]);
        if (rc == MPI_SUCCESS && j < nq) rc = receive_chunk(x, q, j, nq, &in);
    }
    double t0 = rl_clock(x);
    if (rc == MPI_SUCCESS) rc = rl_deadline_waitall(&x->deadline, 2, sends);
    if (rc == MPI_SUCCESS) rc = rl_deadline_waitall(&x->deadline, 2, in.empty); /* zero bytes, matched: long gone */
    if (x->deadline.expired) abandon_step(sends, &in);
    rl_time_since(x, RL_WAIT, rl_row_completion(x), t0);
    return rc;
}

/* Everything happens step by step in the wait: the start has nothing to start. */
static int start(rl_transform_exec *x)
{
    (void)x;
    return MPI_SUCCESS;
}

static int wait(rl_transform_exec *x)
{
    int rc = MPI_SUCCESS;
    for (int32_t r = 0; r < x->rounds && rc == MPI_SUCCESS; r++) {
        if (r == x->sec->local_round) rl_transform_move_locals_timed(x);
        rc = capped_step(x, r);
    }
    return rc;
}

/* The chunks post requests of their own as they go; binding agrees on
 * the chunks' buffers, then the transports that move chunks on how each
 * message's chunks travel (the window's agreement is collective). */
static relay_status bind(rl_transform_exec *x, relay_status local)
{
    relay_status st = rl_agree(x->comm, local, "allocating the chunks' buffers");
    return st ? st : rl_transports_agree(x);
}

const rl_schedule rl_schedule_capped = {
    .name = "rounds under a memory cap",
    .id = RELAY_SCHED_ROUNDS,
    .capped = 1,
    .bind = bind,
    .start = start,
    .wait = wait,
};

/* ---- memory ----------------------------------------------------- */

/* A side's buffer: as large as its slots while the side holds it, or, for
 * a replay not bound, will hold it; none once binding dropped it or made
 * it the window's segment (which rl_shm_bytes counts). */
static int64_t buffer_bytes(const rl_transform_exec *x, const rl_capped_side *side)
{
    const rl_msg_side *chunks = side->chunks;
    return x->bound && (!chunks->buf || chunks->buf == x->shm.area) ? 0 : rl_msg_side_bytes(chunks);
}

/* A side's buffer and lists: tasks, walks (one per sub-lattice), chunks
 * with their first tasks and offsets, and each message's first chunk. */
static int64_t side_bytes(const rl_transform_exec *x, const rl_capped_side *side, int nmsg)
{
    if (!side->chunks) return 0;
    const rl_msg_side *c = side->chunks;
    int64_t walks = c->n ? c->msg[c->n - 1].first + c->msg[c->n - 1].count : 0;
    return buffer_bytes(x, side) + rl_msgset_bytes(&side->set) + side->walks.ntasks * (int64_t)sizeof(rl_task) +
           walks * (int64_t)sizeof(rl_walk) + c->n * (int64_t)sizeof(int64_t) + ((int64_t)nmsg + 1) * (int64_t)sizeof(int64_t);
}

int64_t rl_capped_bytes(const rl_transform_exec *x)
{
    return side_bytes(x, &x->capped.sends, x->sec->nsend) + side_bytes(x, &x->capped.recvs, x->sec->nrecv);
}

void rl_capped_free(rl_capped *c)
{
    rl_msgset_free(&c->sends.set);
    rl_msgset_free(&c->recvs.set);
    rl_walk_set_free(&c->sends.walks);
    rl_walk_set_free(&c->recvs.walks);
    free(c->sends.first);
    free(c->recvs.first);
}
