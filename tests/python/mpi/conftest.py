"""pytest under mpiexec for the package relay: every rank runs the same tests.

* Output: only rank 0 prints pytest's report; the other ranks' terminal
  reporter writes to /dev/null (their failures reach rank 0's report through
  the collective agreement below).
* Pass/fail is collective twice over: tests check local conditions through
  :class:`relay_mpi_support.Checker` and end with ``chk.agree()`` (an
  allgather), and every phase's report is agreed on here too, so that a
  test that fails on one rank fails on all of them and ``-x`` stops every
  rank at the same test instead of leaving the others waiting in the next
  collective.
* A watchdog (faulthandler) dumps every thread's stack and exits a rank
  whose test runs longer than RELAY_TEST_WATCHDOG seconds (default 120), so a
  hang ends the job instead of running into ctest's timeout
  (RELAY_TEST_TRACE=1 also writes each test's name to stderr as it starts).
"""

from __future__ import annotations

import faulthandler
import os
import sys

import pytest

from mpi4py import MPI  # noqa: E402  - before relay binds executors (atexit order)

import relay  # noqa: F401,E402

from relay_mpi_support import Checker  # noqa: E402

COMM = MPI.COMM_WORLD
WATCHDOG = float(os.environ.get("RELAY_TEST_WATCHDOG", "120"))
WATCHDOG_TRACE = os.environ.get("RELAY_TEST_TRACE", "") not in ("", "0")


_watchdog_file = None


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    global _watchdog_file
    # Capturing is suspended here: fd 2 is the job's stderr, where the
    # watchdog must write (not into a test's captured output).
    _watchdog_file = os.fdopen(os.dup(2), "w")
    # Before the terminal plugin builds its reporter over sys.stdout.
    if COMM.rank != 0:
        sys.stdout = open(os.devnull, "w")


def pytest_report_header(config):
    return f"relay {relay.__version__}, mpi4py {MPI.Get_library_version().splitlines()[0]}, {COMM.size} rank(s)"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    faulthandler.dump_traceback_later(WATCHDOG, exit=True, file=_watchdog_file)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logstart(nodeid, location):
    # names the test in the job's stderr first, for the watchdog's dump
    if WATCHDOG_TRACE:
        _watchdog_file.write(f"rank {COMM.rank}: {nodeid}\n")
        _watchdog_file.flush()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Agrees on each phase's outcome: failed anywhere is failed everywhere."""
    outcome = yield
    rep = outcome.get_result()
    mine = (rep.outcome, rep.longreprtext if rep.failed else "")
    everyone = COMM.allgather(mine)
    failed = [(r, text) for r, (o, text) in enumerate(everyone) if o == "failed"]
    if not failed:
        return
    if rep.failed and all(text == failed[0][1] for _, text in failed) and len(failed) == COMM.size:
        return  # the same failure everywhere (a collective Checker.agree): rank 0 reports it as it is
    words = [f"---- rank {r} ----\n{text}" for r, text in failed]
    rep.outcome = "failed"
    rep.longrepr = f"failed on rank(s) {[r for r, _ in failed]} of {COMM.size}:\n" + "\n".join(words)


@pytest.fixture(scope="session")
def comm():
    return COMM


@pytest.fixture
def chk(comm):
    return Checker(comm)
