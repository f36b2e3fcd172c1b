"""Plans: everything about a data movement that does not depend on the data.

A plan is built once, offline or inside a job, without MPI: the overlay of
two layouts, the pieces each rank sends each other rank, an optional
process relabeling, and per-rank schedules.  It can be inspected
(:meth:`Plan.info`, :meth:`Plan.heatmap`), combined with other plans
(:func:`compose`, :func:`invert`, :func:`concat`), saved, loaded, encoded
to bytes and pickled, and replayed any number of times by a
:class:`relay.Executor`.

The transform is ``A := alpha * op(B) + beta * A`` with op 'N', 'T' or 'C'
(identity, transpose, conjugate transpose); for N-D layouts op 'T' and 'C'
permute the axes as numpy's ``transpose`` does (``perm``; None reverses).
"""

from __future__ import annotations

import json
import operator
import os
from dataclasses import dataclass
from typing import Any, Optional, Sequence, Union

import numpy as np

from . import _core
from .comms import comm_handle
from .errors import ArgumentError
from .layouts import AnyLayout, Layout, NDLayout

_TYPE_WORDS = {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
               np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"}
_DTYPES = {w: d for d, w in _TYPE_WORDS.items()}


def type_word(dtype: Any) -> str:
    """relay's element type of a numpy dtype: float32, float64, complex64 or complex128."""
    try:
        return _TYPE_WORDS[np.dtype(dtype)]
    except (KeyError, TypeError):
        raise ArgumentError(f"relay moves float32, float64, complex64 and complex128 elements, not {dtype!r}") \
            from None


def _rank_arg(rank: Optional[int]) -> int:
    """The C API's rank argument: -1 (every section) for None, else a rank >= 0.
    A negative rank is refused: C reads any negative rank as 'every section'."""
    if rank is None:
        return -1
    rank = operator.index(rank)
    if rank < 0:
        raise ArgumentError(f"rank {rank} is negative (None: every rank)")
    return rank


def _check_layouts(layouts: list, cls: type, planner: str, other: str) -> None:
    for l in layouts:
        if not isinstance(l, cls):
            raise ArgumentError(f"{planner} plans relay.{cls.__name__} layouts, not {type(l).__name__}"
                                f"{f' (use relay.{other})' if isinstance(l, (Layout, NDLayout)) else ''}")


def _options(relabel: str = "none", schedule: str = "auto", node_of_rank: Optional[Sequence[int]] = None,
             inter_node_weight: float = 1.0, max_buffer_bytes: int = 0, replicas: str = "auto") -> tuple:
    nodes = None if node_of_rank is None else np.asarray(node_of_rank).reshape(-1).tolist()
    return (relabel, schedule, nodes, float(inter_node_weight), int(max_buffer_bytes), replicas)


@dataclass(frozen=True)
class TuningChoice:
    """One way a replay was timed: schedule, packed (p2p), forward (N-D
    replicas), the median seconds of the slowest rank, and window (p2p, or
    rounds under a memory cap: on-node messages packed straight into the
    receiver's memory through a shared-memory window)."""
    schedule: str
    packed: bool
    forward: bool
    seconds: float
    window: bool = False


@dataclass(frozen=True)
class Tuning:
    """What :func:`relay.tune` measured and the plan carries: every choice
    timed, the fastest (``choices[best]``), and the job's ranks per node.
    A predicted tuning (``relay-plan --schedule predicted``) names the
    machine model its seconds were simulated on; a timed one has ""."""
    choices: tuple[TuningChoice, ...]
    best: int
    ranks_per_node: tuple[int, int]
    replays: int
    machine: str = ""


class Plan:
    """A plan (relay/plan.h).  Immutable but for its tuning; one plan may
    serve any number of executors, in any number of jobs.

    Pickling a plan pickles its encoded bytes, so a plan built on one rank
    can be sent with mpi4py's ``comm.bcast(plan)``.

    Plans are equal, and hash alike, when their fingerprints are: the same
    movement of the same type, whatever their tuning or the sections they
    hold (a rank's own section equals the whole plan).
    """

    __slots__ = ("_h", "__weakref__")

    def __init__(self, handle):
        self._h = handle

    # ---- facts ----------------------------------------------------------------

    def _facts(self) -> dict:
        return _core.plan_facts(self._h)

    @property
    def kind(self) -> str:
        """'transform', 'bmmc', 'hsumma' or 'nd'."""
        return self._facts()["kind"]

    @property
    def nranks(self) -> int:
        return self._facts()["nranks"]

    @property
    def dtype(self) -> np.dtype:
        """The element type (for a BMMC plan, which moves bytes: float64)."""
        return _DTYPES[self._facts()["type"]]

    @property
    def count(self) -> int:
        """Transform pairs (1 unless batched)."""
        return self._facts()["count"]

    @property
    def fingerprint(self) -> int:
        """The 64-bit fingerprint every rank's copy of the plan shares."""
        return self._facts()["fingerprint"]

    def __eq__(self, other) -> bool:
        if not isinstance(other, Plan):
            return NotImplemented
        return other is self or other.fingerprint == self.fingerprint

    def __hash__(self) -> int:
        return hash(self.fingerprint)

    @property
    def schedule(self) -> str:
        """'p2p', 'rounds', 'alltoallv' or 'neighbor', as planned."""
        return self._facts()["schedule"]

    @property
    def rounds(self) -> int:
        """Communication steps of one replay."""
        return self._facts()["rounds"]

    @property
    def max_buffer_bytes(self) -> int:
        """The memory cap the plan was made with (0: none)."""
        return self._facts()["max_buffer_bytes"]

    @property
    def stats(self) -> dict:
        """bytes_total, bytes_remote, bytes_remote_identity, messages, pieces."""
        return self._facts()["stats"]

    @property
    def relabeling(self) -> tuple[int, ...]:
        """sigma: sigma[j] receives the blocks the destination layout gives rank j."""
        return _core.plan_relabeling(self._h)

    def dst_layout(self, index: int = 0) -> AnyLayout:
        """Pair ``index``'s destination layout, relabeling applied."""
        return self._layout(True, index)

    def src_layout(self, index: int = 0) -> AnyLayout:
        """Pair ``index``'s source layout."""
        return self._layout(False, index)

    def _layout(self, is_dst: bool, index: int) -> AnyLayout:
        h = _core.plan_layout(self._h, is_dst, index)
        return NDLayout._wrap(h) if isinstance(h, _core.NDLayoutHandle) else Layout(h)

    def perm(self, index: int = 0) -> tuple[int, ...]:
        """An N-D pair's axis permutation (A's dimension k is B's perm[k])."""
        return _core.plan_nd_perm(self._h, index)

    def dst_elems(self, rank: int, index: int = 0) -> int:
        """Elements rank's destination buffer of pair ``index`` must hold."""
        return self._buffer_elems(True, index, rank)

    def src_elems(self, rank: int, index: int = 0) -> int:
        """Elements rank's source buffer ``index`` must hold (HSUMMA: 0 is A, 1 is B)."""
        return self._buffer_elems(False, index, rank)

    def _buffer_elems(self, is_dst: bool, index: int, rank: int) -> int:
        if self.kind != "bmmc":
            return _core.plan_buffer_elems(self._h, is_dst, index, rank)
        # A BMMC plan's buffers: 2^(n-p) elements each way on every rank.
        info = _core.plan_bmmc_info(self._h)
        if index != 0 or not 0 <= rank < self.nranks:
            raise ArgumentError(f"a BMMC plan has one buffer each way on ranks [0, {self.nranks}), "
                                f"not {index} on rank {rank}")
        return 1 << (info["n"] - info["p"])

    # ---- tuning -----------------------------------------------------------------

    @property
    def tuning(self) -> Optional[Tuning]:
        """The tuning the plan carries (None if it has none); assign a
        :class:`Tuning` to record one, None to remove it."""
        t = _core.plan_tuning(self._h)
        if t is None:
            return None
        return Tuning(tuple(TuningChoice(s, bool(p), bool(f), sec, bool(w)) for s, p, f, sec, w in t["choices"]),
                      t["best"], tuple(t["ranks_per_node"]), t["replays"], t["machine"])

    @tuning.setter
    def tuning(self, t: Optional[Tuning]) -> None:
        _core.plan_set_tuning(self._h, None if t is None else (
            t.ranks_per_node[0], t.ranks_per_node[1], t.replays, t.best,
            [(c.schedule, int(c.packed), int(c.forward), c.seconds, int(c.window)) for c in t.choices], t.machine))

    def tune(self, comm=None, replays: int = 10) -> Tuning:
        """Times every way the executor can replay this plan on ``comm``
        (collective) and records them and the fastest in the plan; see
        :func:`relay.tune`."""
        _core.exec_tune(self._h, comm_handle(comm), replays)
        return self.tuning

    # ---- files and bytes ---------------------------------------------------------------

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Writes the plan file (MessagePack, docs/plan-format.md), atomically."""
        _core.plan_save(self._h, path)

    def encode(self) -> bytes:
        """The plan file's bytes."""
        return _core.plan_encode(self._h)

    def __reduce__(self):
        return (decode, (self.encode(),))

    # ---- inspection -------------------------------------------------------------------

    def info(self, rank: Optional[int] = None, limit: int = 4096) -> dict:
        """What ``relay-dump FILE --json`` prints, as a dict: the whole
        plan's summary, or with ``rank`` that rank's section (buffers,
        messages and their lattices, local pieces).  Lists hold their first
        ``limit`` entries (0: all), ``*_left_out`` keys say how many were
        left out.  Needs no MPI."""
        return json.loads(_core.plan_info_json(self._h, _rank_arg(rank), limit))

    def volumes(self) -> tuple[np.ndarray, int]:
        """(matrix, bin_ranks): bytes each sender (row) sends each receiver
        (column) per replay, rank-local copies on the diagonal; above 256
        ranks each cell sums bin_ranks x bin_ranks ranks.  Transform plans."""
        nranks, nbins, bin_ranks, data = _core.plan_volumes(self._h)
        return np.frombuffer(data, np.float64).reshape(nbins, nbins), bin_ranks

    def heatmap(self, ax=None, title: Optional[str] = None):
        """Draws :meth:`volumes` with matplotlib, as ``relay-dump --svg``
        does: log colour scale, sender rows, receiver columns.  Returns the
        Axes (a new figure's when ax is None)."""
        from .heatmap import draw
        return draw(self, ax, title)

    def __repr__(self) -> str:
        f = self._facts()
        return (f"<relay.Plan {f['kind']} on {f['nranks']} ranks, {_DTYPES[f['type']].name}, {f['count']} pair(s), "
                f"{f['stats']['bytes_remote']} bytes remote as the plan states, fingerprint {f['fingerprint']:016x}>")


# ---- planning ------------------------------------------------------------------------

def _as_list(x) -> list:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _ops(ops, count: int) -> list:
    # one op word serves every pair of a batch ("or one per pair")
    ops = ["N"] * count if ops is None else [ops] * count if isinstance(ops, str) else _as_list(ops)
    return [op.upper() if isinstance(op, str) else op for op in ops]


def plan_transform(dst: Union[Layout, Sequence[Layout]], src: Union[Layout, Sequence[Layout]], *,
                   op: Union[str, Sequence[str]] = "N", dtype: Any = np.float64, nranks: Optional[int] = None,
                   rank: Optional[int] = None, relabel: str = "none", schedule: str = "auto",
                   node_of_rank: Optional[Sequence[int]] = None, inter_node_weight: float = 1.0,
                   max_buffer_bytes: int = 0) -> Plan:
    """Plans ``A := alpha * op(B) + beta * A`` between 2-D layouts.

    Args:
        dst, src: A's layout (m x n) and B's (m x n for op 'N', n x m for
            'T' and 'C'); or lists of them, a batch moved in one
            communication round (one message per peer carries every pair).
        op: 'N', 'T' or 'C', or one per pair.
        dtype: float32, float64, complex64 or complex128.
        nranks: ranks of the plan; default the layouts' largest rank count.
        rank: plan only this rank's section (time and memory follow it; the
            fingerprint is the whole plan's, so ranks that each plan their
            own pass the executor's agreement).  Such a plan cannot be saved.
        relabel: 'none', 'greedy' or 'optimal': let the planner choose a
            permutation of ranks for A that minimises the bytes moved.
        schedule: 'auto', 'p2p', 'rounds', 'alltoallv' or 'neighbor'.
        node_of_rank: each rank's node, for the node-aware cost in which an
            inter-node byte costs ``inter_node_weight``.
        max_buffer_bytes: cap each rank's pack and receive buffers (replays
            then run in rounds, in chunks).
    """
    dsts, srcs = _as_list(dst), _as_list(src)
    _check_layouts(dsts + srcs, Layout, "plan_transform", "plan_nd")
    if nranks is None:
        nranks = max((l.nranks for l in dsts + srcs), default=1)  # an empty batch: relay refuses it
    return Plan(_core.plan_transform(nranks, [l._h for l in dsts], [l._h for l in srcs], _ops(op, len(dsts)),
                                     type_word(dtype), _options(relabel, schedule, node_of_rank,
                                                                inter_node_weight, max_buffer_bytes),
                                     _rank_arg(rank)))


def plan_nd(dst: Union[NDLayout, Sequence[NDLayout]], src: Union[NDLayout, Sequence[NDLayout]], *,
            op: Union[str, Sequence[str]] = "N", perm: Union[None, Sequence[int], Sequence[Optional[Sequence[int]]]] = None,
            dtype: Any = np.float64, nranks: Optional[int] = None, replicas: str = "auto",
            node_of_rank: Optional[Sequence[int]] = None) -> Plan:
    """Plans ``A := alpha * permute(B) + beta * A`` between N-D layouts
    (relay/nd.h), with numpy's axis convention: A's dimension k is B's
    dimension perm[k].

    Args:
        dst, src: the layouts, or lists of them (a batch).
        op: 'N' (perm must be None), 'T' (permute; perm None reverses the
            axes, as ``.T``) or 'C' (permute and conjugate), or one per pair.
        perm: the permutation, or one per pair (None entries as op says).
        nranks: ranks of the plan; default the layouts' smallest that holds
            every mesh.
        replicas: how replicas of a replicated destination receive:
            'direct' from the sources, 'forward' down a tree among them, or
            'auto' (the planner's model).
        node_of_rank: each rank's node, to read source replicas node-locally.
    """
    dsts, srcs = _as_list(dst), _as_list(src)
    _check_layouts(dsts + srcs, NDLayout, "plan_nd", "plan_transform")
    if perm is None or (len(dsts) == 1 and all(isinstance(x, (int, np.integer)) for x in perm)):
        perms = [perm] * len(dsts) if perm is None else [list(perm)]
    else:
        perms = [None if p is None else list(p) for p in perm]
    if nranks is None:
        nranks = max((l.min_ranks for l in dsts + srcs), default=1)  # an empty batch: relay refuses it
    return Plan(_core.plan_nd(nranks, [l._h for l in dsts], [l._h for l in srcs], _ops(op, len(dsts)), perms,
                              type_word(dtype), _options(node_of_rank=node_of_rank, replicas=replicas)))


# ---- algebra, files and bytes ---------------------------------------------------------

def compose(first: Plan, second: Plan) -> Plan:
    """The plan that moves B straight to where ``second`` moves ``first``'s
    result: each element once (relay_plan_compose)."""
    return Plan(_core.plan_compose(first._h, second._h))


def invert(plan: Plan) -> Plan:
    """The plan that moves the data back: B := op(A) from A as ``plan`` delivers it."""
    return Plan(_core.plan_invert(plan._h))


def concat(x: Plan, y: Plan) -> Plan:
    """Two transform plans over the same ranks and type as one batch (x's pairs, then y's)."""
    return Plan(_core.plan_concat(x._h, y._h))


def load(path: Union[str, os.PathLike], rank: Optional[int] = None) -> Plan:
    """Reads a plan file: every section, or with ``rank`` that rank's alone
    (what a job's rank needs to replay).  Plan files are untrusted input:
    anything malformed raises :class:`relay.FormatError` and builds nothing."""
    return Plan(_core.plan_load(path, _rank_arg(rank)))


def decode(data, rank: Optional[int] = None) -> Plan:
    """A plan from its bytes (any buffer: bytes, bytearray, memoryview,
    numpy uint8 array), as :func:`load` reads a file."""
    return Plan(_core.plan_decode(data, _rank_arg(rank)))


def file_nranks(path: Union[str, os.PathLike]) -> int:
    """The rank count of the plan in a file, from its header alone."""
    return _core.plan_file_nranks(path)


__all__ = ["Plan", "Tuning", "TuningChoice", "plan_transform", "plan_nd", "compose", "invert", "concat", "load",
           "decode", "file_nranks"]
