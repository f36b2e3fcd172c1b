/* dropin_fallback.c — ScaLAPACK's own routines behind the drop-in
 * (dropin.h), and what a fallback says.
 *
 * ScaLAPACK's routine is the next definition of its name after this
 * library in the process's lookup order, dlsym(RTLD_NEXT): there is one
 * when the drop-in is linked ahead of a shared ScaLAPACK or preloaded.
 * For p?gemr2d that is ScaLAPACK's C spelling Cp?gemr2d, the routine
 * itself: ScaLAPACK's Fortran spelling only forwards to Cp?gemr2d, and
 * that call would land in this library again. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "dropin.h"
#include "scalapack_internal.h"

/* The routine's name in capitals, as ScaLAPACK's messages write it. */
static void upper_name(rl_dropin_routine r, char *out, size_t size)
{
    const char *name = rl_dropin_name(r);
    size_t k = 0;
    for (; name[k] && k + 1 < size; k++) out[k] = (char)toupper((unsigned char)name[k]);
    out[k] = '\0';
}

/* Like PXERBLA: the process's grid coordinates, the routine, what is
 * wrong; then the job ends, as ScaLAPACK's argument errors end it. */
static _Noreturn void not_found(rl_dropin_routine r, int ctxt, const char *why)
{
    int nprow, npcol, myrow, mycol;
    char name[16];
    Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
    upper_name(r, name, sizeof name);
    fprintf(stderr, "{%5d,%5d}:  On entry to %s: relay's drop-in cannot find ScaLAPACK's own %s (%s); link "
            "librelay_scalapack_dropin ahead of a shared ScaLAPACK, or put it in LD_PRELOAD\n",
            myrow, mycol, name, rl_dropin_scalapack_symbol(r), why ? why : "no such symbol after the drop-in");
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    abort();
}

static void *scalapack_routine(rl_dropin_routine r, int ctxt)
{
    static void *found[RL_DROPIN_ROUTINES];
    if (!found[r]) {
        dlerror();
        found[r] = dlsym(RTLD_NEXT, rl_dropin_scalapack_symbol(r));
        if (!found[r]) not_found(r, ctxt, dlerror());
    }
    return found[r];
}

rl_gemr2d_fn *rl_scalapack_gemr2d(rl_dropin_routine r, int ctxt) { return (rl_gemr2d_fn *)scalapack_routine(r, ctxt); }

rl_tran_fn *rl_scalapack_tran(rl_dropin_routine r, int ctxt) { return (rl_tran_fn *)scalapack_routine(r, ctxt); }

void rl_dropin_say_refused(rl_dropin_routine r, int ctxt)
{
    static int said[RL_DROPIN_ROUTINES];
    int nprow, npcol, myrow, mycol;
    if (said[r]) return;
    said[r] = 1;
    Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
    if (myrow != 0 || mycol != 0) return; /* one voice per context, not one per process */
    fprintf(stderr, "relay drop-in: %s: relay refused a call (%s); ScaLAPACK's own %s ran it, as it runs every call of "
            "%s that relay refuses (said once)\n", rl_dropin_name(r), relay_last_error(), rl_dropin_scalapack_symbol(r),
            rl_dropin_name(r));
}
