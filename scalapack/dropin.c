/* dropin.c — the drop-in's entry points (dropin.h): ScaLAPACK's p?gemr2d
 * in its Fortran and C spellings and PBLAS's p?tran* in its Fortran
 * spelling (the only one ScaLAPACK has: C programs call pdtran_ too), each
 * handed to relay's counterpart in relay/scalapack.h.
 *
 * A call goes to relay unless the drop-in is off or ScaLAPACK answers it
 * without moving data (see answered_by_scalapack); a call relay refuses
 * goes to ScaLAPACK's own routine.  Both decisions must be the same on
 * every process of the call, or some would wait in ScaLAPACK for others
 * waiting in relay.  The first is made from global arguments (or ends the
 * job in ScaLAPACK's error handler).  relay's refusals are collective:
 * its argument checks run on the descriptors all processes have gathered
 * (descriptors.c), and failures while planning or binding a plan are
 * agreed on when the executor is created (plan_cache.c).  What stays local
 * is running out of memory before the descriptors are gathered, and an MPI
 * error during the replay; those would leave the other processes inside
 * relay's own collectives, where no agreement after the call could reach
 * them. */
#include "dropin.h"
#include "scalapack_internal.h"

/* ---- where a call goes ---------------------------------------------------- */

typedef relay_status by_relay_fn(rl_dropin_routine r, const void *args);
typedef void by_scalapack_fn(rl_dropin_routine r, const void *args);

/* Runs a call of r by relay when relay_may_serve, and by ScaLAPACK when
 * not or when relay refuses it; ctxt is the call's BLACS context. */
static void route(rl_dropin_routine r, int relay_may_serve, int ctxt, by_relay_fn *by_relay, by_scalapack_fn *by_scalapack,
                  const void *args)
{
    if (relay_may_serve) {
        relay_scalapack_cache_stats before;
        relay_scalapack_cache_get_stats(&before);
        if (by_relay(r, args) == RELAY_OK) {
            rl_dropin_count(r, RL_BY_RELAY, &before);
            return;
        }
        rl_dropin_say_refused(r, ctxt);
    }
    rl_dropin_count(r, relay_may_serve ? RL_FALLBACK : RL_BY_SCALAPACK, NULL);
    by_scalapack(r, args);
}

/* ---- p?gemr2d --------------------------------------------------------------- */

typedef struct {
    int m, n;
    const void *a;
    int ia, ja;
    const int *desca;
    void *b;
    int ib, jb;
    const int *descb;
    int ictxt;
} gemr2d_args;

static relay_status gemr2d_by_relay(rl_dropin_routine r, const void *args)
{
    const gemr2d_args *x = args;
    switch (r) {
    case RL_PSGEMR2D: return relay_psgemr2d(x->m, x->n, x->a, x->ia, x->ja, x->desca, x->b, x->ib, x->jb, x->descb, x->ictxt);
    case RL_PDGEMR2D: return relay_pdgemr2d(x->m, x->n, x->a, x->ia, x->ja, x->desca, x->b, x->ib, x->jb, x->descb, x->ictxt);
    case RL_PCGEMR2D: return relay_pcgemr2d(x->m, x->n, x->a, x->ia, x->ja, x->desca, x->b, x->ib, x->jb, x->descb, x->ictxt);
    default: return relay_pzgemr2d(x->m, x->n, x->a, x->ia, x->ja, x->desca, x->b, x->ib, x->jb, x->descb, x->ictxt);
    }
}

static void gemr2d_by_scalapack(rl_dropin_routine r, const void *args)
{
    const gemr2d_args *x = args;
    rl_scalapack_gemr2d(r, x->ictxt)(x->m, x->n, x->a, x->ia, x->ja, x->desca, x->b, x->ib, x->jb, x->descb, x->ictxt);
}

/* An empty (or negative) size is ScaLAPACK's to answer: nothing to do, or
 * its own error. */
static void gemr2d(rl_dropin_routine r, const gemr2d_args *x)
{
    route(r, rl_dropin_enabled() && x->m > 0 && x->n > 0, x->ictxt, gemr2d_by_relay, gemr2d_by_scalapack, x);
}

/* ScaLAPACK's two spellings of p<x>gemr2d: Fortran's, every argument by
 * reference as gfortran passes them, and C's, integers by value. */
#define GEMR2D_NAMES(x, T, routine)                                                                                      \
    RL_SCALAPACK_NAME void p##x##gemr2d_(const int *m, const int *n, const T *a, const int *ia, const int *ja,           \
                                         const int *desca, T *b, const int *ib, const int *jb, const int *descb,         \
                                         const int *ictxt)                                                               \
    {                                                                                                                    \
        gemr2d(routine, &(gemr2d_args){*m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt});                         \
    }                                                                                                                    \
    RL_SCALAPACK_NAME void Cp##x##gemr2d(int m, int n, T *a, int ia, int ja, int *desca, T *b, int ib, int jb, int *descb, \
                                         int ictxt)                                                                      \
    {                                                                                                                    \
        gemr2d(routine, &(gemr2d_args){m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt});                                \
    }

GEMR2D_NAMES(s, float, RL_PSGEMR2D)
GEMR2D_NAMES(d, double, RL_PDGEMR2D)
GEMR2D_NAMES(c, void, RL_PCGEMR2D)
GEMR2D_NAMES(z, void, RL_PZGEMR2D)

/* ---- p?tran* ---------------------------------------------------------------- */

/* The arguments as PBLAS's Fortran spelling receives them, by reference. */
typedef struct {
    const int *m, *n;
    const void *alpha, *a;
    const int *ia, *ja, *desca;
    const void *beta;
    void *c;
    const int *ic, *jc, *descc;
} tran_args;

static relay_status tran_by_relay(rl_dropin_routine r, const void *args)
{
    const tran_args *x = args;
    int m = *x->m, n = *x->n, ia = *x->ia, ja = *x->ja, ic = *x->ic, jc = *x->jc;
    switch (r) {
    case RL_PSTRAN:
        return relay_pstran(m, n, *(const float *)x->alpha, x->a, ia, ja, x->desca, *(const float *)x->beta, x->c, ic, jc,
                            x->descc);
    case RL_PDTRAN:
        return relay_pdtran(m, n, *(const double *)x->alpha, x->a, ia, ja, x->desca, *(const double *)x->beta, x->c, ic, jc,
                            x->descc);
    case RL_PCTRANU: return relay_pctranu(m, n, x->alpha, x->a, ia, ja, x->desca, x->beta, x->c, ic, jc, x->descc);
    case RL_PZTRANU: return relay_pztranu(m, n, x->alpha, x->a, ia, ja, x->desca, x->beta, x->c, ic, jc, x->descc);
    case RL_PCTRANC: return relay_pctranc(m, n, x->alpha, x->a, ia, ja, x->desca, x->beta, x->c, ic, jc, x->descc);
    default: return relay_pztranc(m, n, x->alpha, x->a, ia, ja, x->desca, x->beta, x->c, ic, jc, x->descc);
    }
}

static void tran_by_scalapack(rl_dropin_routine r, const void *args)
{
    const tran_args *x = args;
    rl_scalapack_tran(r, x->desca[CTXT_])(x->m, x->n, x->alpha, x->a, x->ia, x->ja, x->desca, x->beta, x->c, x->ic, x->jc,
                                          x->descc);
}

/* Whether alpha is zero as PBLAS tests it (real and imaginary parts). */
static int alpha_is_zero(rl_dropin_routine r, const void *alpha)
{
    int single = r == RL_PSTRAN || r == RL_PCTRANU || r == RL_PCTRANC, real = r == RL_PSTRAN || r == RL_PDTRAN;
    double re = single ? ((const float *)alpha)[0] : ((const double *)alpha)[0];
    double im = real ? 0 : single ? ((const float *)alpha)[1] : ((const double *)alpha)[1];
    return re == 0 && im == 0;
}

/* Calls PBLAS answers without moving data: an empty (or negative) size,
 * and alpha = 0 (C := beta C, which must not read A, and keeps the sign
 * of beta C's zeros); and calls PBLAS rejects with an error that ends the
 * job: A and C in different contexts, a process outside the context.  The
 * first are global arguments, the same everywhere; the last two end the
 * job in ScaLAPACK's error handler before anyone waits for that process. */
static int answered_by_scalapack(rl_dropin_routine r, const tran_args *x)
{
    int nprow, npcol, myrow, mycol;
    if (*x->m <= 0 || *x->n <= 0 || alpha_is_zero(r, x->alpha) || x->desca[CTXT_] != x->descc[CTXT_]) return 1;
    Cblacs_gridinfo(x->desca[CTXT_], &nprow, &npcol, &myrow, &mycol);
    return nprow < 1 || myrow < 0;
}

static void tran(rl_dropin_routine r, const tran_args *x)
{
    route(r, rl_dropin_enabled() && !answered_by_scalapack(r, x), x->desca[CTXT_], tran_by_relay, tran_by_scalapack, x);
}

#define TRAN_NAME(name, T, routine)                                                                                     \
    RL_SCALAPACK_NAME void name(const int *m, const int *n, const T *alpha, const T *a, const int *ia, const int *ja,   \
                                const int *desca, const T *beta, T *c, const int *ic, const int *jc, const int *descc) \
    {                                                                                                                   \
        tran(routine, &(tran_args){m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc});                             \
    }

TRAN_NAME(pstran_, float, RL_PSTRAN)
TRAN_NAME(pdtran_, double, RL_PDTRAN)
TRAN_NAME(pctranu_, void, RL_PCTRANU)
TRAN_NAME(pztranu_, void, RL_PZTRANU)
TRAN_NAME(pctranc_, void, RL_PCTRANC)
TRAN_NAME(pztranc_, void, RL_PZTRANC)
