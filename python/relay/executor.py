"""Executors: replaying a plan over fresh buffers inside an MPI job.

An :class:`Executor` binds a plan to an mpi4py communicator once
(collective: it duplicates the communicator, allocates pack buffers and
creates persistent requests) and replays it as often as the application
wants, over numpy arrays or any object with the buffer protocol, without
copying them::

    with relay.Executor(plan, MPI.COMM_WORLD) as ex:
        for it in range(iterations):
            ex.run(a_local, b_local)           # A := B, redistributed

Memory kinds: an executor bound with ``memory="cuda"`` replays over device
arrays instead (CuPy arrays, PyTorch CUDA tensors, Numba device arrays:
anything with ``__cuda_array_interface__``), ordered on a CUDA stream::

    with relay.Executor(plan, MPI.COMM_WORLD, memory="cuda", stream=cupy.cuda.get_current_stream()) as ex:
        ex.run(a_dev, b_dev)                   # enqueued on the stream; returns without waiting for it

where relay was built with its CUDA backend (:func:`memory_supported`).

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
import itertools
import numbers
import operator
import weakref
from dataclasses import dataclass
from typing import Any, NamedTuple, Optional, Sequence

from . import _core
from .algorithms import Network
from .comms import comm_handle
from .errors import ArgumentError
from .plans import Plan, Tuning

# Executors still open, in the order they were made: the same order on
# every rank of an SPMD program, which closing at exit must follow (freeing
# an executor through a shared-memory window waits for its node's ranks;
# a WeakSet's order is its members' addresses, different on every rank).
_live: dict[int, weakref.ref] = {}
_made = itertools.count()
_atexit_registered = False


def _close_all_at_exit() -> None:
    # Runs before mpi4py's MPI_Finalize (atexit handlers run last-registered
    # first, and this one is registered after mpi4py.MPI is imported).
    for ref in list(_live.values()):
        ex = ref()
        if ex is not None:
            ex.close()


def _stream_handle(stream) -> int:
    """A CUDA stream's handle (cudaStream_t as an integer; 0: the legacy
    default stream) from None, an integer, or a stream object of CuPy
    (``.ptr``), PyTorch (``.cuda_stream``), the CUDA stream protocol
    (``__cuda_stream__``: cuda.core, nvmath-python) or Numba (``int(s)``)."""
    if stream is None:
        return 0
    if isinstance(stream, (bool, str, bytes)) or (isinstance(stream, numbers.Number) and
                                                  not isinstance(stream, numbers.Integral)):
        raise TypeError(f"stream must be a CUDA stream (CuPy, PyTorch, an integer handle) or None, "
                        f"not {type(stream).__name__}")
    if isinstance(stream, numbers.Integral):
        handle = stream
    elif hasattr(stream, "__cuda_stream__"):
        protocol = stream.__cuda_stream__
        _, handle = protocol() if callable(protocol) else protocol
    elif hasattr(stream, "cuda_stream"):
        handle = stream.cuda_stream
    elif hasattr(stream, "ptr"):
        handle = stream.ptr
    elif hasattr(stream, "__int__"):
        handle = int(stream)
    else:
        raise TypeError(f"stream must be a CUDA stream (an object with .ptr, .cuda_stream or __cuda_stream__, or an "
                        f"integer handle) or None, not {type(stream).__name__}")
    try:
        handle = operator.index(handle)
    except TypeError:
        raise TypeError(f"stream {stream!r} gives a handle that is no integer: {handle!r}") from None
    if not 0 <= handle < 1 << 64:
        raise ArgumentError(f"stream handle {handle} is not a pointer (0 <= handle < 2**64)")
    return handle


def memory_supported(memory: str) -> bool:
    """Whether executors can bind buffers of this memory kind here: ``"host"``
    always; ``"cuda"`` where relay was built with its CUDA backend and a GPU
    is visible (relay_memory_supported).  Needs no MPI."""
    return _core.memory_supported(memory)


class ExecOptions(NamedTuple):
    """Where an executor's buffers live, as bound (relay_exec_options_get):
    ``memory`` ``"host"`` or ``"cuda"``; ``stream``, the CUDA stream's handle
    (0: the default stream); ``transport``, ``"staged"`` (through pinned host
    buffers) or ``"direct"`` (CUDA-aware MPI) as settled at binding for CUDA
    executors (host executors ignore stream and transport)."""
    memory: str
    stream: int
    transport: str


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
        memory: where the buffers live: ``"host"`` (numpy arrays, anything
            with the buffer protocol) or ``"cuda"`` (device arrays with
            ``__cuda_array_interface__``: CuPy, PyTorch CUDA tensors,
            Numba), the same on every rank.
        stream: for ``"cuda"``, the CUDA stream replays are ordered on: a
            ``cupy.cuda.Stream``, a ``torch.cuda.Stream``, an object of the
            CUDA stream protocol (``__cuda_stream__``), an integer handle,
            or None for the legacy default stream.  Ignored for host memory.
        transport: for ``"cuda"``, how messages travel: ``"staged"`` through
            pinned host buffers, ``"direct"`` with MPI reading and writing
            device memory (CUDA-aware MPI), or ``"auto"`` (direct where every
            rank's MPI says it is CUDA-aware), the same on every rank.
        deadline: seconds each replay may take (None: the environment's
            ``RELAY_DEADLINE``, else none).  Past it :meth:`run` (or
            :meth:`wait`) raises :class:`relay.ReplayTimeout` naming the peers
            whose messages did not arrive and the replay each is at; the
            executor can then only be closed.  Transform plans only.

    Binding is collective.  It raises :class:`relay.MismatchError` on every
    rank when the communicator's size differs from the plan's rank count,
    the ranks' plans have different fingerprints, a rank lacks its section,
    or the ranks bind different memory kinds or transports; and
    :class:`relay.UnsupportedError` on every rank when ``memory="cuda"`` and
    some rank cannot bind CUDA memory (relay built without its CUDA backend,
    no GPU), or the plan is not a 2-D transform plan without a memory cap.
    :attr:`options` says what was bound.

    A replay on CUDA memory is ordered on the stream: it reads the buffers
    after the work enqueued on the stream before :meth:`run` (or
    :meth:`start`), and work enqueued on the stream after :meth:`run` (or
    :meth:`wait`) returns sees the result.  It returns without waiting for
    the stream.  relay orders on this stream alone: the ``stream`` entry of
    an array's ``__cuda_array_interface__`` is not synchronized with, so
    make the stream wait for work on others first (as with any library
    that takes a stream).

    Use it as a context manager, or call :meth:`close` on every rank after
    the last replay (freeing is collective, as MPI_Comm_free).
    """

    def __init__(self, plan: Plan, comm=None, *, memory: str = "host", stream=None, transport: str = "auto",
                 deadline: float | None = None):
        global _atexit_registered
        handle = comm_handle(comm)
        stream_handle = _stream_handle(stream)
        self._h = _core.exec_create(plan._h, handle, memory, stream_handle, transport)
        if deadline is not None:
            self.set_deadline(deadline)
        self.kind = plan.kind
        self._memory_kind = memory
        dst, src, self.itemsize, self.dtype_name = _core.exec_slots(self._h)
        self.dst_elems: tuple[int, ...] = dst
        self.src_elems: tuple[int, ...] = src
        self._made = next(_made)
        _live[self._made] = weakref.ref(self, lambda _, k=self._made: _live.pop(k, None))
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
        writable; None where this rank's size is 0.  On a CUDA executor they
        are device arrays (``__cuda_array_interface__``, C- or F-contiguous),
        and host buffers are refused; on a host executor device arrays are.
        Anything else raises
        :class:`relay.BufferMismatch` naming what was expected.  A rank that
        refuses its arguments still takes part in the exchange, over NaN
        buffers of relay's own (as the C API's refused start), so that the
        other ranks complete, with NaN where this rank's elements belong;
        those that receive from it raise :class:`relay.PeerRefused` naming
        it (transform plans).
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
    def options(self) -> ExecOptions:
        """Where the buffers live, as bound: memory kind, stream handle, and
        the transport settled (``"staged"`` or ``"direct"`` for CUDA memory)."""
        return ExecOptions(*_core.exec_options(self._h))

    @property
    def memory(self) -> Memory:
        return Memory(*_core.exec_memory(self._h))

    @property
    def schedule(self) -> tuple[str, bool]:
        """(schedule, packed): how this executor replays, the plan's or its
        tuning's choice; packed under p2p when every message is packed."""
        s, packed = _core.exec_schedule(self._h)
        return s, bool(packed)

    def set_deadline(self, seconds: float) -> None:
        """Seconds each replay from the next on may take (0: none); see the
        ``deadline`` argument."""
        _core.exec_set_deadline(self._h, float(seconds))

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
            _live.pop(self._made, None)

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        where = "" if self._memory_kind == "host" else f" in {self._memory_kind} memory"
        return (f"<relay.Executor {self.kind}, dst {list(self.dst_elems)} src {list(self.src_elems)} elements of "
                f"{self.dtype_name}{where}>")


def tune(plan: Plan, comm=None, replays: int = 10) -> Tuning:
    """Times every way the executor can replay ``plan`` on ``comm``
    (collective; same plan and ``replays`` on every rank), over scratch
    buffers, interleaved so that the machine's load falls on all alike, and
    records every choice's median time and the fastest in the plan, where
    executors bound in a job of the same shape find it and :meth:`Plan.save`
    keeps it.  Returns the tuning."""
    return plan.tune(comm, replays)


def hsumma_measure_network(comm=None):
    """Measures latency and bandwidth by ping-pong between ranks 0 and 1
    (collective); every rank gets rank 0's :class:`relay.Network`."""
    return Network(*_core.hsumma_measure_network(comm_handle(comm)))


def hsumma_autotune(plan: Plan, comm=None, outer_steps: int = 1) -> Plan:
    """Times ``outer_steps`` outer steps of every grouping the grid allows
    (collective) and returns a copy of the plan with the fastest groups."""
    return Plan(_core.hsumma_autotune(plan._h, comm_handle(comm), outer_steps))


__all__ = ["Executor", "ExecOptions", "Memory", "Timing", "memory_supported", "tune", "hsumma_measure_network",
           "hsumma_autotune"]
