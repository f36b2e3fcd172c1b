"""Layouts against independent references: ScaLAPACK's numroc/indxg2p/indxg2l
for block-cyclic layouts, relay/layout.h's packing rules for grids, and the
placement rules of relay/nd.h (torch.chunk, block-cyclic, splits) for N-D
layouts, each written out in conftest.py without relay."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import relay
from conftest import examples, BlockCyclicRef, GridRef, NDRef, as_relay_placements, indxg2l, numroc


# ---- the references themselves, on ScaLAPACK's documented examples -----------

def test_numroc_reference_on_known_values():
    # 10 rows in blocks of 3 over 3 process rows: blocks 0,3 | 1 | 2 -> 4, 3, 3
    assert [numroc(10, 3, p, 0, 3) for p in range(3)] == [4, 3, 3]
    assert [numroc(10, 3, p, 1, 3) for p in range(3)] == [3, 4, 3]
    assert sum(numroc(1000, 7, p, 2, 5) for p in range(5)) == 1000
    assert indxg2l(7, 2, 3) == 3  # block 3 of 2 rows, second of this process row, offset 1


# ---- block-cyclic --------------------------------------------------------------

def check_block_cyclic(args, kwargs):
    layout = relay.block_cyclic(*args, **kwargs)
    ref = BlockCyclicRef(*args, **{k: (v.upper() if isinstance(v, str) else v) for k, v in kwargs.items()})
    m, n = args[0], args[1]
    assert layout.shape == (m, n)
    assert layout.nranks == ref.nranks
    assert layout.order == kwargs.get("order", "F").upper()
    total_held = 0
    for r in range(ref.nranks):
        assert layout.local_elems(r) == ref.local_elems(r), f"rank {r}"
        rows, cols = layout.global_indices(r)
        want_rows, want_cols = ref.global_indices(r)
        np.testing.assert_array_equal(rows, want_rows, err_msg=f"rank {r} rows")
        np.testing.assert_array_equal(cols, want_cols, err_msg=f"rank {r} cols")
        for k in np.flatnonzero(rows >= 0):  # locate inverts global_indices
            assert layout.locate(int(rows[k]), int(cols[k])) == (r, k)
        total_held += int((rows >= 0).sum())
    assert total_held == m * n
    for i in range(m):
        for j in range(n):
            assert layout.locate(i, j) == ref.locate(i, j), (i, j)
    # ranks outside the layout hold nothing
    assert layout.local_elems(ref.nranks) == 0
    assert layout.local_elems(-1) == 0


@pytest.mark.parametrize("args,kwargs", [
    ((10, 7, 3, 2, 2, 2), {}),
    ((10, 7, 3, 2, 2, 2), {"grid_order": "C"}),
    ((10, 7, 3, 2, 2, 2), {"order": "C"}),
    ((9, 11, 2, 4, 3, 2), {"rsrc": 2, "csrc": 1}),
    ((9, 11, 2, 4, 3, 2), {"rsrc": 1, "csrc": 1, "grid_order": "C", "order": "C"}),
    ((5, 7, 2, 3, 2, 2), {"lld": 6}),
    ((5, 7, 2, 3, 2, 2), {"lld": 6, "order": "C"}),
    ((5, 7, 2, 3, 2, 2), {"lld": [3, 5, 2, 9]}),              # each rank's own (LOCr 3, 3, 2, 2)
    ((5, 7, 2, 3, 2, 2), {"lld": (4, 4, 8, 5), "order": "C"}),  # (LOCc 4, 3, 4, 3)
    ((1, 7, 2, 3, 2, 2), {}),        # a process row that holds nothing
    ((0, 0, 2, 2, 1, 1), {}),
    ((4, 4, 8, 8, 2, 2), {}),        # one block: only rank 0 holds anything
    ((6, 6, 1, 1, 1, 1), {"grid_order": "c", "order": "f"}),  # words in either case
])
def test_block_cyclic_hand_picked(args, kwargs):
    check_block_cyclic(args, kwargs)


@st.composite
def block_cyclic_args(draw):
    m, n = draw(st.integers(0, 17)), draw(st.integers(0, 17))
    mb, nb = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    nprow, npcol = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    kw = {"grid_order": draw(st.sampled_from("RC")), "order": draw(st.sampled_from("FC")),
          "rsrc": draw(st.integers(0, nprow - 1)), "csrc": draw(st.integers(0, npcol - 1))}
    lld = draw(st.sampled_from(["smallest", "shared", "each rank's"]))
    if lld != "smallest":
        ref = BlockCyclicRef(m, n, mb, nb, nprow, npcol, **kw)
        needs = [max(ref.local_dims(r)[0 if kw["order"] == "F" else 1], 1) for r in range(ref.nranks)]
        kw["lld"] = (max(needs) + draw(st.integers(0, 3)) if lld == "shared"
                     else [need + draw(st.integers(0, 3)) for need in needs])
    return (m, n, mb, nb, nprow, npcol), kw


@settings(max_examples=examples(150))
@given(block_cyclic_args())
def test_block_cyclic_matches_scalapack(case):
    check_block_cyclic(*case)


def test_block_cyclic_local_counts_are_numroc():
    # the held positions of a tight layout are numroc(m) x numroc(n) on every rank
    m, n, mb, nb, pr, pc = 37, 23, 4, 3, 3, 4
    layout = relay.block_cyclic(m, n, mb, nb, pr, pc, rsrc=1, csrc=3)
    for r in range(pr * pc):
        prow, pcol = divmod(r, pc)
        lr, lc = numroc(m, mb, prow, 1, pr), numroc(n, nb, pcol, 3, pc)
        rows, cols = layout.global_indices(r)
        assert layout.local_elems(r) == lr * lc
        assert len(set(rows.tolist())) == lr and len(set(cols.tolist())) == lc
        # column-major: rows run fastest, ScaLAPACK's local storage
        if lr and lc:
            assert rows.reshape(lc, lr)[0].tolist() == sorted(set(rows.tolist()))


def test_block_cyclic_each_ranks_lld_refused_when_wrong():
    with pytest.raises(relay.ArgumentError, match="one entry per rank"):
        relay.block_cyclic(5, 7, 2, 3, 2, 2, lld=[3, 5, 2])
    with pytest.raises(relay.Error):  # rank 2 holds 2 rows: an LLD of 1 is too short
        relay.block_cyclic(5, 7, 2, 3, 2, 2, lld=[3, 3, 1, 3])


# ---- grid layouts --------------------------------------------------------------

def check_grid(nranks, rs, cs, owners, offsets=None, lds=None, order="F"):
    layout = relay.grid(nranks, rs, cs, owners, offsets=offsets, lds=lds, order=order)
    ref = GridRef(nranks, rs, cs, owners, offsets, lds, order)
    assert layout.shape == ref.shape
    assert layout.nranks == nranks
    assert layout.order == order.upper()
    for r in range(nranks):
        assert layout.local_elems(r) == ref.local_elems(r), f"rank {r}"
        rows, cols = layout.global_indices(r)
        want_rows, want_cols = ref.global_indices(r)
        np.testing.assert_array_equal(rows, want_rows)
        np.testing.assert_array_equal(cols, want_cols)
    m, n = ref.shape
    for i in range(m):
        for j in range(n):
            assert layout.locate(i, j) == ref.locate(i, j), (i, j)


def test_grid_packed_tightly_in_block_order():
    check_grid(2, [0, 2, 5], [0, 3, 4], [0, 1, 1, 0])
    check_grid(2, [0, 2, 5], [0, 3, 4], [0, 1, 1, 0], order="C")
    # rank 2 of 3 holds nothing
    check_grid(3, [0, 1, 4], [0, 4], np.array([[1], [0]]))


def test_grid_explicit_offsets_leave_gaps():
    check_grid(2, [0, 2, 5], [0, 3, 4], [0, 1, 1, 0], offsets=[1, 20, 2, 10], lds=[3, 2, 5, 4])
    check_grid(2, [0, 2, 5], [0, 3, 4], [0, 1, 1, 0], offsets=[1, 20, 2, 10], lds=[3, 2, 3, 4], order="C")
    layout = relay.grid(2, [0, 2, 5], [0, 3, 4], [0, 1, 1, 0], offsets=[1, 20, 2, 10], lds=[3, 2, 5, 4])
    rows, cols = layout.global_indices(0)
    assert rows[0] == -1 and cols[0] == -1  # offset 1: position 0 holds nothing


@st.composite
def grid_args(draw):
    nranks = draw(st.integers(1, 4))
    nbr, nbc = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    rs = [0] + list(itertools.accumulate(draw(st.lists(st.integers(1, 4), min_size=nbr, max_size=nbr))))
    cs = [0] + list(itertools.accumulate(draw(st.lists(st.integers(1, 4), min_size=nbc, max_size=nbc))))
    owners = draw(st.lists(st.integers(0, nranks - 1), min_size=nbr * nbc, max_size=nbr * nbc))
    order = draw(st.sampled_from("FC"))
    offsets = lds = None
    if draw(st.booleans()):  # explicit placement: blocks one after another with gaps, wider lds
        offsets, lds, fill = [], [], [0] * nranks
        for b in range(nbr * nbc):
            rows, cols = rs[b // nbc + 1] - rs[b // nbc], cs[b % nbc + 1] - cs[b % nbc]
            ld = (rows if order == "F" else cols) + draw(st.integers(0, 2))
            off = fill[owners[b]] + draw(st.integers(0, 3))
            offsets.append(off)
            lds.append(ld)
            fill[owners[b]] = off + ld * ((cols if order == "F" else rows))
    return nranks, rs, cs, owners, offsets, lds, order


@settings(max_examples=examples(150))
@given(grid_args())
def test_grid_matches_reference(case):
    check_grid(*case)


# ---- N-D layouts ---------------------------------------------------------------

def check_nd(shape, mesh, places, ranks=None, order="C", padded=None):
    layout = relay.NDLayout(shape, mesh, as_relay_placements(places), ranks=ranks, order=order, padded=padded)
    mesh_t = (mesh,) if isinstance(mesh, int) else tuple(mesh)
    ref = NDRef(shape, mesh_t, places, ranks, order, padded)
    assert layout.shape == tuple(shape)
    assert layout.ndim == len(shape)
    assert layout.mesh == mesh_t
    assert layout.ranks == tuple(ref.ranks)
    assert layout.order == order
    assert layout.min_ranks == max(ref.ranks) + 1
    if padded is None or not any(padded):  # tight: no padding, or 0 (tight) on every dimension
        assert layout.padded is None
    else:
        assert layout.padded == tuple(padded)
    for p, q in zip(layout.placements, places):
        assert type(p).__name__.lower() == q[0]
        if q[0] == "shard":
            assert p.dim == q[1]
            if q[3] is not None:
                assert tuple(p.splits) == tuple(q[3])
    top = max(ref.ranks) + 2
    covered = {}
    for r in range(top):
        idx = layout.global_indices(r)
        want = ref.dim_indices(r)
        assert layout.local_shape(r) == ref.local_shape(r), f"rank {r}"
        assert len(idx) == len(shape)
        for k, (got, exp) in enumerate(zip(idx, want)):
            np.testing.assert_array_equal(got, exp, err_msg=f"rank {r} dimension {k}")
        assert layout.local_elems(r) == ref.local_elems(r), f"rank {r}"
        assert layout.storage_shape(r) == ref.storage_shape(r)
        assert math.prod(layout.storage_shape(r)) == layout.local_elems(r)
        assert layout.partial_piece(r) == ref.partial_piece(r)
        # every global element: locate agrees with the reference, and with global_indices
        for g in np.ndindex(*shape):
            pos = layout.locate(r, g)
            assert pos == ref.locate(r, g), (r, g)
            if pos is not None:
                covered.setdefault((g, ref.partial_piece(r)[0]), []).append(r)
                local = np.unravel_index(pos, layout.storage_shape(r), order=order)
                assert tuple(int(ix[l]) for ix, l in zip(idx, local)) == g
    # every element of every partial piece is held by as many ranks as there are replicas
    nelems = math.prod(shape)
    if nelems:
        pieces = math.prod(p for p, q in zip(mesh_t, places) if q[0] == "partial")
        replicas = math.prod(p for p, q in zip(mesh_t, places) if q[0] == "replicate")
        assert len(covered) == nelems * pieces
        assert all(len(v) == replicas for v in covered.values())


@pytest.mark.parametrize("case", [
    dict(shape=(10,), mesh=3, places=[("shard", 0, 0, None)]),                     # chunks 4, 4, 2
    dict(shape=(5,), mesh=4, places=[("shard", 0, 0, None)]),                      # torch.chunk: 2, 2, 1, 0
    dict(shape=(10,), mesh=3, places=[("shard", 0, 2, None)]),                     # block-cyclic
    dict(shape=(10,), mesh=3, places=[("shard", 0, 0, [0, 4, 4, 10])]),            # uneven, one empty
    dict(shape=(10, 9), mesh=(2, 2), places=[("shard", 0, 0, None), ("replicate",)]),
    dict(shape=(10, 9), mesh=(2, 2), places=[("replicate",), ("shard", 1, 0, None)], order="F"),
    dict(shape=(4, 3), mesh=(2, 2), places=[("partial",), ("shard", 1, 0, None)]),
    dict(shape=(6, 5, 4), mesh=(2, 3), places=[("shard", 2, 1, None), ("shard", 0, 0, [0, 1, 1, 6])],
         ranks=[5, 3, 1, 0, 2, 4]),
    dict(shape=(7, 3), mesh=2, places=[("shard", 0, 0, None)], padded=[6, 0]),
    dict(shape=(5, 3), mesh=4, places=[("shard", 0, 0, None)], padded=[3, 4], order="F"),
    dict(shape=(3, 4), mesh=(1, 2), places=[("replicate",), ("replicate",)], ranks=[7, 9]),
    dict(shape=(0, 4), mesh=2, places=[("shard", 0, 0, None)]),
])
def test_nd_hand_picked(case):
    check_nd(case["shape"], case["mesh"], case["places"], case.get("ranks"), case.get("order", "C"),
             case.get("padded"))


@st.composite
def nd_args(draw):
    ndims = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(0, 6), min_size=ndims, max_size=ndims)))
    mesh_ndims = draw(st.integers(1, 3))
    mesh = tuple(draw(st.lists(st.integers(1, 3), min_size=mesh_ndims, max_size=mesh_ndims)))
    free = list(range(ndims))
    places = []
    for p in mesh:
        kind = draw(st.sampled_from(["shard", "shard", "replicate", "partial"] if free else ["replicate", "partial"]))
        if kind != "shard":
            places.append((kind,))
            continue
        dim = draw(st.sampled_from(free))
        free.remove(dim)
        how = draw(st.sampled_from(["even", "cyclic", "splits"]))
        if how == "even":
            places.append(("shard", dim, 0, None))
        elif how == "cyclic":
            places.append(("shard", dim, draw(st.integers(1, 3)), None))
        else:
            cuts = sorted(draw(st.lists(st.integers(0, shape[dim]), min_size=p - 1, max_size=p - 1)))
            places.append(("shard", dim, 0, [0] + cuts + [shape[dim]]))
    size = math.prod(mesh)
    ranks = None
    if draw(st.booleans()):
        ranks = draw(st.permutations(range(size)))
        ranks = [r + draw(st.integers(0, 2)) * size for r in ranks] if draw(st.booleans()) else list(ranks)
    order = draw(st.sampled_from("CF"))
    padded = None
    if draw(st.booleans()):
        ref = NDRef(shape, mesh, places, ranks, order)
        most = [max((ref.local_shape(r)[k] for r in ref.ranks), default=0) for k in range(ndims)]
        padded = [draw(st.sampled_from([0, m, m + 1, m + 2])) for m in most]
    return shape, mesh, places, ranks, order, padded


@settings(max_examples=examples(150))
@given(nd_args())
def test_nd_matches_reference(case):
    check_nd(*case)


def test_nd_mesh_as_int_and_default_ranks():
    layout = relay.NDLayout((8,), 4, [relay.Shard(0)])
    assert layout.mesh == (4,) and layout.ranks == (0, 1, 2, 3)
    assert [layout.local_shape(r) for r in range(5)] == [(2,), (2,), (2,), (2,), (0,)]


def test_nd_placements_report_resolved_blocks():
    layout = relay.NDLayout((10, 9), (2, 2), [relay.Shard(0), relay.Replicate()])
    shard, rep = layout.placements
    assert shard == relay.Shard(0, 5, None)  # ceil(10 / 2): the block relay resolved
    assert rep == relay.Replicate()
    assert "Shard" in repr(layout) and "(10, 9)" in repr(layout)


def test_layout_repr_names_shape_and_ranks():
    text = repr(relay.block_cyclic(10, 7, 3, 2, 2, 2, order="C"))
    assert "10 x 7" in text and "4 ranks" in text and "order C" in text


def test_layouts_are_immutable_handles():
    layout = relay.block_cyclic(4, 4, 2, 2, 2, 2)
    with pytest.raises(AttributeError):
        layout.extra = 1
    nd = relay.NDLayout((4,), 2, [relay.Shard(0)])
    with pytest.raises(AttributeError):
        nd.extra = 1
    with pytest.raises(Exception):
        relay.Shard(0).dim = 1  # frozen dataclass
