/* dropin_reference.h — ScaLAPACK's own routines for the drop-in tests
 * (dropin_reference.c). */
#ifndef DROPIN_REFERENCE_H
#define DROPIN_REFERENCE_H

/* ScaLAPACK's definition of the routine name, the next one after the
 * drop-in's; NULL, with a message on stderr, unless the program is linked
 * drop-in first, this library next, ScaLAPACK after.  Cast it to the
 * routine's type (Fortran: c_f_procpointer). */
typedef void dropin_routine(void);
dropin_routine *dropin_reference(const char *name);

#endif
