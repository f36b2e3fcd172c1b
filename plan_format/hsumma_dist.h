/* hsumma_dist.h — what every rank derives from an HSUMMA plan's few
 * parameters (hsumma_dist.c): how each dimension is distributed, the
 * sequence of outer and inner steps, each rank's place in the groups, the
 * groupings the grid allows, local sizes, traffic and statistics.
 *
 * Nothing is stored per step or per rank: a plan is its parameters, and
 * planner, executor and relay-dump walk the same steps from them. */
#ifndef RELAY_HSUMMA_DIST_H
#define RELAY_HSUMMA_DIST_H

#include "plan_internal.h"

static inline int64_t rl_min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* One dimension of length len cut over `parts` grid rows or columns:
 * balanced contiguous parts (block == 0) or block-cyclic with `block`. */
typedef struct {
    int64_t len;
    int parts;
    int64_t block;
} rl_dim;

int rl_dim_owner(const rl_dim *d, int64_t g);
int64_t rl_dim_part_start(const rl_dim *d, int part);   /* first index of a part (contiguous parts only) */
int64_t rl_dim_local(const rl_dim *d, int64_t g);        /* index on its owner */
int64_t rl_dim_local_len(const rl_dim *d, int part);
int64_t rl_dim_run_end(const rl_dim *d, int64_t g);      /* end of the owner's run holding g */
int64_t rl_dim_global(const rl_dim *d, int part, int64_t l); /* part's local index l, globally */
/* Part 0 holds the most of any part, in both distributions. */
static inline int64_t rl_dim_max_local_len(const rl_dim *d) { return rl_dim_local_len(d, 0); }

/* The four distributed dimensions of C = A B. */
typedef struct {
    rl_dim m;    /* rows of A and C over the grid rows */
    rl_dim n;    /* columns of B and C over the grid columns */
    rl_dim ka;   /* columns of A over the grid columns */
    rl_dim kb;   /* rows of B over the grid rows */
} rl_hsumma_dims;
void rl_hsumma_dims_of(const relay_hsumma_params *p, rl_hsumma_dims *d);

/* An outer step: k indices [k0, k1), held by grid column a_col of A (at
 * local column a_local) and grid row b_row of B (at local row b_local). */
typedef struct {
    int64_t k0, k1;
    int a_col, b_row;
    int64_t a_local, b_local;
} rl_outer_step;

/* The widest outer step: B, k, and the longest run of k one grid column
 * of A or grid row of B holds bound it.  Panel buffers have this width. */
int64_t rl_hsumma_max_width(const relay_hsumma_params *p);

/* The outer step that starts at k0 < k. */
void rl_hsumma_outer_step(const relay_hsumma_params *p, const rl_hsumma_dims *d, int64_t k0, rl_outer_step *s);
/* The end of the inner step starting at i0 inside outer step s. */
static inline int64_t rl_hsumma_inner_end(const relay_hsumma_params *p, const rl_outer_step *s, int64_t i0)
{
    return i0 + p->inner_block < s->k1 ? i0 + p->inner_block : s->k1;
}
static inline int64_t rl_hsumma_inner_count(const relay_hsumma_params *p, const rl_outer_step *s)
{
    return (s->k1 - s->k0 + p->inner_block - 1) / p->inner_block;
}

/* A rank's place: grid row and column, group (x, y) of I x J, and
 * position (i, j) inside its (s/I) x (t/J) group. */
typedef struct {
    int row, col;
    int group_rows, group_cols;    /* I, J */
    int in_rows, in_cols;          /* s/I, t/J */
    int x, y, i, j;
} rl_hsumma_place;
void rl_hsumma_place_of(const relay_hsumma_params *p, int group_rows, int group_cols, int rank, rl_hsumma_place *pl);

/* Steps to the next I x J (group_rows x group_cols) the grid allows (I dividing its rows, J
 * its columns), I-major; 0 x 0 starts at 1 x 1.  Returns 0 after the last. */
int rl_hsumma_next_grouping(const relay_hsumma_params *p, int *group_rows, int *group_cols);

/* The local rows and columns of rank's A (which 0), B (1) or C (2),
 * stored column-major at a leading dimension of its rows; and their product. */
void rl_hsumma_local_dims(const relay_hsumma_params *p, int which, int rank, int64_t *rows, int64_t *cols);
int64_t rl_hsumma_local_elems(const relay_hsumma_params *p, int which, int rank);

/* What one rank moves in one replay with I x J groups (I = J = 0: as
 * SUMMA).  A broadcast counts once per receiving rank: its root "sends" its
 * panel to each of them; local_bytes are the owners' panel copies. */
typedef struct {
    int64_t send_bytes, recv_bytes, send_msgs, recv_msgs, local_bytes;
} rl_hsumma_traffic;
void rl_hsumma_rank_traffic(const relay_hsumma_params *p, int rank, rl_hsumma_traffic *t);
/* The same in two parts, for many ranks at O(s + t) walks: a grid
 * column's traffic of A's panels (is_row 0) or a grid row's of B's
 * (is_row 1), per byte of a rank's panel row or column; then one rank's
 * from its column's and row's. */
void rl_hsumma_line_traffic(const relay_hsumma_params *p, int is_row, int index, rl_hsumma_traffic *t);
void rl_hsumma_combine_traffic(const relay_hsumma_params *p, int rank, const rl_hsumma_traffic *a_col,
                               const rl_hsumma_traffic *b_row, rl_hsumma_traffic *t);
/* The plan's statistics and step counts, one outer step at a time. */
void rl_hsumma_stats(const relay_hsumma_params *p, relay_plan_stats *st, int64_t *outer, int64_t *inner);

#endif
