"""Executors: replaying a plan over fresh buffers inside an MPI job.

An :class:`Executor` binds a plan to an mpi4py communicator once
(collective: it duplicates the communicator, allocates pack buffers and
creates persistent requests) and replays it as often as the application
wants, over numpy arrays or any object with the buffer protocol, without
copying them::

    with relay.Executor(plan, MPI.COMM_WORLD) as ex:
        for it in range(iterations):
            ex.run(a_local, b_local)           # A := B, redistributed

Threads: the GIL is released while relay packs, waits and unpacks, so
other Python threads run meanwhile.  One executor serves one call at a
time (a second thread's call is refused with RuntimeError); different
executors may replay from different threads when MPI runs with
MPI_THREAD_MULTIPLE (mpi4py's default request).  Between :meth:`start` and
:meth:`wait` the buffers belong to relay: the executor holds them, so they
stay alive, but they must not be read or written.
"""

from __future__ import annotations

import atexit
import weakref
from dataclasses import dataclass
from typing import Any, NamedTuple, Optional, Sequence

from . import _core
from .plans import Plan, Tuning

_live = weakref.WeakSet()
_atexit_registered = False


def _close_all_at_exit() -> None:
    # Runs before mpi4py's MPI_Finalize (atexit handlers run last-registered
    # first, and this one is registered after mpi4py.MPI is imported).
    for ex in list(_live):
        ex.close()


def _comm_handle(comm) -> int:
    if comm is None:
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
    try:
        return comm.py2f()
    except AttributeError:
        raise TypeError(f"comm must be an mpi4py communicator (with py2f()), not {type(comm).__name__}") from None


class Memory(NamedTuple):
    """What a rank's executor holds beyond the user's buffers, and the bytes
    it sends plus receives per replay."""
    extra_bytes: int
    remote_bytes: int


class Timing(NamedTuple):
    """One row of :meth:`Executor.timings`: a message this rank sends
    ('send': packing it) or receives ('recv': waiting for it, unpacking it),
    the local pieces ('local'), or waiting no message accounts for
    ('completion').  Seconds summed over the timed replays; bytes per replay."""
    kind: str
    peer: int
    bytes: int
    pack_s: float
    wait_s: float
    unpack_s: float


class Executor:
    """A plan bound to a communicator (relay/exec.h), replayed over fresh buffers.

    Args:
        plan: the plan; every rank must hold the same plan (its own section
            at least). The executor keeps what it needs: the plan may be
            dropped afterwards.
        comm: an mpi4py communicator of plan.nranks ranks (default
            ``MPI.COMM_WORLD``).

    Binding is collective.  It raises :class:`relay.MismatchError` on every
    rank when the communicator's size differs from the plan's rank count,
    the ranks' plans have different fingerprints, or a rank lacks its section.

    Use it as a context manager, or call :meth:`close` on every rank after
    the last replay (freeing is collective, as MPI_Comm_free).
    """

    def __init__(self, plan: Plan, comm=None):
        global _atexit_registered
        handle = _comm_handle(comm)
        self._h = _core.exec_create(plan._h, handle)
        self.kind = plan.kind
        dst, src, self.itemsize, self.dtype_name = _core.exec_slots(self._h)
        self.dst_elems: tuple[int, ...] = dst
        self.src_elems: tuple[int, ...] = src
        _live.add(self)
        if not _atexit_registered:
            atexit.register(_close_all_at_exit)
            _atexit_registered = True

    def run(self, dst, src, alpha: Any = None, beta: Any = None) -> None:
        """One replay: A := alpha * op(B) + beta * A.

        Args:
            dst: this rank's A buffer (or a sequence, one per pair; HSUMMA: C).
            src: this rank's B buffer (or a sequence; HSUMMA: (A, B)).
            alpha, beta: numbers of the plan's type; None means 1 and 0, and
                with beta 0 A is never read (NaN in A does not leak).

        Buffers must be contiguous, of the plan's dtype, hold at least
        :attr:`dst_elems` / :attr:`src_elems` elements, and destinations be
        writable; None where this rank's size is 0.  Anything else raises
        :class:`relay.BufferMismatch` naming what was expected.  A rank that
        refuses its arguments still takes part in the exchange, over NaN
        buffers of relay's own (as the C API's refused start), so that the
        other ranks complete, with NaN where this rank's elements belong.
        """
        _core.exec_run(self._h, dst, src, alpha, beta)

    def start(self, dst, src, alpha: Any = None, beta: Any = None) -> None:
        """The first half of a split-phase replay: posts receives, packs and
        starts sends.  The buffers belong to relay until :meth:`wait`."""
        _core.exec_start(self._h, dst, src, alpha, beta)

    def wait(self) -> None:
        """The second half: local pieces, each message unpacked as it lands,
        completion.  Releases the buffers."""
        _core.exec_wait(self._h)

    @property
    def in_flight(self) -> bool:
        """Whether a replay was started and not yet waited for."""
        return _core.exec_in_flight(self._h)

    @property
    def memory(self) -> Memory:
        return Memory(*_core.exec_memory(self._h))

    @property
    def schedule(self) -> tuple[str, bool]:
        """(schedule, packed): how this executor replays, the plan's or its
        tuning's choice; packed under p2p when every message is packed."""
        s, packed = _core.exec_schedule(self._h)
        return s, bool(packed)

    def time(self, on: bool = True) -> None:
        """Starts timing replays (the sums restart from zero) or stops."""
        _core.exec_time(self._h, on)

    def timings(self) -> tuple[int, list[Timing]]:
        """(replays timed, rows): where this rank's replays spent their time."""
        replays, rows = _core.exec_timings(self._h)
        return replays, [Timing(*r) for r in rows]

    def hsumma_report(self) -> dict:
        """An HSUMMA executor's groups, the network it measured at bind, and
        the last replay's seconds in broadcasts and in packing and gemm."""
        return _core.exec_hsumma_report(self._h)

    def close(self) -> None:
        """Frees the executor (collective), after waiting for a replay in
        flight.  Idempotent."""
        if getattr(self, "_h", None) is not None:
            _core.exec_close(self._h)
            _live.discard(self)

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"<relay.Executor {self.kind}, dst {list(self.dst_elems)} src {list(self.src_elems)} elements of "
                f"{self.dtype_name}>")


def tune(plan: Plan, comm=None, replays: int = 10) -> Tuning:
    """Times every way the executor can replay ``plan`` on ``comm``
    (collective; same plan and ``replays`` on every rank), over scratch
    buffers, interleaved so that the machine's load falls on all alike, and
    records every choice's median time and the fastest in the plan, where
    executors bound in a job of the same shape find it and :meth:`Plan.save`
    keeps it.  Returns the tuning."""
    _core.exec_tune(plan._h, _comm_handle(comm), replays)
    return plan.tuning


def hsumma_measure_network(comm=None):
    """Measures latency and bandwidth by ping-pong between ranks 0 and 1
    (collective); every rank gets rank 0's :class:`relay.Network`."""
    from .algorithms import Network
    return Network(*_core.hsumma_measure_network(_comm_handle(comm)))


def hsumma_autotune(plan: Plan, comm=None, outer_steps: int = 1) -> Plan:
    """Times ``outer_steps`` outer steps of every grouping the grid allows
    (collective) and returns a copy of the plan with the fastest groups."""
    return Plan(_core.hsumma_autotune(plan._h, _comm_handle(comm), outer_steps))


__all__ = ["Executor", "Memory", "Timing", "tune", "hsumma_measure_network", "hsumma_autotune"]
