/* relabel.c — communication-optimal process relabeling (COSTA, section 4).
 *
 * Placing the blocks of logical rank x on rank y keeps local the bytes y
 * already holds for x: under the locally-free volume cost the gain of
 * x -> y is |S_yx| (Remark 2; the constant -|S_xx| of every row drops out).
 * With a node map, a byte from s to y costs 0 when s = y, 1 within a node
 * and w across nodes; then the gain is |S_yx| + (w - 1) * N_x(node(y)),
 * where N_x(k) is what node k holds for x.  The gain matrix is directed
 * (never symmetrised), and any permutation may come out of the solver. */
#include <math.h>
#include <string.h>

#include "error.h"
#include "lap.h"
#include "relabel.h"
#include "volumes.h"

/* Ranks of each node, CSR. */
typedef struct {
    int nnodes;
    int64_t *first;
    int32_t *ranks;
} node_index;

static relay_status index_nodes(node_index *ni, const int *node_of_rank, int n)
{
    ni->nnodes = 0;
    for (int r = 0; r < n; r++)
        if (node_of_rank[r] + 1 > ni->nnodes) ni->nnodes = node_of_rank[r] + 1;
    ni->first = rl_calloc((size_t)ni->nnodes + 1, sizeof *ni->first);
    ni->ranks = rl_malloc_array((size_t)n, sizeof *ni->ranks);
    if (!ni->first || !ni->ranks) return RL_NOMEM();
    for (int r = 0; r < n; r++) ni->first[node_of_rank[r] + 1]++;
    for (int k = 0; k < ni->nnodes; k++) ni->first[k + 1] += ni->first[k];
    int64_t *cursor = rl_malloc_array((size_t)ni->nnodes + 1, sizeof *cursor);
    if (!cursor) return RL_NOMEM();
    memcpy(cursor, ni->first, ((size_t)ni->nnodes + 1) * sizeof *cursor);
    for (int r = 0; r < n; r++) ni->ranks[cursor[node_of_rank[r]]++] = r;
    free(cursor);
    return RELAY_OK;
}

/* A growable CSR gain matrix under construction. */
typedef struct {
    int64_t *start, *gain, len, cap;
    int32_t *col;
} gain_builder;

static int push_edge(gain_builder *b, int32_t col, int64_t gain)
{
    if (gain <= 0) return 1;
    if (b->len == b->cap) {
        int64_t cap = b->cap ? 2 * b->cap : 1024;
        int32_t *c = realloc(b->col, (size_t)cap * sizeof *c);
        if (c) b->col = c;
        int64_t *g = realloc(b->gain, (size_t)cap * sizeof *g);
        if (g) b->gain = g;
        if (!c || !g) return 0;
        b->cap = cap;
    }
    b->col[b->len] = col;
    b->gain[b->len++] = gain;
    return 1;
}

/* Row x of the node-aware gain: every rank y on a node that holds data for
 * x, gain |S_yx| + (w-1) N_x(node(y)). */
static int node_aware_row(gain_builder *b, const rl_volumes *v, int x, const int *node_of_rank,
                          const node_index *ni, double w, int64_t *node_bytes, int64_t *own)
{
    int ok = 1;
    for (int64_t e = v->start[x]; e < v->start[x + 1]; e++) {
        node_bytes[node_of_rank[v->from[e]]] += v->bytes[e];
        own[v->from[e]] = v->bytes[e];
    }
    for (int64_t e = v->start[x]; ok && e < v->start[x + 1]; e++) {
        int k = node_of_rank[v->from[e]];
        if (node_bytes[k] < 0) continue; /* node already emitted */
        int64_t extra = llround((w - 1.0) * (double)node_bytes[k]);
        for (int64_t i = ni->first[k]; ok && i < ni->first[k + 1]; i++)
            ok = push_edge(b, ni->ranks[i], own[ni->ranks[i]] + extra);
        node_bytes[k] = -1;
    }
    for (int64_t e = v->start[x]; e < v->start[x + 1]; e++) {
        node_bytes[node_of_rank[v->from[e]]] = 0;
        own[v->from[e]] = 0;
    }
    return ok;
}

static relay_status build_gains(gain_builder *b, const rl_volumes *v, const relay_plan_options *o)
{
    int n = v->n;
    node_index ni = {0};
    int64_t *node_bytes = NULL, *own = NULL;
    relay_status st = RELAY_OK;
    b->start = rl_calloc((size_t)n + 1, sizeof *b->start);
    if (!b->start) return RL_NOMEM();
    if (o->node_of_rank) {
        st = index_nodes(&ni, o->node_of_rank, n);
        node_bytes = rl_calloc((size_t)ni.nnodes + 1, sizeof *node_bytes);
        own = rl_calloc((size_t)n, sizeof *own);
        if (!st && (!node_bytes || !own)) st = RL_NOMEM();
    }
    for (int x = 0; !st && x < n; x++) {
        int ok = 1;
        if (o->node_of_rank) ok = node_aware_row(b, v, x, o->node_of_rank, &ni, o->inter_node_weight, node_bytes, own);
        else
            for (int64_t e = v->start[x]; ok && e < v->start[x + 1]; e++) ok = push_edge(b, v->from[e], v->bytes[e]);
        if (!ok) st = RL_NOMEM();
        b->start[x + 1] = b->len;
    }
    free(ni.first);
    free(ni.ranks);
    free(node_bytes);
    free(own);
    return st;
}

static int64_t remote_bytes(const rl_volumes *v, const int32_t *sigma)
{
    int64_t total = 0;
    for (int x = 0; x < v->n; x++)
        for (int64_t e = v->start[x]; e < v->start[x + 1]; e++)
            if (v->from[e] != (sigma ? sigma[x] : x)) total += v->bytes[e];
    return total;
}

/* The greedy solver can end below the identity's gain (it is only a
 * 2-approximation); relabeling must never make a plan worse. */
static void keep_identity_if_better(const rl_gain_matrix *g, int32_t *sigma)
{
    int64_t identity = 0;
    for (int x = 0; x < g->n; x++)
        for (int64_t e = g->start[x]; e < g->start[x + 1]; e++)
            if (g->col[e] == x) identity += g->gain[e];
    if (identity > rl_lap_gain(g, sigma))
        for (int x = 0; x < g->n; x++) sigma[x] = x;
}

relay_status rl_relabel(const rl_volumes *v, const relay_plan_options *o, int32_t *sigma, rl_relabel_result *res)
{
    gain_builder b = {0};
    relay_status st = build_gains(&b, v, o);
    if (!st) {
        rl_gain_matrix g = {v->n, b.start, b.col, b.gain};
        st = o->relabel == RELAY_RELABEL_OPTIMAL ? rl_lap_optimal(&g, sigma) : rl_lap_greedy(&g, sigma);
        if (!st) keep_identity_if_better(&g, sigma);
        if (!st && res) {
            res->remote_identity = remote_bytes(v, NULL);
            res->remote = remote_bytes(v, sigma);
            res->gain = rl_lap_gain(&g, sigma);
        }
    }
    free(b.start);
    free(b.col);
    free(b.gain);
    return st;
}
