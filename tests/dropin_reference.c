/* dropin_reference.c — ScaLAPACK's own routines, for the tests that compare
 * the drop-in (librelay_scalapack_dropin) with them in one run.
 *
 * A test program links the drop-in first, then this small shared library,
 * then ScaLAPACK: a call by name binds to the drop-in, and the next
 * definition after this library, dlsym(RTLD_NEXT), is ScaLAPACK's.  So
 * that a test cannot compare the drop-in with itself, a reference is only
 * handed out when the name's default binding lies in the drop-in and the
 * reference in a library named like ScaLAPACK.
 *
 * For p?gemr2d ask for the C spelling Cp?gemr2d: ScaLAPACK's Fortran
 * spelling forwards to Cp?gemr2d by name, which would be the drop-in's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "dropin_reference.h"

/* The file name of the library holding address p. */
static const char *library_of(void *p)
{
    Dl_info info;
    return p && dladdr(p, &info) && info.dli_fname ? info.dli_fname : "";
}

dropin_routine *dropin_reference(const char *name)
{
    void *bound = dlsym(RTLD_DEFAULT, name), *next = dlsym(RTLD_NEXT, name);
    const char *bound_in = library_of(bound), *next_in = library_of(next);
    int dropin_first = strstr(bound_in, "relay_scalapack_dropin") != NULL;
    int scalapack_next = strstr(next_in, "scalapack") && !strstr(next_in, "relay");
    if (dropin_first && scalapack_next) return (dropin_routine *)next;
    fprintf(stderr, "dropin_reference: %s binds to %p in '%s' and the next definition is %p in '%s': "
            "not the drop-in then ScaLAPACK\n", name, bound, bound_in, next, next_in);
    return NULL;
}
