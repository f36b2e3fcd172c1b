"""scalapack_reference.py — ScaLAPACK's index arithmetic (NUMROC, INDXG2P,
INDXG2L), transcribed from the Fortran reference: the independent reference
both pytest suites (offline/ and mpi/) check relay's block-cyclic layouts
against.  Each suite's conftest puts this folder on sys.path."""


def numroc(n, nb, iproc, isrcproc, nprocs):
    """ScaLAPACK's NUMROC, transcribed from the Fortran reference."""
    mydist = (nprocs + iproc - isrcproc) % nprocs
    nblocks = n // nb
    num = (nblocks // nprocs) * nb
    extrablks = nblocks % nprocs
    if mydist < extrablks:
        num += nb
    elif mydist == extrablks:
        num += n % nb
    return num


def indxg2p(ig, nb, isrcproc, nprocs):
    return (isrcproc + ig // nb) % nprocs


def indxg2l(ig, nb, nprocs):
    return (ig // (nb * nprocs)) * nb + ig % nb
