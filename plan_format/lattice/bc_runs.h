/* bc_runs.h — the 1-D overlay of two block-cyclic distributions as a few
 * arithmetic progressions of runs, in time independent of the length.
 *
 * The first step towards structured plans: the pieces a rank sends another
 * between two ScaLAPACK layouts are products of a row progression and a
 * column progression of these runs (docs/design.md).  Pure arithmetic. */
#ifndef RELAY_BC_RUNS_H
#define RELAY_BC_RUNS_H

#include <stdint.h>

#include "relay/status.h"

/* One dimension of a ScaLAPACK block-cyclic distribution: length n, block b,
 * P processes, first block on process s (ScaLAPACK's RSRC/CSRC), starting at
 * global index o of the distributed dimension (a submatrix's IA-1 or JA-1;
 * 0 for the whole).  Indices below are the dimension's own (0 is o), local
 * indices the distributed dimension's. */
typedef struct { int64_t n, b; int P, s; int64_t o; } rl_bc_dim;

/* count runs of len elements: run k covers global indices
 * [g0 + k*gstride, g0 + k*gstride + len), held on source process `from` at
 * local index src0 + k*src_stride and on target process `to` at
 * dst0 + k*dst_stride (ScaLAPACK INDXG2L local indices).  Strides are 0
 * when count is 1. */
typedef struct {
    int from, to;
    int64_t len, count, g0, gstride, src0, src_stride, dst0, dst_stride;
} rl_run_lattice;

/* The overlay of two distributions of the same dimension as arithmetic
 * progressions of runs, sorted by (from, to, g0): every global index in
 * exactly one run, and a run is one source block cut with one target block
 * (a side on one process being one block).
 * *out is malloc'ed (free() it; NULL when n is 0).  RELAY_ERR_ARG, with
 * *out and *nout untouched, for invalid dimensions or more than 2^31 runs
 * in one period. */
relay_status rl_bc_runs(const rl_bc_dim *from, const rl_bc_dim *to, rl_run_lattice **out, int64_t *nout);

#endif
