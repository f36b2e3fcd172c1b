"""The local-array helpers need no MPI: each rank's buffer filled from a
function of the global indices, against the layout references."""

import math

import numpy as np
import pytest

import relay
from conftest import BlockCyclicRef, NDRef, as_relay_placements


def f2(i, j):
    return i * 1000.0 + j + 0.5


@pytest.mark.parametrize("kw", [{}, {"order": "C"}, {"lld": 9}, {"grid_order": "C", "rsrc": 1}])
@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_fill_and_check_2d(kw, dtype):
    args = (10, 7, 3, 2, 2, 2)
    layout, ref = relay.block_cyclic(*args, **kw), BlockCyclicRef(*args, **kw)
    for r in range(4):
        a = relay.empty_local(layout, r, dtype)
        assert a.shape == ref.storage_shape(r) and a.dtype == dtype
        assert a.flags.f_contiguous if ref.order == "F" else a.flags.c_contiguous
        assert layout.storage_shape(r) == ref.storage_shape(r) and layout.local_shape(r) == ref.local_dims(r)
        a[...] = -7
        assert relay.fill_local(layout, r, a, f2) is a
        positions = a.reshape(-1, order=ref.order)          # ScaLAPACK's storage positions
        rows, cols = ref.global_indices(r)
        held = np.zeros(positions.size, bool)
        held[:rows.size] = rows >= 0
        np.testing.assert_array_equal(positions[held], f2(rows[held[:rows.size]], cols[held[:rows.size]]).astype(dtype))
        assert (positions[~held] == -7).all(), "rows past LOCr are left alone"
        relay.check_local(layout, r, a, f2)
        raw = np.full(ref.local_elems(r), -7, dtype)        # 1-D raw storage, ScaLAPACK's minimum size
        relay.fill_local(layout, r, raw, f2)
        np.testing.assert_array_equal(raw, positions[:raw.size])
        want, mask = relay.expected_local(layout, r, f2, dtype)
        assert want.shape == ref.local_dims(r) and mask.all()
        view = relay.local_view(layout, r, a)
        np.testing.assert_array_equal(view, want)
        z = relay.zeros_local(layout, r, dtype)
        assert z.shape == a.shape and not z.any()
        if view.size:
            view[-1, -1] += 1
            i, j = ref.local_dims(r)
            k = (i - 1) + (j - 1) * ref.ld(r) if ref.order == "F" else (i - 1) * ref.ld(r) + j - 1
            with pytest.raises(AssertionError, match=rf"global \({rows[k]}, {cols[k]}\)"):
                relay.check_local(layout, r, a, f2)


def test_local_view_refuses_other_arrays():
    layout = relay.block_cyclic(10, 7, 3, 2, 2, 2, lld=9)
    a = relay.empty_local(layout, 0)                         # (9, 4), column-major
    for wrong in (np.zeros((9, 4)), a.T, a[:, ::2], a[:5], np.zeros((6, 4), order="F")):
        with pytest.raises(relay.BufferMismatch, match=r"expected the layout's F-ordered local array of shape \(9, 4\)"):
            relay.local_view(layout, 0, wrong)
    with pytest.raises(relay.BufferMismatch, match=r"too small: expected at least 33 elements; got 32"):
        relay.local_view(layout, 0, np.zeros(32))
    assert relay.local_view(layout, 0, a[:6]).shape == (6, 4), "the logical view of the local array"
    with pytest.raises(relay.UnsupportedError, match="flat"):
        relay.local_view(relay.grid(2, [0, 2, 4], [0, 3], [0, 1]), 0, np.zeros(6))


@pytest.mark.parametrize("case", [
    dict(shape=(6, 5), mesh=(2, 2), places=[("shard", 0, 0, None), ("shard", 1, 2, None)]),
    dict(shape=(6, 5), mesh=(2, 2), places=[("shard", 0, 0, None), ("replicate",)], order="F"),
    dict(shape=(7, 3), mesh=(2,), places=[("shard", 0, 0, None)], padded=[6, 0]),
    dict(shape=(4, 3, 2), mesh=(3,), places=[("shard", 1, 0, [0, 0, 1, 3])], order="F", padded=[5, 0, 3]),
])
def test_fill_and_check_nd(case):
    shape, mesh, places = case["shape"], case["mesh"], case["places"]
    order, padded = case.get("order", "C"), case.get("padded")
    layout = relay.NDLayout(shape, mesh, as_relay_placements(places), order=order, padded=padded)
    ref = NDRef(shape, mesh, places, None, order, padded)
    f = lambda *ix: sum(x * 10.0 ** k for k, x in enumerate(ix))
    for r in range(math.prod(mesh) + 1):
        a = relay.empty_local(layout, r)
        assert a.shape == layout.storage_shape(r)
        assert a.flags.f_contiguous if order == "F" else a.flags.c_contiguous
        a[...] = -1
        relay.fill_local(layout, r, a, f)
        view = relay.local_view(layout, r, a)
        assert view.shape == ref.local_shape(r)
        idx = ref.dim_indices(r)
        for g in np.ndindex(*view.shape):
            assert view[g] == f(*(int(idx[k][g[k]]) for k in range(len(g))))
        if view.size:
            assert (a == -1).sum() == a.size - view.size, "padding is left alone"
        relay.check_local(layout, r, a, f)


def test_partial_pieces_sum_to_the_function():
    layout = relay.NDLayout((4, 3), (2, 2), [relay.Partial(), relay.Shard(1)])
    f = lambda i, j: i + 10.0 * j
    total = np.zeros((4, 3))
    for r in range(4):
        a = relay.fill_local(layout, r, relay.empty_local(layout, r), f)
        piece, pieces = layout.partial_piece(r)
        assert pieces == 2 and piece == r // 2
        rows, cols = layout.global_indices(r)
        total[np.ix_(rows, cols)] += a
        if piece:
            assert not a.any()
    np.testing.assert_array_equal(total, np.fromfunction(f, (4, 3)) * 1)
