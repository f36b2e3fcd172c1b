"""Distributed arrays: each rank's local part of a global array together
with its layout and communicator, moved to other layouts by relay's plans.

A :class:`DistArray` is what mpi4py-fft's ``DistArray`` and PyTorch's
``DTensor`` are to their users: the local numpy array (``np.asarray(d)``),
the layout it belongs to, and moves between layouts::

    x = relay.scatter(global_or_none, pencils_x, comm, root=0)   # from rank 0
    y = x.redistribute([relay.Shard(0), relay.Shard(2)])         # another mesh placement
    whole = y.gather(root=0)                                     # on rank 0, None elsewhere
    every = y.full()                                             # on every rank

Every move is a relay plan bound to an executor.  The first move between
two layouts of one type on one communicator plans and binds (collective);
later ones replay the cached executor, at the cost of a dictionary look-up
over a bare :meth:`relay.Executor.run`.  Scatter and gather are such moves
too, to and from a layout in which ``root`` holds the whole array.
:func:`plan_cache_info` counts hits and misses; :func:`plan_cache_clear`
frees the executors (collective).

Host memory only: arrays are numpy arrays (relay's CUDA executors serve 2-D
transform plans alone, not the N-D moves most uses of DistArray make).
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from typing import Any, NamedTuple, Optional, Sequence, Union

import numpy as np

from . import _core
from .arrays import _geometry, local_view
from .comms import comm_handle
from .errors import ArgumentError, BufferMismatch
from .executor import Executor
from .layouts import AnyLayout, Layout, NDLayout, Placement, Replicate, _placement_of, _placement_tuple, grid
from .plans import Plan, plan_nd, plan_transform, type_word

# ---- the plan cache ------------------------------------------------------------


class PlanCacheInfo(NamedTuple):
    """What :func:`plan_cache_info` reports, as ``functools.lru_cache``'s
    cache_info: moves served from the cache, moves planned, executors held,
    and how many it holds at most."""
    hits: int
    misses: int
    size: int
    maxsize: int


class _Move:
    """A plan between two layouts bound to a communicator, the executor's
    handle (replayed without the wrapper's call), and how to make the
    destination's local array."""
    __slots__ = ("plan", "executor", "handle", "comm", "alloc")

    def __init__(self, plan: Plan, executor: Executor, comm, alloc):
        self.plan, self.executor, self.handle, self.comm, self.alloc = plan, executor, executor._h, comm, alloc

    def run(self, dst, src) -> None:
        _core.exec_run(self.handle, dst, src, None, None)


class _Cache:
    """Bound moves, least recently used first.  Every rank makes the same
    moves in the same order (they are collective), so every rank's cache
    holds the same keys and evicts the same one: freeing an executor is
    collective too."""

    def __init__(self, maxsize: int = 64):
        self.entries: OrderedDict = OrderedDict()
        self.maxsize = maxsize
        self.hits = self.misses = 0

    def move(self, dst: AnyLayout, src: AnyLayout, dtype: np.dtype, comm) -> _Move:
        # Keyed by the layouts' fingerprints, read from their slots where
        # known: hashing ints costs a fraction of calling __hash__.
        try:
            key = (dst._fp, src._fp, dtype, id(comm))
        except AttributeError:
            key = (dst.fingerprint, src.fingerprint, dtype, id(comm))
        entry = self.entries.get(key)
        if entry is not None:
            self.hits += 1
            self.entries.move_to_end(key)
            return entry
        entry = _bind(dst, src, dtype, comm)
        self.misses += 1
        self.entries[key] = entry  # keeps comm alive: its id stays its own
        while len(self.entries) > self.maxsize:
            self.entries.popitem(last=False)[1].executor.close()
        return entry

    def clear(self) -> None:
        while self.entries:
            self.entries.popitem(last=False)[1].executor.close()
        self.hits = self.misses = 0


_cache = _Cache()


def plan_cache_info() -> PlanCacheInfo:
    """Hits, misses, size and maxsize of the cache of bound moves that
    :meth:`DistArray.redistribute`, :func:`scatter` and :meth:`DistArray.gather`
    share (this rank's counts; every rank makes the same moves)."""
    return PlanCacheInfo(_cache.hits, _cache.misses, len(_cache.entries), _cache.maxsize)


def plan_cache_clear() -> None:
    """Frees every cached executor and zeroes the counts.  Collective: call
    it on every rank of every communicator the cache holds moves of."""
    _cache.clear()


def _allocator(layout: AnyLayout, rank: int, dtype: np.dtype):
    """A function making rank's local array for layout: its storage shape in
    its order (a grid layout's flat buffer), as relay.empty_local."""
    geometry = _geometry(layout, rank)
    if geometry is None:
        n = layout.local_elems(rank)
        return lambda: np.empty(n, dtype)
    shape, _, order = geometry
    return lambda: np.empty(shape, dtype, order=order)


def _bind(dst: AnyLayout, src: AnyLayout, dtype: np.dtype, comm) -> _Move:
    """Plans dst := src on comm's ranks and binds it (collective).  Every
    rank plans alike, so bad layouts are refused on every rank together."""
    if isinstance(dst, NDLayout) and isinstance(src, NDLayout):
        plan = plan_nd(dst, src, dtype=dtype, nranks=comm.size)
    elif isinstance(dst, Layout) and isinstance(src, Layout):
        plan = plan_transform(dst, src, dtype=dtype, nranks=comm.size, rank=comm.rank)
    else:
        raise ArgumentError(f"relay moves an array between two 2-D layouts or two N-D layouts, not from "
                            f"{type(src).__name__} to {type(dst).__name__}")
    return _Move(plan, Executor(plan, comm), comm, _allocator(dst, comm.rank, dtype))


# ---- layouts of the whole array on one rank or on every rank ---------------------------


@functools.lru_cache(maxsize=64)
def _on_root(src: AnyLayout, root: int, nranks: int, order: str) -> AnyLayout:
    """src's global array held whole by root, stored densely in order."""
    if isinstance(src, NDLayout):
        return NDLayout(src.shape, 1, [Replicate()], ranks=[root], order=order)
    m, n = src.shape
    return grid(nranks, [0, m], [0, n], [root], order=order)


@functools.lru_cache(maxsize=64)
def _on_every_rank(src: NDLayout, nranks: int) -> NDLayout:
    return NDLayout(src.shape, nranks, [Replicate()], order="C")


@functools.lru_cache(maxsize=256)
def _placed(src: NDLayout, placements: tuple) -> NDLayout:
    """src's array on src's mesh and ranks, in src's order, with other placements."""
    return NDLayout(src.shape, src.mesh, [_placement_of(p) for p in placements], ranks=src.ranks, order=src.order)


@functools.lru_cache(maxsize=256)
def _placed_as_given(src: NDLayout, placements: tuple) -> NDLayout:
    """_placed, for placements that hash (the common case: one look-up)."""
    ndim = len(src.shape)
    return _placed(src, tuple(_placement_key(p, ndim) for p in placements))


def _placement_key(p: Placement, ndim: int):
    kind, dim, block, splits = _placement_tuple(p, ndim)
    return (kind, dim, block, None if splits is None else tuple(splits))


def _check_root(root: int, comm) -> int:
    if not isinstance(root, (int, np.integer)) or isinstance(root, bool) or not 0 <= root < comm.size:
        raise ArgumentError(f"root {root!r} is not a rank of the communicator's {comm.size}")
    return int(root)


def _comm(comm):
    if comm is None:
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
    comm_handle(comm)  # an mpi4py communicator of relay's MPI library, or TypeError / ImportError
    return comm


# ---- the array ----------------------------------------------------------------------


class DistArray:
    """This rank's part of a global array, with its layout and communicator.

    Args:
        local: this rank's local array, as a replay takes it (the storage
            array :func:`relay.empty_local` makes, its logical view, or 1-D
            raw storage; a grid layout's flat buffer), of an element type
            relay moves.  Not copied: the DistArray is a view of it.
        layout: a 2-D :class:`relay.Layout` or an :class:`relay.NDLayout`.
        comm: an mpi4py communicator (default ``MPI.COMM_WORLD``) with at
            least the layout's ranks; the rank's part is ``comm.rank``'s.

    A local array that does not fit the layout raises
    :class:`relay.BufferMismatch` on its rank (making a DistArray is not
    collective).  ``np.asarray(d)`` is the logical local array
    (:func:`relay.local_view`): without padding, the first LOCr rows of a
    ScaLAPACK local matrix; a grid layout's flat buffer as it is.
    """

    __slots__ = ("storage", "layout", "comm", "__weakref__")

    def __init__(self, local, layout: AnyLayout, comm=None):
        if not isinstance(layout, (Layout, NDLayout)):
            raise ArgumentError(f"a DistArray's layout is a relay.Layout or relay.NDLayout, not {type(layout).__name__}")
        comm = _comm(comm)
        array = np.asarray(local)
        type_word(array.dtype)
        if _geometry(layout, comm.rank) is None:
            if array.ndim != 1 or not array.flags.c_contiguous or array.size < layout.local_elems(comm.rank):
                raise BufferMismatch(f"a grid layout's local array is flat: 1-D, contiguous, of at least "
                                     f"{layout.local_elems(comm.rank)} elements on rank {comm.rank}; got shape "
                                     f"{array.shape}")
        else:
            _core.local_array_check(layout._h, comm.rank, array)
        self.storage, self.layout, self.comm = array, layout, comm

    @classmethod
    def _wrap(cls, storage: np.ndarray, layout: AnyLayout, comm) -> "DistArray":
        d = object.__new__(cls)
        d.storage, d.layout, d.comm = storage, layout, comm
        return d

    @classmethod
    def empty(cls, layout: AnyLayout, dtype: Any = np.float64, comm=None) -> "DistArray":
        """A DistArray of layout whose local array is uninitialised."""
        comm = _comm(comm)
        dtype = np.dtype(dtype)
        type_word(dtype)
        return cls._wrap(_allocator(layout, comm.rank, dtype)(), layout, comm)

    @classmethod
    def zeros(cls, layout: AnyLayout, dtype: Any = np.float64, comm=None) -> "DistArray":
        d = cls.empty(layout, dtype, comm)
        d.storage[...] = 0
        return d

    # ---- facts ---------------------------------------------------------------------

    @property
    def dtype(self) -> np.dtype:
        return self.storage.dtype

    @property
    def shape(self) -> tuple[int, ...]:
        """The global array's shape."""
        return tuple(self.layout.shape)

    @property
    def local(self) -> np.ndarray:
        """The logical local array, a view (``np.asarray(d)``)."""
        if _geometry(self.layout, self.comm.rank) is None:
            return self.storage
        return local_view(self.layout, self.comm.rank, self.storage)

    def __array__(self, dtype=None, copy=None):
        local = self.local
        return local if dtype is None else local.astype(dtype, copy=False)

    def __repr__(self) -> str:
        return f"<relay.DistArray {self.shape} {self.dtype.name}, rank {self.comm.rank}: {self.layout!r}>"

    # ---- moves -----------------------------------------------------------------------

    def _placed(self, placements: Sequence[Placement]) -> NDLayout:
        """This array's layout with other placements."""
        if not isinstance(placements, (list, tuple)):
            raise ArgumentError(f"redistribute's target is a relay.Layout, a relay.NDLayout or a list of placements, "
                                f"not {type(placements).__name__}")
        if not isinstance(self.layout, NDLayout):
            raise ArgumentError("placements redistribute an array of an N-D layout; this one's is 2-D: give a "
                                "relay.Layout")
        try:
            return _placed_as_given(self.layout, tuple(placements))
        except TypeError:  # unhashable: splits given as a list
            ndim = len(self.layout.shape)
            return _placed(self.layout, tuple(_placement_key(p, ndim) for p in placements))

    def redistribute(self, target: Union[AnyLayout, Sequence[Placement]], *,
                     out: Optional["DistArray"] = None) -> "DistArray":
        """The array in another layout (collective).

        Args:
            target: a layout of the same family (2-D or N-D) and global
                shape, or for an N-D array placements, one per mesh
                dimension: the same mesh, ranks and order, placed anew (as
                DTensor's ``redistribute(placements=...)``).
            out: a DistArray of the target layout and this array's type to
                write into (its local array is reused: no allocation); by
                default a new one.

        The first move between two layouts plans and binds an executor;
        later ones replay it from the cache (:func:`plan_cache_info`).  An
        ``out`` of another layout or type is refused on its rank, with
        :class:`relay.ArgumentError`, after the move has run into a scratch
        array, so that the other ranks complete.
        """
        dst = target if isinstance(target, (Layout, NDLayout)) else self._placed(target)
        storage = self.storage
        move = _cache.move(dst, self.layout, storage.dtype, self.comm)
        if out is None:
            result = move.alloc()
            move.run(result, storage)
            return DistArray._wrap(result, dst, self.comm)
        if (out.layout is dst or out.layout == dst) and out.storage.dtype == storage.dtype:
            move.run(out.storage, storage)
            return out
        move.run(move.alloc(), storage)
        raise ArgumentError(f"out holds {out.dtype.name} elements of {out.layout!r}; the move writes "
                            f"{self.dtype.name} elements of {dst!r}")

    def gather(self, root: int = 0) -> Optional[np.ndarray]:
        """The global array on root, None on the other ranks (collective).
        Partial pieces are summed.  A C-ordered numpy array."""
        root = _check_root(root, self.comm)
        dst = _on_root(self.layout, root, self.comm.size, "C")
        move = _cache.move(dst, self.layout, self.dtype, self.comm)
        if self.comm.rank != root:
            move.run(None, self.storage)
            return None
        whole = np.empty(self.shape, self.dtype)
        move.run(whole.reshape(-1), self.storage)  # raw storage: a grid layout's takes no other
        return whole

    def full(self) -> np.ndarray:
        """The global array on every rank (collective): an N-D array's
        moved to a layout replicated on every rank; a 2-D array's gathered on
        rank 0 and broadcast (relay's 2-D layouts hold each block once)."""
        if isinstance(self.layout, NDLayout):
            dst = _on_every_rank(self.layout, self.comm.size)
            move = _cache.move(dst, self.layout, self.dtype, self.comm)
            whole = move.alloc()
            move.run(whole, self.storage)
            return whole
        whole = self.gather(0)
        if whole is None:
            whole = np.empty(self.shape, self.dtype)
        self.comm.Bcast(whole, root=0)
        return whole


def scatter(global_array, layout: AnyLayout, comm=None, root: int = 0) -> DistArray:
    """A DistArray of layout from a global array held by root (collective).

    Root passes the array (any numpy array of the layout's global shape and
    an element type relay moves; C- or F-contiguous ones are not copied),
    the other ranks None (or anything: only root's is read).  Root
    broadcasts the element type, or the reason it refuses the array, which
    every rank then raises together.
    """
    comm = _comm(comm)
    root = _check_root(root, comm)
    verdict = array = None
    if comm.rank == root:
        array, verdict = _scatter_source(global_array, layout)
    verdict = comm.bcast(verdict, root=root)
    if isinstance(verdict, str):
        raise ArgumentError(verdict)
    dtype, order = np.dtype(verdict[0]), verdict[1]
    src = _on_root(layout, root, comm.size, order)
    move = _cache.move(layout, src, dtype, comm)
    local = move.alloc()
    move.run(local, None if array is None else array.reshape(-1, order=order))
    return DistArray._wrap(local, layout, comm)


def _scatter_source(global_array, layout: AnyLayout) -> tuple[Optional[np.ndarray], Any]:
    """Root's array to scatter, stored densely, and (dtype, order) or the
    words that refuse it."""
    try:
        array = np.asarray(global_array)
        type_word(array.dtype)
    except Exception as e:  # noqa: BLE001 - refused on every rank, in these words
        return None, f"scatter: root's array is refused: {e}"
    if array.shape != tuple(layout.shape):
        return None, f"scatter: root's array has shape {array.shape}, the layout's global shape is {tuple(layout.shape)}"
    order = "F" if array.flags.f_contiguous and not array.flags.c_contiguous else "C"
    return np.asarray(array, order=order), (array.dtype.str, order)


__all__ = ["DistArray", "scatter", "plan_cache_info", "plan_cache_clear", "PlanCacheInfo"]
