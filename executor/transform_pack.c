/* transform_pack.c — moving a transform's elements inside one rank: from
 * B into the pack buffers of the messages it sends, from the buffers of the
 * messages it receives into A (applying alpha, beta and the pair's op), and
 * the local pieces straight from B to A.
 *
 * A packed message holds its pieces one after the other, each in B's own
 * element order, stored tightly; sender and receiver agree on the order of
 * the pieces (plan_internal.h), so nothing but the elements travels.
 * Large pieces are cut into column chunks, tasks, so that OpenMP threads
 * share them. */
#include <limits.h>

#include "error.h"
#include "transform_pack.h"

enum {
    CHUNK_ELEMS = 1 << 15,      /* a task moves at most about this many elements */
    PARALLEL_ELEMS = 1 << 16,   /* fewer elements than this are not worth a thread team */
    ALIGN = 64
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

static int64_t append_tasks(rl_task *t, int64_t piece, int64_t rows, int64_t cols, int64_t pos)
{
    int64_t per = chunk_cols(rows, cols), n = 0;
    for (int64_t c0 = 0; c0 < cols; c0 += per) t[n++] = (rl_task){piece, c0, c0 + per < cols ? c0 + per : cols, pos};
    return n;
}

relay_status rl_transform_local_tasks(rl_transform_exec *x)
{
    const rl_section *s = x->sec;
    int64_t n = 0;
    for (int64_t i = 0; i < s->nlocal; i++) n += count_tasks(s->local[i].rows, s->local[i].cols);
    x->local_tasks = rl_malloc_array((size_t)n, sizeof *x->local_tasks);
    if (!x->local_tasks) return RL_NOMEM();
    x->nlocal_tasks = 0;
    for (int64_t i = 0; i < s->nlocal; i++)
        x->nlocal_tasks += append_tasks(x->local_tasks + x->nlocal_tasks, i, s->local[i].rows, s->local[i].cols, 0);
    return RELAY_OK;
}

/* ---- message sets: the tasks and pack buffer of all sends (or receives) -- */

int64_t rl_padded_bytes(int64_t bytes)
{
    int64_t unit = bytes > INT_MAX ? WIRE_UNIT : ALIGN;
    return (bytes + unit - 1) / unit * unit;
}

relay_status rl_message_set_build(rl_message_set *ms, const rl_message *msg, int nmsg, const rl_piece *pieces, size_t esz)
{
    int64_t ntasks = 0, bytes = 0;
    for (int k = 0; k < nmsg; k++) {
        for (int64_t i = msg[k].first; i < msg[k].first + msg[k].count; i++) ntasks += count_tasks(pieces[i].rows, pieces[i].cols);
        int64_t b;
        if (rl_mul_overflows(msg[k].elems, (int64_t)esz, &b) || rl_add_overflows(bytes, rl_padded_bytes(b), &bytes))
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
        ms->byte_off[k + 1] = ms->byte_off[k] + rl_padded_bytes(msg[k].elems * (int64_t)esz);
    }
    ms->first[nmsg] = ms->ntasks;
    return RELAY_OK;
}

/* Any address will do where a side has nothing to exchange, but not NULL. */
static char nothing;

void *rl_message_set_buf(const rl_message_set *ms) { return ms->buf ? ms->buf : &nothing; }

void rl_message_set_free(rl_message_set *ms)
{
    free(ms->tasks);
    free(ms->first);
    free(ms->byte_off);
    free(ms->buf);
}

/* ---- one task's memory move ------------------------------------------ */

/* A side's view starting at A-column c0 of a piece stored at off/ld. */
static rl_side side_at(void *base, int64_t off, int64_t ld, relay_order order, int transposed, int64_t c0, size_t esz)
{
    int64_t r = transposed ? c0 : 0, c = transposed ? 0 : c0;
    rl_side s = {rl_elem_at(base, off + rl_elem_offset(order, ld, r, c), esz), ld, order, transposed};
    return s;
}

/* The packed form of a piece: B's own element order, stored tightly. */
static int64_t packed_ld(const rl_pair_info *pi, int64_t rows, int64_t cols)
{
    int t = rl_op_transposes(pi->op);
    int64_t brows = t ? cols : rows, bcols = t ? rows : cols;
    return pi->src_order == RELAY_COL_MAJOR ? brows : bcols;
}

static void pack_task(const rl_transform_exec *x, const rl_task *t, char *msgbuf)
{
    const rl_piece *p = &x->sec->send_pieces[t->piece];
    const rl_pair_info *pi = &x->pairs[p->pair];
    int tr = rl_op_transposes(pi->op);
    rl_side from = side_at((void *)x->src[p->pair], p->off, p->ld, pi->src_order, tr, t->c0, x->esz);
    rl_side to = side_at(msgbuf, t->pos, packed_ld(pi, p->rows, p->cols), pi->src_order, tr, t->c0, x->esz);
    rl_copy(x->type, to, from, p->rows, t->c1 - t->c0);
}

static void unpack_task(const rl_transform_exec *x, const rl_task *t, char *msgbuf)
{
    const rl_piece *p = &x->sec->recv_pieces[t->piece];
    const rl_pair_info *pi = &x->pairs[p->pair];
    int tr = rl_op_transposes(pi->op);
    rl_side from = side_at(msgbuf, t->pos, packed_ld(pi, p->rows, p->cols), pi->src_order, tr, t->c0, x->esz);
    rl_side to = side_at(x->dst[p->pair], p->off, p->ld, pi->dst_order, 0, t->c0, x->esz);
    rl_move(&x->scalars, pi->op == RELAY_OP_C, to, from, p->rows, t->c1 - t->c0);
}

static void local_task(const rl_transform_exec *x, const rl_task *t)
{
    const rl_local_piece *p = &x->sec->local[t->piece];
    const rl_pair_info *pi = &x->pairs[p->pair];
    rl_side from = side_at((void *)x->src[p->pair], p->src_off, p->src_ld, pi->src_order, rl_op_transposes(pi->op), t->c0, x->esz);
    rl_side to = side_at(x->dst[p->pair], p->dst_off, p->dst_ld, pi->dst_order, 0, t->c0, x->esz);
    rl_move(&x->scalars, pi->op == RELAY_OP_C, to, from, p->rows, t->c1 - t->c0);
}

/* ---- whole messages, tasks shared among threads ------------------------ */

/* Packs (or unpacks) message k of a set. */
static void move_message(const rl_transform_exec *x, const rl_message_set *ms, int64_t elems, int k, int packing)
{
    char *buf = ms->buf + ms->byte_off[k];
#pragma omp parallel for schedule(dynamic, 1) if (elems >= PARALLEL_ELEMS)
    for (int64_t t = ms->first[k]; t < ms->first[k + 1]; t++) {
        if (packing) pack_task(x, &ms->tasks[t], buf);
        else unpack_task(x, &ms->tasks[t], buf);
    }
}

void rl_transform_pack(const rl_transform_exec *x, int k) { move_message(x, &x->sends, x->sec->send[k].elems, k, 1); }

void rl_transform_unpack(const rl_transform_exec *x, int k) { move_message(x, &x->recvs, x->sec->recv[k].elems, k, 0); }

void rl_transform_move_locals(const rl_transform_exec *x)
{
    int64_t elems = 0;
    for (int64_t i = 0; i < x->sec->nlocal; i++) elems += x->sec->local[i].rows * x->sec->local[i].cols;
#pragma omp parallel for schedule(dynamic, 1) if (elems >= PARALLEL_ELEMS)
    for (int64_t t = 0; t < x->nlocal_tasks; t++) local_task(x, &x->local_tasks[t]);
}
