/* transform_pack.c — moving a transform's elements inside one rank: from
 * B into the pack buffers of the messages it sends, from the buffers of the
 * messages it receives into A (applying alpha, beta and the pair's op), and
 * the local lattices straight from B to A.
 *
 * At bind each box of the message set the section lowers to
 * (transform_lower.c: a lattice, count_r x count_c pieces of rows x cols,
 * between the user's buffer and its place in the packed message) becomes a
 * walk (transform.h):
 * along each dimension whose pieces touch on both sides of the move (as
 * in a pack buffer they always do) the pieces merge into one band, so a
 * lattice moves as one strided rectangle, one per piece column or row, or
 * piece by piece only where its pieces are scattered on both dimensions
 * (PETSc's sfpack detects such patterns the same way).  Walks are cut into
 * tasks, tiles of V (the lattice's pieces side by side, as in A) of about
 * CHUNK_ELEMS elements (several small bands, or a part of a large one), so
 * that OpenMP threads share them:
 * their number follows the lattices and elements, never the pieces. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "buffers.h"
#include "error.h"
#include "transform_pack.h"

enum {
    CHUNK_ELEMS = 1 << 15,      /* a task moves about this many elements, */
    MIN_TASK_ELEMS = 1 << 10,   /* ... and, cut to follow A's columns, at least this many */
    TILE_SIDE = 176,            /* ... in a transpose, a tile about this many on a side (whole lines of any type) */
    READ_CHUNK_ELEMS = 1 << 16, /* a task reading another process's B reads about this many, */
    READ_RUN_ELEMS = 4096,      /* ... in runs of at most this many */
    PARALLEL_ELEMS = 1 << 16,   /* fewer elements than this are not worth a thread team */
    SHORT_RUN_BYTES = 256,      /* columns this short move across bands (move_bands), */
    NEAR_BAND_BYTES = 4096,     /* ... where the source's bands are this near */
    ALIGN = 64
};

/* ---- walks: lattices as bands ---------------------------------------- */

/* Pieces of len elements touch along a dimension (pieces `step` apart,
 * their elements `stride` apart) when each starts where the one before
 * ends (one element long, they touch at any step). */
static int touches(int64_t len, int64_t step, int64_t stride) { return len == 1 || step == len * stride; }

/* Along a dimension where the pieces touch on both sides, count pieces of
 * len elements become one band of count * len, whose elements are the
 * pieces' strides apart (the pieces' steps when they are single elements). */
static void merge_axis(int64_t *len, int64_t *count, int64_t *a_step, int64_t *a_stride, int64_t *b_step, int64_t *b_stride)
{
    if (*count == 1 || !touches(*len, *a_step, *a_stride) || !touches(*len, *b_step, *b_stride)) return;
    if (*len == 1) {
        *a_stride = *a_step;
        *b_stride = *b_step;
    }
    *a_step = *b_step = 0;
    *len *= *count;
    *count = 1;
}

rl_walk rl_walk_of(int64_t pair, int64_t rows, int64_t cols, int64_t count_r, int64_t count_c, rl_walk_side from,
                   rl_walk_side to)
{
    merge_axis(&rows, &count_r, &from.step_r, &from.rs, &to.step_r, &to.rs);
    merge_axis(&cols, &count_c, &from.step_c, &from.cs, &to.step_c, &to.cs);
    return (rl_walk){pair, rows, cols, count_r, count_c, from, to, RL_LINES_NONE, RL_LINES_NONE};
}

/* The walk of box b: a lattice (transform_lower.c), its columns' runs
 * outside its rows'. */
static rl_walk walk_of_box(const rl_msgset *set, const rl_box *b)
{
    const rl_box_dim *c = rl_box_dim_of(set, b, 0), *r = rl_box_dim_of(set, b, 1);
    const rl_runs *cr = rl_dim_runs(set, c), *rr = rl_dim_runs(set, r);
    rl_walk_side from = {cr->from + rr->from, rr->from_step, cr->from_step, r->from_stride, c->from_stride};
    rl_walk_side to = {cr->to + rr->to, rr->to_step, cr->to_step, r->to_stride, c->to_stride};
    return rl_walk_of(b->pair, rr->len, cr->len, rr->count, cr->count, from, to);
}

/* ---- tasks: walks cut into tiles of about CHUNK_ELEMS elements -------- */

/* One dimension of a tile: `group` bands at a time, or (group 1) `part`
 * elements of one band at a time. */
typedef struct {
    int64_t group, part;
} cut;

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Elements of a cache line (at least 1). */
static int64_t line_elems(size_t esz) { return ALIGN / (int64_t)esz > 1 ? ALIGN / (int64_t)esz : 1; }

/* Cuts count bands of len elements into stretches of about `target`;
 * where bands are split, in whole cache lines of `line` elements. */
static cut cut_axis(int64_t len, int64_t count, int64_t target, int64_t line)
{
    if (len > target) return (cut){1, target >= 2 * line ? target / line * line : target};
    int64_t group = target / len;
    return (cut){min64(group, count), len};
}

/* Whether a side of a walk is contiguous along A's rows (its smaller
 * stride), rather than its columns. */
static int down_rows(const rl_walk_side *s) { return s->rs <= s->cs; }

/* Whose cache lines the cuts of a dimension follow, given each side's
 * stride along it: A's where A is contiguous along it (tiles that split a
 * line of A make two threads write it), else B's or the pack buffer's (the
 * kernel then reads whole lines); none where bands are not split there,
 * or not in whole lines. */
static rl_lines lines_of(cut k, int64_t len, int64_t line, int64_t stride_from, int64_t stride_to)
{
    if (k.part >= len || k.part % line) return RL_LINES_NONE;
    return stride_to == 1 ? RL_LINES_TO : stride_from == 1 ? RL_LINES_FROM : RL_LINES_NONE;
}

/* Whether walk w's bands have short columns near one another: both sides
 * contiguous down the columns, columns of at most SHORT_RUN_BYTES, several
 * bands down, at most NEAR_BAND_BYTES apart on both sides (pieces one after
 * another in a pack buffer, every other piece down A's columns: going
 * across them stays within a page or two).  Such a walk moves a column of
 * its bands at a time (move_columns_across_bands), and its tasks are one
 * band column wide, so that a message's tasks can follow A (or B) column
 * after column across its lattices (sort_tasks_by_place). */
static int short_near_columns(const rl_walk *w, size_t esz)
{
    int64_t b = (int64_t)esz;
    return w->from.rs == 1 && w->to.rs == 1 && w->count_r > 1 && w->rows * b <= SHORT_RUN_BYTES &&
           llabs(w->from.step_r) * b <= NEAR_BAND_BYTES && llabs(w->to.step_r) * b <= NEAR_BAND_BYTES;
}

/* A walk of short, near columns (and its `phases` interleaved walks):
 * tasks of whole bands down, about one band column wide (of at least
 * MIN_TASK_ELEMS, at most CHUNK_ELEMS elements over all the phases). */
static void stacked_cuts(rl_walk *w, int64_t phases, cut *r, cut *c)
{
    int64_t band = w->rows * phases, down = min64(w->count_r, max64(1, CHUNK_ELEMS / band)), height = down * band;
    int64_t part = min64(w->cols, max64(1, CHUNK_ELEMS / height));
    *r = (cut){down, w->rows};
    *c = part < w->cols ? (cut){1, part} : (cut){min64(w->count_c, max64(1, MIN_TASK_ELEMS / (height * w->cols))), w->cols};
    w->lines_r = w->lines_c = RL_LINES_NONE;
}

/* How walk w is cut into tiles of V, each about CHUNK_ELEMS elements,
 * and whose lines the cuts follow (w->lines_r, w->lines_c).
 * When both sides run along the same dimension (a copy of runs), tiles
 * take that dimension whole, up to CHUNK_ELEMS, so that runs stay whole
 * for memcpy; when they run along different ones (a transpose), tiles are
 * square-ish, about TILE_SIDE on a side, so that both sides stay within a
 * few pages.  Along a dimension shorter than the tile, the other grows to
 * keep CHUNK_ELEMS.  Tiles read from another process (RL_TILES_READ) take
 * B's runs whole, up to READ_RUN_ELEMS, and hold about READ_CHUNK_ELEMS:
 * each run read costs the kernel a page lookup, and the bounce buffer
 * they land in stays in cache for the move into A.  `phases` > 1 only for
 * short near columns (walk_phases). */
static void walk_cuts(rl_walk *w, int64_t phases, size_t esz, rl_tiles tiles, cut *r, cut *c)
{
    if (tiles == RL_TILES_MOVE && short_near_columns(w, esz)) {
        stacked_cuts(w, phases, r, c);
        return;
    }
    int reads = tiles == RL_TILES_READ;
    int64_t chunk = reads ? READ_CHUNK_ELEMS : CHUNK_ELEMS, run = reads ? READ_RUN_ELEMS : CHUNK_ELEMS;
    int64_t vr = w->rows * w->count_r, vc = w->cols * w->count_c, tr = TILE_SIDE, tc = TILE_SIDE;
    int64_t line = line_elems(esz);
    int runs = reads || down_rows(&w->from) == down_rows(&w->to);
    if (runs && down_rows(reads ? &w->from : &w->to)) tr = min64(vr, run), tc = 1;
    else if (runs) tc = min64(vc, run), tr = 1;
    if (vr < tr || (runs && tc == 1)) tc = chunk / min64(vr, tr);
    if (vc < tc || (runs && tr == 1)) tr = chunk / min64(vc, tc);
    *r = cut_axis(w->rows, w->count_r, tr > 1 ? tr : 1, line);
    *c = cut_axis(w->cols, w->count_c, tc > 1 ? tc : 1, line);
    w->lines_r = lines_of(*r, w->rows, line, w->from.rs, w->to.rs);
    w->lines_c = lines_of(*c, w->cols, line, w->from.cs, w->to.cs);
}

/* ---- phases: lattices that interleave ---------------------------------- */

/* 8 x 8 blocks to 128 x 128 on 2 x 2 make 8 lattices down each column
 * that differ only in phase: pieces 128 rows apart, 16 rows apart from one
 * lattice to the next in A (8 in B).  Walked one after another they sweep
 * A's columns 8 times, writing one line in 16 each time, so that no
 * prefetcher follows them; walked as phases of one pattern (a task moves
 * each band of each phase in turn, or, for short columns, a column of
 * each) they sweep it once, one line in two, ScaLAPACK's order. */

static int same_steps(const rl_walk_side *a, const rl_walk_side *b)
{
    return a->step_r == b->step_r && a->step_c == b->step_c && a->rs == b->rs && a->cs == b->cs;
}

/* Walk v, after u, moves pieces of the same shape along the same steps,
 * as many bands across and as many or fewer down (a matrix's last blocks,
 * cut short, hold pieces of the first phases only). */
static int same_pattern(const rl_walk *u, const rl_walk *v)
{
    return u->pair == v->pair && u->rows == v->rows && u->cols == v->cols && v->count_r <= u->count_r &&
           u->count_c == v->count_c && same_steps(&u->from, &v->from) && same_steps(&u->to, &v->to);
}

/* How many walks from walks[i] on (before `end`) are phases of one
 * pattern: the same shape and steps, offsets a constant delta apart on
 * each side, and in A (or the pack buffer: the side written) as many as
 * fit between one band and the next, in order (taken band by band, phase
 * by phase, the pieces then go down A's columns); 1: walks[i] alone.
 * Only the side written: packing 8 x 8 blocks' phases together (B read
 * down its columns, the pack buffer written in 8 places at once) is
 * slower than packing them one by one.  Transposes gain too (2 x 2 from
 * 8 x 8 or 32 x 32 blocks), their local and received lattices phases of
 * 2 or 8. */
static int64_t walk_phases(const rl_walk *walks, int64_t i, int64_t end)
{
    const rl_walk *w = &walks[i];
    if (i + 1 >= end || !same_pattern(w, &walks[i + 1])) return 1;
    int64_t df = walks[i + 1].from.off - w->from.off, dt = walks[i + 1].to.off - w->to.off;
    if (dt < w->rows || dt > w->to.step_r) return 1;
    int64_t fit = (w->to.step_r - w->rows) / dt + 1, n = 2;
    while (n < fit && i + n < end && same_pattern(&walks[i + n - 1], &walks[i + n]) &&
           walks[i + n].from.off - walks[i + n - 1].from.off == df && walks[i + n].to.off - walks[i + n - 1].to.off == dt)
        n++;
    return n <= fit ? n : 1;
}

/* The later phases' tasks are the first's, cut on the same lines. */
static void share_lines(rl_walk *phases, int64_t n)
{
    for (int64_t q = 1; q < n; q++) {
        phases[q].lines_r = phases[0].lines_r;
        phases[q].lines_c = phases[0].lines_c;
    }
}

static int64_t ceil_div(int64_t x, int64_t b) { return x / b + (x % b != 0); }

/* How many tasks walk w (with its phases) has, counted without walking
 * them (a plan's piece may be far larger than memory: the count must not
 * take its time), or -1 past INT64_MAX. */
static int64_t walk_task_count(rl_walk *w, int64_t phases, size_t esz, rl_tiles tiles)
{
    if (w->rows < 1 || w->cols < 1 || w->count_r < 1 || w->count_c < 1) return 0;
    cut r, c;
    walk_cuts(w, phases, esz, tiles, &r, &c);
    int64_t n = 1, f[] = {ceil_div(w->count_c, c.group), ceil_div(w->cols, c.part), ceil_div(w->count_r, r.group),
                          ceil_div(w->rows, r.part)};
    for (int i = 0; i < 4; i++)
        if (rl_mul_overflows(n, f[i], &n)) return -1;
    return n;
}

/* Writes the tasks of walk w (walk `index`, with its phases) to out;
 * returns how many. */
static int64_t walk_tasks(rl_walk *w, int64_t phases, size_t esz, rl_tiles tiles, int64_t index, rl_task *out)
{
    cut r, c;
    int64_t n = 0;
    walk_cuts(w, phases, esz, tiles, &r, &c);
    for (int64_t j0 = 0; j0 < w->count_c; j0 += c.group)
        for (int64_t c0 = 0; c0 < w->cols; c0 += c.part)
            for (int64_t i0 = 0; i0 < w->count_r; i0 += r.group)
                for (int64_t r0 = 0; r0 < w->rows; r0 += r.part, n++)
                    out[n] = (rl_task){index, i0, min64(i0 + r.group, w->count_r), r0, min64(r0 + r.part, w->rows),
                                       j0, min64(j0 + c.group, w->count_c), c0, min64(c0 + c.part, w->cols), phases};
    return n;
}

relay_status rl_walk_set_tasks(rl_walk_set *ms, const rl_msg *msg, int nmsg, size_t esz, rl_tiles tiles)
{
    int64_t n = 0;
    for (int k = 0; k < nmsg; k++)
        for (int64_t i = msg[k].first, end = i + msg[k].count, p; i < end; i += p) {
            p = tiles == RL_TILES_MOVE ? walk_phases(ms->walks, i, end) : 1;
            int64_t t = walk_task_count(&ms->walks[i], p, esz, tiles);
            if (t < 0 || rl_add_overflows(n, t, &n) || n > PTRDIFF_MAX / (int64_t)sizeof *ms->tasks)
                return rl_fail(RELAY_ERR_NOMEM, "this rank's pieces are too large for any memory");
        }
    ms->tasks = rl_malloc_array((size_t)n, sizeof *ms->tasks);
    ms->first = rl_malloc_array((size_t)nmsg + 1, sizeof *ms->first);
    if (!ms->tasks) return rl_fail(RELAY_ERR_NOMEM, "cannot allocate the %lld tiles of this rank's pieces", (long long)n);
    if (!ms->first) return RL_NOMEM();
    ms->ntasks = 0;
    for (int k = 0; k < nmsg; k++) {
        ms->first[k] = ms->ntasks;
        for (int64_t i = msg[k].first, end = i + msg[k].count, p; i < end; i += p) {
            p = tiles == RL_TILES_MOVE ? walk_phases(ms->walks, i, end) : 1;
            ms->ntasks += walk_tasks(&ms->walks[i], p, esz, tiles, i, ms->tasks + ms->ntasks);
            share_lines(ms->walks + i, p);
        }
    }
    ms->first[nmsg] = ms->ntasks;
    return RELAY_OK;
}

/* A task and where its first element lies in B (placed by the source)
 * or in A. */
typedef struct {
    int64_t pair, off;
    rl_task task;
} placed_task;

static int by_place(const void *x, const void *y)
{
    const placed_task *a = x, *b = y;
    if (a->pair != b->pair) return a->pair < b->pair ? -1 : 1;
    if (a->off != b->off) return a->off < b->off ? -1 : 1;
    return (a->task.walk > b->task.walk) - (a->task.walk < b->task.walk);
}

/* Each message's tasks in the order of the places they move in B (by_source:
 * packing) or in A.  The lattices of a message may interleave there, as 8 x
 * 8 blocks to 128 x 128 on 2 x 2 make 8 x 8 lattices at different phases,
 * each as sparse as the whole of A; in place order the tasks (one band
 * column each) move A column after column across all of them, ScaLAPACK's
 * order, instead of sweeping A once per lattice, which makes unpacking
 * and packing faster.  The local lattices stay in lattice order: sorted by
 * A (or by B), moving them was slower. */
static relay_status sort_tasks_by_place(rl_walk_set *ms, int nmsg, int by_source)
{
    int64_t most = 0;
    for (int k = 0; k < nmsg; k++) most = ms->first[k + 1] - ms->first[k] > most ? ms->first[k + 1] - ms->first[k] : most;
    if (most < 2) return RELAY_OK;
    placed_task *p = rl_malloc_array((size_t)most, sizeof *p);
    if (!p) return RL_NOMEM();
    for (int k = 0; k < nmsg; k++) {
        int64_t n = ms->first[k + 1] - ms->first[k];
        for (int64_t i = 0; i < n; i++) {
            const rl_task *t = &ms->tasks[ms->first[k] + i];
            const rl_walk *w = &ms->walks[t->walk];
            p[i] = (placed_task){w->pair, rl_band_offset(by_source ? &w->from : &w->to, t->i0, t->j0, t->r0, t->c0), *t};
        }
        qsort(p, (size_t)n, sizeof *p, by_place);
        for (int64_t i = 0; i < n; i++) ms->tasks[ms->first[k] + i] = p[i].task;
    }
    free(p);
    return RELAY_OK;
}

/* ---- walk sets: the walks and tasks of a side's messages ------------- */

relay_status rl_walk_set_build(rl_walk_set *ws, const rl_msgset *set, const rl_msg_side *side, int sending)
{
    ws->walks = rl_malloc_array((size_t)side->nboxes, sizeof *ws->walks);
    if (!ws->walks) return RL_NOMEM();
    for (int64_t i = 0; i < side->nboxes; i++) ws->walks[i] = walk_of_box(set, &side->boxes[i]);
    relay_status st = rl_walk_set_tasks(ws, side->msg, side->n, set->esz, RL_TILES_MOVE);
    return st ? st : sort_tasks_by_place(ws, side->n, sending);
}

relay_status rl_local_walks_build(rl_walk_set *ws, const rl_msgset *set)
{
    ws->walks = rl_malloc_array((size_t)set->nlocal, sizeof *ws->walks);
    if (!ws->walks) return RL_NOMEM();
    for (int64_t i = 0; i < set->nlocal; i++) ws->walks[i] = walk_of_box(set, &set->local[i]);
    rl_msg all = {.peer = -1, .step = -1, .passes_on = -1, .first = 0, .count = set->nlocal};
    return rl_walk_set_tasks(ws, &all, 1, set->esz, RL_TILES_MOVE);
}

void rl_walk_set_free(rl_walk_set *ws)
{
    free(ws->walks);
    free(ws->tasks);
    free(ws->first);
}

/* ---- pack buffers ------------------------------------------------------ */

/* Sends, then receives, in the caller's scratch (sizes are padded). */
static relay_status borrow_buffers(rl_transform_exec *x)
{
    int64_t send = rl_msg_side_bytes(&x->set.send), total = send + rl_msg_side_bytes(&x->set.recv);
    char *buf = total ? rl_scratch_lend(x->lent, (size_t)total) : NULL;
    if (total && !buf) return rl_fail(RELAY_ERR_NOMEM, "cannot allocate %lld bytes of message buffers", (long long)total);
    x->set.send.buf = send ? buf : NULL;
    x->set.recv.buf = total > send ? buf + send : NULL;
    x->buffers_lent = 1;
    return RELAY_OK;
}

/* Both sides in the lent scratch's memory, taken over for good where it
 * is large enough (buffers.h), so that the executor's bound replays use
 * the pages its first replay warmed; else buffers of its own. */
relay_status rl_transform_take_buffers(rl_transform_exec *x)
{
    relay_internal_scratch *lent = x->lent;
    x->lent = NULL;
    int64_t send = rl_msg_side_bytes(&x->set.send), total = send + rl_msg_side_bytes(&x->set.recv);
    char *buf = lent && total && !x->capped.cap && !x->device ? rl_scratch_take(lent, (size_t)total) : NULL;
    if (!buf) return rl_transform_hold_buffers(x);
    x->taken = buf;
    x->set.send.buf = send ? buf : NULL;
    x->set.recv.buf = total > send ? buf + send : NULL;
    return RELAY_OK;
}

void rl_transform_drop_side(rl_transform_exec *x, rl_msg_side *side)
{
    if (x->taken && (side == &x->set.send || side == &x->set.recv))
        side->buf = NULL; /* freed with the other side's, in rl_transform_drop_buffers */
    else
        rl_msg_side_drop(side);
}

relay_status rl_transform_hold_buffers(rl_transform_exec *x)
{
    /* Under a memory cap, the chunks' buffers instead of the messages' (schedules/capped.c). */
    rl_msg_side *sends = x->capped.cap ? x->capped.sends.chunks : &x->set.send;
    rl_msg_side *recvs = x->capped.cap ? x->capped.recvs.chunks : &x->set.recv;
    if (x->lent && !x->bound && !x->capped.cap) return borrow_buffers(x);
    relay_status st = rl_msg_side_hold(sends);
    return st ? st : rl_msg_side_hold(recvs);
}

void rl_transform_drop_buffers(rl_transform_exec *x)
{
    if (x->capped.sends.chunks) rl_msg_side_drop(x->capped.sends.chunks);
    if (x->capped.recvs.chunks) rl_msg_side_drop(x->capped.recvs.chunks);
    if (x->buffers_lent || x->taken) {
        free(x->taken);
        x->taken = NULL;
        x->set.send.buf = x->set.recv.buf = NULL;
        x->buffers_lent = 0;
        return;
    }
    rl_msg_side_drop(&x->set.send);
    rl_msg_side_drop(&x->set.recv);
}

/* ---- one task's memory moves ----------------------------------------- */

int64_t rl_band_offset(const rl_walk_side *s, int64_t i, int64_t j, int64_t r0, int64_t c0)
{
    return s->off + i * s->step_r + j * s->step_c + r0 * s->rs + c0 * s->cs;
}

/* Band (i, j) of a walk side from its element (r0, c0) on. */
static rl_side band_at(char *base, const rl_walk_side *s, int64_t i, int64_t j, int64_t r0, int64_t c0, size_t esz)
{
    return (rl_side){rl_elem_at(base, rl_band_offset(s, i, j, r0, c0), esz), s->rs, s->cs};
}

/* A task's cut at x of a band of len elements, moved onto a cache line:
 * cuts are whole lines apart from the band's start, so moving each by
 * where the band starts in its line (`phase`) puts every one on a line of
 * the buffer as the caller passed it, and keeps the tasks a partition. */
static int64_t on_line(int64_t x, int64_t len, int64_t phase) { return x == 0 || x == len ? x : x - phase; }

/* Where band (i, j) of side `lines` (of from and to) starts in its cache
 * line.  Addresses as numbers: `from` may be in another process. */
static int64_t band_phase(rl_lines lines, uintptr_t from, uintptr_t to, const rl_walk *w, int64_t i, int64_t j, size_t esz)
{
    if (lines == RL_LINES_NONE) return 0;
    const rl_walk_side *s = lines == RL_LINES_TO ? &w->to : &w->from;
    uintptr_t at = (lines == RL_LINES_TO ? to : from) + (uintptr_t)(s->off + i * s->step_r + j * s->step_c) * esz;
    return (int64_t)(at % ALIGN / esz);
}

rl_band_cut rl_task_band(const rl_walk *w, const rl_task *t, uintptr_t from, uintptr_t to, int64_t i, int64_t j, size_t esz)
{
    int64_t pr = band_phase(w->lines_r, from, to, w, i, j, esz), pc = band_phase(w->lines_c, from, to, w, i, j, esz);
    return (rl_band_cut){on_line(t->r0, w->rows, pr), on_line(t->r1, w->rows, pr), on_line(t->c0, w->cols, pc),
                         on_line(t->c1, w->cols, pc)};
}

int64_t rl_task_cut_bound(const rl_walk *w, const rl_task *t, size_t esz)
{
    int64_t line = line_elems(esz);
    int64_t rows = t->r1 - t->r0 + (w->lines_r == RL_LINES_NONE ? 0 : line);
    int64_t cols = t->c1 - t->c0 + (w->lines_c == RL_LINES_NONE ? 0 : line);
    return min64(rows, w->rows) * min64(cols, w->cols);
}

/* Whether task t of walk w moves its short columns across its bands:
 * several bands (or phases) down the task, short and near
 * (short_near_columns), and cuts that do not follow cache lines (the same
 * for every band). */
static int columns_across_bands(const rl_walk *w, const rl_task *t, size_t esz)
{
    return w->lines_r == RL_LINES_NONE && w->lines_c == RL_LINES_NONE && (t->i1 - t->i0 > 1 || t->phases > 1) &&
           (t->r1 - t->r0) * (int64_t)esz <= SHORT_RUN_BYTES && short_near_columns(w, esz);
}

/* Column c of piece column j, in band i and in the `down` - 1 bands (or
 * phases) below it, to_step and from_step elements apart: one rectangle
 * whose "columns" are those bands. */
static void move_column_down(const rl_walk *w, const rl_task *t, int64_t i, int64_t j, int64_t c, int64_t down,
                             int64_t to_step, int64_t from_step, char *from, char *to, const rl_scalars *sc, int conj,
                             size_t esz)
{
    rl_side d = {rl_elem_at(to, rl_band_offset(&w->to, i, j, t->r0, c), esz), 1, to_step};
    rl_side s = {rl_elem_at(from, rl_band_offset(&w->from, i, j, t->r0, c), esz), 1, from_step};
    rl_move(sc, conj, d, s, t->r1 - t->r0, down);
}

/* Task t column by column: for each column, that column of every band
 * down the task.  Pieces of 8 x 8 elements otherwise write a line in each
 * of 8 columns of A, 16 KB apart, per piece; this way A is written down
 * one column after another, as ScaLAPACK's unpack writes it. */
static void move_columns_across_bands(const rl_walk *w, const rl_task *t, char *from, char *to, const rl_scalars *sc,
                                      int conj, size_t esz)
{
    for (int64_t j = t->j0; j < t->j1; j++)
        for (int64_t c = t->c0; c < t->c1; c++)
            move_column_down(w, t, t->i0, j, c, t->i1 - t->i0, w->to.step_r, w->from.step_r, from, to, sc, conj, esz);
}

/* The same for a task of phases (walk_phases): for each column, band by
 * band, that column of each phase that has the band. */
static void move_columns_across_phases(const rl_walk *w, const rl_task *t, char *from, char *to, const rl_scalars *sc,
                                       int conj, size_t esz)
{
    int64_t to_step = w[1].to.off - w->to.off, from_step = w[1].from.off - w->from.off;
    for (int64_t j = t->j0; j < t->j1; j++)
        for (int64_t c = t->c0; c < t->c1; c++)
            for (int64_t i = t->i0, down = t->phases; i < t->i1; i++) {
                while (w[down - 1].count_r <= i) down--; /* phases whose bands end before i */
                move_column_down(w, t, i, j, c, down, to_step, from_step, from, to, sc, conj, esz);
            }
}

static void move_bands(const rl_walk *w, const rl_task *t, char *from, char *to, const rl_scalars *sc, int conj, size_t esz)
{
    if (columns_across_bands(w, t, esz)) {
        (t->phases > 1 ? move_columns_across_phases : move_columns_across_bands)(w, t, from, to, sc, conj, esz);
        return;
    }
    for (int64_t j = t->j0; j < t->j1; j++)
        for (int64_t i = t->i0; i < t->i1; i++)
            for (const rl_walk *p = w; p < w + t->phases && p->count_r > i; p++) {
                rl_band_cut q = rl_task_band(p, t, (uintptr_t)from, (uintptr_t)to, i, j, esz);
                rl_move(sc, conj, band_at(to, &p->to, i, j, q.r0, q.c0, esz), band_at(from, &p->from, i, j, q.r0, q.c0, esz),
                        q.r1 - q.r0, q.c1 - q.c0);
            }
}

typedef enum { PACK, UNPACK, LOCAL } move_kind;

/* A task writes a part of A (unpacking, local moves) that the replay
 * writes once: where this pair's A is larger than the caches, its pieces
 * are streamed past them whatever their size, and the task's moves share
 * one fence. */
static void move_task(const rl_transform_exec *x, const rl_walk_set *ms, const rl_task *t, char *buf, move_kind kind)
{
    const rl_walk *w = &ms->walks[t->walk];
    char *b = (char *)x->src[w->pair], *a = x->dst[w->pair];
    if (kind == PACK) {
        move_bands(w, t, b, buf, &x->plain, 0, x->esz);
        return;
    }
    rl_scalars sc = x->scalars;
    sc.large_dst = x->sec->dst_elems[w->pair] * (int64_t)x->esz >= RL_LARGE_DST_BYTES;
    sc.defer_fence = sc.large_dst;
    move_bands(w, t, kind == UNPACK ? buf : b, a, &sc, x->pairs[w->pair].op == RELAY_OP_C, x->esz);
    if (sc.defer_fence) rl_stream_fence();
}

/* ---- whole messages, tasks shared among threads ------------------------ */

int rl_threads_for(const rl_transform_exec *x, int64_t elems) { return elems >= PARALLEL_ELEMS ? x->team : 1; }

/* Moves message k of a set (of elems elements) to or from its packed
 * form at buf. */
static void move_message_at(const rl_transform_exec *x, const rl_walk_set *ms, int64_t elems, int k, move_kind kind,
                            char *buf)
{
#pragma omp parallel for schedule(dynamic, 1) num_threads(rl_threads_for(x, elems))
    for (int64_t t = ms->first[k]; t < ms->first[k + 1]; t++) move_task(x, ms, &ms->tasks[t], buf, kind);
}

/* Moves message k of a side (its walks ms), its packed form in the side's
 * buffer, past its control word. */
static void move_message(const rl_transform_exec *x, const rl_walk_set *ms, const rl_msg_side *side, int k, move_kind kind)
{
    move_message_at(x, ms, side->msg[k].elems, k, kind, side->buf ? side->buf + side->byte_off[k] + x->set.control : NULL);
}

/* On a device kind (device_kind.h) the device moves the elements: packing
 * a message is waiting for it, unpacking one is handing it to the device,
 * and the local lattices moved when the replay began. */
void rl_transform_pack(const rl_transform_exec *x, int k)
{
    if (x->moves) x->moves->pack(x, k);
    else if (x->device) x->device->pack(x->device_state, x, k);
    else move_message(x, &x->send_walks, &x->set.send, k, PACK);
}

void rl_transform_unpack(const rl_transform_exec *x, int k)
{
    if (x->moves) x->moves->unpack(x, k);
    else if (x->device) x->device->unpack(x->device_state, x, k);
    else move_message(x, &x->recv_walks, &x->set.recv, k, UNPACK);
}

void rl_transform_pack_to(const rl_transform_exec *x, int k, char *buf)
{
    move_message_at(x, &x->send_walks, x->set.send.msg[k].elems, k, PACK, buf);
}

void rl_transform_unpack_from(const rl_transform_exec *x, int k, char *buf)
{
    move_message_at(x, &x->recv_walks, x->set.recv.msg[k].elems, k, UNPACK, buf);
}

void rl_transform_pack_chunk(const rl_transform_exec *x, const rl_walk_set *ms, int k, int64_t elems, char *buf)
{
    move_message_at(x, ms, elems, k, PACK, buf);
}

void rl_transform_unpack_chunk(const rl_transform_exec *x, const rl_walk_set *ms, int k, int64_t elems, char *buf)
{
    move_message_at(x, ms, elems, k, UNPACK, buf);
}

void rl_wire_shape(const rl_transform_exec *x, int64_t bytes, int *count, MPI_Datatype *type)
{
    if (bytes <= INT_MAX) {
        *count = (int)bytes;
        *type = MPI_BYTE;
    } else {
        *count = (int)(rl_padded_bytes(bytes) / RL_WIRE_UNIT);
        *type = x->unit;
    }
}

void rl_transform_move_locals(const rl_transform_exec *x)
{
    if (x->moves) x->moves->move_locals(x);
    if (x->moves || x->device) return;
    int64_t elems = 0;
    for (int64_t i = 0; i < x->set.nlocal; i++) elems += x->set.local[i].elems;
    move_message_at(x, &x->local_walks, elems, 0, LOCAL, NULL);
}
