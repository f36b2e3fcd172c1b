/* python_overhead_c.c — the C side of bench/python_overhead.py:
 * a small shared library that bench/python_overhead.py loads with ctypes
 * into the Python process, so that the C API and the Python package replay
 * and plan in the same process, on the same buffers, in the same job,
 * interleaved round by round.
 *
 * Each call here does a whole measured block in C (planning once, or n
 * replays in a C loop), so ctypes' own cost (about a microsecond a call)
 * falls once per block, outside the per-call figure.  The communicator
 * arrives as its Fortran handle (mpi4py's Comm.py2f()), as relay._core
 * takes it, and becomes an MPI_Comm through MPI_Comm_f2c: no mpi4py header
 * and no assumption about the MPI's handle type.
 *
 * The layouts are ScaLAPACK block-cyclic ones (relay_layout_block_cyclic,
 * column-major local storage), as relay.block_cyclic makes them; grid
 * orders and ops are relay_order and relay_op values. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>

#include "measure.h"
#include "relay/relay.h"

#if defined(__GNUC__)
#define POC_API __attribute__((visibility("default")))
#else
#define POC_API
#endif

/* Plans A := op(B) on nranks ranks: B is an m x n (n x m for op T and C)
 * matrix in smb x snb blocks on an spr x spc grid numbered sgo, A an m x n
 * one in dmb x dnb blocks on dpr x dpc numbered dgo; relabel is a
 * relay_relabel.  Only relay_plan_transform is timed (*seconds), not the
 * layouts.  NULL on failure. */
POC_API relay_plan *poc_plan(int nranks, int64_t m, int64_t n, int64_t smb, int64_t snb, int spr, int spc, int sgo,
                             int64_t dmb, int64_t dnb, int dpr, int dpc, int dgo, int op, int relabel, double *seconds)
{
    relay_layout *src = NULL, *dst = NULL;
    relay_plan *p = NULL;
    int64_t bm = op == RELAY_OP_N ? m : n, bn = op == RELAY_OP_N ? n : m;
    if (relay_layout_block_cyclic(&src, bm, bn, smb, snb, spr, spc, (relay_order)sgo, 0, 0, 0, RELAY_COL_MAJOR) ||
        relay_layout_block_cyclic(&dst, m, n, dmb, dnb, dpr, dpc, (relay_order)dgo, 0, 0, 0, RELAY_COL_MAJOR)) {
        relay_layout_free(src);
        return NULL;
    }
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.relabel = (relay_relabel)relabel;
    double t0 = now();
    relay_status st = relay_plan_transform(&p, nranks, dst, src, (relay_op)op, RELAY_DOUBLE, &o);
    double dt = now() - t0;
    relay_layout_free(src);
    relay_layout_free(dst);
    if (st) return NULL;
    if (seconds) *seconds = dt;
    return p;
}

POC_API uint64_t poc_fingerprint(const relay_plan *p) { return relay_plan_fingerprint(p); }

POC_API int64_t poc_buffer_elems(const relay_plan *p, int is_dst, int rank)
{
    return relay_plan_buffer_elems(p, is_dst, 0, rank);
}

POC_API void poc_plan_free(relay_plan *p) { relay_plan_free(p); }

/* Binds p on the communicator of Fortran handle fcomm (collective); NULL on failure. */
POC_API relay_exec *poc_bind(const relay_plan *p, int fcomm)
{
    relay_exec *e = NULL;
    return relay_exec_create(&e, p, MPI_Comm_f2c((MPI_Fint)fcomm)) ? NULL : e;
}

/* Seconds of `count` replays A := B back to back in a C loop, as an
 * application calling the C API would replay; -1 if one fails. */
POC_API double poc_replays(relay_exec *e, void *a, const void *b, int count)
{
    void *dst[1] = {a};
    const void *src[1] = {b};
    double t0 = now();
    for (int i = 0; i < count; i++)
        if (relay_exec_run(e, dst, src, NULL, NULL)) return -1.0;
    return now() - t0;
}

POC_API void poc_exec_free(relay_exec *e) { relay_exec_free(e); }
