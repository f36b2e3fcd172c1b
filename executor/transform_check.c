/* transform_check.c — checking a loaded section against its header.
 *
 * Validation (plan_format/validate.c) proves that a section's lattices stay
 * inside its buffers; a plan file can still lie consistently: pieces
 * dropped, shifted, swapped or duplicated, an op or a sigma changed in the
 * header with the sizes adjusted.  The executor cannot plan again (it never
 * links the planner), so it checks what the section's walks (transform.h)
 * will do at a replay, element by element, against the header's layouts:
 *   - every position a receive or local lattice writes holds an element of
 *     A (the pair's relabeled layout, on this rank), none is written
 *     twice, and as many are written as the rank holds: A's blocks are
 *     tiled exactly once;
 *   - every position a send or local lattice reads holds an element of B;
 *   - a local lattice copies B's element (i, j) to A's element op(i, j);
 *   - each message gets a hash binding every element's position in the
 *     message to the element of A it becomes (the sender's from B, mapped
 *     through the op; the receiver's from A), which the peers compare at
 *     bind (transform_exec.c): what arrives at an A position is then the
 *     B element the header says.
 * O(elements of this rank) time, one bit per position of A in memory;
 * OpenMP threads share the executor's tasks.  The hash is a sum of a
 * strong 64-bit mix per element, so the threads' order does not matter;
 * it guards against wrong plans, not against an adversary who searches
 * for a collision. */
#include <stdint.h>

#include "error.h"
#include "transform_check.h"

enum { PARALLEL_ELEMS = 1 << 16 }; /* fewer elements than this are not worth a thread team */

/* What a task's element may be found doing wrong (0: nothing). */
typedef enum { FINE, NOT_IN_B, NOT_IN_A, WRITTEN_TWICE, WRONG_ELEMENT, VERDICTS } verdict;

/* Per pair, this rank's buffers as the header's layouts see them, and the
 * positions of A written so far. */
typedef struct {
    const rl_transform_exec *x;
    rl_buffer_map **a, **b;
    uint64_t **written;
} checker;

typedef enum { SEND, RECEIVE, LOCAL } move_kind;

/* ---- one element ----------------------------------------------------- */

static uint64_t mix(uint64_t z)
{
    z ^= z >> 30;
    z *= 0xbf58476d1ce4e5b9ULL;
    z ^= z >> 27;
    z *= 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Element (i, j) of pair's A at position pos of its message. */
static uint64_t element_hash(int64_t pos, int64_t pair, int64_t i, int64_t j)
{
    return mix(mix(mix(mix((uint64_t)pos) ^ (uint64_t)pair) + (uint64_t)i) ^ (uint64_t)j);
}

/* Marks position pos of a bitmap; 0 if it was marked already. */
static int mark(uint64_t *bits, int64_t pos)
{
    uint64_t bit = (uint64_t)1 << (pos & 63);
    return !(__atomic_fetch_or(&bits[pos >> 6], bit, __ATOMIC_RELAXED) & bit);
}

/* The elements one side of a walk meets along a line of positions
 * `stride` apart.  Where the stride is 1, one lookup serves a whole run of
 * the buffer (rl_layout_element_run): most lines cost a lookup per block. */
typedef struct {
    const rl_buffer_map *map;
    int64_t stride, left, i, j;
    int down;                /* column-major: a run goes down the rows */
} line_reader;

static line_reader line_of(const rl_buffer_map *map, int64_t stride, relay_order o)
{
    return (line_reader){map, stride, 0, 0, 0, o == RELAY_COL_MAJOR};
}

/* The element at pos, the line's next position; 0 if it holds none. */
static int read_element(line_reader *lr, int64_t pos, int64_t *i, int64_t *j)
{
    int64_t run;
    if (lr->left > 0) {
        lr->left--;
        lr->i += lr->down;
        lr->j += !lr->down;
    } else if (rl_layout_element_run(lr->map, pos, &lr->i, &lr->j, &run)) {
        lr->left = lr->stride == 1 ? run - 1 : 0;
    } else {
        return 0;
    }
    *i = lr->i;
    *j = lr->j;
    return 1;
}

/* The element of A that B's element at position u becomes: op's (i, j). */
static int source_element(line_reader *b, int transposes, int64_t u, int64_t *i, int64_t *j)
{
    int64_t bi, bj;
    if (!read_element(b, u, &bi, &bj)) return 0;
    *i = transposes ? bj : bi;
    *j = transposes ? bi : bj;
    return 1;
}

/* One element moving from position `from` to position `to` (B, message,
 * or A as the kind says); adds its hash where a message is involved. */
static verdict check_element(const checker *ck, int64_t pair, move_kind kind, int64_t from, int64_t to, line_reader *b,
                             line_reader *a, uint64_t *hash)
{
    int64_t si = 0, sj = 0, ai, aj;
    if (kind != RECEIVE && !source_element(b, rl_op_transposes(ck->x->pairs[pair].op), from, &si, &sj)) return NOT_IN_B;
    if (kind == SEND) {
        *hash += element_hash(to, pair, si, sj);
        return FINE;
    }
    if (!read_element(a, to, &ai, &aj)) return NOT_IN_A;
    if (!mark(ck->written[pair], to)) return WRITTEN_TWICE;
    if (kind == RECEIVE) *hash += element_hash(from, pair, ai, aj);
    return kind == RECEIVE || (ai == si && aj == sj) ? FINE : WRONG_ELEMENT;
}

/* ---- tasks and messages ---------------------------------------------- */

static int64_t side_pos(const rl_walk_side *s, int64_t i, int64_t j, int64_t r, int64_t c)
{
    return s->off + i * s->step_r + j * s->step_c + r * s->rs + c * s->cs;
}

/* The elements of a task, line by line down A's rows, until one is wrong. */
static verdict check_task(const checker *ck, const rl_walk *w, const rl_task *t, move_kind kind, uint64_t *hash)
{
    const rl_pair_info *pi = &ck->x->pairs[w->pair];
    verdict v = FINE;
    int64_t i1 = t->i1 < w->count_r ? t->i1 : w->count_r; /* a task's later phases may have fewer bands */
    for (int64_t j = t->j0; j < t->j1; j++)
        for (int64_t i = t->i0; i < i1; i++)
            for (int64_t c = t->c0; c < t->c1 && !v; c++) {
                line_reader b = line_of(ck->b[w->pair], w->from.rs, pi->src_order);
                line_reader a = line_of(ck->a[w->pair], w->to.rs, pi->dst_order);
                int64_t from = side_pos(&w->from, i, j, t->r0, c), to = side_pos(&w->to, i, j, t->r0, c);
                for (int64_t r = t->r0; r < t->r1 && !v; r++, from += w->from.rs, to += w->to.rs)
                    v = check_element(ck, w->pair, kind, from, to, &b, &a, hash);
            }
    return v;
}

/* Message k of a set (of elems elements): its hash, never 0, and in *bad
 * the first wrong lattice as lattice * VERDICTS + verdict (INT64_MAX: none). */
static uint64_t check_message(const checker *ck, const rl_walk_set *ms, int k, int64_t elems, move_kind kind, int64_t *bad)
{
    uint64_t hash = 0;
    int64_t worst = INT64_MAX;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : hash) reduction(min : worst) num_threads(ck->x->team) \
    if (elems >= PARALLEL_ELEMS)
    for (int64_t t = ms->first[k]; t < ms->first[k + 1]; t++) {
        const rl_task *task = &ms->tasks[t];
        for (int64_t w = task->walk; w < task->walk + task->phases; w++) {
            verdict v = check_task(ck, &ms->walks[w], task, kind, &hash);
            if (v && w * VERDICTS + v < worst) worst = w * VERDICTS + v;
        }
    }
    *bad = worst;
    return hash ? hash : 1;
}

static relay_status lattice_fails(const checker *ck, move_kind kind, int64_t bad)
{
    static const char *const kinds[] = {"send", "receive", "local"};
    static const char *const wrong[VERDICTS] = {
        "", "reads a position of B that holds no element of B", "writes a position of A that holds no element of A",
        "writes an element of A that another piece writes too",
        "copies an element of B to the place of another element of A"};
    const rl_transform_exec *x = ck->x;
    return rl_fail(RELAY_ERR_FORMAT, "plan section of rank %d does not match its header: %s lattice %lld %s", x->rank,
                   kinds[kind], (long long)(bad / VERDICTS), wrong[bad % VERDICTS]);
}

/* Every message of a set, or the local lattices (hash NULL). */
static relay_status check_set(const checker *ck, const rl_walk_set *ms, const rl_message *msg, int nmsg, move_kind kind,
                              uint64_t *hash)
{
    for (int k = 0; k < nmsg; k++) {
        int64_t bad;
        uint64_t h = check_message(ck, ms, k, msg[k].elems, kind, &bad);
        if (bad != INT64_MAX) return lattice_fails(ck, kind, bad);
        if (hash) hash[k] = h;
    }
    return RELAY_OK;
}

/* ---- the whole section ----------------------------------------------- */

/* Elements of A the section writes per pair, each counted once a lattice
 * is checked. */
static void count_written(const rl_section *s, int64_t *written)
{
    for (int64_t i = 0; i < s->nrecv_spans; i++) written[s->recv_spans[i].pair] += rl_span_elems(&s->recv_spans[i]);
    for (int64_t i = 0; i < s->nlocal; i++) written[s->local[i].pair] += rl_local_span_elems(&s->local[i]);
}

/* The section writes as many elements of each pair's A as this rank holds
 * (so, once none is written twice, all of them): checked before anything
 * is allocated for positions, so that a small lie costs little. */
static relay_status check_counts(const checker *ck)
{
    const rl_transform_exec *x = ck->x;
    int64_t *written = rl_calloc((size_t)x->count, sizeof *written);
    if (!written) return RL_NOMEM();
    count_written(x->sec, written);
    relay_status st = RELAY_OK;
    for (int k = 0; k < x->count && !st; k++)
        if (written[k] != rl_buffer_map_elems(ck->a[k]))
            st = rl_fail(RELAY_ERR_FORMAT,
                         "plan section of rank %d does not match its header: it writes %lld elements of pair %d's A, "
                         "but the rank holds %lld",
                         x->rank, (long long)written[k], k, (long long)rl_buffer_map_elems(ck->a[k]));
    free(written);
    return st;
}

static relay_status checker_init(checker *ck, const rl_transform_exec *x, const relay_plan *p)
{
    ck->x = x;
    ck->a = rl_calloc((size_t)x->count, sizeof *ck->a);
    ck->b = rl_calloc((size_t)x->count, sizeof *ck->b);
    ck->written = rl_calloc((size_t)x->count, sizeof *ck->written);
    if (!ck->a || !ck->b || !ck->written) return RL_NOMEM();
    relay_status st = RELAY_OK;
    for (int k = 0; k < x->count && !st; k++) {
        st = rl_buffer_map_new(&ck->a[k], p->pairs[k].dst_relabeled, x->rank);
        if (!st) st = rl_buffer_map_new(&ck->b[k], p->pairs[k].src, x->rank);
    }
    return st;
}

/* One bit per position of each pair's A buffer. */
static relay_status checker_hold_bitmaps(checker *ck, const relay_plan *p)
{
    for (int k = 0; k < ck->x->count; k++) {
        int64_t words = relay_layout_local_elems(p->pairs[k].dst_relabeled, ck->x->rank) / 64 + 1;
        ck->written[k] = rl_calloc((size_t)words, sizeof(uint64_t));
        if (!ck->written[k]) return rl_fail(RELAY_ERR_NOMEM, "cannot allocate %lld bytes to check a plan", (long long)words * 8);
    }
    return RELAY_OK;
}

static void checker_free(checker *ck)
{
    for (int k = 0; k < ck->x->count; k++) {
        if (ck->a) rl_buffer_map_free(ck->a[k]);
        if (ck->b) rl_buffer_map_free(ck->b[k]);
        if (ck->written) free(ck->written[k]);
    }
    free(ck->a);
    free(ck->b);
    free(ck->written);
}

relay_status rl_transform_check_section(const rl_transform_exec *x, const relay_plan *p, uint64_t *send_hash,
                                        uint64_t *recv_hash)
{
    checker ck = {0};
    const rl_section *s = x->sec;
    relay_status st = checker_init(&ck, x, p);
    if (!st) st = check_counts(&ck);
    if (!st) st = checker_hold_bitmaps(&ck, p);
    if (!st) st = check_set(&ck, &x->send_walks, s->send, s->nsend, SEND, send_hash);
    if (!st) st = check_set(&ck, &x->recv_walks, s->recv, s->nrecv, RECEIVE, recv_hash);
    rl_message all = {-1, 0, s->nlocal, 0};
    for (int64_t i = 0; i < s->nlocal; i++) all.elems += rl_local_span_elems(&s->local[i]);
    if (!st) st = check_set(&ck, &x->local_walks, &all, 1, LOCAL, NULL);
    checker_free(&ck);
    return st;
}
