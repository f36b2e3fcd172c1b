/* relay/scalapack.h — ScaLAPACK-compatible redistribution and transposition.
 *
 * Counterparts of ScaLAPACK's p?gemr2d and PBLAS's p?tran, p?tranu, p?tranc
 * with their argument lists in C form: global sizes, local arrays, 1-based
 * submatrix origins (ia, ja), the 9-integer array descriptors, BLACS
 * contexts; integers by value, scalars by value (real) or by pointer
 * (complex); complex arrays interleave real and imaginary parts as Fortran's
 * COMPLEX does.  Each returns a relay_status instead of aborting.
 *
 * Behind them sits a plan cache keyed by everything that shapes the data
 * movement (sizes, descriptors, origins, each grid's process map, every
 * process's local leading dimension): the first call plans and binds an
 * executor, later calls with the same arguments only replay it, over any
 * arrays.  Each descriptor's own BLACS context decides its grid, so the two
 * matrices may live on grids of different shapes (2x2 -> 1x4) or on
 * different process sets inside the call's context.
 *
 * Every call is collective over its context (ictxt for gemr2d, the
 * descriptors' context for tran), as in ScaLAPACK; a process outside a
 * matrix's grid passes that matrix's descriptor with CTXT = -1.
 *
 * Arguments are accepted as ScaLAPACK accepts them: p?gemr2d ignores DTYPE
 * and needs LLD to cover only the process's own local rows (0 where it
 * holds none); p?tran* needs DTYPE = 1 and LLD >= 1, and LLD >= the local
 * rows where the process also holds columns (PBLAS's PB_Cchkmat).  The
 * same calls under ScaLAPACK's own names are the drop-in library
 * librelay_scalapack_dropin (docs/scalapack-fortran.md).  Link
 * relay::scalapack (librelay_scalapack) together with ScaLAPACK's BLACS. */
#ifndef RELAY_SCALAPACK_H
#define RELAY_SCALAPACK_H

#include "relay/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* B(ib:ib+m-1, jb:jb+n-1) := A(ia:ia+m-1, ja:ja+n-1). */
RELAY_API relay_status relay_psgemr2d(int m, int n, const float *a, int ia, int ja, const int *desca,
                            float *b, int ib, int jb, const int *descb, int ictxt);
RELAY_API relay_status relay_pdgemr2d(int m, int n, const double *a, int ia, int ja, const int *desca,
                            double *b, int ib, int jb, const int *descb, int ictxt);
RELAY_API relay_status relay_pcgemr2d(int m, int n, const void *a, int ia, int ja, const int *desca,
                            void *b, int ib, int jb, const int *descb, int ictxt);
RELAY_API relay_status relay_pzgemr2d(int m, int n, const void *a, int ia, int ja, const int *desca,
                            void *b, int ib, int jb, const int *descb, int ictxt);

/* C(ic:ic+m-1, jc:jc+n-1) := beta * C + alpha * op(A(ia:ia+n-1, ja:ja+m-1)),
 * op = transpose (tran, tranu) or conjugate transpose (tranc).  beta = 0
 * never reads C. */
RELAY_API relay_status relay_pstran(int m, int n, float alpha, const float *a, int ia, int ja, const int *desca,
                          float beta, float *c, int ic, int jc, const int *descc);
RELAY_API relay_status relay_pdtran(int m, int n, double alpha, const double *a, int ia, int ja, const int *desca,
                          double beta, double *c, int ic, int jc, const int *descc);
RELAY_API relay_status relay_pctranu(int m, int n, const void *alpha, const void *a, int ia, int ja, const int *desca,
                           const void *beta, void *c, int ic, int jc, const int *descc);
RELAY_API relay_status relay_pztranu(int m, int n, const void *alpha, const void *a, int ia, int ja, const int *desca,
                           const void *beta, void *c, int ic, int jc, const int *descc);
RELAY_API relay_status relay_pctranc(int m, int n, const void *alpha, const void *a, int ia, int ja, const int *desca,
                           const void *beta, void *c, int ic, int jc, const int *descc);
RELAY_API relay_status relay_pztranc(int m, int n, const void *alpha, const void *a, int ia, int ja, const int *desca,
                           const void *beta, void *c, int ic, int jc, const int *descc);

/* The plan cache.  What relay holds for a BLACS grid (a communicator over
 * its processes and the grid's cached plans) lives exactly as long as the
 * grid: blacs_gridexit (or blacs_exit) frees it with the grid.  Each grid
 * keeps its RELAY_SCALAPACK_CACHE_SIZE most recently used plans, and each
 * process at most its limit over all grids (64 unless set here or by the
 * environment variable RELAY_SCALAPACK_CACHE_PLANS, read at the first
 * call): past it, the process frees at once the plans of the grid whose
 * plan it used least recently, and the next call on that grid drops them
 * on all the grid's processes.  The limit may differ between processes.  Clearing frees
 * every grid's communicator and plans: collective over every process that
 * made calls (grids are freed in creation order); MPI_Finalize clears what
 * is left. */
enum { RELAY_SCALAPACK_CACHE_SIZE = 32 };
typedef struct {
    long long hits;      /* calls that replayed a cached plan */
    long long misses;    /* calls that planned */
    long long entries;   /* plans held now, over all grids */
    long long contexts;  /* grids held now, each with a communicator of relay's */
} relay_scalapack_cache_stats;
RELAY_API relay_status relay_scalapack_cache_get_stats(relay_scalapack_cache_stats *stats);
RELAY_API relay_status relay_scalapack_cache_set_limit(int plans);
RELAY_API relay_status relay_scalapack_cache_clear(void);

#ifdef __cplusplus
}
#endif

#endif
