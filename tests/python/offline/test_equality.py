"""Equality and hashing of layouts and plans by fingerprint, and Shard's
negative dimensions, without MPI."""

import pickle

import numpy as np
import pytest

import relay


def bc(**kw):
    args = dict(m=50, n=40, mb=8, nb=4, nprow=2, npcol=3)
    args.update({k: kw.pop(k) for k in list(kw) if k in args})
    return relay.block_cyclic(args["m"], args["n"], args["mb"], args["nb"], args["nprow"], args["npcol"], **kw)


def nd(shape=(6, 5, 4), mesh=(2, 2), places=(relay.Shard(0), relay.Shard(2)), **kw):
    return relay.NDLayout(shape, mesh, list(places), **kw)


def assert_all_distinct(layouts):
    fingerprints = [l.fingerprint for l in layouts]
    assert len(set(fingerprints)) == len(layouts), fingerprints
    for i, a in enumerate(layouts):
        for j, b in enumerate(layouts):
            assert (a == b) == (i == j), (a, b)


def test_2d_layouts_equal_by_description():
    assert bc() == bc() and hash(bc()) == hash(bc()) and bc() is not bc()
    assert bc(lld=0) == bc(lld=0)
    assert_all_distinct([bc(), bc(m=51), bc(n=41), bc(mb=9), bc(nb=5), bc(nprow=3, npcol=2), bc(grid_order="C"),
                         bc(rsrc=1), bc(csrc=2), bc(lld=30), bc(order="C"),
                         relay.grid(6, [0, 25, 50], [0, 40], [0, 1]), relay.grid(6, [0, 25, 50], [0, 40], [1, 0]),
                         relay.grid(6, [0, 25, 50], [0, 40], [0, 1], order="C"),
                         relay.grid(7, [0, 25, 50], [0, 40], [0, 1]),
                         relay.grid(6, [0, 25, 50], [0, 40], [0, 1], offsets=[0, 3], lds=[25, 25])])


def test_nd_layouts_equal_by_description():
    assert nd() == nd() and hash(nd()) == hash(nd())
    assert nd(ranks=[0, 1, 2, 3]) == nd()
    assert_all_distinct([nd(), nd(shape=(6, 5, 5)), nd(mesh=(4, 1)), nd(ranks=[3, 2, 1, 0]), nd(order="F"),
                         nd(padded=(4, 5, 2)), nd(places=(relay.Shard(0, block=1), relay.Shard(2))),
                         nd(places=(relay.Shard(0, splits=[0, 2, 6]), relay.Shard(2))),
                         nd(places=(relay.Replicate(), relay.Shard(2))),
                         nd(places=(relay.Partial(), relay.Shard(2)))])


def test_families_never_equal():
    a, b = relay.block_cyclic(6, 6, 1, 1, 2, 2), relay.NDLayout((6, 6), (2, 2), [relay.Shard(0, block=1),
                                                                                relay.Shard(1, block=1)])
    assert a != b and b != a
    assert a != "layout" and (a == object()) is False


def test_layouts_as_keys():
    table = {bc(): "bc", nd(): "nd"}
    assert table[bc()] == "bc" and table[nd()] == "nd"
    assert len({bc(), bc(), nd(), nd(), nd(order="F")}) == 3


def test_negative_shard_dimensions():
    for ndim in (1, 2, 3):
        shape = tuple(range(3, 3 + ndim))
        for dim in range(-ndim, 0):
            neg, pos = relay.NDLayout(shape, 2, [relay.Shard(dim)]), relay.NDLayout(shape, 2, [relay.Shard(ndim + dim)])
            assert neg.placements == pos.placements and neg.placements[0].dim == ndim + dim
            assert neg == pos
            assert [neg.local_shape(r) for r in range(2)] == [pos.local_shape(r) for r in range(2)]
    layout = relay.NDLayout((6, 5), (2, 2), [relay.Shard(-1, block=2), relay.Shard(-2, splits=[0, 1, 6])])
    assert layout.placements == (relay.Shard(1, block=2), relay.Shard(0, splits=(0, 1, 6)))


@pytest.mark.parametrize("dim", [-4, -9, 3, 7])
def test_shard_dimensions_out_of_range_refused(dim):
    with pytest.raises(relay.ArgumentError, match=f"dimension {dim} of an array of 3"):
        relay.NDLayout((4, 5, 6), 2, [relay.Shard(dim)])


def test_sharding_one_dimension_twice_refused():
    with pytest.raises(relay.ArgumentError, match="sharded by mesh dimensions 0 and 1"):
        relay.NDLayout((4, 5, 6), (2, 2), [relay.Shard(-1), relay.Shard(2)])


def test_plans_equal_by_fingerprint():
    src, dst = bc(), bc(mb=5, nb=7)
    p = relay.plan_transform(dst, src, nranks=6)
    q = relay.plan_transform(bc(mb=5, nb=7), bc(), nranks=6)
    assert p == q and hash(p) == hash(q) and p.fingerprint == q.fingerprint
    assert p == relay.decode(p.encode()) == pickle.loads(pickle.dumps(p))
    assert p == relay.plan_transform(dst, src, nranks=6, rank=2), "a rank's own section equals the whole plan"
    assert p == relay.decode(p.encode(), rank=1)
    others = [relay.plan_transform(dst, src, nranks=6, dtype=np.float32), relay.plan_transform(dst, src, nranks=7),
              relay.plan_transform(src, dst, nranks=6), relay.plan_transform(bc(m=40, n=50), src, op="T", nranks=6),
              relay.plan_nd(nd(), nd(places=(relay.Shard(1), relay.Shard(2))))]
    assert all(p != o for o in others)
    assert len({p, q, *others}) == 1 + len(others)
    assert p != "plan" and p != src


def test_plan_layouts_equal_the_planned_ones():
    src, dst = nd(), nd(places=(relay.Shard(-2), relay.Shard(-1)))
    plan = relay.plan_nd(dst, src)
    assert plan.src_layout() == src and plan.dst_layout() == dst
    two = relay.plan_transform(bc(mb=5), bc(), nranks=6)
    assert two.src_layout() == bc() and two.dst_layout() == bc(mb=5)


def test_relabeled_destination_differs():
    """A relabeled plan's destination holds its blocks on other ranks: not
    the layout it was planned from, though its description is."""
    src = relay.block_cyclic(64, 64, 8, 8, 2, 2)
    dst = relay.block_cyclic(64, 64, 8, 8, 2, 2, grid_order="C")
    plan = relay.plan_transform(dst, src, relabel="optimal")
    assert plan.relabeling != (0, 1, 2, 3), "the case must relabel"
    assert plan.dst_layout() != dst
    assert plan.dst_layout() == plan.dst_layout()
