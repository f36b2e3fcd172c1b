"""relay without mpi4py, and relay beside an mpi4py of its own MPI or another.

Each case runs in a fresh interpreter (the order of imports is the point),
with MPI never initialised.  What is expected comes from the build: the MPI
library CMake found in mpi.h (RELAY_TEST_MPI_VENDOR) and the one mpi4py
reported at configure time (RELAY_TEST_MPI4PY_VENDOR: openmpi, mpich or
none), not from relay.
"""

import os
import subprocess
import sys
import textwrap

import pytest

import relay

VENDOR = os.environ.get("RELAY_TEST_MPI_VENDOR", "")
MPI4PY_VENDOR = os.environ.get("RELAY_TEST_MPI4PY_VENDOR", "")
NAMES = {"openmpi": "Open MPI", "mpich": "MPICH"}

PLAN = """
import relay
src = relay.block_cyclic(30, 40, 4, 3, 1, 2)
dst = relay.block_cyclic(40, 30, 5, 5, 2, 1)
plan = relay.plan_transform(dst, src, op="T")
"""


def run(*pieces: str) -> subprocess.CompletedProcess:
    """Runs the pieces of code, each dedented, one after the other in a fresh interpreter."""
    code = "\n".join(textwrap.dedent(p) for p in pieces)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def last_line(p: subprocess.CompletedProcess) -> str:
    return p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""


@pytest.mark.skipif(VENDOR not in NAMES, reason="the build's MPI is neither Open MPI nor MPICH")
def test_mpi_library_names_the_builds_mpi():
    assert relay.mpi_library().startswith(NAMES[VENDOR] + " "), relay.mpi_library()


def test_planning_and_inspection_without_mpi4py():
    p = run("""
        import sys
        sys.modules["mpi4py"] = None          # as if mpi4py were not installed
        """, PLAN, """
        again = relay.decode(plan.encode())
        assert again.info()["ranks"] == 2 and again.stats == plan.stats
        assert plan.stats["bytes_total"] == 30 * 40 * 8       # every element of B, once
        try:
            relay.Executor(plan)
        except ModuleNotFoundError as e:
            assert e.name == "mpi4py" and "planning and inspection need none" in str(e), e
        else:
            raise SystemExit("an executor bound without mpi4py")
        """)
    assert p.returncode == 0, p.stderr


needs_mpi4py = pytest.mark.skipif(MPI4PY_VENDOR not in NAMES or VENDOR not in NAMES,
                                  reason="no mpi4py, or an MPI that is neither Open MPI nor MPICH")
IMPORT_MPI4PY = """
import mpi4py
mpi4py.rc.initialize = False                  # nothing here may need MPI running
from mpi4py import MPI
"""


@needs_mpi4py
def test_import_after_mpi4py():
    p = run(IMPORT_MPI4PY, "import relay")
    if MPI4PY_VENDOR == VENDOR:
        assert p.returncode == 0, p.stderr
    else:
        line = last_line(p)
        assert line.startswith("ImportError: relay is built for " + NAMES[VENDOR]), p.stderr
        assert "mpi4py for " + NAMES[MPI4PY_VENDOR] in line, p.stderr


@needs_mpi4py
def test_binding_after_importing_mpi4py_later():
    # relay first, as the README does: the comparison waits for the binding,
    # which asks the communicator for its handle only past it.
    p = run(PLAN, IMPORT_MPI4PY, """
        class Communicator:
            def py2f(self):
                raise SystemExit("past the comparison")
        relay.Executor(plan, Communicator())
        """)
    line = last_line(p)
    if MPI4PY_VENDOR == VENDOR:
        assert line == "past the comparison", p.stderr
    else:
        assert line.startswith("ImportError: relay is built for " + NAMES[VENDOR]), p.stderr
        assert "mpi4py for " + NAMES[MPI4PY_VENDOR] in line, p.stderr
