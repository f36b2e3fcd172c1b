/* layout.c — building, validating and querying layouts.
 *
 * Two kinds share one interface (layout_internal.h): block-cyclic layouts
 * answer split/owner/offset/ld questions with ScaLAPACK's formulas (numroc,
 * indxg2p, indxg2l) and hold only per-rank sizes, grid layouts answer from
 * explicit arrays.  Every constructor validates all of its input before it
 * allocates the result, so a failing call leaves *out untouched. */
#include <string.h>

#include "error.h"
#include "layout_internal.h"

/* ---- small helpers --------------------------------------------------- */

int64_t rl_block_extent(int64_t rows, int64_t cols, int64_t ld, relay_order o)
{
    if (rows <= 0 || cols <= 0) return 0;
    return o == RELAY_COL_MAJOR ? (cols - 1) * ld + rows : (rows - 1) * ld + cols;
}

static int valid_order(relay_order o) { return o == RELAY_COL_MAJOR || o == RELAY_ROW_MAJOR; }

static int mapped_rank(const relay_layout *l, int base)
{
    return l->rank_map ? l->rank_map[base] : base;
}

/* A layout with its sizes and an array of buffer sizes per rank, the rest
 * for its constructor to fill. */
static relay_layout *layout_new(rl_layout_kind kind, int nranks, int64_t m, int64_t n,
                                int nbr, int nbc, relay_order order)
{
    relay_layout *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->kind = kind;
    l->nranks = l->base_nranks = nranks;
    l->m = m;
    l->n = n;
    l->nbr = nbr;
    l->nbc = nbc;
    l->order = order;
    l->local_elems = rl_calloc((size_t)nranks, sizeof(int64_t));
    if (!l->local_elems) {
        relay_layout_free(l);
        return NULL;
    }
    return l;
}

void relay_layout_free(relay_layout *l)
{
    if (!l) return;
    free(l->row_splits);
    free(l->col_splits);
    free(l->bc_ld);
    free(l->owners);
    free(l->offsets);
    free(l->lds);
    free(l->rank_first);
    free(l->rank_blocks);
    free(l->local_elems);
    if (!l->maps_borrowed) {
        free(l->rank_map);
        free(l->rank_unmap);
    }
    free(l);
}

/* ---- block-cyclic ---------------------------------------------------- */

/* ceil(x / b) for x >= 0, b > 0, without the overflow of (x + b - 1) / b. */
static int64_t ceil_div(int64_t x, int64_t b) { return x / b + (x % b != 0); }

/* Blocks of b that rows [origin, origin + size) meet. */
static int64_t blocks_met(int64_t origin, int64_t size, int64_t b) { return size ? (origin + size - 1) / b - origin / b + 1 : 0; }

static relay_status bc_check(int64_t m, int64_t n, int64_t mb, int64_t nb, int nprow, int npcol,
                             relay_order grid_order, int rsrc, int csrc, int64_t lld,
                             relay_order elem_order)
{
    if (m < 0 || n < 0) return rl_fail(RELAY_ERR_ARG, "block-cyclic layout: matrix size %lld x %lld is negative", (long long)m, (long long)n);
    if (mb <= 0 || nb <= 0) return rl_fail(RELAY_ERR_ARG, "block-cyclic layout: block size %lld x %lld must be positive", (long long)mb, (long long)nb);
    if (nprow <= 0 || npcol <= 0) return rl_fail(RELAY_ERR_ARG, "block-cyclic layout: process grid %d x %d must be positive", nprow, npcol);
    if ((int64_t)nprow * npcol > INT32_MAX) return rl_fail(RELAY_ERR_ARG, "block-cyclic layout: process grid %d x %d has too many ranks", nprow, npcol);
    if (!valid_order(grid_order)) return rl_fail(RELAY_ERR_ARG, "block-cyclic layout: invalid grid order %d", (int)grid_order);
    if (!valid_order(elem_order)) return rl_fail(RELAY_ERR_ARG, "block-cyclic layout: invalid element order %d", (int)elem_order);
    if (rsrc < 0 || rsrc >= nprow || csrc < 0 || csrc >= npcol)
        return rl_fail(RELAY_ERR_ARG, "block-cyclic layout: source process (%d, %d) outside the %d x %d grid", rsrc, csrc, nprow, npcol);
    if (ceil_div(m, mb) > INT32_MAX || ceil_div(n, nb) > INT32_MAX)
        return rl_fail(RELAY_ERR_ARG, "block-cyclic layout: more than 2^31 block rows or columns");
    if (lld < 0) return rl_fail(RELAY_ERR_ARG, "block-cyclic layout: lld = %lld is negative", (long long)lld);
    if (lld > 0) {
        /* The largest local count is on the source process (it gets the extra block). */
        int64_t need = elem_order == RELAY_COL_MAJOR ? rl_numroc(m, mb, rsrc, rsrc, nprow)
                                                     : rl_numroc(n, nb, csrc, csrc, npcol);
        if (lld < need)
            return rl_fail(RELAY_ERR_ARG, "block-cyclic layout: lld = %lld is smaller than the largest local %s count %lld",
                           (long long)lld, elem_order == RELAY_COL_MAJOR ? "row" : "column", (long long)need);
    }
    return RELAY_OK;
}

/* Each rank's leading dimension (given, or from lld) and buffer size from
 * its local rows and columns: those before the layout's origin, and after
 * them those the layout holds. */
static relay_status bc_fill_rank_sizes(relay_layout *l, const int64_t *lds)
{
    const rl_block_cyclic *bc = &l->bc;
    l->bc_ld = rl_calloc((size_t)l->nranks, sizeof(int64_t));
    if (!l->bc_ld) return RL_NOMEM();
    for (int r = 0; r < l->nranks; r++) {
        int pr, pc;
        rl_bc_coords(bc, r, &pr, &pc);
        int64_t rows_before = rl_numroc(bc->i0, bc->mb, pr, bc->rsrc, bc->nprow);
        int64_t cols_before = rl_numroc(bc->j0, bc->nb, pc, bc->csrc, bc->npcol);
        int64_t locr = rl_numroc(bc->i0 + l->m, bc->mb, pr, bc->rsrc, bc->nprow);
        int64_t locc = rl_numroc(bc->j0 + l->n, bc->nb, pc, bc->csrc, bc->npcol);
        int64_t inner = l->order == RELAY_COL_MAJOR ? locr : locc;
        int64_t ld = lds ? lds[r] : bc->lld ? bc->lld : (inner > 1 ? inner : 1);
        int64_t ext;
        l->bc_ld[r] = ld;
        if (locr > rows_before && locc > cols_before) {
            if (ld < inner)
                return rl_fail(RELAY_ERR_ARG, "block-cyclic layout: rank %d's lld %lld is below its %lld local %s", r,
                               (long long)ld, (long long)inner, l->order == RELAY_COL_MAJOR ? "rows" : "columns");
            int64_t outer_minus_1 = (l->order == RELAY_COL_MAJOR ? locc : locr) - 1;
            if (rl_mul_overflows(outer_minus_1, ld, &ext) || rl_add_overflows(ext, inner, &ext))
                return rl_fail(RELAY_ERR_ARG, "block-cyclic layout: rank %d's buffer exceeds 2^63 elements", r);
            l->local_elems[r] = ext;
        }
    }
    return RELAY_OK;
}

/* A block-cyclic layout of the m x n submatrix at (i0, j0) (0, 0 for the
 * whole matrix), its ranks' leading dimensions given (lds) or from lld. */
static relay_status bc_build(relay_layout **out, int64_t m, int64_t n, int64_t i0, int64_t j0, int64_t mb, int64_t nb,
                             int nprow, int npcol, relay_order grid_order, int rsrc, int csrc, int64_t lld,
                             const int64_t *lds, relay_order elem_order)
{
    relay_status st = bc_check(m, n, mb, nb, nprow, npcol, grid_order, rsrc, csrc, lld, elem_order);
    if (st) return st;
    if (i0 < 0 || j0 < 0 || i0 > INT64_MAX - m || j0 > INT64_MAX - n)
        return rl_fail(RELAY_ERR_ARG, "block-cyclic layout: submatrix origin (%lld, %lld) is negative or too far",
                       (long long)i0, (long long)j0);
    if (blocks_met(i0, m, mb) > INT32_MAX || blocks_met(j0, n, nb) > INT32_MAX)
        return rl_fail(RELAY_ERR_ARG, "block-cyclic layout: more than 2^31 block rows or columns");
    int nbr = (int)blocks_met(i0, m, mb), nbc = (int)blocks_met(j0, n, nb);
    relay_layout *l = layout_new(RL_LAYOUT_BLOCK_CYCLIC, nprow * npcol, m, n, nbr, nbc, elem_order);
    if (!l) return RL_NOMEM();
    l->bc = (rl_block_cyclic){mb, nb, nprow, npcol, grid_order, rsrc, csrc, lld, i0, j0, lds != NULL, i0 % mb, j0 % nb};
    st = bc_fill_rank_sizes(l, lds);
    if (st) {
        relay_layout_free(l);
        return st;
    }
    *out = l;
    return RELAY_OK;
}

relay_status relay_layout_block_cyclic(relay_layout **out, int64_t m, int64_t n, int64_t mb, int64_t nb,
        int nprow, int npcol, relay_order grid_order, int rsrc, int csrc, int64_t lld,
        relay_order elem_order)
{
    if (!out) return rl_fail(RELAY_ERR_ARG, "relay_layout_block_cyclic: out is NULL");
    return bc_build(out, m, n, 0, 0, mb, nb, nprow, npcol, grid_order, rsrc, csrc, lld, NULL, elem_order);
}

/* Whether ld[0..n) are all the same, the value of ld[0]. */
static int all_equal(const int64_t *ld, int n)
{
    for (int r = 1; r < n; r++)
        if (ld[r] != ld[0]) return 0;
    return 1;
}

/* The leading dimensions as one lld where they are one: 0 when each rank's
 * is its smallest (ScaLAPACK's descinit default, max(1, local rows)), their
 * common value when that is a legal shared lld; -1 when they are truly
 * per rank.  A layout so described is the one relay_layout_block_cyclic
 * makes, with its fingerprint, and plan files can hold it. */
static relay_status shared_lld(int64_t *lld, int64_t m, int64_t n, int64_t mb, int64_t nb, int nprow, int npcol,
                               relay_order grid_order, int rsrc, int csrc, const int64_t *lds, relay_order elem_order)
{
    relay_layout *smallest;
    relay_status st = bc_build(&smallest, m, n, 0, 0, mb, nb, nprow, npcol, grid_order, rsrc, csrc, 0, NULL, elem_order);
    if (st) return st;
    int nranks = smallest->nranks;
    for (int r = 0; r < nranks; r++)
        if (lds[r] <= 0) {
            relay_layout_free(smallest);
            return rl_fail(RELAY_ERR_ARG, "block-cyclic layout: rank %d's lld %lld is not positive", r, (long long)lds[r]);
        }
    int each_smallest = !memcmp(smallest->bc_ld, lds, (size_t)nranks * sizeof *lds);
    int64_t largest = 0;
    for (int r = 0; r < nranks; r++) largest = smallest->bc_ld[r] > largest ? smallest->bc_ld[r] : largest;
    relay_layout_free(smallest);
    *lld = each_smallest ? 0 : all_equal(lds, nranks) && lds[0] >= largest ? lds[0] : -1;
    return RELAY_OK;
}

relay_status relay_layout_block_cyclic_lds(relay_layout **out, int64_t m, int64_t n, int64_t mb, int64_t nb,
        int nprow, int npcol, relay_order grid_order, int rsrc, int csrc, const int64_t *lds,
        relay_order elem_order)
{
    if (!out || !lds) return rl_fail(RELAY_ERR_ARG, "relay_layout_block_cyclic_lds: NULL argument");
    int64_t lld = -1;
    relay_status st = shared_lld(&lld, m, n, mb, nb, nprow, npcol, grid_order, rsrc, csrc, lds, elem_order);
    if (st) return st;
    return bc_build(out, m, n, 0, 0, mb, nb, nprow, npcol, grid_order, rsrc, csrc, lld < 0 ? 0 : lld,
                    lld < 0 ? lds : NULL, elem_order);
}

relay_status relay_internal_layout_submatrix(relay_layout **out, int64_t m, int64_t n, int64_t i0, int64_t j0,
        int64_t mb, int64_t nb, int nprow, int npcol, relay_order grid_order, int rsrc, int csrc, const int64_t *lld)
{
    if (!out || !lld) return rl_fail(RELAY_ERR_ARG, "submatrix layout: NULL argument");
    return bc_build(out, m, n, i0, j0, mb, nb, nprow, npcol, grid_order, rsrc, csrc, 0, lld, RELAY_COL_MAJOR);
}

/* ---- grid layouts ---------------------------------------------------- */

static relay_status check_splits(const int64_t *splits, int nblocks, int64_t extent, const char *what)
{
    if (nblocks < 0) return rl_fail(RELAY_ERR_ARG, "grid layout: %s block count %d is negative", what, nblocks);
    if (!splits) return rl_fail(RELAY_ERR_ARG, "grid layout: %s splits are NULL", what);
    if (splits[0] != 0) return rl_fail(RELAY_ERR_ARG, "grid layout: %s splits must start at 0, not %lld", what, (long long)splits[0]);
    for (int i = 0; i < nblocks; i++)
        if (splits[i + 1] <= splits[i])
            return rl_fail(RELAY_ERR_ARG, "grid layout: %s splits are not strictly increasing at index %d (%lld then %lld)",
                           what, i + 1, (long long)splits[i], (long long)splits[i + 1]);
    if (splits[nblocks] != extent)
        return rl_fail(RELAY_ERR_ARG, "grid layout: %s splits end at %lld, not at the matrix size %lld",
                       what, (long long)splits[nblocks], (long long)extent);
    return RELAY_OK;
}

static relay_status check_grid_args(int nranks, int64_t m, int64_t n, int nbr, const int64_t *row_splits,
                                    int nbc, const int64_t *col_splits, const int *owners,
                                    const int64_t *offsets, const int64_t *lds, relay_order order)
{
    if (nranks <= 0) return rl_fail(RELAY_ERR_ARG, "grid layout: nranks = %d must be positive", nranks);
    if (m < 0 || n < 0) return rl_fail(RELAY_ERR_ARG, "grid layout: matrix size %lld x %lld is negative", (long long)m, (long long)n);
    if (!valid_order(order)) return rl_fail(RELAY_ERR_ARG, "grid layout: invalid element order %d", (int)order);
    relay_status st = check_splits(row_splits, nbr, m, "row");
    if (st) return st;
    if ((st = check_splits(col_splits, nbc, n, "column"))) return st;
    if ((int64_t)nbr * nbc > 0 && !owners) return rl_fail(RELAY_ERR_ARG, "grid layout: owners is NULL");
    if (!offsets != !lds) return rl_fail(RELAY_ERR_ARG, "grid layout: give both offsets and lds, or neither");
    int64_t nblocks = (int64_t)nbr * nbc;
    for (int64_t b = 0; b < nblocks; b++)
        if (owners[b] < 0 || owners[b] >= nranks)
            return rl_fail(RELAY_ERR_ARG, "grid layout: owner %d of block (%lld, %lld) is not a rank in [0, %d)",
                           owners[b], (long long)(b / nbc), (long long)(b % nbc), nranks);
    return RELAY_OK;
}

/* CSR index of the blocks of each rank, increasing block id within a rank. */
static relay_status index_rank_blocks(relay_layout *l)
{
    int64_t nblocks = (int64_t)l->nbr * l->nbc;
    l->rank_first = rl_calloc((size_t)l->nranks + 1, sizeof(int64_t));
    l->rank_blocks = rl_malloc_array((size_t)nblocks, sizeof(int64_t));
    if (!l->rank_first || !l->rank_blocks) return RL_NOMEM();
    for (int64_t b = 0; b < nblocks; b++) l->rank_first[l->owners[b] + 1]++;
    for (int r = 0; r < l->nranks; r++) l->rank_first[r + 1] += l->rank_first[r];
    int64_t *cursor = rl_malloc_array((size_t)l->nranks, sizeof(int64_t));
    if (!cursor) return RL_NOMEM();
    memcpy(cursor, l->rank_first, (size_t)l->nranks * sizeof(int64_t));
    for (int64_t b = 0; b < nblocks; b++) l->rank_blocks[cursor[l->owners[b]]++] = b;
    free(cursor);
    return RELAY_OK;
}

static int64_t block_rows(const relay_layout *l, int64_t b) { return l->row_splits[b / l->nbc + 1] - l->row_splits[b / l->nbc]; }
static int64_t block_cols(const relay_layout *l, int64_t b) { return l->col_splits[b % l->nbc + 1] - l->col_splits[b % l->nbc]; }

/* Default storage: each rank's blocks one after another, tightly. */
static relay_status pack_blocks(relay_layout *l)
{
    for (int r = 0; r < l->nranks; r++) {
        int64_t cursor = 0, size;
        for (int64_t k = l->rank_first[r]; k < l->rank_first[r + 1]; k++) {
            int64_t b = l->rank_blocks[k], rows = block_rows(l, b), cols = block_cols(l, b);
            l->offsets[b] = cursor;
            l->lds[b] = l->order == RELAY_COL_MAJOR ? rows : cols;
            if (rl_mul_overflows(rows, cols, &size) || rl_add_overflows(cursor, size, &cursor))
                return rl_fail(RELAY_ERR_ARG, "grid layout: rank %d's blocks exceed 2^63 elements", r);
        }
        l->local_elems[r] = cursor;
    }
    return RELAY_OK;
}

/* ---- blocks of one rank must not share an element --------------------- */

/* Blocks of one rank that interleave with different leading dimensions are
 * checked run by run; this many runs per layout at most, over all its ranks
 * (a budget per rank let a plan file of a few KB cost seconds per 100 ranks:
 * CI's fuzzing timed out on one). */
enum { INTERLEAVE_RUN_LIMIT = 1 << 24 };

/* A block's storage: `outer` runs of `inner` elements, run o at off + o*ld;
 * its hull is [off, end).  id is the block's index in the layout. */
typedef struct { int64_t off, ld, inner, outer, end, id; } block_storage;

static block_storage storage_of(const relay_layout *l, int64_t b)
{
    int col_major = l->order == RELAY_COL_MAJOR;
    int64_t rows = block_rows(l, b), cols = block_cols(l, b);
    block_storage s = {l->offsets[b], l->lds[b], col_major ? rows : cols, col_major ? cols : rows, 0, b};
    s.end = s.off + rl_block_extent(rows, cols, s.ld, l->order);
    return s;
}

static int by_offset(const void *a, const void *b)
{
    const block_storage *x = a, *y = b;
    return (x->off > y->off) - (x->off < y->off);
}

/* floor(a / b) for b > 0, also for negative a. */
static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b < 0); }

/* The first run of s that ends after x, or 0 if all do.  x - (off + inner)
 * cannot overflow: x, off and inner are non-negative and off + inner <= end. */
static int64_t first_run_ending_after(const block_storage *s, int64_t x)
{
    int64_t o = floor_div(x - (s->off + s->inner), s->ld) + 1;
    return o > 0 ? o : 0;
}

/* The last run of s that starts before x, for x <= s->end (-1 if none does). */
static int64_t last_run_starting_before(const block_storage *s, int64_t x)
{
    return floor_div(x - 1 - s->off, s->ld);
}

/* Non-zero when a run of s meets [from, to).  The run found is one of s's
 * (o < outer), so o * ld is within its hull and cannot overflow. */
static int runs_meet(const block_storage *s, int64_t from, int64_t to)
{
    int64_t o = first_run_ending_after(s, from);
    return o < s->outer && s->off + o * s->ld < to;
}

/* Blocks a and b (a->off <= b->off) with one leading dimension ld: run o of
 * a and run o + k of b meet iff -b.inner < d + k*ld < a.inner, d = b.off -
 * a.off, for some k in [1 - a.outer, b.outer - 1].  d + k*ld grows with k,
 * so only the least k in the range above the lower bound can do.  As d >= 0
 * and b.inner <= ld, that k is <= 0, within the range's upper end; k*ld is
 * then at least minus a's extent: nothing overflows. */
static int same_ld_meet(const block_storage *a, const block_storage *b)
{
    int64_t d = b->off - a->off;
    int64_t k = floor_div(a->off - (b->off + b->inner), a->ld) + 1;
    if (k < 1 - a->outer) k = 1 - a->outer;
    return d + k * a->ld < a->inner;
}

/* Runs [*first, *last] of s lie (partly) inside [from, to); their count. */
static int64_t runs_inside(const block_storage *s, int64_t from, int64_t to, int64_t *first, int64_t *last)
{
    *first = first_run_ending_after(s, from);
    *last = last_run_starting_before(s, to);
    return *last >= *first ? *last - *first + 1 : 0;
}

/* Blocks a and b whose hulls intersect and whose leading dimensions differ:
 * walk the runs of the one with fewer runs inside both hulls, asking of each
 * whether the other meets it.  *budget counts the runs rank r may still
 * walk; 1 when they meet, 0 when not, -1 when over budget. */
static int walk_runs_meet(const block_storage *a, const block_storage *b, int64_t *budget)
{
    int64_t from = a->off > b->off ? a->off : b->off, to = a->end < b->end ? a->end : b->end;
    int64_t a_first, a_last, b_first, b_last;
    int64_t a_count = runs_inside(a, from, to, &a_first, &a_last);
    int64_t b_count = runs_inside(b, from, to, &b_first, &b_last);
    const block_storage *walk = a_count <= b_count ? a : b, *other = walk == a ? b : a;
    int64_t first = walk == a ? a_first : b_first, count = walk == a ? a_count : b_count;
    if (count > *budget) return -1;
    *budget -= count;
    for (int64_t o = first; o < first + count; o++) {
        int64_t start = walk->off + o * walk->ld;
        if (runs_meet(other, start, start + walk->inner)) return 1;
    }
    return 0;
}

/* Do blocks a and b of rank r, whose hulls intersect, share an element? */
static relay_status check_block_pair(const relay_layout *l, const block_storage *a, const block_storage *b, int r, int64_t *budget)
{
    int meet = a->ld == b->ld ? same_ld_meet(a, b) : walk_runs_meet(a, b, budget);
    if (meet < 0)
        return rl_fail(RELAY_ERR_ARG, "grid layout: blocks (%lld, %lld) and (%lld, %lld) of rank %d interleave with "
                       "different leading dimensions past the layout's 2^24 runs; relay cannot check them for overlap",
                       (long long)(a->id / l->nbc), (long long)(a->id % l->nbc),
                       (long long)(b->id / l->nbc), (long long)(b->id % l->nbc), r);
    return meet ? rl_fail(RELAY_ERR_ARG, "grid layout: two blocks of rank %d overlap in its buffer", r) : RELAY_OK;
}

/* Sweep the blocks in order of offset, keeping open those whose hull
 * reaches past the current offset: only they can meet the current block or
 * any later one.  Memory is O(blocks); time O(blocks log blocks) plus one
 * O(1) test per pair of intersecting hulls (ScaLAPACK-like storage shares
 * one ld), plus the runs walked for pairs with different lds, which spend
 * *budget. */
static relay_status sweep_blocks(const relay_layout *l, block_storage *set, int64_t *open, int64_t count, int r,
                                 int64_t *budget)
{
    int64_t nopen = 0;
    qsort(set, (size_t)count, sizeof *set, by_offset);
    for (int64_t j = 0; j < count; j++) {
        int64_t kept = 0;
        for (int64_t i = 0; i < nopen; i++) {
            if (set[open[i]].end <= set[j].off) continue;
            relay_status st = check_block_pair(l, &set[open[i]], &set[j], r, budget);
            if (st) return st;
            open[kept++] = open[i];
        }
        open[kept++] = j;
        nopen = kept;
    }
    return RELAY_OK;
}

/* Exact test of whether the blocks of rank r share an element. */
static relay_status check_rank_overlap(const relay_layout *l, int r, int64_t *budget)
{
    int64_t first = l->rank_first[r], count = l->rank_first[r + 1] - first;
    block_storage *set = rl_malloc_array((size_t)count, sizeof *set);
    int64_t *open = rl_malloc_array((size_t)count, sizeof *open);
    relay_status st = set && open ? RELAY_OK : RL_NOMEM();
    for (int64_t k = 0; !st && k < count; k++) set[k] = storage_of(l, l->rank_blocks[first + k]);
    if (!st) st = sweep_blocks(l, set, open, count, r, budget);
    free(set);
    free(open);
    return st;
}

/* User-given offsets and lds: each block must be addressable and the blocks
 * of a rank disjoint. */
static relay_status check_explicit_storage(relay_layout *l, const int64_t *offsets, const int64_t *lds)
{
    int64_t nblocks = (int64_t)l->nbr * l->nbc;
    for (int64_t b = 0; b < nblocks; b++) {
        int64_t rows = block_rows(l, b), cols = block_cols(l, b), ext, end;
        int64_t inner = l->order == RELAY_COL_MAJOR ? rows : cols;
        if (offsets[b] < 0)
            return rl_fail(RELAY_ERR_ARG, "grid layout: offset %lld of block (%lld, %lld) is negative",
                           (long long)offsets[b], (long long)(b / l->nbc), (long long)(b % l->nbc));
        if (lds[b] < inner)
            return rl_fail(RELAY_ERR_ARG, "grid layout: ld %lld of block (%lld, %lld) is smaller than its %s count %lld",
                           (long long)lds[b], (long long)(b / l->nbc), (long long)(b % l->nbc),
                           l->order == RELAY_COL_MAJOR ? "row" : "column", (long long)inner);
        int64_t outer_minus_1 = (l->order == RELAY_COL_MAJOR ? cols : rows) - 1;
        if (rl_mul_overflows(outer_minus_1, lds[b], &ext) || rl_add_overflows(ext, inner, &ext) ||
            rl_add_overflows(offsets[b], ext, &end))
            return rl_fail(RELAY_ERR_ARG, "grid layout: block (%lld, %lld) reaches beyond 2^63 elements",
                           (long long)(b / l->nbc), (long long)(b % l->nbc));
        l->offsets[b] = offsets[b];
        l->lds[b] = lds[b];
        if (end > l->local_elems[l->owners[b]]) l->local_elems[l->owners[b]] = end;
    }
    int64_t budget = INTERLEAVE_RUN_LIMIT;
    for (int r = 0; r < l->nranks; r++) {
        relay_status st = check_rank_overlap(l, r, &budget);
        if (st) return st;
    }
    return RELAY_OK;
}

relay_status relay_layout_grid(relay_layout **out, int nranks, int64_t m, int64_t n,
        int nbr, const int64_t *row_splits, int nbc, const int64_t *col_splits,
        const int *owners, const int64_t *offsets, const int64_t *lds, relay_order elem_order)
{
    if (!out) return rl_fail(RELAY_ERR_ARG, "relay_layout_grid: out is NULL");
    relay_status st = check_grid_args(nranks, m, n, nbr, row_splits, nbc, col_splits, owners, offsets, lds, elem_order);
    if (st) return st;
    relay_layout *l = layout_new(RL_LAYOUT_GRID, nranks, m, n, nbr, nbc, elem_order);
    if (!l) return RL_NOMEM();
    size_t nblocks = (size_t)nbr * (size_t)nbc;
    l->row_splits = rl_malloc_array((size_t)nbr + 1, sizeof(int64_t));
    l->col_splits = rl_malloc_array((size_t)nbc + 1, sizeof(int64_t));
    l->owners = rl_malloc_array(nblocks, sizeof(int));
    l->offsets = rl_malloc_array(nblocks, sizeof(int64_t));
    l->lds = rl_malloc_array(nblocks, sizeof(int64_t));
    if (!l->row_splits || !l->col_splits || !l->owners || !l->offsets || !l->lds) st = RL_NOMEM();
    if (!st) {
        memcpy(l->row_splits, row_splits, ((size_t)nbr + 1) * sizeof(int64_t));
        memcpy(l->col_splits, col_splits, ((size_t)nbc + 1) * sizeof(int64_t));
        if (nblocks) memcpy(l->owners, owners, nblocks * sizeof(int));
        st = index_rank_blocks(l);
    }
    if (!st) {
        l->explicit_offsets = offsets != NULL;
        if (offsets) st = check_explicit_storage(l, offsets, lds);
        else st = pack_blocks(l);
    }
    if (st) {
        relay_layout_free(l);
        return st;
    }
    *out = l;
    return RELAY_OK;
}

/* ---- queries ----------------------------------------------------------- */

int relay_layout_nranks(const relay_layout *l) { return l ? l->nranks : 0; }
int64_t relay_layout_rows(const relay_layout *l) { return l ? l->m : 0; }
int64_t relay_layout_cols(const relay_layout *l) { return l ? l->n : 0; }

int64_t relay_layout_local_elems(const relay_layout *l, int rank)
{
    if (!l) return 0;
    int b = rl_layout_base_rank(l, rank);
    return b < 0 ? 0 : l->local_elems[b];
}

relay_status relay_layout_local_shape(const relay_layout *l, int rank, int64_t *rows, int64_t *cols, int64_t *ld)
{
    if (!l || !rows || !cols || !ld) return rl_fail(RELAY_ERR_ARG, "relay_layout_local_shape: NULL argument");
    if (rank < 0) return rl_fail(RELAY_ERR_ARG, "rank %d is negative", rank);
    if (l->kind != RL_LAYOUT_BLOCK_CYCLIC)
        return rl_fail(RELAY_ERR_UNSUPPORTED, "a grid layout places each block at an offset of its own: its local "
                                              "buffer is flat, with no single local matrix");
    *rows = *cols = *ld = 0;
    int b = rl_layout_base_rank(l, rank);
    if (b < 0 || !l->local_elems[b]) return RELAY_OK;
    const rl_block_cyclic *bc = &l->bc;
    int pr, pc;
    rl_bc_coords(bc, b, &pr, &pc);
    *rows = rl_numroc(bc->i0 + l->m, bc->mb, pr, bc->rsrc, bc->nprow);
    *cols = rl_numroc(bc->j0 + l->n, bc->nb, pc, bc->csrc, bc->npcol);
    *ld = l->bc_ld[b];
    return RELAY_OK;
}

/* The grid row and column holding the layout's first block. */
static int bc_first_row(const rl_block_cyclic *bc) { return rl_bc_block_proc(0, bc->i0, bc->mb, bc->rsrc, bc->nprow); }
static int bc_first_col(const rl_block_cyclic *bc) { return rl_bc_block_proc(0, bc->j0, bc->nb, bc->csrc, bc->npcol); }

static int bc_base_owner(const relay_layout *l, int bi, int bj)
{
    const rl_block_cyclic *bc = &l->bc;
    return rl_bc_rank(bc, rl_bc_block_proc(bi, bc->i0, bc->mb, bc->rsrc, bc->nprow),
                      rl_bc_block_proc(bj, bc->j0, bc->nb, bc->csrc, bc->npcol));
}

/* ScaLAPACK's indxg2l: the local index of global index g. */
static int64_t bc_local(int64_t g, int64_t b, int np)
{
    int64_t cycle;
    if (rl_mul_overflows(b, np, &cycle)) return g % b; /* g lies in the first cycle */
    return g / cycle * b + g % b;
}

int rl_layout_owner(const relay_layout *l, int bi, int bj)
{
    int base = l->kind == RL_LAYOUT_GRID ? l->owners[(int64_t)bi * l->nbc + bj] : bc_base_owner(l, bi, bj);
    return mapped_rank(l, base);
}

int64_t rl_layout_ld(const relay_layout *l, int bi, int bj)
{
    if (l->kind == RL_LAYOUT_GRID) return l->lds[(int64_t)bi * l->nbc + bj];
    return l->bc_ld[bc_base_owner(l, bi, bj)];
}

int64_t rl_layout_offset(const relay_layout *l, int bi, int bj)
{
    if (l->kind == RL_LAYOUT_GRID) return l->offsets[(int64_t)bi * l->nbc + bj];
    const rl_block_cyclic *bc = &l->bc;
    int64_t local_row = bc_local(bc->i0 + rl_layout_row_split(l, bi), bc->mb, bc->nprow);
    int64_t local_col = bc_local(bc->j0 + rl_layout_col_split(l, bj), bc->nb, bc->npcol);
    int64_t ld = l->bc_ld[bc_base_owner(l, bi, bj)];
    return l->order == RELAY_COL_MAJOR ? local_row + local_col * ld : local_row * ld + local_col;
}

static int find_split(const int64_t *splits, int nblocks, int64_t x)
{
    int lo = 0, hi = nblocks - 1; /* largest i with splits[i] <= x */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (splits[mid] <= x) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

int rl_layout_block_row(const relay_layout *l, int64_t i)
{
    return l->kind == RL_LAYOUT_BLOCK_CYCLIC ? (int)((l->bc.i0 + i) / l->bc.mb - l->bc.i0 / l->bc.mb)
                                             : find_split(l->row_splits, l->nbr, i);
}

int rl_layout_block_col(const relay_layout *l, int64_t j)
{
    return l->kind == RL_LAYOUT_BLOCK_CYCLIC ? (int)((l->bc.j0 + j) / l->bc.nb - l->bc.j0 / l->bc.nb)
                                             : find_split(l->col_splits, l->nbc, j);
}

relay_status relay_layout_locate(const relay_layout *l, int64_t i, int64_t j, int *rank, int64_t *index)
{
    if (!l || !rank || !index) return rl_fail(RELAY_ERR_ARG, "relay_layout_locate: NULL argument");
    if (i < 0 || i >= l->m || j < 0 || j >= l->n)
        return rl_fail(RELAY_ERR_ARG, "relay_layout_locate: (%lld, %lld) is outside the %lld x %lld matrix",
                       (long long)i, (long long)j, (long long)l->m, (long long)l->n);
    int bi = rl_layout_block_row(l, i), bj = rl_layout_block_col(l, j);
    int64_t r = i - rl_layout_row_split(l, bi), c = j - rl_layout_col_split(l, bj), ld = rl_layout_ld(l, bi, bj);
    *rank = rl_layout_owner(l, bi, bj);
    *index = rl_layout_offset(l, bi, bj) + (l->order == RELAY_COL_MAJOR ? r + c * ld : r * ld + c);
    return RELAY_OK;
}

int64_t rl_layout_block_count(const relay_layout *l, int rank)
{
    int b = rl_layout_base_rank(l, rank);
    if (b < 0) return 0;
    if (l->kind == RL_LAYOUT_GRID) return l->rank_first[b + 1] - l->rank_first[b];
    int pr, pc;
    rl_bc_coords(&l->bc, b, &pr, &pc);
    int64_t br = ((int64_t)l->nbr + l->bc.nprow - 1 - (pr - bc_first_row(&l->bc) + l->bc.nprow) % l->bc.nprow) / l->bc.nprow;
    int64_t bcn = ((int64_t)l->nbc + l->bc.npcol - 1 - (pc - bc_first_col(&l->bc) + l->bc.npcol) % l->bc.npcol) / l->bc.npcol;
    return br * bcn;
}

void rl_layout_for_each_block(const relay_layout *l, int rank, rl_block_visitor visit, void *ctx)
{
    int b = rl_layout_base_rank(l, rank);
    if (b < 0) return;
    if (l->kind == RL_LAYOUT_GRID) {
        for (int64_t k = l->rank_first[b]; k < l->rank_first[b + 1]; k++)
            visit((int)(l->rank_blocks[k] / l->nbc), (int)(l->rank_blocks[k] % l->nbc), ctx);
        return;
    }
    const rl_block_cyclic *bc = &l->bc;
    int pr, pc;
    rl_bc_coords(bc, b, &pr, &pc);
    for (int64_t bi = (pr - bc_first_row(bc) + bc->nprow) % bc->nprow; bi < l->nbr; bi += bc->nprow)
        for (int64_t bj = (pc - bc_first_col(bc) + bc->npcol) % bc->npcol; bj < l->nbc; bj += bc->npcol)
            visit((int)bi, (int)bj, ctx);
}

/* ---- buffer positions back to elements (rl_buffer_map) ------------------ */

/* One dimension of a block-cyclic rank's buffer: the local indices
 * [lo, hi) that hold the layout's rows (or columns), in blocks of b over
 * np processes, this one `dist` after the source, the layout starting at
 * global index origin. */
typedef struct {
    int64_t lo, hi, b, origin;
    int np, dist;
} bc_axis;

/* A contiguous run of a grid block in a rank's buffer: [start, end). */
typedef struct {
    int64_t start, end, block;
} block_run;

struct rl_buffer_map {
    const relay_layout *l;
    int64_t elems;
    int64_t ld;              /* block-cyclic: the rank's */
    bc_axis rows, cols;      /* block-cyclic */
    block_run *runs;         /* grid: sorted by start */
    int64_t nruns;
};

static bc_axis bc_axis_of(int64_t size, int64_t origin, int64_t b, int p, int src, int np)
{
    return (bc_axis){rl_numroc(origin, b, p, src, np), rl_numroc(origin + size, b, p, src, np), b, origin, np,
                     (p - src + np) % np};
}

/* ScaLAPACK's indxl2g, relative to the layout's origin, where local index
 * loc holds a row (column) of the layout.  No intermediate exceeds the
 * global index, which exists. */
static int bc_axis_global(const bc_axis *a, int64_t loc, int64_t *g)
{
    if (loc < a->lo || loc >= a->hi) return 0;
    *g = (loc / a->b * a->np + a->dist) * a->b + loc % a->b - a->origin;
    return 1;
}

static void bc_map(rl_buffer_map *m, int base)
{
    const relay_layout *l = m->l;
    const rl_block_cyclic *bc = &l->bc;
    int pr, pc;
    rl_bc_coords(bc, base, &pr, &pc);
    m->ld = l->bc_ld[base];
    m->rows = bc_axis_of(l->m, bc->i0, bc->mb, pr, bc->rsrc, bc->nprow);
    m->cols = bc_axis_of(l->n, bc->j0, bc->nb, pc, bc->csrc, bc->npcol);
    if (m->rows.hi > m->rows.lo && m->cols.hi > m->cols.lo) m->elems = (m->rows.hi - m->rows.lo) * (m->cols.hi - m->cols.lo);
}

static int run_cmp(const void *a, const void *b)
{
    const block_run *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* A block stored tightly is one run; otherwise one run per column
 * (column-major) or row.  Writes the runs to out if not NULL; returns how
 * many there are. */
static int64_t block_runs(const relay_layout *l, int64_t b, block_run *out)
{
    int64_t rows = block_rows(l, b), cols = block_cols(l, b), ld = l->lds[b], off = l->offsets[b];
    int64_t inner = l->order == RELAY_COL_MAJOR ? rows : cols, outer = l->order == RELAY_COL_MAJOR ? cols : rows;
    if (ld == inner || outer == 1) {
        if (out) out[0] = (block_run){off, off + rows * cols, b};
        return 1;
    }
    for (int64_t o = 0; out && o < outer; o++) out[o] = (block_run){off + o * ld, off + o * ld + inner, b};
    return outer;
}

static relay_status grid_map(rl_buffer_map *m, int base)
{
    const relay_layout *l = m->l;
    int64_t first = l->rank_first[base], last = l->rank_first[base + 1], n = 0;
    for (int64_t k = first; k < last; k++) {
        n += block_runs(l, l->rank_blocks[k], NULL);
        m->elems += block_rows(l, l->rank_blocks[k]) * block_cols(l, l->rank_blocks[k]);
    }
    m->runs = rl_malloc_array((size_t)n, sizeof *m->runs);
    if (!m->runs) return RL_NOMEM();
    for (int64_t k = first; k < last; k++) m->nruns += block_runs(l, l->rank_blocks[k], m->runs + m->nruns);
    qsort(m->runs, (size_t)n, sizeof *m->runs, run_cmp);
    return RELAY_OK;
}

relay_status rl_buffer_map_new(rl_buffer_map **out, const relay_layout *l, int rank)
{
    rl_buffer_map *m = calloc(1, sizeof *m);
    if (!m) return RL_NOMEM();
    m->l = l;
    int base = rl_layout_base_rank(l, rank);
    relay_status st = RELAY_OK;
    if (base >= 0 && l->kind == RL_LAYOUT_BLOCK_CYCLIC) bc_map(m, base);
    else if (base >= 0) st = grid_map(m, base);
    if (st) {
        rl_buffer_map_free(m);
        return st;
    }
    *out = m;
    return RELAY_OK;
}

void rl_buffer_map_free(rl_buffer_map *m)
{
    if (!m) return;
    free(m->runs);
    free(m);
}

int64_t rl_buffer_map_elems(const rl_buffer_map *m) { return m->elems; }

/* The run holding pos, or NULL. */
static const block_run *run_at(const rl_buffer_map *m, int64_t pos)
{
    int64_t lo = 0, hi = m->nruns; /* the first run starting after pos is in [lo, hi] */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (m->runs[mid].start <= pos) lo = mid + 1;
        else hi = mid;
    }
    return lo > 0 && pos < m->runs[lo - 1].end ? &m->runs[lo - 1] : NULL;
}

static int grid_element_run(const rl_buffer_map *m, int64_t pos, int64_t *i, int64_t *j, int64_t *run)
{
    const relay_layout *l = m->l;
    const block_run *br = run_at(m, pos);
    if (!br) return 0;
    int64_t b = br->block, d = pos - l->offsets[b], ld = l->lds[b];
    int cm = l->order == RELAY_COL_MAJOR;
    *i = l->row_splits[b / l->nbc] + (cm ? d % ld : d / ld);
    *j = l->col_splits[b % l->nbc] + (cm ? d / ld : d % ld);
    *run = (cm ? block_rows(l, b) : block_cols(l, b)) - d % ld;
    return 1;
}

/* Local index loc and those after it up to the end of its block or of the
 * layout: how many hold consecutive rows (columns). */
static int64_t bc_axis_run(const bc_axis *a, int64_t loc)
{
    int64_t to_block_end = a->b - loc % a->b, to_end = a->hi - loc;
    return to_block_end < to_end ? to_block_end : to_end;
}

int rl_layout_element_run(const rl_buffer_map *m, int64_t pos, int64_t *i, int64_t *j, int64_t *run)
{
    if (pos < 0) return 0;
    if (m->l->kind == RL_LAYOUT_GRID) return grid_element_run(m, pos, i, j, run);
    if (m->ld <= 0) return 0; /* a rank of no base, or given ld 0 where it holds nothing */
    int64_t inner = pos % m->ld, outer = pos / m->ld;
    int cm = m->l->order == RELAY_COL_MAJOR;
    if (!bc_axis_global(&m->rows, cm ? inner : outer, i) || !bc_axis_global(&m->cols, cm ? outer : inner, j)) return 0;
    *run = bc_axis_run(cm ? &m->rows : &m->cols, inner);
    return 1;
}

int rl_layout_element_at(const rl_buffer_map *m, int64_t pos, int64_t *i, int64_t *j)
{
    int64_t run;
    return rl_layout_element_run(m, pos, i, j, &run);
}

/* ---- copies ------------------------------------------------------------ */

static relay_status dup_array(void **dst, const void *src, size_t count, size_t size)
{
    *dst = NULL;
    if (!src) return RELAY_OK;
    *dst = rl_malloc_array(count, size);
    if (!*dst) return RL_NOMEM();
    memcpy(*dst, src, count * size);
    return RELAY_OK;
}

/* Forgets every array of a shallow copy, so that it owns nothing yet. */
static void clear_arrays(relay_layout *c)
{
    c->row_splits = c->col_splits = c->bc_ld = c->offsets = c->lds = NULL;
    c->rank_first = c->rank_blocks = c->local_elems = NULL;
    c->owners = NULL;
    c->rank_map = c->rank_unmap = NULL;
}

static relay_status layout_clone(relay_layout **out, const relay_layout *l)
{
    relay_layout *c = calloc(1, sizeof *c);
    if (!c) return RL_NOMEM();
    *c = *l;
    clear_arrays(c);
    c->maps_borrowed = 0;
    size_t nblocks = (size_t)l->nbr * (size_t)l->nbc;
    relay_status st = RELAY_OK;
    st = st ? st : dup_array((void **)&c->row_splits, l->row_splits, (size_t)l->nbr + 1, sizeof(int64_t));
    st = st ? st : dup_array((void **)&c->col_splits, l->col_splits, (size_t)l->nbc + 1, sizeof(int64_t));
    st = st ? st : dup_array((void **)&c->bc_ld, l->bc_ld, (size_t)l->base_nranks, sizeof(int64_t));
    st = st ? st : dup_array((void **)&c->owners, l->owners, nblocks, sizeof(int));
    st = st ? st : dup_array((void **)&c->offsets, l->offsets, nblocks, sizeof(int64_t));
    st = st ? st : dup_array((void **)&c->lds, l->lds, nblocks, sizeof(int64_t));
    st = st ? st : dup_array((void **)&c->rank_first, l->rank_first, (size_t)l->base_nranks + 1, sizeof(int64_t));
    st = st ? st : dup_array((void **)&c->rank_blocks, l->rank_blocks, nblocks, sizeof(int64_t));
    st = st ? st : dup_array((void **)&c->local_elems, l->local_elems, (size_t)l->base_nranks, sizeof(int64_t));
    st = st ? st : dup_array((void **)&c->rank_map, l->rank_map, (size_t)l->base_nranks, sizeof(int32_t));
    st = st ? st : dup_array((void **)&c->rank_unmap, l->rank_unmap, (size_t)l->nranks, sizeof(int32_t));
    if (st) {
        relay_layout_free(c);
        return st;
    }
    *out = c;
    return RELAY_OK;
}

void rl_layout_widen(relay_layout *l, int nranks) { l->nranks = nranks; }

/* A copy of l over nranks ranks, its maps still to be set. */
static relay_status relabel_clone(relay_layout **out, const relay_layout *l, int nranks)
{
    if (nranks < l->nranks) return rl_fail(RELAY_ERR_ARG, "layout has %d ranks, more than the plan's %d", l->nranks, nranks);
    if (l->rank_map) return rl_fail(RELAY_ERR_ARG, "a relabeled layout cannot be relabeled again");
    relay_status st = layout_clone(out, l);
    if (!st) (*out)->nranks = nranks;
    return st;
}

relay_status rl_layout_relabel_shared(relay_layout **out, const relay_layout *l, const int32_t *sigma,
                                      const int32_t *inverse, int nranks)
{
    relay_layout *c = NULL;
    relay_status st = relabel_clone(&c, l, nranks);
    if (st) return st;
    c->rank_map = (int32_t *)sigma;
    c->rank_unmap = (int32_t *)inverse;
    c->maps_borrowed = 1;
    *out = c;
    return RELAY_OK;
}

relay_status rl_layout_relabel(relay_layout **out, const relay_layout *l, const int32_t *sigma, int nranks)
{
    relay_layout *c = NULL;
    relay_status st = relabel_clone(&c, l, nranks);
    if (st || !sigma) { /* the identity needs no maps: ranks past the layout's own hold nothing */
        if (!st) *out = c;
        return st;
    }
    c->rank_map = rl_malloc_array((size_t)l->base_nranks, sizeof(int32_t));
    c->rank_unmap = rl_malloc_array((size_t)nranks, sizeof(int32_t));
    if (!c->rank_map || !c->rank_unmap) {
        relay_layout_free(c);
        return RL_NOMEM();
    }
    for (int r = 0; r < nranks; r++) c->rank_unmap[r] = -1;
    for (int b = 0; b < l->base_nranks; b++) {
        c->rank_map[b] = sigma[b];
        c->rank_unmap[sigma[b]] = b;
    }
    *out = c;
    return RELAY_OK;
}
