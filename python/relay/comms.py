"""Communicators: what relay's C half is given for an mpi4py communicator,
and the check that mpi4py and relay use the same MPI library.

relay._core is compiled against one MPI library (Open MPI, or MPICH and
the libraries built on it) and mpi4py against one too.  A process can hold
only one: with two, communicators of one are handed to the other and the
job fails inside MPI.  relay compares the two names before it touches MPI:
when it is imported after ``mpi4py.MPI``, and when it is first given a
communicator if mpi4py was imported after it.  Neither comparison
initialises MPI, and without mpi4py there is nothing to compare: planning
and inspection need no MPI.
"""

from __future__ import annotations

import sys

from . import _core

# Libraries that share an ABI, by words their version strings contain:
# relay's from its mpi.h (_core.mpi_library), mpi4py's from
# MPI_Get_library_version.
_FAMILIES = {"Open MPI": ("Open MPI",), "MPICH": ("MPICH", "Intel(R) MPI", "MVAPICH")}


def mpi_library() -> str:
    """The MPI library relay was built against, e.g. ``"Open MPI 4.1.4"`` or
    ``"MPICH 4.0.2"``, as its mpi.h names it.  Needs no MPI running."""
    return _core.mpi_library()


def _family(version: str) -> str | None:
    for family, words in _FAMILIES.items():
        if any(w in version for w in words):
            return family
    return None


def check_mpi4py() -> None:
    """Raises ImportError naming both libraries when mpi4py.MPI, if imported,
    was built for an MPI of another family than relay's."""
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is None:
        return
    # mpi4py 3.1 passes Open MPI's terminating NUL on.
    theirs = mpi.Get_library_version().replace("\0", "").strip().splitlines()[0]
    ours = mpi_library()
    if _family(ours) and _family(theirs) and _family(ours) != _family(theirs):
        raise ImportError(
            f"relay is built for {ours} but mpi4py for {_family(theirs)} ({theirs}): one process can use "
            f"only one MPI library. Build relay against mpi4py's MPI, or mpi4py against relay's "
            f"(docs/python.md, 'MPI').")


def comm_handle(comm) -> int:
    """The Fortran handle of an mpi4py communicator (``comm.py2f()``), which
    the C half converts back with ``MPI_Comm_f2c``; None means
    ``MPI.COMM_WORLD``.  Asked only once mpi4py's MPI library is relay's."""
    if comm is None:
        try:
            from mpi4py import MPI
        except ImportError as e:
            raise ModuleNotFoundError(f"relay needs mpi4py to run in an MPI job ({e}); planning and inspection "
                                      f"need none", name="mpi4py") from e
        comm = MPI.COMM_WORLD
    check_mpi4py()
    try:
        return comm.py2f()
    except AttributeError:
        raise TypeError(f"comm must be an mpi4py communicator (with py2f()), not {type(comm).__name__}") from None
