"""Layouts: how a global array is cut into pieces held by ranks.

Two families, as in the C API:

* 2-D layouts of an m x n matrix (``relay/layout.h``): ScaLAPACK's
  block-cyclic distribution (:func:`block_cyclic`) and arbitrary grids of
  blocks with explicit owners (:func:`grid`).  Each rank stores its blocks
  in one local buffer: a block-cyclic layout's is ScaLAPACK's local
  array (:meth:`Layout.storage_shape`), a grid layout's is flat.
* N-D layouts (``relay/nd.h``, :class:`NDLayout`): an array of 1 to 8
  dimensions on a process mesh of 1 to 4 dimensions, each mesh dimension
  with a placement as PyTorch DTensor's: :class:`Shard`,
  :class:`Replicate` or :class:`Partial`.  Each rank stores a dense local
  array in C or Fortran order.

Layouts are immutable and may be shared by any number of plans.  Building
one needs no MPI.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence, Union

import numpy as np

from . import _core

_ORDERS = {"F": "col", "C": "row"}
_GRID_ORDERS = {"R": "row", "C": "col"}


def _order_word(order: str, table: dict, what: str) -> str:
    try:
        return table[order.upper()]
    except (KeyError, AttributeError):
        from .errors import ArgumentError
        raise ArgumentError(f"{what} must be one of {', '.join(table)}, not {order!r}") from None


class _Described:
    """Equality and hashing of layouts by fingerprint: a 64-bit hash of the
    layout's description (XXH3, as a plan's fingerprint hashes its layouts),
    computed once.  Two layouts are equal when they are of one family and
    their descriptions are the same: ``Shard(-1)`` and ``Shard(ndim - 1)``
    alike, a block-cyclic layout and a grid of the same blocks not."""

    __slots__ = ("_h", "_fp")

    @property
    def fingerprint(self) -> int:
        """The 64-bit fingerprint of the layout's description."""
        try:
            return self._fp
        except AttributeError:
            self._fp = _core.layout_fingerprint(self._h)
            return self._fp

    def __eq__(self, other) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return other is self or other.fingerprint == self.fingerprint

    def __hash__(self) -> int:
        return hash(self.fingerprint)


class Layout(_Described):
    """A 2-D layout: a global m x n matrix cut into blocks, block (i, j) held
    by one rank at an offset of its local buffer with a leading dimension,
    in column-major ('F') or row-major ('C') element order.

    Make one with :func:`block_cyclic` or :func:`grid`; a plan's layouts
    come from :meth:`relay.Plan.dst_layout` and :meth:`relay.Plan.src_layout`.
    """

    __slots__ = ()

    def __init__(self, handle):
        self._h = handle

    @property
    def shape(self) -> tuple[int, int]:
        """(m, n): the global matrix's rows and columns."""
        _, m, n, _ = _core.layout_facts(self._h)
        return (m, n)

    @property
    def nranks(self) -> int:
        """The ranks the layout spans (some may hold nothing)."""
        return _core.layout_facts(self._h)[0]

    @property
    def order(self) -> str:
        """Element order inside blocks: 'F' (column-major) or 'C' (row-major)."""
        return "F" if _core.layout_facts(self._h)[3] == "col" else "C"

    def local_elems(self, rank: int) -> int:
        """Elements rank's local buffer must hold (0 if it holds nothing)."""
        return _core.layout_local_elems(self._h, rank)

    def local_shape(self, rank: int) -> tuple[int, int]:
        """(LOCr, LOCc): the rows and columns of the matrix rank holds, as
        ScaLAPACK's numroc counts them ((0, 0) when it holds none).  Block-
        cyclic layouts only: a grid layout places each block at an offset of
        its own, so its local buffer is flat (UnsupportedError)."""
        return _core.local_shape(self._h, rank)[1]

    def storage_shape(self, rank: int) -> tuple[int, int]:
        """The local array rank stores, in the layout's order: (lld, LOCc)
        column-major ('F', ScaLAPACK's), (LOCr, lld) row-major ('C').  Its
        first LOCr rows and LOCc columns (:func:`relay.local_view`) are the
        layout's.  Block-cyclic layouts only (see :meth:`local_shape`)."""
        return _core.local_shape(self._h, rank)[0]

    def locate(self, i: int, j: int) -> tuple[int, int]:
        """(rank, index): where global element (i, j) lives in its owner's buffer."""
        return _core.layout_locate(self._h, i, j)

    def global_indices(self, rank: int) -> tuple[np.ndarray, np.ndarray]:
        """(rows, cols): the global element held at each position of rank's
        buffer, as two int64 arrays of local_elems(rank) entries; -1 where a
        position holds none (gaps between blocks, padding)."""
        n = self.local_elems(rank)
        rows, cols = np.empty(n, np.int64), np.empty(n, np.int64)
        _core.layout_global_indices(self._h, rank, rows, cols)
        return rows, cols

    def __repr__(self) -> str:
        m, n = self.shape
        return f"<relay.Layout {m} x {n} on {self.nranks} ranks, order {self.order}>"


def block_cyclic(m: int, n: int, mb: int, nb: int, nprow: int, npcol: int, *, grid_order: str = "R",
                 rsrc: int = 0, csrc: int = 0, lld: Union[int, Sequence[int]] = 0, order: str = "F") -> Layout:
    """ScaLAPACK's 2-D block-cyclic layout of an m x n matrix in mb x nb
    blocks on an nprow x npcol process grid.

    Args:
        grid_order: 'R' numbers process (pr, pc) as pr*npcol + pc (BLACS's
            default), 'C' as pc*nprow + pr.
        rsrc, csrc: the process row and column holding block (0, 0).
        lld: local leading dimension shared by all ranks; 0 means the
            smallest legal one on each rank (max(1, numroc)).  A sequence
            gives each rank's own, nprow*npcol entries (the LLDs of each
            process's ScaLAPACK descriptor, gathered): pass the same one on
            every rank.
        order: local storage, 'F' (ScaLAPACK's column-major) or 'C'.

    The layout spans nprow*npcol ranks.
    """
    return Layout(_core.layout_block_cyclic(m, n, mb, nb, nprow, npcol,
                                            _order_word(grid_order, _GRID_ORDERS, "grid_order"), rsrc, csrc,
                                            lld, _order_word(order, _ORDERS, "order")))


def grid(nranks: int, row_splits: Sequence[int], col_splits: Sequence[int], owners: Sequence[int], *,
         offsets: Optional[Sequence[int]] = None, lds: Optional[Sequence[int]] = None,
         order: str = "F") -> Layout:
    """An arbitrary grid layout over nranks ranks.

    row_splits (nbr+1 entries) and col_splits (nbc+1) cut the matrix, both
    strictly increasing from 0; owners holds nbr*nbc ranks, row-major over
    blocks (a 2-D array of shape (nbr, nbc) will do).  offsets and lds,
    given together, place each block in its owner's buffer; without them
    each rank's blocks are packed tightly in increasing block index.
    """
    flat = lambda v: None if v is None else np.asarray(v).reshape(-1).tolist()
    return Layout(_core.layout_grid(nranks, row_splits[-1] if len(row_splits) else 0,
                                    col_splits[-1] if len(col_splits) else 0, list(row_splits),
                                    list(col_splits), flat(owners), flat(offsets), flat(lds),
                                    _order_word(order, _ORDERS, "order")))


# ---- N-D layouts -------------------------------------------------------------

@dataclass(frozen=True)
class Shard:
    """Cut array dimension ``dim`` across this mesh dimension's coordinates:
    in even chunks of ceil(n/p) (block 0, torch.chunk's split), block-cyclic
    in blocks of ``block``, or at explicit ``splits`` (p+1 non-decreasing
    points from 0 to n; empty shards allowed).  A negative ``dim`` counts
    from the end, as numpy's axes: ``Shard(-1)`` cuts the last dimension."""
    dim: int
    block: int = 0
    splits: Optional[Sequence[int]] = None


@dataclass(frozen=True)
class Replicate:
    """Every coordinate of this mesh dimension holds the same data."""


@dataclass(frozen=True)
class Partial:
    """The array is the sum of the pieces along this mesh dimension (sources only)."""


Placement = Union[Shard, Replicate, Partial]


def _placement_tuple(p: Placement, ndim: int) -> tuple:
    """The C half's words for a placement of an array of ndim dimensions;
    a negative dimension counts from the end (out of range, relay refuses
    it as given)."""
    if isinstance(p, Shard):
        dim = p.dim + ndim if -ndim <= p.dim < 0 else p.dim
        return ("shard", dim, p.block, None if p.splits is None else list(p.splits))
    if isinstance(p, Replicate):
        return ("replicate", 0, 0, None)
    if isinstance(p, Partial):
        return ("partial", 0, 0, None)
    from .errors import ArgumentError
    raise ArgumentError(f"a placement is relay.Shard, relay.Replicate or relay.Partial, not {p!r}")


def _placement_of(t: tuple) -> Placement:
    kind, dim, block, splits = t
    if kind == "shard":
        return Shard(dim, block, splits)
    return Replicate() if kind == "replicate" else Partial()


class NDLayout(_Described):
    """An N-D array placed on a process mesh (relay/nd.h).

    Args:
        shape: the global array's extents (1 to 8 dimensions).
        mesh: the mesh's sizes (1 to 4 dimensions), or one int.
        placements: one :class:`Shard`, :class:`Replicate` or
            :class:`Partial` per mesh dimension.
        ranks: the mesh's ranks in mesh order (row-major, the last mesh
            dimension fastest), distinct; default 0 .. size-1.  Two layouts
            of one plan may sit on the same, overlapping or disjoint ranks.
        order: each rank's local array in 'C' or 'F' order.
        padded: local extents to store at (the same on every rank, at least
            each rank's local extent; 0 entries: tight), as FFTW's padding.

    Rank r's local array has, along dimension k, the global indices of k
    it holds, in global order (:meth:`global_indices`).
    """

    __slots__ = ()

    def __init__(self, shape: Sequence[int], mesh: Union[int, Sequence[int]],
                 placements: Sequence[Placement], *, ranks: Optional[Sequence[int]] = None,
                 order: str = "C", padded: Optional[Sequence[int]] = None, _handle=None):
        if _handle is not None:
            self._h = _handle
            return
        shape = list(shape)
        mesh = (mesh,) if isinstance(mesh, (int, np.integer)) else tuple(mesh)
        if ranks is None:
            size = math.prod(mesh)
            if not 0 <= size < 2**31:  # checked here, before a list of that many ranks is made
                from .errors import ArgumentError
                raise ArgumentError(f"a mesh of {mesh} holds {size} ranks, outside a communicator's [0, 2**31)")
            ranks = range(size)
        self._h = _core.nd_layout_create(shape, list(mesh), np.asarray(ranks).reshape(-1).tolist(),
                                         [_placement_tuple(p, len(shape)) for p in placements],
                                         _order_word(order, _ORDERS, "order"),
                                         None if padded is None else list(padded))

    @classmethod
    def _wrap(cls, handle) -> "NDLayout":
        return cls(None, None, None, _handle=handle)

    def _describe(self) -> tuple:
        return _core.nd_layout_describe(self._h)

    @property
    def shape(self) -> tuple[int, ...]:
        """The global array's extents."""
        return self._describe()[0]

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def mesh(self) -> tuple[int, ...]:
        """The mesh's sizes."""
        return self._describe()[1]

    @property
    def ranks(self) -> tuple[int, ...]:
        """The mesh's ranks, in mesh order."""
        return self._describe()[2]

    @property
    def placements(self) -> tuple[Placement, ...]:
        return tuple(_placement_of(t) for t in self._describe()[3])

    @property
    def order(self) -> str:
        """Local storage order, 'C' or 'F'."""
        return "C" if self._describe()[4] == "row" else "F"

    @property
    def padded(self) -> Optional[tuple[int, ...]]:
        """The padded extents the layout stores at, or None when tight."""
        padded = self._describe()[5]
        return padded if padded is not None and any(padded) else None

    @property
    def min_ranks(self) -> int:
        """The smallest communicator that holds the mesh: its largest rank + 1."""
        return max(self.ranks) + 1

    def local_shape(self, rank: int) -> tuple[int, ...]:
        """The extents of rank's local array (all 0 off the mesh)."""
        return _core.nd_layout_rank_facts(self._h, rank)[0]

    def storage_shape(self, rank: int) -> tuple[int, ...]:
        """The extents rank's buffer is stored at: the padded ones where
        given, else the local ones."""
        return _core.local_shape(self._h, rank)[0]

    def local_elems(self, rank: int) -> int:
        """Elements rank's buffer must hold, padding included (0 off the mesh)."""
        return _core.nd_layout_rank_facts(self._h, rank)[1]

    def locate(self, rank: int, index: Sequence[int]) -> Optional[int]:
        """Where global element ``index`` sits in rank's buffer, or None if
        rank does not hold it (replicas hold the same elements; partial
        pieces each hold a part)."""
        return _core.nd_layout_locate(self._h, rank, list(index))

    def global_indices(self, rank: int) -> tuple[np.ndarray, ...]:
        """Per dimension, the global indices rank holds, in local order:
        ``local[i0, i1, ...]`` is global element ``[idx[0][i0], idx[1][i1], ...]``
        (``np.ix_(*idx)`` broadcasts them)."""
        out = []
        for k, extent in enumerate(self.local_shape(rank)):
            idx = np.empty(extent, np.int64)
            _core.nd_layout_dim_indices(self._h, rank, k, idx)
            out.append(idx)
        return tuple(out)

    def partial_piece(self, rank: int) -> tuple[int, int]:
        """(piece, pieces): which of the partial pieces rank holds (mesh
        coordinates along the Partial dimensions, row-major) and how many
        there are; (0, 1) for a layout without Partial placements."""
        mesh, ranks, places = self.mesh, list(self.ranks), self.placements
        if rank not in ranks:
            return (0, 1)
        coords = np.unravel_index(ranks.index(rank), mesh)
        piece, pieces = 0, 1
        for c, size, p in zip(coords, mesh, places):
            if isinstance(p, Partial):
                piece, pieces = piece * size + int(c), pieces * size
        return (piece, pieces)

    def __repr__(self) -> str:
        places = ", ".join(repr(p) for p in self.placements)
        return (f"<relay.NDLayout shape {self.shape} on mesh {self.mesh} ranks {list(self.ranks)[:8]}"
                f"{'...' if len(self.ranks) > 8 else ''} [{places}] order {self.order}>")


AnyLayout = Union[Layout, NDLayout]

__all__ = ["Layout", "NDLayout", "Shard", "Replicate", "Partial", "Placement", "block_cyclic", "grid"]
