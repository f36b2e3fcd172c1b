"""Local arrays: allocating each rank's buffer for a layout or a plan, and
filling or checking it from a function of the global indices.

``f`` is called once per rank with numpy integer arrays of global indices
(one per dimension, broadcastable against each other) and returns the
values, as ``np.fromfunction`` does::

    a = relay.empty_local(layout, rank, np.float64)
    relay.fill_local(layout, rank, a, lambda i, j: i * 1000 + j)
    relay.check_local(layout, rank, a, lambda i, j: i * 1000 + j)
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .layouts import AnyLayout, Layout, NDLayout


def empty_local(layout: AnyLayout, rank: int, dtype: Any = np.float64) -> np.ndarray:
    """Rank's local buffer for ``layout``, uninitialised: for a 2-D layout
    a flat array of ``local_elems(rank)`` elements; for an N-D layout an
    array of its storage shape (the padded extents where given) in the
    layout's order, contiguous, so that it can be passed to a replay."""
    if isinstance(layout, NDLayout):
        return np.empty(layout.storage_shape(rank), dtype, order=layout.order)
    return np.empty(layout.local_elems(rank), dtype)


def zeros_local(layout: AnyLayout, rank: int, dtype: Any = np.float64) -> np.ndarray:
    """:func:`empty_local`, zeroed."""
    a = empty_local(layout, rank, dtype)
    a[...] = 0
    return a


def local_view(layout: NDLayout, rank: int, storage: np.ndarray) -> np.ndarray:
    """The logical part of an N-D local buffer: its local shape, without the padding."""
    shaped = storage.reshape(layout.storage_shape(rank), order=layout.order)
    return shaped[tuple(slice(0, e) for e in layout.local_shape(rank))]


def _flat(array: np.ndarray) -> np.ndarray:
    return array.reshape(-1, order="A")


def fill_local(layout: AnyLayout, rank: int, array: np.ndarray, f: Callable[..., Any]) -> np.ndarray:
    """Sets every element rank holds to f(global indices); positions that
    hold no element (gaps, padding) are left alone.  For an N-D layout with
    Partial placements the first piece holds f and the others 0, so that
    the pieces sum to f.  Returns ``array``."""
    if isinstance(layout, NDLayout):
        view = local_view(layout, rank, array)
        idx = layout.global_indices(rank)
        view[...] = f(*np.ix_(*idx)) if view.size else 0
        if layout.partial_piece(rank)[0] != 0:
            view[...] = 0
        return array
    rows, cols = layout.global_indices(rank)
    held = rows >= 0
    flat = _flat(array)
    flat[held] = f(rows[held], cols[held])
    return array


def expected_local(layout: AnyLayout, rank: int, f: Callable[..., Any], dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    """(expected, held): f at every element rank holds, on the buffer's
    positions (flat for 2-D layouts, the local shape for N-D ones), and
    where positions hold an element."""
    if isinstance(layout, NDLayout):
        shape = layout.local_shape(rank)
        idx = layout.global_indices(rank)
        want = np.empty(shape, dtype)
        want[...] = f(*np.ix_(*idx)) if want.size else 0
        return want, np.ones(shape, bool)
    rows, cols = layout.global_indices(rank)
    held = rows >= 0
    want = np.zeros(rows.shape, dtype)
    want[held] = f(rows[held], cols[held])
    return want, held


def check_local(layout: AnyLayout, rank: int, array: np.ndarray, f: Callable[..., Any], *, rtol: float = 0.0,
                atol: float = 0.0) -> None:
    """Checks that every element rank holds equals f(global indices)
    (within rtol and atol); raises AssertionError naming the first wrong
    element's global index, the value expected and the value found."""
    want, held = expected_local(layout, rank, f, array.dtype)
    got = local_view(layout, rank, array) if isinstance(layout, NDLayout) else _flat(array)
    bad = held & ~np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=False)
    if not bad.any():
        return
    pos = np.unravel_index(int(np.flatnonzero(bad.reshape(-1, order="C"))[0]), bad.shape)
    if isinstance(layout, NDLayout):
        index = tuple(int(ix[p]) for ix, p in zip(layout.global_indices(rank), pos))
    else:
        rows, cols = layout.global_indices(rank)
        index = (int(rows[pos[0]]), int(cols[pos[0]]))
    raise AssertionError(f"rank {rank}: {int(bad.sum())} of {int(held.sum())} elements differ; the first, global "
                         f"{index} at local {tuple(int(p) for p in pos)}, is {got[pos]!r}, expected {want[pos]!r}")


__all__ = ["empty_local", "zeros_local", "local_view", "fill_local", "check_local", "expected_local"]
