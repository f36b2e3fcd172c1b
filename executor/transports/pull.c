/* pull.c — pulled messages (transport.h; opt-in: RELAY_PULL=on): under p2p,
 * a message between two ranks of one node whose lattices transpose is read
 * by its receiver straight from the sender's B (cross-memory attach,
 * cma.h), one tile at a time into a bounce buffer that stays in cache and
 * from there into A.  A staged message costs three passes over its
 * elements (pack, MPI's copy, the transposing unpack); a pulled one costs
 * one read of the remote elements and one move inside the cache.
 *
 * Binding agrees with the other end of each message in three exchanges:
 *   cards     each end says who it is (cma.h), how many lattices its side
 *             of the message lists and whether it is willing: RELAY_PULL
 *             on (or all), the sender readable, and (under on) the
 *             receiver's lattices transposing;
 *   lattices  where both are willing and one node's, with as many
 *             lattices each, the sender sends its lattices (its spans:
 *             where they lie in its B, which it validated as its own);
 *   verdict   the receiver checks that they have its lattices' shapes
 *             and fusing (so one packed form, the one binding checked),
 *             that every walk reads runs of at least PULL_MIN_RUN_BYTES
 *             from B (under all: any contiguous runs) and that it can read
 *             the sender (the cookie), and answers yes or no.
 * Each run read costs the kernel a lock and a page lookup: with the 1 KB
 * runs of a 1 x 2 transpose between 32 x 32 and 128 x 128 blocks, reading
 * took as long as packing and MPI's copy together, and reading whole
 * windows of B (twice the bytes in a few runs) no less; with runs of a
 * page and more (slabs, large blocks) a pulled replay is faster than the
 * staged one (docs/benchmarks.md).
 * A pulled message's staged request then carries the sender's B addresses
 * (one per pair of the plan, after the message's control word,
 * transform_control.h) instead of its elements, and an empty
 * message back says the receiver has read them all: the sender's wait
 * returns only after it, since B is its caller's again from then on.  The
 * read happens in the receiver's wait, not in MPI's progress, so a
 * sender's wait needs its receiver to reach its own: why it is opt-in.
 * Reads that fail during a replay (a peer's B unmapped under it) still
 * send that message, so that no rank waits forever, and fail the
 * receiver's wait with the reason. */
#include <limits.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "buffers.h"
#include "cma.h"
#include "error.h"
#include "exchange.h"
#include "mpi_error.h"
#include "pull.h"
#include "transform_control.h"
#include "transform_lower.h"
#include "transform_pack.h"
#include "transform_timing.h"
#include "transport.h"

enum {
    PULL_HEAD = RL_CONTROL_BYTES / 8, /* the control word, in the uint64 addresses' places ahead of them */
    PULL_MIN_RUN_BYTES = 4096,
    PULL_RUNS = 64           /* runs per read (a system call) */
};

relay_status rl_pull_mode_from_env(rl_pull_mode *mode)
{
    static const char *const values[] = {"off", "on", "all"}; /* as rl_pull_mode numbers them */
    int choice;
    relay_status st = rl_env_choice("RELAY_PULL", values, 3, &choice);
    *mode = (rl_pull_mode)choice;
    return st;
}

/* ---- binding: the three exchanges ------------------------------------ */

typedef struct {
    rl_cma_card cma;
    int64_t lattices, willing;
} pull_card;

/* Whether a lattice's move transposes: its op does, or the two element
 * orders differ, but not both. */
static int side_transposes(const rl_transform_exec *x, const rl_message *m, const rl_span *spans)
{
    for (int64_t i = m->first; i < m->first + m->count; i++) {
        const rl_pair_info *pi = &x->pairs[spans[i].pair];
        if (rl_op_transposes(pi->op) != (pi->src_order != pi->dst_order)) return 1;
    }
    return 0;
}

static int willing(const rl_transform_exec *x, int sending, int k, const rl_cma_card *me)
{
    const rl_section *s = x->sec;
    if (x->pull_mode == RL_PULL_OFF) return 0;
    if (sending) return me->readable && x->send_via[k] == &rl_transport_staged;
    return x->recv_via[k] == &rl_transport_staged && (x->pull_mode == RL_PULL_ALL || side_transposes(x, &s->recv[k], s->recv_spans));
}

/* Both ends decide alike from the two cards whether the lattices travel. */
static int candidate(const pull_card *a, const pull_card *b)
{
    return a->willing && b->willing && a->lattices == b->lattices && a->lattices > 0 &&
           a->lattices <= INT_MAX / (int64_t)sizeof(rl_span) && a->cma.node == b->cma.node;
}

/* Whether a walk reads B in runs along its columns (B contiguous across
 * V's columns), rather than along its rows. */
static int runs_across(const rl_walk *w) { return w->from.cs == 1 && (w->from.rs != 1 || w->cols >= w->rows); }

/* Elements per run a walk reads from B (0: B is contiguous along neither). */
static int64_t run_elems(const rl_walk *w) { return runs_across(w) ? w->cols : w->from.rs == 1 ? w->rows : 0; }

/* Whether the sender's lattice b, as this rank's walk will address it,
 * stays within int64: the sender validated it against its own B, but its
 * numbers arrive as bytes, and address arithmetic must not overflow. */
static int addressable(const rl_span *b)
{
    int64_t side = b->rows > b->cols ? b->rows : b->cols, t, last = b->off;
    if (b->off < 0 || b->step_r < 0 || b->step_c < 0 || b->ld < 0 || b->ld == INT64_MAX) return 0;
    return !rl_mul_overflows(b->count_r, b->step_r, &t) && !rl_add_overflows(last, t, &last) &&
           !rl_mul_overflows(b->count_c, b->step_c, &t) && !rl_add_overflows(last, t, &last) &&
           !rl_mul_overflows(side, b->ld + 1, &t) && !rl_add_overflows(last, t, &last);
}

/* The receiver's verdict on message k: the sender's lattices `theirs`
 * (its spans, in the order of this rank's) made into walks, B in the
 * sender, A here. */
static int can_pull(rl_transform_exec *x, int k, const rl_span *theirs, const rl_cma_card *me, const rl_cma_card *sender)
{
    const rl_message *m = &x->sec->recv[k];
    for (int64_t i = m->first; i < m->first + m->count; i++) {
        const rl_span *a = &x->sec->recv_spans[i], *b = &theirs[i];
        /* The pulled walk takes piece (i, j)'s element (r, c) to piece (i, j)'s
         * element (r, c): what binding's check vouched for, positions in the
         * packed form (transform_check.c), only where both ends' lattices
         * have one packed form: the same shape, fused alike. */
        if (b->pair != a->pair || b->rows != a->rows || b->cols != a->cols || b->count_r != a->count_r ||
            b->count_c != a->count_c || b->fused != a->fused || !addressable(b))
            return 0;
        rl_local_span l = {.pair = a->pair, .rows = a->rows, .cols = a->cols, .count_r = a->count_r, .count_c = a->count_c,
                           .src_off = b->off, .src_step_r = b->step_r, .src_step_c = b->step_c, .src_ld = b->ld,
                           .dst_off = a->off, .dst_step_r = a->step_r, .dst_step_c = a->step_c, .dst_ld = a->ld};
        x->pulls.walks[i] = rl_straight_walk(&l, &x->pairs[a->pair]);
        int64_t run = run_elems(&x->pulls.walks[i]) * (int64_t)x->esz;
        if (run == 0 || (x->pull_mode != RL_PULL_ALL && run < PULL_MIN_RUN_BYTES)) return 0;
    }
    return rl_cma_can_read(me, sender);
}


/* The three exchanges (see the top of this file): `pulled` holds, per
 * message, first whether it is a candidate, then the verdict; sets the
 * pulled flags and the walks of pulled receives. */
static relay_status agree(rl_transform_exec *x, pull_card *cards, rl_span *theirs, char *pulled, rl_swap *items)
{
    const rl_section *s = x->sec;
    int n = s->nsend + s->nrecv, offers = 0;
    pull_card *mine = cards, *other = cards + n;
    rl_cma_card me = {0};
    if (x->pull_mode != RL_PULL_OFF) rl_cma_card_make(&me);
    for (int k = 0; k < n; k++) {
        int sending = k < s->nsend;
        mine[k] = (pull_card){me, rl_msg_of(&x->set, k)->count, willing(x, sending, sending ? k : k - s->nsend, &me)};
        items[k] = (rl_swap){&mine[k], sizeof *mine, &other[k], sizeof *other};
    }
    relay_status st = rl_transform_swap(x, items, "exchanging the cards of pulled messages");
    for (int k = 0; !st && k < n; k++) {
        const rl_msg *m = rl_msg_of(&x->set, k);
        int bytes = (int)(m->count * (int64_t)sizeof(rl_span));
        pulled[k] = (char)candidate(&mine[k], &other[k]);
        offers += pulled[k] && k < s->nsend;
        items[k] = !pulled[k] ? (rl_swap){0} : k < s->nsend ? (rl_swap){s->send_spans + m->first, bytes, NULL, 0}
                                                            : (rl_swap){NULL, 0, theirs + m->first, bytes};
    }
    if (offers) rl_cma_let_read(); /* before the readers can try */
    if (!st) st = rl_transform_swap(x, items, "sending the lattices of pulled messages");
    for (int k = 0; !st && k < n; k++) {
        if (!pulled[k]) items[k] = (rl_swap){0};
        else if (k < s->nsend) items[k] = (rl_swap){NULL, 0, &pulled[k], 1};
        else {
            pulled[k] = (char)can_pull(x, k - s->nsend, theirs, &me, &other[k].cma);
            items[k] = (rl_swap){&pulled[k], 1, NULL, 0};
        }
    }
    if (!st) st = rl_transform_swap(x, items, "agreeing on pulled messages");
    for (int k = 0; !st && k < n; k++) {
        if (pulled[k] && k < s->nsend) x->send_via[k] = &rl_transport_pull;
        if (pulled[k] && k >= s->nsend) x->recv_via[k - s->nsend] = &rl_transport_pull;
        if (k >= s->nsend && pulled[k]) x->pull_pid[k - s->nsend] = other[k].cma.pid;
        x->npulled += pulled[k];
    }
    return st;
}

/* ---- binding: requests, tasks and bounce buffers ---------------------- */

/* A pulled message's staged request carries the addresses instead of the
 * elements ("read", the other way, is a notice: rl_notices_create). */
static int repost(rl_transform_exec *x)
{
    const rl_section *s = x->sec;
    int rc = MPI_SUCCESS, c = PULL_HEAD + x->count;
    for (int k = 0; k < s->nrecv && rc == MPI_SUCCESS; k++) {
        if (x->recv_via[k] != &rl_transport_pull) continue;
        rc = MPI_Request_free(&x->reqs[k]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Recv_init(x->pull_from + (size_t)k * c, c, MPI_UINT64_T, (int)s->recv[k].peer, TAG_STAGED, x->comm,
                               &x->reqs[k]);
    }
    for (int k = 0; k < s->nsend && rc == MPI_SUCCESS; k++) {
        if (x->send_via[k] != &rl_transport_pull) continue;
        int r = s->nrecv + k;
        rc = MPI_Request_free(&x->reqs[r]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Send_init(x->pull_mine + (size_t)k * c, c, MPI_UINT64_T, (int)s->send[k].peer, TAG_STAGED, x->comm,
                               &x->reqs[r]);
    }
    return rc;
}

/* The largest part of a band any task moves: what one thread's bounce
 * buffer holds. */
static int64_t largest_cut(const rl_walk_set *ms, size_t esz)
{
    int64_t most = 0;
    for (int64_t t = 0; t < ms->ntasks; t++) {
        int64_t cut = rl_task_cut_bound(&ms->walks[ms->tasks[t].walk], &ms->tasks[t], esz);
        most = cut > most ? cut : most;
    }
    return most;
}

/* The tasks of the pulled receives (the others have none) and the team's
 * bounce buffers. */
static relay_status build_pulls(rl_transform_exec *x)
{
    const rl_msg_side *recv = &x->set.recv;
    rl_msg *only = rl_malloc_array((size_t)recv->n, sizeof *only);
    if (!only) return RL_NOMEM();
    for (int k = 0; k < recv->n; k++) {
        only[k] = recv->msg[k];
        if (x->recv_via[k] != &rl_transport_pull) only[k].count = 0;
    }
    relay_status st = rl_walk_set_tasks(&x->pulls, only, recv->n, x->esz, RL_TILES_READ);
    free(only);
    if (st) return st;
    x->bounce_bytes = (largest_cut(&x->pulls, x->esz) * (int64_t)x->esz + 63) / 64 * 64;
    if (!x->bounce_bytes) return RELAY_OK;
    x->bounce = rl_buffer_alloc((size_t)x->bounce_bytes * (size_t)x->team);
    return x->bounce ? RELAY_OK : RL_NOMEM();
}

static relay_status allocate(rl_transform_exec *x)
{
    const rl_section *s = x->sec;
    x->pull_pid = rl_calloc((size_t)s->nrecv + 1, sizeof *x->pull_pid);
    x->pull_from = rl_calloc((size_t)s->nrecv * (size_t)(PULL_HEAD + x->count) + 1, sizeof *x->pull_from);
    x->pull_mine = rl_calloc((size_t)s->nsend * (size_t)(PULL_HEAD + x->count) + 1, sizeof *x->pull_mine);
    x->pulls.walks = rl_malloc_array((size_t)s->nrecv_spans + 1, sizeof *x->pulls.walks);
    if (!x->pull_pid || !x->pull_from || !x->pull_mine || !x->pulls.walks)
        return RL_NOMEM();
    return RELAY_OK;
}

/* Binding, after direct messages: with each peer, which of the messages
 * still staged are pulled; their requests replace the staged ones. */
static relay_status agree_pulls(rl_transform_exec *x)
{
    const rl_section *s = x->sec;
    size_t n = (size_t)s->nsend + (size_t)s->nrecv;
    relay_status st = allocate(x);
    if (st || !n) return st;
    pull_card *cards = rl_malloc_array(2 * n, sizeof *cards);
    rl_span *theirs = rl_malloc_array((size_t)s->nrecv_spans + 1, sizeof *theirs);
    char *pulled = rl_malloc_array(n, 1);
    rl_swap *items = rl_calloc(n, sizeof *items);
    st = cards && theirs && pulled && items ? agree(x, cards, theirs, pulled, items) : RL_NOMEM();
    free(cards);
    free(theirs);
    free(pulled);
    free(items);
    int rc = st ? MPI_SUCCESS : repost(x);
    if (!st && rc != MPI_SUCCESS) st = rl_mpi_fail(rc, "creating the requests of pulled messages");
    if (!st) st = rl_notices_create(x, &x->pull_done, &rl_transport_pull, TAG_PULL_DONE);
    return st ? st : build_pulls(x);
}

/* ---- a replay ------------------------------------------------------ */

/* The sender of pulled message k offers its B: it starts the receive of
 * "read" and sends the addresses. */
static int offer(rl_transform_exec *x, int k)
{
    double t0 = rl_clock(x);
    uint64_t *mine = x->pull_mine + (size_t)k * (size_t)(PULL_HEAD + x->count);
    rl_control_put(x, mine);
    for (int p = 0; p < x->count; p++) mine[PULL_HEAD + p] = (uint64_t)(uintptr_t)x->src[p];
    int rc = MPI_Start(&x->pull_done.req[x->sec->nrecv + k]);
    if (rc == MPI_SUCCESS) rc = MPI_Start(&x->reqs[x->sec->nrecv + k]);
    rl_time_since(x, RL_PACK, rl_row_send(x, k), t0);
    return rc;
}

/* The receiver's request of the addresses. */
static int expect(rl_transform_exec *x, int k) { return MPI_Start(&x->reqs[k]); }

/* Reads the part q of band (i, j) of walk w from the sender's B at `from`
 * into the bounce buffer, run by run; returns 0 or an errno. */
static int read_cut(const rl_transform_exec *x, int64_t pid, const rl_walk *w, uint64_t from, int64_t i, int64_t j,
                    rl_band_cut q, char *bounce)
{
    int across = runs_across(w);
    int64_t runs = across ? q.r1 - q.r0 : q.c1 - q.c0, len = (across ? q.c1 - q.c0 : q.r1 - q.r0) * (int64_t)x->esz;
    uint64_t at = from + (uint64_t)rl_band_offset(&w->from, i, j, q.r0, q.c0) * x->esz;
    uint64_t step = (uint64_t)(across ? w->from.rs : w->from.cs) * x->esz;
    rl_cma_run batch[PULL_RUNS];
    for (int64_t r = 0; r < runs; r += PULL_RUNS) {
        int n = runs - r < PULL_RUNS ? (int)(runs - r) : PULL_RUNS;
        for (int b = 0; b < n; b++) batch[b] = (rl_cma_run){at + (uint64_t)(r + b) * step, (size_t)len};
        int err = rl_cma_read(pid, bounce + r * len, (size_t)(n * len), batch, n);
        if (err) return err;
    }
    return 0;
}

/* Moves the part q of band (i, j) of walk w from src, where it was read,
 * into A (transposed, scaled). */
static void move_cut(const rl_transform_exec *x, const rl_walk *w, char *a, int64_t i, int64_t j, rl_band_cut q, rl_side src)
{
    rl_side to = {rl_elem_at(a, rl_band_offset(&w->to, i, j, q.r0, q.c0), x->esz), w->to.rs, w->to.cs};
    rl_move(&x->scalars, x->pairs[w->pair].op == RELAY_OP_C, to, src, q.r1 - q.r0, q.c1 - q.c0);
}

/* Task t of pulled message k: each band's part read into the bounce
 * buffer, run by run, then moved into A. */
static int pull_task(const rl_transform_exec *x, int k, const rl_task *t, char *bounce)
{
    const rl_walk *w = &x->pulls.walks[t->walk];
    uint64_t from = x->pull_from[(size_t)k * (size_t)(PULL_HEAD + x->count) + PULL_HEAD + (size_t)w->pair];
    char *a = x->dst[w->pair];
    int across = runs_across(w);
    for (int64_t j = t->j0; j < t->j1; j++)
        for (int64_t i = t->i0; i < t->i1; i++) {
            rl_band_cut q = rl_task_band(w, t, (uintptr_t)from, (uintptr_t)a, i, j, x->esz);
            int64_t rows = q.r1 - q.r0, cols = q.c1 - q.c0;
            int err = read_cut(x, x->pull_pid[k], w, from, i, j, q, bounce);
            if (err) return err;
            move_cut(x, w, a, i, j, q, (rl_side){bounce, across ? cols : 1, across ? 1 : rows});
        }
    return 0;
}

/* The receiver of pulled message k, its addresses landed: reads and moves
 * every tile into A, then tells the sender (a failed read is recorded for
 * the report). */
static int pull(rl_transform_exec *x, int k)
{
    const rl_walk_set *ms = &x->pulls;
    int failed = 0;
    rl_control_take(x, k, x->pull_from + (size_t)k * (size_t)(PULL_HEAD + x->count));
#pragma omp parallel for schedule(dynamic, 1) num_threads(rl_threads_for(x, x->sec->recv[k].elems)) reduction(max : failed)
    for (int64_t t = ms->first[k]; t < ms->first[k + 1]; t++) {
        int err = pull_task(x, k, &ms->tasks[t], x->bounce + (size_t)omp_get_thread_num() * (size_t)x->bounce_bytes);
        failed = err > failed ? err : failed;
    }
    if (failed && !x->pull_errno) {
        x->pull_errno = failed;
        x->pull_errno_peer = (int)x->sec->recv[k].peer;
    }
    return rl_notice_send(&x->pull_done, k); /* even after a failed read: the sender waits for it */
}

/* The wait's end: this replay's "read" messages, both ways.  Where the
 * replay failed before it read everything, it first says "read" for the
 * messages it did not read, so that their senders do not wait forever
 * (and its reads' failures are the failure's, not reported). */
static int finish(rl_transform_exec *x, int rc)
{
    if (!x->npulled) return rc;
    double t0 = rl_clock(x);
    int done = rl_notices_send_rest(x, &x->pull_done);
    if (done == MPI_SUCCESS) done = rl_deadline_waitall(&x->deadline, x->sec->nrecv + x->sec->nsend, x->pull_done.req);
    rl_time_since(x, RL_WAIT, rl_row_completion(x), t0);
    if (rc != MPI_SUCCESS) x->pull_errno = 0;
    return rc == MPI_SUCCESS ? done : rc;
}

/* A read that failed becomes the replay's error. */
static relay_status report(rl_transform_exec *x)
{
    int err = x->pull_errno;
    x->pull_errno = 0;
    if (err)
        return rl_fail(RELAY_ERR_MPI, "rank %d could not read rank %d's B with process_vm_readv (%s); RELAY_PULL=off moves "
                       "it through MPI instead", x->rank, x->pull_errno_peer, strerror(err));
    return RELAY_OK;
}

int64_t rl_transform_pulls_bytes(const rl_transform_exec *x)
{
    const rl_section *s = x->sec;
    if (!x->pull_pid) return 0;
    int64_t per_recv = (int64_t)sizeof *x->pull_pid + (PULL_HEAD + x->count) * (int64_t)sizeof *x->pull_from;
    int64_t per_send = (PULL_HEAD + x->count) * (int64_t)sizeof *x->pull_mine;
    return rl_notices_bytes(x, &x->pull_done) + x->bounce_bytes * x->team + x->pulls.ntasks * (int64_t)sizeof(rl_task) + s->nrecv_spans * (int64_t)sizeof(rl_walk) +
           s->nrecv * per_recv + s->nsend * per_send;
}

void rl_transform_pulls_free(rl_transform_exec *x)
{
    rl_notices_free(x, &x->pull_done);
    free(x->pull_pid);
    free(x->pull_from);
    free(x->pull_mine);
    free(x->bounce);
    rl_walk_set_free(&x->pulls);
}

const rl_transport rl_transport_pull = {
    .name = "pull",
    .stages_sends = 0,
    .stages_receives = 0,
    .agree = agree_pulls,
    .receive = expect,
    .send = offer,
    .take = pull,
    .finish = finish,
    .report = report,
};
