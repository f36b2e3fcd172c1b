"""Communicators: what relay's C half is given for an mpi4py communicator."""

from __future__ import annotations


def comm_handle(comm) -> int:
    """The Fortran handle of an mpi4py communicator (``comm.py2f()``), which
    the C half converts back with ``MPI_Comm_f2c``; None means
    ``MPI.COMM_WORLD``."""
    if comm is None:
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
    try:
        return comm.py2f()
    except AttributeError:
        raise TypeError(f"comm must be an mpi4py communicator (with py2f()), not {type(comm).__name__}") from None
