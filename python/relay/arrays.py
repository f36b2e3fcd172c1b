"""Local arrays: allocating each rank's buffer for a layout or a plan, and
filling or checking it from a function of the global indices.

A rank's local array has a storage shape and a logical part
(``layout.storage_shape(rank)`` and ``layout.local_shape(rank)``): an N-D
layout stores its local extents, padded where it pads; a block-cyclic
layout stores ScaLAPACK's local array, (lld, LOCc) in column-major order,
of which the first LOCr rows are the matrix's.  A grid layout, whose blocks
sit at offsets of their own, has a flat buffer.

``f`` is called once per rank with numpy integer arrays of global indices
(one per dimension, broadcastable against each other) and returns the
values, as ``np.fromfunction`` does::

    a = relay.empty_local(layout, rank, np.float64)
    relay.fill_local(layout, rank, a, lambda i, j: i * 1000 + j)
    relay.check_local(layout, rank, a, lambda i, j: i * 1000 + j)
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from . import _core
from .errors import UnsupportedError
from .layouts import AnyLayout, NDLayout


def _geometry(layout: AnyLayout, rank: int) -> Optional[tuple]:
    """(storage shape, logical shape, order) of rank's local array, or None
    for a grid layout's flat buffer."""
    try:
        return _core.local_shape(layout._h, rank)
    except UnsupportedError:
        return None


def empty_local(layout: AnyLayout, rank: int, dtype: Any = np.float64) -> np.ndarray:
    """Rank's local array for ``layout``, uninitialised: of its storage shape
    in the layout's order (``layout.storage_shape(rank)``), contiguous, so
    that it can be passed to a replay; for a grid layout a flat array of
    ``local_elems(rank)`` elements."""
    geometry = _geometry(layout, rank)
    if geometry is None:
        return np.empty(layout.local_elems(rank), dtype)
    storage, _, order = geometry
    return np.empty(storage, dtype, order=order)


def zeros_local(layout: AnyLayout, rank: int, dtype: Any = np.float64) -> np.ndarray:
    """:func:`empty_local`, zeroed."""
    a = empty_local(layout, rank, dtype)
    a[...] = 0
    return a


def local_view(layout: AnyLayout, rank: int, storage: np.ndarray) -> np.ndarray:
    """The logical part of rank's local array, a view of ``storage`` of
    ``layout.local_shape(rank)``: without the padding of an N-D layout, the
    first LOCr rows of a block-cyclic one.  ``storage`` is what a replay
    takes: the storage array, its logical view, or 1-D raw storage
    (BufferMismatch otherwise).  A grid layout has no local array
    (UnsupportedError)."""
    geometry = _geometry(layout, rank)
    if geometry is None:
        raise UnsupportedError("a grid layout places each block at an offset of its own: its buffer is flat, "
                               "with no local array to view")
    shape, logical, order = geometry
    array = np.asarray(storage)
    _core.local_array_check(layout._h, rank, array)
    if array.ndim == 1 and len(shape) != 1:
        strides = np.empty(shape, np.uint8, order=order).strides
        return np.lib.stride_tricks.as_strided(array, logical, tuple(s * array.itemsize for s in strides),
                                               writeable=array.flags.writeable)
    return array[tuple(slice(0, e) for e in logical)]


def _matrix_indices(layout: AnyLayout, rank: int) -> tuple[np.ndarray, np.ndarray]:
    """The global row of each local row and the global column of each local
    column of a block-cyclic layout's local array (ScaLAPACK's indxl2g)."""
    rows, cols = layout.global_indices(rank)
    shape, (mloc, nloc), order = _core.local_shape(layout._h, rank)
    ld = shape[0] if order == "F" else shape[1]
    if not mloc or not nloc:
        return rows[:mloc], cols[:nloc]
    if order == "F":
        return rows[:mloc], cols[::ld][:nloc]
    return rows[::ld][:mloc], cols[:nloc]


def _indices(layout: AnyLayout, rank: int) -> tuple[np.ndarray, ...]:
    """Per dimension of the local array's logical part, the global indices
    it holds, broadcastable against each other (np.ix_)."""
    idx = layout.global_indices(rank) if isinstance(layout, NDLayout) else _matrix_indices(layout, rank)
    return np.ix_(*idx)


def _flat(layout: AnyLayout, rank: int, array: np.ndarray) -> np.ndarray:
    """A grid layout's buffer as its first local_elems(rank) positions."""
    return array.reshape(-1, order="A")[:layout.local_elems(rank)]


def fill_local(layout: AnyLayout, rank: int, array: np.ndarray, f: Callable[..., Any]) -> np.ndarray:
    """Sets every element rank holds to f(global indices); positions that
    hold no element (gaps, padding, rows past LOCr) are left alone.  For an
    N-D layout with Partial placements the first piece holds f and the
    others 0, so that the pieces sum to f.  Returns ``array``."""
    if _geometry(layout, rank) is None:
        rows, cols = layout.global_indices(rank)
        held = rows >= 0
        _flat(layout, rank, array)[held] = f(rows[held], cols[held])
        return array
    view = local_view(layout, rank, array)
    view[...] = f(*_indices(layout, rank)) if view.size else 0
    if isinstance(layout, NDLayout) and layout.partial_piece(rank)[0] != 0:
        view[...] = 0
    return array


def expected_local(layout: AnyLayout, rank: int, f: Callable[..., Any], dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    """(expected, held): f at every element rank holds, on the positions of
    the local array's logical part (:func:`local_view`; a grid layout's flat
    buffer), and where positions hold an element."""
    if _geometry(layout, rank) is None:
        rows, cols = layout.global_indices(rank)
        held = rows >= 0
        want = np.zeros(rows.shape, dtype)
        want[held] = f(rows[held], cols[held])
        return want, held
    shape = layout.local_shape(rank)
    want = np.empty(shape, dtype)
    want[...] = f(*_indices(layout, rank)) if want.size else 0
    return want, np.ones(shape, bool)


def check_local(layout: AnyLayout, rank: int, array: np.ndarray, f: Callable[..., Any], *, rtol: float = 0.0,
                atol: float = 0.0) -> None:
    """Checks that every element rank holds equals f(global indices)
    (within rtol and atol); raises AssertionError naming the first wrong
    element's global index, the value expected and the value found."""
    want, held = expected_local(layout, rank, f, array.dtype)
    flat = _geometry(layout, rank) is None
    got = _flat(layout, rank, array) if flat else local_view(layout, rank, array)
    bad = held & ~np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=False)
    if not bad.any():
        return
    pos = np.unravel_index(int(np.flatnonzero(bad.reshape(-1, order="C"))[0]), bad.shape)
    if flat:
        rows, cols = layout.global_indices(rank)
        index = (int(rows[pos[0]]), int(cols[pos[0]]))
    else:
        index = tuple(int(np.ravel(ix)[p]) for ix, p in zip(_indices(layout, rank), pos))
    raise AssertionError(f"rank {rank}: {int(bad.sum())} of {int(held.sum())} elements differ; the first, global "
                         f"{index} at local {tuple(int(p) for p in pos)}, is {got[pos]!r}, expected {want[pos]!r}")


__all__ = ["empty_local", "zeros_local", "local_view", "fill_local", "check_local", "expected_local"]
