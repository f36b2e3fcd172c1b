/* relay_case.h — the relay side of the N-D benchmarks (nd_bench.c, and
 * heffte_bench.cpp, which is C++: hence the casts): layouts on a job's
 * ranks in order, a one-pair plan with its executor and buffers (B filled
 * with a function of the rank and index), one replay.  Each failure ends
 * the job through the benchmark's own die(). */
#ifndef RELAY_BENCH_RELAY_CASE_H
#define RELAY_BENCH_RELAY_CASE_H

#include <stdio.h>
#include <stdlib.h>

#include "measure.h"
#include "relay/relay.h"

typedef struct {
    relay_plan *plan;
    relay_exec *exec;
    void *a, *b;
    int64_t a_elems, b_elems;
} relay_case;

/* A C-order layout on ranks 0 .. nranks-1 in mesh order; NULL on failure. */
static inline relay_nd_layout *relay_case_layout(int nranks, int ndims, const int64_t *shape, int mesh_ndims, const int *mesh,
                                                 const relay_placement *place)
{
    int *ranks = (int *)malloc((size_t)nranks * sizeof *ranks);
    relay_nd_layout *l = NULL;
    for (int r = 0; ranks && r < nranks; r++) ranks[r] = r;
    relay_nd_desc d = {ndims, shape, mesh_ndims, mesh, ranks, place, RELAY_ROW_MAJOR, NULL};
    if (ranks && relay_nd_layout_create(&l, &d)) l = NULL;
    free(ranks);
    return l;
}

/* Plans dst := permute(src) (op T with perm, N without), binds it on
 * MPI_COMM_WORLD and allocates the buffers; frees both layouts; prints the
 * planning time on rank 0.  0, or the step that failed. */
static inline const char *relay_case_setup(relay_case *c, int rank, int nranks, relay_nd_layout *dst, relay_nd_layout *src,
                                           const int *perm, relay_type t)
{
    double t0 = now();
    const char *failed = !dst || !src ? "layout"
                         : relay_plan_nd(&c->plan, nranks, dst, src, perm ? RELAY_OP_T : RELAY_OP_N, perm, t, NULL) ? "plan"
                                                                                                                 : NULL;
    double planned = now() - t0;
    relay_nd_layout_free(dst);
    relay_nd_layout_free(src);
    if (failed) return failed;
    if (relay_exec_create(&c->exec, c->plan, MPI_COMM_WORLD)) return "exec";
    size_t esz = relay_type_size(t);
    c->a_elems = relay_plan_buffer_elems(c->plan, 1, 0, rank);
    c->b_elems = relay_plan_buffer_elems(c->plan, 0, 0, rank);
    c->a = calloc((size_t)c->a_elems + 1, esz);
    c->b = malloc(((size_t)c->b_elems + 1) * esz);
    if (!c->a || !c->b) return "buffers";
    for (int64_t i = 0; i < c->b_elems * (int64_t)(esz / 8); i++) ((double *)c->b)[i] = (double)(rank * 1000003 + i);
    if (rank == 0) printf("  relay plan %.2f ms\n", planned * 1e3);
    return NULL;
}

static inline int relay_case_replay(relay_case *c)
{
    void *dst[1] = {c->a};
    const void *src[1] = {c->b};
    return relay_exec_run(c->exec, dst, src, NULL, NULL) != RELAY_OK;
}

static inline void relay_case_done(relay_case *c)
{
    relay_exec_free(c->exec);
    relay_plan_free(c->plan);
    free(c->a);
    free(c->b);
}

#endif
