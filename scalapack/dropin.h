/* dropin.h — the parts of the drop-in library (librelay_scalapack_dropin)
 * and what they share.
 *
 * The drop-in defines ScaLAPACK's own names (pdgemr2d_, Cpdgemr2d,
 * pdtran_, ...) so that a program linked with it ahead of ScaLAPACK, or run
 * with it in LD_PRELOAD, has its redistributions and transpositions served
 * by relay's plan cache (relay/scalapack.h) without a line changed.  One
 * call goes:
 *   entry (dropin.c): ScaLAPACK's argument list, in its Fortran or C
 *     spelling, handed to relay_p?gemr2d / relay_p?tran*, unless the drop-in
 *     is off or the call is one ScaLAPACK answers without communicating;
 *   fallback (dropin_fallback.c): a call relay refuses goes to ScaLAPACK's
 *     own routine, found after this library with dlsym(RTLD_NEXT), and
 *     the refusal is said once per routine;
 *   settings and statistics (dropin_stats.c): the environment switches,
 *     and the per-routine counts printed at MPI_Finalize on request;
 *   the routines' table (dropin_routines.c): names and ScaLAPACK's symbols,
 *     read by the three above, which call it and never each other back. */
#ifndef RL_DROPIN_H
#define RL_DROPIN_H

#include "relay/scalapack.h"

/* Marks the ScaLAPACK names this library exports (everything else in it
 * is hidden, as in all of relay's libraries). */
#define RL_SCALAPACK_NAME __attribute__((visibility("default")))

/* The routines the drop-in takes over. */
typedef enum {
    RL_PSGEMR2D, RL_PDGEMR2D, RL_PCGEMR2D, RL_PZGEMR2D,
    RL_PSTRAN, RL_PDTRAN, RL_PCTRANU, RL_PZTRANU, RL_PCTRANC, RL_PZTRANC,
    RL_DROPIN_ROUTINES
} rl_dropin_routine;

/* ---- the routines (dropin_routines.c) ------------------------------------- */

/* The routine's ScaLAPACK name in lower case (pdgemr2d, pztranc). */
const char *rl_dropin_name(rl_dropin_routine r);

/* The symbol of ScaLAPACK's own routine for r: Cp?gemr2d for the gemr2d
 * family (dropin_fallback.c says why), p?tran*_ for the others. */
const char *rl_dropin_scalapack_symbol(rl_dropin_routine r);

/* ---- settings and statistics (dropin_stats.c) ----------------------------- */

/* Whether relay serves the calls: RELAY_SCALAPACK unset or anything but
 * off / 0 / no / false.  Read once, at the first call. */
int rl_dropin_enabled(void);

/* Where a call went. */
typedef enum {
    RL_BY_RELAY,     /* relay served it (a cache hit or a miss) */
    RL_FALLBACK,     /* relay refused it: ScaLAPACK's routine ran it */
    RL_BY_SCALAPACK  /* ScaLAPACK's routine ran it without asking relay */
} rl_dropin_outcome;

/* Counts one call of r.  For RL_BY_RELAY, before is the cache's
 * statistics taken just before relay was asked (the difference says hit
 * or miss). */
void rl_dropin_count(rl_dropin_routine r, rl_dropin_outcome o, const relay_scalapack_cache_stats *before);

/* ---- ScaLAPACK's own routines (dropin_fallback.c) -------------------------- */

/* ScaLAPACK's C spelling of p?gemr2d, and its Fortran spelling of p?tran*. */
typedef void rl_gemr2d_fn(int m, int n, const void *a, int ia, int ja, const int *desca, void *b, int ib, int jb,
                          const int *descb, int ictxt);
typedef void rl_tran_fn(const int *m, const int *n, const void *alpha, const void *a, const int *ia, const int *ja,
                        const int *desca, const void *beta, void *c, const int *ic, const int *jc, const int *descc);

/* ScaLAPACK's own routine for r (Cp?gemr2d for the gemr2d family, whose
 * Fortran spelling in ScaLAPACK only forwards to it — through this library,
 * were it asked).  If it cannot be found, says so like ScaLAPACK's own
 * errors and aborts the job; ctxt names the calling process in the message. */
rl_gemr2d_fn *rl_scalapack_gemr2d(rl_dropin_routine r, int ctxt);
rl_tran_fn *rl_scalapack_tran(rl_dropin_routine r, int ctxt);

/* Says, once per routine and on the process at (0, 0) of the call's
 * context ctxt, that relay refused a call of r and why. */
void rl_dropin_say_refused(rl_dropin_routine r, int ctxt);

#endif
