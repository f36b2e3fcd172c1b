/* lap.h — maximum-weight assignment on sparse gain matrices.
 *
 * The relabeling problem (COSTA, section 4) is a linear assignment problem
 * on a complete bipartite graph whose gains are mostly zero: rank x's data
 * comes from few ranks.  Only positive gains are given, in CSR by row;
 * every absent pair has gain 0.  Both solvers return a full permutation
 * assign[row] = column and are deterministic. */
#ifndef RELAY_LAP_H
#define RELAY_LAP_H

#include "relay/status.h"

typedef struct {
    int n;                 /* rows = columns */
    const int64_t *start;  /* n+1: row r's edges are [start[r], start[r+1]) */
    const int32_t *col;    /* column of each edge */
    const int64_t *gain;   /* gain of each edge, > 0 */
} rl_gain_matrix;

/* Exact: a Jonker-Volgenant shortest augmenting path solver that visits only
 * edges present in the matrix (plus one zero-gain "stay unassigned" edge per
 * row, completed afterwards with leftover columns). */
relay_status rl_lap_optimal(const rl_gain_matrix *g, int32_t *assign);

/* Greedy: edges by decreasing gain, taken when both ends are free; a
 * 2-approximation of the optimum. */
relay_status rl_lap_greedy(const rl_gain_matrix *g, int32_t *assign);

/* Total gain of an assignment. */
int64_t rl_lap_gain(const rl_gain_matrix *g, const int32_t *assign);

#endif
