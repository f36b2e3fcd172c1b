"""Planning offline: transform plans (single, batched, every op, dtype,
relabeling, schedule, memory cap, one rank's section), N-D plans and plan
algebra, each checked against volumes counted element by element from the
independent layout references of conftest.py."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import relay
from conftest import examples, BlockCyclicRef, GridRef, NDRef, as_relay_placements

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def element_owners(dst_ref, src_ref, op):
    """(dst owner, src owner) of every element of A, B read through op."""
    d, s = dst_ref.owners(), src_ref.owners()
    return d, (s if op == "N" else s.T)


def ref_volumes(pairs, nranks, itemsize, sigma=None):
    """Bytes each sender sends each receiver, rank-local ones on the diagonal."""
    sigma = np.arange(nranks) if sigma is None else np.asarray(sigma)
    v = np.zeros((nranks, nranks), np.int64)
    for dst_ref, src_ref, op in pairs:
        d, s = element_owners(dst_ref, src_ref, op)
        np.add.at(v, (s.ravel(), sigma[d.ravel()]), itemsize)
    return v


def bc(*args, **kw):
    return relay.block_cyclic(*args, **kw), BlockCyclicRef(*args, **kw)


def check_against_reference(plan, pairs, nranks, itemsize):
    sigma = plan.relabeling
    assert sorted(sigma) == list(range(nranks)), "the relabeling is a permutation"
    want = ref_volumes(pairs, nranks, itemsize, sigma)
    got, bins = plan.volumes()
    assert bins == 1
    np.testing.assert_array_equal(got, want)
    ident = ref_volumes(pairs, nranks, itemsize)
    stats = plan.stats
    total = sum(math.prod(p[0].owners().shape) for p in pairs) * itemsize
    assert stats["bytes_total"] == total == want.sum()
    assert stats["bytes_remote"] == want.sum() - np.trace(want)
    assert stats["bytes_remote_identity"] == ident.sum() - np.trace(ident)
    off = want.copy()
    np.fill_diagonal(off, 0)
    assert stats["messages"] == int((off > 0).sum())
    info = plan.info()
    assert info["bytes_remote"] == stats["bytes_remote"]
    for row in info["per_rank"]:
        r = row["rank"]
        assert row["send_bytes"] == off[r].sum() and row["recv_bytes"] == off[:, r].sum()
        assert row["send_msgs"] == (off[r] > 0).sum() and row["recv_msgs"] == (off[:, r] > 0).sum()
        assert row["local_bytes"] == want[r, r]
    return want


# ---- transform plans: facts --------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["N", "T", "C"])
def test_transform_facts(dtype, op):
    m, n = 10, 7
    dst, dref = bc(m, n, 4, 4, 2, 1)
    src, sref = bc(*((m, n) if op == "N" else (n, m)), 3, 2, 2, 2)
    plan = relay.plan_transform(dst, src, op=op, dtype=dtype)
    itemsize = np.dtype(dtype).itemsize
    assert plan.kind == "transform"
    assert plan.nranks == 4
    assert plan.dtype == np.dtype(dtype)
    assert plan.count == 1
    assert 0 <= plan.fingerprint < 2 ** 64
    assert plan.schedule in ("p2p", "alltoallv")
    assert plan.rounds == 1
    assert plan.max_buffer_bytes == 0
    assert plan.relabeling == (0, 1, 2, 3)
    assert plan.tuning is None
    check_against_reference(plan, [(dref, sref, op)], 4, itemsize)
    for r in range(4):
        assert plan.dst_elems(r) == dst.local_elems(r) == dref.local_elems(r)
        assert plan.src_elems(r) == src.local_elems(r) == sref.local_elems(r)
    info = plan.info()
    assert info["kind"] == "transform" and info["ranks"] == 4 and info["op"] == op
    assert info["type"] == {np.float32: "s", np.float64: "d", np.complex64: "c", np.complex128: "z"}[dtype]
    assert int(info["fingerprint"], 16) == plan.fingerprint
    # the plan's own layouts describe the same elements
    for r in range(4):
        np.testing.assert_array_equal(plan.src_layout().global_indices(r)[0], src.global_indices(r)[0])
        np.testing.assert_array_equal(plan.dst_layout().global_indices(r)[1], dst.global_indices(r)[1])
    assert repr(plan).startswith("<relay.Plan transform on 4 ranks")


def test_dtype_spellings_are_numpy_dtypes():
    dst, _ = bc(4, 4, 2, 2, 2, 1)
    for spelling, dtype in [("float32", np.float32), ("f8", np.float64), (np.dtype("c8"), np.complex64),
                            (complex, np.complex128), (float, np.float64)]:
        assert relay.plan_transform(dst, dst, dtype=spelling).dtype == np.dtype(dtype)


def test_plan_is_deterministic_and_fingerprint_tracks_content():
    dst, _ = bc(10, 7, 4, 4, 2, 1)
    src, _ = bc(10, 7, 3, 2, 2, 2)
    a = relay.plan_transform(dst, src)
    b = relay.plan_transform(dst, src)
    assert a.fingerprint == b.fingerprint and a.encode() == b.encode()
    assert relay.plan_transform(dst, src, dtype=np.float32).fingerprint != a.fingerprint
    assert relay.plan_transform(src, dst).fingerprint != a.fingerprint


# ---- transform plans: properties over random layouts -------------------------

@st.composite
def transform_case(draw):
    m, n = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    op = draw(st.sampled_from("NTC"))

    def layout(rows, cols):
        args = (rows, cols, draw(st.integers(1, 5)), draw(st.integers(1, 5)), draw(st.integers(1, 2)),
                draw(st.integers(1, 2)))
        kw = {"grid_order": draw(st.sampled_from("RC")), "order": draw(st.sampled_from("FC"))}
        return args, kw

    dst = layout(m, n)
    src = layout(m, n) if op == "N" else layout(n, m)
    dtype = draw(st.sampled_from(DTYPES))
    relabel = draw(st.sampled_from(["none", "greedy", "optimal"]))
    return dst, src, op, dtype, relabel


def _local(v_by_dst, sig):
    # v_by_dst[s, j]: bytes src rank s holds of what A's layout gives rank j; sig[j] receives them
    return sum(int(v_by_dst[sig[j], j]) for j in range(len(sig)))


@settings(max_examples=examples(100))
@given(transform_case())
def test_transform_volumes_match_reference(case):
    (dargs, dkw), (sargs, skw), op, dtype, relabel = case
    dst, dref = bc(*dargs, **dkw)
    src, sref = bc(*sargs, **skw)
    nranks = max(dst.nranks, src.nranks)
    plan = relay.plan_transform(dst, src, op=op, dtype=dtype, relabel=relabel)
    assert plan.nranks == nranks
    itemsize = np.dtype(dtype).itemsize
    check_against_reference(plan, [(dref, sref, op)], nranks, itemsize)
    sigma = plan.relabeling
    if relabel == "none":
        assert sigma == tuple(range(nranks))
    if relabel == "optimal":
        ident = ref_volumes([(dref, sref, op)], nranks, itemsize)
        best = max(_local(ident, sig) for sig in itertools.permutations(range(nranks)))
        assert plan.stats["bytes_total"] - plan.stats["bytes_remote"] == best
    # the plan's destination layout is A's with sigma applied to its owners
    relabeled = plan.dst_layout()
    m, n = dst.shape
    for i in range(m):
        for j in range(n):
            r, k = dref.locate(i, j)
            assert relabeled.locate(i, j) == (sigma[r], k)
    for r in range(nranks):
        assert plan.dst_elems(sigma[r]) == dref.local_elems(r)
        assert plan.src_elems(r) == sref.local_elems(r)


def test_optimal_relabeling_finds_the_permutation_that_moves_nothing():
    # A is B with ranks 0 <-> 3 and 1 <-> 2 swapped: sigma undoes it, nothing moves
    rs, cs = [0, 2, 4], [0, 3, 6]
    src = relay.grid(4, rs, cs, [0, 1, 2, 3])
    dst = relay.grid(4, rs, cs, [3, 2, 1, 0])
    sref, dref = GridRef(4, rs, cs, [0, 1, 2, 3]), GridRef(4, rs, cs, [3, 2, 1, 0])
    for relabel in ("greedy", "optimal"):
        plan = relay.plan_transform(dst, src, relabel=relabel)
        check_against_reference(plan, [(dref, sref, "N")], 4, 8)
        assert plan.relabeling == (3, 2, 1, 0)
        assert plan.stats["bytes_remote"] == 0
        assert plan.stats["bytes_remote_identity"] == 24 * 8
        assert plan.info()["relabel"] == relabel
    plan = relay.plan_transform(dst, src)
    assert plan.stats["bytes_remote"] == plan.stats["bytes_remote_identity"] == 24 * 8


def test_node_aware_relabeling_is_a_permutation():
    dst, dref = bc(12, 12, 2, 2, 2, 2)
    src, sref = bc(12, 12, 3, 3, 4, 1)
    for relabel in ("greedy", "optimal"):
        plan = relay.plan_transform(dst, src, relabel=relabel, node_of_rank=np.array([0, 0, 1, 1]),
                                    inter_node_weight=4.0)
        check_against_reference(plan, [(dref, sref, "N")], 4, 8)


# ---- schedules, memory cap, sections ---------------------------------------------

@pytest.mark.parametrize("schedule", ["p2p", "rounds", "alltoallv", "neighbor", "auto"])
def test_schedules(schedule):
    dst, dref = bc(10, 7, 4, 4, 2, 1)
    src, sref = bc(10, 7, 3, 2, 2, 2)
    plan = relay.plan_transform(dst, src, schedule=schedule)
    want = check_against_reference(plan, [(dref, sref, "N")], 4, 8)
    info = plan.info()
    assert plan.schedule == info["schedule"]
    assert plan.rounds == info["rounds"]
    if schedule != "auto":
        assert plan.schedule == schedule
    else:
        assert plan.schedule in ("p2p", "alltoallv")
    if plan.schedule != "rounds":
        assert plan.rounds == 1
        return
    # rounds: contention-free steps that carry every message once
    off = want.copy()
    np.fill_diagonal(off, 0)
    assert info["contention_free"] is True
    assert plan.rounds == len(info["steps"]) + info["steps_left_out"]
    assert plan.rounds >= max(max((off > 0).sum(axis=0)), max((off > 0).sum(axis=1)))
    seen = []
    for step in info["steps"]:
        senders = [a for a, b in step["sends"]]
        receivers = [b for a, b in step["sends"]]
        assert len(set(senders)) == len(senders) and len(set(receivers)) == len(receivers)
        assert not set(step["copies"]) & (set(senders) | set(receivers))
        seen += [tuple(x) for x in step["sends"]]
    assert sorted(seen) == sorted(zip(*np.nonzero(off)))
    copies = sorted(r for step in info["steps"] for r in step["copies"])
    assert copies == [r for r in range(4) if want[r, r] > 0]


@pytest.mark.parametrize("cap", [8, 64, 65, 100, 4096])
def test_memory_cap_plans_rounds_with_the_same_movement(cap):
    dst, dref = bc(10, 7, 4, 4, 2, 1)
    src, sref = bc(10, 7, 3, 2, 2, 2)
    plain = relay.plan_transform(dst, src)
    plan = relay.plan_transform(dst, src, max_buffer_bytes=cap)
    assert plan.max_buffer_bytes == cap
    assert plan.info()["max_buffer_bytes"] == cap
    assert plan.schedule == "rounds"
    assert plan.rounds >= 1
    check_against_reference(plan, [(dref, sref, "N")], 4, 8)
    np.testing.assert_array_equal(plan.volumes()[0], plain.volumes()[0])
    assert relay.plan_transform(dst, src, max_buffer_bytes=cap, schedule="rounds").max_buffer_bytes == cap


def test_rank_sections_share_the_whole_plans_fingerprint():
    dst, _ = bc(10, 7, 4, 4, 2, 1)
    src, _ = bc(10, 7, 3, 2, 2, 2)
    whole = relay.plan_transform(dst, src, relabel="greedy")
    for r in range(4):
        part = relay.plan_transform(dst, src, relabel="greedy", rank=r)
        assert part.fingerprint == whole.fingerprint
        assert part.stats == whole.stats
        assert part.relabeling == whole.relabeling
        assert part.nranks == 4 and part.kind == "transform"
        assert part.info(rank=r) == whole.info(rank=r)
        assert part.dst_elems(r) == whole.dst_elems(r) and part.src_elems(r) == whole.src_elems(r)
        with pytest.raises(relay.ArgumentError) as e:
            part.info()
        assert e.value.message and e.value.status == "RELAY_ERR_ARG"
        with pytest.raises(relay.ArgumentError):
            part.info(rank=(r + 1) % 4)
        with pytest.raises(relay.ArgumentError):
            part.volumes()
        with pytest.raises(relay.ArgumentError):
            part.encode()


def test_nranks_beyond_the_layouts():
    dst, dref = bc(6, 6, 2, 2, 2, 1)
    src, sref = bc(6, 6, 3, 3, 1, 2)
    plan = relay.plan_transform(dst, src, nranks=5)
    assert plan.nranks == 5
    check_against_reference(plan, [(dref, sref, "N")], 5, 8)
    assert [plan.dst_elems(r) for r in range(2, 5)] == [0, 0, 0]


# ---- batches ---------------------------------------------------------------------

def test_batch_moves_every_pair_in_one_round():
    d1, r1 = bc(10, 7, 4, 4, 2, 1)
    s1, q1 = bc(10, 7, 3, 2, 2, 2)
    d2, r2 = bc(5, 9, 2, 2, 2, 2, order="C")
    s2, q2 = bc(9, 5, 3, 3, 1, 3)
    plan = relay.plan_transform([d1, d2], [s1, s2], op=["N", "T"], dtype=np.complex64)
    assert plan.count == 2
    assert plan.nranks == 4
    assert plan.info()["op"] == ["N", "T"]
    check_against_reference(plan, [(r1, q1, "N"), (r2, q2, "T")], 4, 8)
    for r in range(4):
        assert plan.dst_elems(r, 1) == r2.local_elems(r)
        assert plan.src_elems(r, 1) == q2.local_elems(r)
    # one op word serves every pair, the default included
    same = relay.plan_transform((d2, d2), (s2, s2), op="T")
    assert same.count == 2 and same.info()["op"] == ["T", "T"]
    check_against_reference(same, [(r2, q2, "T"), (r2, q2, "T")], 4, 8)
    assert relay.plan_transform([d1, d1], [s1, s1]).info()["op"] == ["N", "N"]
    with pytest.raises(relay.ArgumentError):
        plan.dst_layout(2)
    with pytest.raises(relay.ArgumentError):
        plan.dst_elems(0, 2)


# ---- N-D plans --------------------------------------------------------------------

def nd(shape, mesh, places, **kw):
    return (relay.NDLayout(shape, mesh, as_relay_placements(places), **kw),
            NDRef(shape, (mesh,) if isinstance(mesh, int) else mesh, places, kw.get("ranks"), kw.get("order", "C"),
                  kw.get("padded")))


def nd_reference(dst_ref, src_ref, perm, itemsize):
    """Direct replicas: every replica of A reads each element of each partial
    piece of B from its own copy when it holds one, else from another rank."""
    src_holders = src_ref.holders()
    pieces = math.prod(p for p, q in zip(src_ref.mesh, src_ref.places) if q[0] == "partial")
    recv, local = {}, {}
    for r in dst_ref.ranks:
        idx = dst_ref.dim_indices(r)
        for g in np.ndindex(*(len(i) for i in idx)):
            i = [int(idx[k][g[k]]) for k in range(len(g))]
            j = [0] * len(i)
            for k, p in enumerate(perm):
                j[p] = i[k]
            for q in range(pieces):
                mine = r in src_holders[tuple(j)][q]
                (local if mine else recv)[r] = (local if mine else recv).get(r, 0) + itemsize
    return recv, local


ND_CASES = [
    (((10, 9), (2, 2), [("shard", 0, 0, None), ("replicate",)]),
     ((10, 9), (2, 2), [("replicate",), ("shard", 1, 0, None)]), "N", None),
    (((6, 4), 3, [("shard", 0, 2, None)]), ((4, 6), (3,), [("shard", 1, 0, [0, 1, 1, 6])]), "T", None),
    (((4, 5, 6), (2, 2), [("partial",), ("shard", 2, 0, None)]),
     ((5, 6, 4), (2, 2), [("shard", 0, 1, None), ("shard", 1, 0, None)]), "T", [1, 2, 0]),
    (((6, 6), (4,), [("shard", 0, 0, None)], {"ranks": [4, 5, 6, 7]}),
     ((6, 6), (2, 2), [("shard", 1, 0, None), ("replicate",)], {"order": "F"}), "C", None),
    (((7, 3), 2, [("shard", 0, 0, None)], {"padded": [5, 4]}),
     ((7, 3), (3,), [("replicate",)]), "N", None),
]


@pytest.mark.parametrize("src_case,dst_case,op,perm", ND_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_nd_plan_against_reference(src_case, dst_case, op, perm, dtype):
    src, sref = nd(*src_case[:3], **(src_case[3] if len(src_case) > 3 else {}))
    dst, dref = nd(*dst_case[:3], **(dst_case[3] if len(dst_case) > 3 else {}))
    plan = relay.plan_nd(dst, src, op=op, perm=perm, dtype=dtype, replicas="direct")
    itemsize = np.dtype(dtype).itemsize
    ndims = len(dst.shape)
    want_perm = tuple(range(ndims)) if op == "N" else tuple(perm) if perm else tuple(reversed(range(ndims)))
    assert plan.kind == "nd" and plan.count == 1 and plan.dtype == np.dtype(dtype)
    assert plan.perm() == want_perm
    assert plan.nranks == max(dst.min_ranks, src.min_ranks)
    assert plan.schedule == "p2p" and plan.rounds == 1
    assert plan.relabeling == tuple(range(plan.nranks))
    recv, local = nd_reference(dref, sref, want_perm, itemsize)
    stats = plan.stats
    assert stats["bytes_remote"] == stats["bytes_remote_identity"] == sum(recv.values())
    assert stats["bytes_total"] == sum(recv.values()) + sum(local.values())
    info = plan.info()
    assert info["nd"]["pairs"][0]["perm"] == list(want_perm)
    assert info["nd"]["pairs"][0]["forward"] is False
    assert sum(row["send_bytes"] for row in info["per_rank"]) == stats["bytes_remote"]
    for row in info["per_rank"]:
        assert row["recv_bytes"] == recv.get(row["rank"], 0), row
        assert row["local_bytes"] == local.get(row["rank"], 0), row
    for r in range(plan.nranks + 1):
        if r < plan.nranks:
            assert plan.dst_elems(r) == dst.local_elems(r) == dref.local_elems(r)
            assert plan.src_elems(r) == src.local_elems(r) == sref.local_elems(r)
        else:
            with pytest.raises(relay.ArgumentError):
                plan.dst_elems(r)
    assert plan.dst_layout().shape == dst.shape and plan.src_layout().mesh == src.mesh


def test_nd_replicas_forward_and_auto():
    src, _ = nd((10, 9), (2, 2), [("shard", 0, 0, None), ("replicate",)])
    dst, _ = nd((10, 9), (4,), [("replicate",)])
    direct = relay.plan_nd(dst, src, replicas="direct")
    forward = relay.plan_nd(dst, src, replicas="forward")
    auto = relay.plan_nd(dst, src)
    assert direct.info()["nd"]["pairs"][0]["forward"] is False
    assert forward.info()["nd"]["pairs"][0]["forward"] is True
    assert auto.info()["nd"]["pairs"][0]["forward"] in (True, False)
    for p in (direct, forward, auto):
        assert p.stats["bytes_total"] == 10 * 9 * 8 * 4  # four replicas receive everything
    assert direct.fingerprint != forward.fingerprint


def test_nd_batch_and_node_map():
    a, aref = nd((10, 9), (2, 2), [("shard", 0, 0, None), ("replicate",)])
    b, bref = nd((9, 10), (2, 2), [("replicate",), ("shard", 1, 0, None)])
    plan = relay.plan_nd([a, b], [a, a], op=["N", "T"], perm=[None, [1, 0]], dtype=np.float64, replicas="direct")
    assert plan.count == 2
    assert plan.perm(0) == (0, 1) and plan.perm(1) == (1, 0)
    assert plan.info()["op"] == ["N", "T"]
    r0, l0 = nd_reference(aref, aref, (0, 1), 8)
    r1, l1 = nd_reference(bref, aref, (1, 0), 8)
    assert plan.stats["bytes_remote"] == sum(r0.values()) + sum(r1.values())
    assert plan.stats["bytes_total"] == sum(r0.values()) + sum(l0.values()) + sum(r1.values()) + sum(l1.values())
    with pytest.raises(relay.ArgumentError):
        plan.perm(2)
    noded = relay.plan_nd(b, a, op="T", node_of_rank=[0, 0, 1, 1])
    assert noded.info()["nd"]["node_map"] is not False
    assert noded.stats["bytes_total"] == relay.plan_nd(b, a, op="T").stats["bytes_total"]


# ---- plan algebra -------------------------------------------------------------------

def test_invert_swaps_senders_and_receivers():
    dst, dref = bc(10, 7, 4, 4, 2, 1)
    src, sref = bc(7, 10, 3, 2, 2, 2)
    for relabel in ("none", "greedy"):
        p = relay.plan_transform(dst, src, op="T", relabel=relabel)
        inv = relay.invert(p)
        assert inv.kind == "transform" and inv.info()["op"] == "T"
        np.testing.assert_array_equal(inv.volumes()[0], p.volumes()[0].T)
        assert inv.stats["bytes_remote"] == p.stats["bytes_remote"]
        assert inv.dst_layout().shape == src.shape and inv.src_layout().shape == dst.shape
        for r in range(4):
            assert inv.dst_elems(r) == src.local_elems(r)
            assert inv.src_elems(r) == p.dst_elems(r)
        # there and back again: every element stays where it started
        back = relay.compose(p, inv)
        assert back.stats["bytes_remote"] == 0 and back.stats["messages"] == 0
        assert back.stats["bytes_total"] == p.stats["bytes_total"]
        assert back.info()["op"] == "N"
        vol = back.volumes()[0]
        assert np.count_nonzero(vol - np.diag(np.diag(vol))) == 0
        np.testing.assert_array_equal(np.diag(vol), [8 * (sref.global_indices(r)[0] >= 0).sum() for r in range(4)])


def test_compose_moves_straight_to_the_last_layout():
    a, aref = bc(12, 8, 2, 2, 1, 4)
    b, bref = bc(12, 8, 4, 4, 1, 4)
    c, cref = bc(8, 12, 3, 3, 2, 2)
    first = relay.plan_transform(b, a)                  # A -> B
    second = relay.plan_transform(c, first.dst_layout(), op="T")  # B -> C = B^T
    both = relay.compose(first, second)
    assert both.info()["op"] == "T"
    check_against_reference(both, [(cref, aref, "T")], 4, 8)
    direct = relay.plan_transform(c, a, op="T")
    np.testing.assert_array_equal(both.volumes()[0], direct.volumes()[0])
    # T after T is N
    tt = relay.compose(relay.plan_transform(relay.block_cyclic(8, 12, 2, 2, 2, 2), a, op="T"),
                       relay.plan_transform(b, relay.block_cyclic(8, 12, 2, 2, 2, 2), op="T"))
    assert tt.info()["op"] == "N"
    check_against_reference(tt, [(bref, aref, "N")], 4, 8)


def test_concat_is_a_batch_of_both():
    d1, r1 = bc(10, 7, 4, 4, 2, 1)
    s1, q1 = bc(10, 7, 3, 2, 2, 2)
    d2, r2 = bc(6, 6, 2, 2, 2, 2)
    s2, q2 = bc(6, 6, 3, 3, 1, 4, order="C")
    x = relay.plan_transform(d1, s1, dtype=np.float32)
    y = relay.plan_transform(d2, s2, op="C", dtype=np.float32)
    both = relay.concat(x, y)
    assert both.count == 2
    assert both.info()["op"] == ["N", "C"]
    check_against_reference(both, [(r1, q1, "N"), (r2, q2, "C")], 4, 4)
    np.testing.assert_array_equal(both.volumes()[0], x.volumes()[0] + y.volumes()[0])
    assert both.stats["bytes_total"] == x.stats["bytes_total"] + y.stats["bytes_total"]
    batch = relay.plan_transform([d1, d2], [s1, s2], op=["N", "C"], dtype=np.float32)
    assert both.stats == batch.stats
    assert relay.concat(both, x).count == 3


def test_layouts_of_a_plan_outlive_it():
    import gc

    def layouts():
        plan = relay.plan_transform(relay.block_cyclic(10, 7, 4, 4, 2, 1), relay.block_cyclic(10, 7, 3, 2, 2, 2),
                                    relabel="optimal")
        a = relay.NDLayout((10, 9), (2, 2), [relay.Shard(0), relay.Replicate()])
        nd = relay.plan_nd(a, a)
        return plan.dst_layout(), plan.src_layout(), plan.relabeling, nd.dst_layout()

    dst, src, sigma, nd = layouts()
    gc.collect()
    churn = [relay.plan_transform(relay.block_cyclic(30, 30, 3, 3, 2, 2), relay.block_cyclic(30, 30, 4, 4, 2, 2))
             for _ in range(10)]
    ref = BlockCyclicRef(10, 7, 4, 4, 2, 1)
    for i in range(10):
        for j in range(7):
            r, k = ref.locate(i, j)
            assert dst.locate(i, j) == (sigma[r], k)
    assert src.shape == (10, 7) and src.local_elems(0) == BlockCyclicRef(10, 7, 3, 2, 2, 2).local_elems(0)
    assert nd.local_shape(2) == (5, 9)
    np.testing.assert_array_equal(nd.global_indices(3)[0], np.arange(5, 10))
    del churn
