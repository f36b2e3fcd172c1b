/* blacs.h — the BLACS calls the ScaLAPACK tests make (Debian ships no C
 * header for them; they live in libscalapack). */
#ifndef TESTS_BLACS_H
#define TESTS_BLACS_H

#include <mpi.h>

void Cblacs_pinfo(int *me, int *np);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridmap(int *ctxt, int *usermap, int ldumap, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
int Csys2blacs_handle(MPI_Comm comm);

#endif
