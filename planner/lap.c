/* lap.c — sparse maximum-weight assignment: exact (Jonker-Volgenant
 * augmenting paths with a binary heap) and greedy.
 *
 * The exact solver turns gains into non-negative costs, cost = W - gain with
 * W the largest gain, and gives each row r a private dummy column n+r of
 * cost W ("leave r for later": gain 0).  Each row is then inserted by one
 * shortest augmenting path (Dijkstra over reduced costs c - v, JV's
 * augmentation step), which explores only the edges around the path.  Rows
 * that end on their dummy take the columns nobody gained from, keeping
 * their own index when it is free. */
#include <string.h>

#include "error.h"
#include "lap.h"

/* Rows left unassigned by a solver get the free columns: their own index when
 * free, otherwise the smallest free one. */
static void complete_assignment(int n, int32_t *assign, int32_t *row_of)
{
    int32_t next_free = 0;
    for (int r = 0; r < n; r++)
        if (assign[r] < 0 && row_of[r] < 0) {
            assign[r] = r;
            row_of[r] = r;
        }
    for (int r = 0; r < n; r++) {
        if (assign[r] >= 0) continue;
        while (row_of[next_free] >= 0) next_free++;
        assign[r] = next_free;
        row_of[next_free] = r;
    }
}

int64_t rl_lap_gain(const rl_gain_matrix *g, const int32_t *assign)
{
    int64_t total = 0;
    for (int r = 0; r < g->n; r++)
        for (int64_t e = g->start[r]; e < g->start[r + 1]; e++)
            if (g->col[e] == assign[r]) total += g->gain[e];
    return total;
}

/* ---- greedy --------------------------------------------------------------- */

typedef struct {
    int64_t gain;
    int32_t row, col;
} edge;

static int edge_cmp(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    if (x->gain != y->gain) return x->gain > y->gain ? -1 : 1;
    if (x->row != y->row) return x->row < y->row ? -1 : 1;
    return (x->col > y->col) - (x->col < y->col);
}

relay_status rl_lap_greedy(const rl_gain_matrix *g, int32_t *assign)
{
    int n = g->n;
    int64_t m = g->start[n];
    edge *edges = rl_malloc_array((size_t)m, sizeof *edges);
    int32_t *row_of = rl_malloc_array((size_t)n, sizeof *row_of);
    if (!edges || !row_of) {
        free(edges);
        free(row_of);
        return RL_NOMEM();
    }
    for (int r = 0; r < n; r++) {
        assign[r] = row_of[r] = -1;
        for (int64_t e = g->start[r]; e < g->start[r + 1]; e++) edges[e] = (edge){g->gain[e], r, g->col[e]};
    }
    if (m > 1) qsort(edges, (size_t)m, sizeof *edges, edge_cmp);
    for (int64_t e = 0; e < m; e++)
        if (assign[edges[e].row] < 0 && row_of[edges[e].col] < 0) {
            assign[edges[e].row] = edges[e].col;
            row_of[edges[e].col] = edges[e].row;
        }
    complete_assignment(n, assign, row_of);
    free(edges);
    free(row_of);
    return RELAY_OK;
}

/* ---- exact: JV shortest augmenting paths ------------------------------------ */

typedef struct {
    int64_t dist;
    int32_t col;
} heap_item;

typedef struct {
    const rl_gain_matrix *g;
    int64_t w;              /* the largest gain: cost = w - gain >= 0 */
    int n;
    int64_t *v;             /* column potentials, 2n (dummies after real columns) */
    int64_t *dist;          /* tentative distances, 2n; INT64_MAX when untouched */
    int32_t *pred;          /* row from which each column was reached */
    int32_t *row_of;        /* row assigned to each column, or -1 */
    int32_t *col_of;        /* column assigned to each row */
    char *scanned;
    int32_t *touched;       /* columns whose dist was set in this search */
    int64_t ntouched;
    heap_item *heap;
    int64_t heap_len;
} jv_state;

static void heap_push(jv_state *s, int64_t dist, int32_t col)
{
    int64_t i = s->heap_len++;
    while (i > 0) {
        int64_t parent = (i - 1) / 2;
        heap_item p = s->heap[parent];
        if (p.dist < dist || (p.dist == dist && p.col <= col)) break;
        s->heap[i] = p;
        i = parent;
    }
    s->heap[i] = (heap_item){dist, col};
}

static heap_item heap_pop(jv_state *s)
{
    heap_item top = s->heap[0], last = s->heap[--s->heap_len];
    int64_t i = 0;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= s->heap_len) break;
        if (c + 1 < s->heap_len && (s->heap[c + 1].dist < s->heap[c].dist ||
                                    (s->heap[c + 1].dist == s->heap[c].dist && s->heap[c + 1].col < s->heap[c].col)))
            c++;
        if (last.dist < s->heap[c].dist || (last.dist == s->heap[c].dist && last.col <= s->heap[c].col)) break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    s->heap[i] = last;
    return top;
}

static void relax(jv_state *s, int32_t col, int64_t d, int32_t row)
{
    if (s->scanned[col] || d >= s->dist[col]) return;
    if (s->dist[col] == INT64_MAX) s->touched[s->ntouched++] = col;
    s->dist[col] = d;
    s->pred[col] = row;
    heap_push(s, d, col);
}

/* Relaxes every column of `row` (its edges and its dummy), reached at
 * reduced distance `base`: base + c(row, col) - v[col]. */
static void relax_row(jv_state *s, int32_t row, int64_t base)
{
    const rl_gain_matrix *g = s->g;
    for (int64_t e = g->start[row]; e < g->start[row + 1]; e++)
        relax(s, g->col[e], base + (s->w - g->gain[e]) - s->v[g->col[e]], row);
    relax(s, s->n + row, base + s->w - s->v[s->n + row], row);
}

/* Cost of the assigned edge (row, col): its gain edge, or the dummy. */
static int64_t assigned_cost(const jv_state *s, int32_t row, int32_t col)
{
    const rl_gain_matrix *g = s->g;
    if (col >= s->n) return s->w;
    for (int64_t e = g->start[row]; e < g->start[row + 1]; e++)
        if (g->col[e] == col) return s->w - g->gain[e];
    return s->w; /* unreachable: rows are only assigned along their edges */
}

/* Inserts free row `root` by one shortest augmenting path. */
static void augment(jv_state *s, int32_t root)
{
    int32_t sink = -1;
    int64_t mu = 0;
    s->ntouched = 0;
    s->heap_len = 0;
    relax_row(s, root, 0);
    while (s->heap_len > 0) {
        heap_item it = heap_pop(s);
        if (s->scanned[it.col] || it.dist != s->dist[it.col]) continue;
        s->scanned[it.col] = 1;
        if (s->row_of[it.col] < 0) {
            sink = it.col;
            mu = it.dist;
            break;
        }
        int32_t row = s->row_of[it.col];
        /* Through the tight assigned edge (row, col): h = c(row, col) - v[col] - dist. */
        relax_row(s, row, it.dist - (assigned_cost(s, row, it.col) - s->v[it.col]));
    }
    for (int64_t k = 0; k < s->ntouched; k++) {
        int32_t c = s->touched[k];
        if (s->scanned[c]) s->v[c] += s->dist[c] - mu;
        s->dist[c] = INT64_MAX;
        s->scanned[c] = 0;
    }
    for (int32_t col = sink;;) {
        int32_t row = s->pred[col], next = s->col_of[row];
        s->row_of[col] = row;
        s->col_of[row] = col;
        if (row == root) break;
        col = next;
    }
}

relay_status rl_lap_optimal(const rl_gain_matrix *g, int32_t *assign)
{
    int n = g->n;
    int64_t m = g->start[n];
    jv_state s = {.g = g, .n = n, .w = 0};
    for (int64_t e = 0; e < m; e++)
        if (g->gain[e] > s.w) s.w = g->gain[e];
    size_t cols = 2 * (size_t)n;
    s.v = rl_calloc(cols, sizeof *s.v);
    s.dist = rl_malloc_array(cols, sizeof *s.dist);
    s.pred = rl_malloc_array(cols, sizeof *s.pred);
    s.row_of = rl_malloc_array(cols, sizeof *s.row_of);
    s.col_of = rl_malloc_array((size_t)n, sizeof *s.col_of);
    s.scanned = rl_calloc(cols, 1);
    s.touched = rl_malloc_array(cols, sizeof *s.touched);
    s.heap = rl_malloc_array(cols + (size_t)m + (size_t)n, sizeof *s.heap);
    relay_status st = RELAY_OK;
    if (!s.v || !s.dist || !s.pred || !s.row_of || !s.col_of || !s.scanned || !s.touched || !s.heap) st = RL_NOMEM();
    if (!st) {
        for (size_t c = 0; c < cols; c++) {
            s.dist[c] = INT64_MAX;
            s.row_of[c] = -1;
        }
        for (int32_t r = 0; r < n; r++) augment(&s, r);
        for (int32_t r = 0; r < n; r++) assign[r] = s.col_of[r] < n ? s.col_of[r] : -1;
        complete_assignment(n, assign, s.row_of);
    }
    free(s.v);
    free(s.dist);
    free(s.pred);
    free(s.row_of);
    free(s.col_of);
    free(s.scanned);
    free(s.touched);
    free(s.heap);
    return st;
}
