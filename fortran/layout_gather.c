/* layout_gather.c — relay_layout_block_cyclic called with a communicator:
 * a ScaLAPACK descriptor's matrix, each process passing the LLD its own
 * descriptor carries.
 *
 * ScaLAPACK's descinit is given each process's own local leading dimension
 * (usually max(1, numroc(...)), which differs between process rows), while
 * a layout describes every rank's storage, so that all ranks plan the same
 * moves.  The processes of comm gather each other's arguments: every one
 * then holds the same array of LLDs (relay_layout_block_cyclic_lds) and
 * reaches the same verdict, so a layout is made on all of them or refused
 * on all of them, never on some alone. */
#include <stdlib.h>

#include "error.h"
#include "mpi_error.h"
#include "relay/layout.h"

/* The arguments each process passes, gathered: those that must agree, then
 * this process's lld. */
enum { M, N, MB, NB, NPROW, NPCOL, GRID_ORDER, RSRC, CSRC, ELEM_ORDER, LLD, ARGS };

/* Whether every process's allocation succeeded (collective). */
static relay_status all_allocated(const void *mine, MPI_Comm comm)
{
    int ok = mine != NULL, all_ok;
    int rc = MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "relay_layout_block_cyclic: MPI_Allreduce");
    if (!all_ok) return rl_fail(RELAY_ERR_NOMEM, "relay_layout_block_cyclic: out of memory on some rank of comm");
    return RELAY_OK;
}

/* The first rank of `size` whose arguments other than lld differ from rank
 * 0's, or -1. */
static int disagreeing_rank(const int64_t *args, int size)
{
    for (int r = 1; r < size; r++)
        for (int k = 0; k < LLD; k++)
            if (args[r * ARGS + k] != args[k]) return r;
    return -1;
}

/* The layout from every process's arguments, gathered in args (ARGS per
 * rank of comm's `size`), whose first entries become the lds. */
static relay_status layout_of(relay_layout **out, int64_t *args, int size)
{
    int r = disagreeing_rank(args, size);
    if (r >= 0)
        return rl_fail(RELAY_ERR_MISMATCH, "relay_layout_block_cyclic: rank %d's arguments differ from rank 0's (with "
                       "comm, only lld may differ between ranks)", r);
    int64_t m = args[M], n = args[N], mb = args[MB], nb = args[NB], nprow = args[NPROW], npcol = args[NPCOL],
            grid_order = args[GRID_ORDER], rsrc = args[RSRC], csrc = args[CSRC], elem_order = args[ELEM_ORDER];
    if (nprow > 0 && npcol > 0 && nprow * npcol > size)
        return rl_fail(RELAY_ERR_ARG, "relay_layout_block_cyclic: comm has %d ranks, fewer than the %lld x %lld grid's",
                       size, (long long)nprow, (long long)npcol);
    int64_t *lds = args; /* rank r's lld moves down to lds[r], never over one still to move */
    for (r = 0; r < size; r++) lds[r] = args[r * ARGS + LLD];
    return relay_layout_block_cyclic_lds(out, m, n, mb, nb, (int)nprow, (int)npcol, (relay_order)grid_order, (int)rsrc,
                                         (int)csrc, lds, (relay_order)elem_order);
}

relay_status relay_fortran_layout_block_cyclic_gathered(relay_layout **out, int64_t m, int64_t n, int64_t mb, int64_t nb,
                                                        int nprow, int npcol, relay_order grid_order, int rsrc, int csrc,
                                                        int64_t lld, relay_order elem_order, MPI_Fint comm)
{
    MPI_Comm c = MPI_Comm_f2c(comm);
    if (c == MPI_COMM_NULL) return rl_fail(RELAY_ERR_ARG, "relay_layout_block_cyclic: comm is MPI_COMM_NULL");
    int size;
    MPI_Comm_size(c, &size);
    const int64_t mine[ARGS] = {m, n, mb, nb, nprow, npcol, grid_order, rsrc, csrc, elem_order, lld};
    int64_t *args = malloc((size_t)size * sizeof mine);
    relay_status st = all_allocated(args, c);
    if (st) {
        free(args);
        return st;
    }
    int rc = MPI_Allgather(mine, ARGS, MPI_INT64_T, args, ARGS, MPI_INT64_T, c);
    st = rc != MPI_SUCCESS ? rl_mpi_fail(rc, "relay_layout_block_cyclic: MPI_Allgather") : layout_of(out, args, size);
    free(args);
    return st;
}
