"""Every refusal raises the relay.Error subclass of its status, carrying
relay's words; hostile plan bytes never crash the interpreter."""

import random

import numpy as np
import pytest

import relay
import relay.errors as errors
from relay import NDLayout, Partial, Replicate, Shard

def src():
    return relay.block_cyclic(10, 7, 3, 2, 2, 2)


def dst():
    return relay.block_cyclic(10, 7, 4, 4, 2, 1)


def nd_a():
    return NDLayout((10, 9), (2, 2), [Shard(0), Replicate()])


def refused(cls, call, match=None):
    """call() raises exactly the relay class cls (or a subclass) with a message and status."""
    with pytest.raises(cls) as e:
        call()
    err = e.value
    assert isinstance(err, relay.Error)
    assert isinstance(err.message, str) and err.message.strip()
    assert str(err) == err.message
    assert err.status.startswith("RELAY_ERR_")
    assert errors.class_of_status(err.status) in type(err).__mro__
    if match:
        assert match in err.message, err.message
    return err


# ---- the hierarchy -------------------------------------------------------------------

def test_exception_hierarchy():
    assert issubclass(relay.ArgumentError, relay.Error) and issubclass(relay.ArgumentError, ValueError)
    assert issubclass(relay.BufferMismatch, relay.ArgumentError) and issubclass(relay.BufferMismatch, TypeError)
    assert issubclass(relay.OutOfMemory, MemoryError)
    assert issubclass(relay.PlanIOError, OSError)
    assert issubclass(relay.FormatError, relay.Error) and not issubclass(relay.FormatError, ValueError)
    assert issubclass(relay.VersionError, relay.FormatError)
    assert issubclass(relay.MismatchError, relay.Error)
    assert issubclass(relay.MPIError, RuntimeError)
    assert issubclass(relay.UnsupportedError, NotImplementedError)
    assert issubclass(relay.Error, Exception) and not issubclass(relay.Error, ValueError)
    for cls in (relay.ArgumentError, relay.FormatError, relay.MismatchError, relay.UnsupportedError):
        assert cls.__module__ == "relay.errors"


def test_every_status_has_its_class():
    words = relay._core.status_words()
    want = {"RELAY_ERR_ARG": relay.ArgumentError, "RELAY_ERR_NOMEM": relay.OutOfMemory,
            "RELAY_ERR_IO": relay.PlanIOError, "RELAY_ERR_FORMAT": relay.FormatError,
            "RELAY_ERR_VERSION": relay.VersionError, "RELAY_ERR_MISMATCH": relay.MismatchError,
            "RELAY_ERR_MPI": relay.MPIError, "RELAY_ERR_UNSUPPORTED": relay.UnsupportedError}
    assert set(want) <= set(words)
    for status, cls in want.items():
        assert errors.class_of_status(status) is cls
        e = cls("words", status)
        assert e.message == "words" and e.status == status and str(e) == "words"
    assert errors.class_of_status("RELAY_SOMETHING_NEW") is relay.Error


# ---- layouts -----------------------------------------------------------------------

@pytest.mark.parametrize("call,match", [
    (lambda: relay.block_cyclic(4, 4, 0, 2, 1, 1), "block size"),
    (lambda: relay.block_cyclic(-1, 4, 2, 2, 1, 1), "negative"),
    (lambda: relay.block_cyclic(4, 4, 2, 2, 0, 1), "process grid"),
    (lambda: relay.block_cyclic(4, 4, 2, 2, 2, 1, rsrc=2), "source process"),
    (lambda: relay.block_cyclic(4, 4, 2, 2, 2, 1, csrc=-1), None),
    (lambda: relay.block_cyclic(4, 4, 2, 2, 1, 1, lld=2), "lld"),
    (lambda: relay.block_cyclic(4, 4, 2, 2, 1, 1, grid_order="X"), "grid_order"),
    (lambda: relay.block_cyclic(4, 4, 2, 2, 1, 1, order="row"), "order"),
    (lambda: relay.block_cyclic(4, 4, 2, 2, 1, 1, order=None), "order"),
    (lambda: relay.grid(2, [0, 3, 3, 5], [0, 4], [0, 1, 0]), "increasing"),
    (lambda: relay.grid(2, [0, 5, 3], [0, 4], [0, 1]), "increasing"),
    (lambda: relay.grid(2, [1, 3, 5], [0, 4], [0, 1]), "start at 0"),
    (lambda: relay.grid(2, [0, 3, 5], [0, 4], [0, 2]), "owner 2"),
    (lambda: relay.grid(2, [0, 3, 5], [0, 4], [0, -1]), "owner -1"),
    (lambda: relay.grid(2, [0, 3, 5], [0, 4], [0]), "one entry per block"),
    (lambda: relay.grid(2, [0, 3, 5], [0, 4], [0, 1, 1]), "one entry per block"),
    (lambda: relay.grid(2, [0, 3, 5], [0, 4], [0, 1], offsets=[0, 0], lds=[3]), "one entry per block"),
    (lambda: relay.grid(2, [0, 3, 5], [0, 4], [0, 1], offsets=[0, 0]), "together"),
    (lambda: relay.grid(2, [0, 3, 5], [0, 4], [0, 0], offsets=[0, 0], lds=[3, 2]), "overlap"),
    (lambda: relay.grid(2, [0, 3, 5], [0, 4], [0, 1], offsets=[0, 0], lds=[2, 2]), "ld 2"),
    (lambda: relay.grid(2, [0, 3, 5], [0, 4], [0, 1], offsets=[-1, 0], lds=[3, 2]), None),
    (lambda: relay.grid(2, [], [0, 4], [0, 1]), "entries"),
    (lambda: relay.grid(2, [0], [0, 4], []), "entries"),
    (lambda: relay.grid(0, [0, 3, 5], [0, 4], [0, 0]), "nranks"),
    (lambda: relay.grid(2, [0, 1.5, 5], [0, 4], [0, 1]), "row_splits[1]"),
    (lambda: relay.grid(2, [0, 3, 5], [0, 4], [0, 2 ** 40]), "owners[1]"),
    (lambda: relay.grid(2, [0, 3, 5], [0, 4], [0, 1], order="X"), "order"),
])
def test_bad_2d_layouts(call, match):
    refused(relay.ArgumentError, call, match)


@pytest.mark.parametrize("call,match", [
    (lambda: NDLayout((10,), 3, [Shard(0, splits=[0, 5, 4, 10])]), "decrease"),
    (lambda: NDLayout((10,), 3, [Shard(0, splits=[0, 5, 10])]), "split points"),       # p+1 needed
    (lambda: NDLayout((10,), 3, [Shard(0, splits=[0, 1, 2, 5, 10])]), "split points"),
    (lambda: NDLayout((10,), 3, [Shard(0, splits=[0, 5, 6, 9])]), "extent"),
    (lambda: NDLayout((10,), 3, [Shard(0, splits=[1, 5, 6, 10])]), None),
    (lambda: NDLayout((10,), 3, [Shard(0, block=2, splits=[0, 5, 6, 10])]), "both"),
    (lambda: NDLayout((10,), 3, [Shard(0, block=-1)]), None),
    (lambda: NDLayout((10,), 3, [Shard(1)]), "dimension 1"),
    (lambda: NDLayout((10,), 3, [Shard(-2)]), "dimension -2"),
    (lambda: NDLayout((10, 4), (2, 2), [Shard(0), Shard(0)]), "sharded"),
    (lambda: NDLayout((10, 4), (2, 2), [Shard(0)]), "placements"),
    (lambda: NDLayout((10, 4), (2,), ["shard"]), "placement"),
    (lambda: NDLayout((10, 4), (2,), [None]), "placement"),
    (lambda: NDLayout((10,), 2, [Shard(0)], ranks=[1, 1]), "twice"),
    (lambda: NDLayout((10,), 2, [Shard(0)], ranks=[1]), "ranks"),
    (lambda: NDLayout((10,), 2, [Shard(0)], ranks=[-1, 0]), None),
    (lambda: NDLayout((10,), 2, [Shard(0)], order="X"), "order"),
    (lambda: NDLayout((10,), 2, [Shard(0)], order="row"), "order"),
    (lambda: NDLayout((10,), 2, [Shard(0)], padded=[3]), "padded"),
    (lambda: NDLayout((10,), 2, [Shard(0)], padded=[5, 5]), "padded"),
    (lambda: NDLayout((-1,), 2, [Shard(0)]), "extent"),
    (lambda: NDLayout((1,) * 9, 1, [Replicate()]), None),
    (lambda: NDLayout((), 1, [Replicate()]), None),
    (lambda: NDLayout((4,), (1, 1, 1, 1, 1), [Replicate()] * 5), "mesh"),
    (lambda: NDLayout((4,), (1,) * 40, [Replicate()] * 40), "mesh"),
    (lambda: NDLayout((4,), 0, [Replicate()]), "mesh"),
    (lambda: NDLayout((4,), (2 ** 31 - 1,) * 4, [Replicate()] * 4, ranks=[0]), "ranks"),
    (lambda: NDLayout((2 ** 40,), 2, [Shard(0, block=1)]), "blocks"),
])
def test_bad_nd_layouts(call, match):
    refused(relay.ArgumentError, call, match)


def test_locate_refusals():
    layout = src()
    refused(relay.ArgumentError, lambda: layout.locate(10, 0), "outside")
    refused(relay.ArgumentError, lambda: layout.locate(0, -1), "outside")
    nd = NDLayout((4, 3), 2, [Shard(0)])
    refused(relay.ArgumentError, lambda: nd.locate(0, [4, 0]), "outside")
    refused(relay.ArgumentError, lambda: nd.locate(0, [0]), "entries")
    assert nd.locate(9, [0, 0]) is None  # off the mesh: holds nothing


# ---- planning ------------------------------------------------------------------------

@pytest.mark.parametrize("call,cls,match", [
    (lambda: relay.plan_transform(dst(), src(), dtype=np.int32), relay.ArgumentError, "float32"),
    (lambda: relay.plan_transform(dst(), src(), dtype="i8"), relay.ArgumentError, None),
    (lambda: relay.plan_transform(dst(), src(), dtype=bool), relay.ArgumentError, None),
    (lambda: relay.plan_transform(dst(), src(), dtype="not a dtype"), relay.ArgumentError, None),
    (lambda: relay.plan_transform(dst(), src(), op="X"), relay.ArgumentError, "op"),
    (lambda: relay.plan_transform(dst(), src(), op=3), relay.ArgumentError, "op"),
    (lambda: relay.plan_transform(dst(), src(), op="T"), relay.ArgumentError, "10 x 7"),
    (lambda: relay.plan_transform(dst(), relay.block_cyclic(10, 8, 2, 2, 2, 2)), relay.ArgumentError, None),
    (lambda: relay.plan_transform(dst(), src(), relabel="best"), relay.ArgumentError, "relabel"),
    (lambda: relay.plan_transform(dst(), src(), schedule="x"), relay.ArgumentError, "schedule"),
    (lambda: relay.plan_transform(dst(), src(), schedule="p2p", max_buffer_bytes=64), relay.ArgumentError, None),
    (lambda: relay.plan_transform(dst(), src(), schedule="alltoallv", max_buffer_bytes=64), relay.ArgumentError,
     None),
    (lambda: relay.plan_transform(dst(), src(), max_buffer_bytes=1), relay.ArgumentError, "element"),
    (lambda: relay.plan_transform(dst(), src(), max_buffer_bytes=-1), relay.ArgumentError, "negative"),
    (lambda: relay.plan_transform(dst(), src(), nranks=2), relay.ArgumentError, None),
    (lambda: relay.plan_transform(dst(), src(), nranks=0), relay.ArgumentError, None),
    (lambda: relay.plan_transform([dst(), dst()], [src()]), relay.ArgumentError, "batch"),
    (lambda: relay.plan_transform([dst(), dst()], [src(), src()], op=["N"]), relay.ArgumentError, "batch"),
    (lambda: relay.plan_transform([], []), relay.ArgumentError, "batch"),
    (lambda: relay.plan_transform(dst(), src(), node_of_rank=[0, 0]), relay.ArgumentError, "node_of_rank"),
    (lambda: relay.plan_transform(dst(), src(), node_of_rank=[0, 0, 1, 1, 1]), relay.ArgumentError,
     "node_of_rank"),
    (lambda: relay.plan_transform(dst(), src(), node_of_rank=[0, 0, 1, -1]), relay.ArgumentError, None),
    (lambda: relay.plan_transform(dst(), src(), node_of_rank=[0, 0, 1, 9]), relay.ArgumentError, None),
    (lambda: relay.plan_transform(dst(), src(), node_of_rank=[0, 0, 1, 1], inter_node_weight=0.5),
     relay.ArgumentError, "inter_node_weight"),
    (lambda: relay.plan_transform(dst(), src(), rank=4), relay.ArgumentError, None),
    (lambda: relay.plan_transform(dst(), src(), rank=-2), relay.ArgumentError, "rank"),
    (lambda: relay.plan_transform(nd_a(), nd_a()), relay.ArgumentError, "plan_nd"),
    (lambda: relay.plan_transform(dst(), nd_a()), relay.ArgumentError, "plan_nd"),
    (lambda: relay.plan_transform("layout", src()), relay.ArgumentError, None),
])
def test_bad_transform_plans(call, cls, match):
    refused(cls, call, match)


def nd_b():
    return NDLayout((9, 10), (2, 2), [Replicate(), Shard(1)])


@pytest.mark.parametrize("call,cls,match", [
    (lambda: relay.plan_nd(nd_b(), nd_a()), relay.ArgumentError, "dimension"),
    (lambda: relay.plan_nd(nd_a(), nd_a(), perm=[1, 0]), relay.ArgumentError, "op N"),
    (lambda: relay.plan_nd(nd_b(), nd_a(), op="T", perm=[0, 0]), relay.ArgumentError, "permutation"),
    (lambda: relay.plan_nd(nd_b(), nd_a(), op="T", perm=[0, 1, 2]), relay.ArgumentError, "perm"),
    (lambda: relay.plan_nd(nd_b(), nd_a(), op="T", perm=[0, 9]), relay.ArgumentError, "perm"),
    (lambda: relay.plan_nd(nd_b(), nd_a(), op="X"), relay.ArgumentError, "op"),
    (lambda: relay.plan_nd(NDLayout((10, 9), (2, 2), [Partial(), Replicate()]), nd_a()), relay.ArgumentError,
     "partial"),
    (lambda: relay.plan_nd(nd_a(), nd_a(), replicas="x"), relay.ArgumentError, "replicas"),
    (lambda: relay.plan_nd(nd_a(), nd_a(), nranks=2), relay.ArgumentError, None),
    (lambda: relay.plan_nd(nd_a(), nd_a(), dtype="int32"), relay.ArgumentError, None),
    (lambda: relay.plan_nd(nd_a(), nd_a(), node_of_rank=[0]), relay.ArgumentError, "node_of_rank"),
    (lambda: relay.plan_nd([nd_a(), nd_a()], [nd_a()]), relay.ArgumentError, "batch"),
    (lambda: relay.plan_nd([nd_a(), nd_b()], [nd_a(), nd_a()], op=["N", "T"], perm=[None]), relay.ArgumentError,
     "perm"),
    (lambda: relay.plan_nd([], []), relay.ArgumentError, "batch"),
    (lambda: relay.plan_nd(dst(), nd_a()), relay.ArgumentError, "plan_transform"),
    (lambda: relay.plan_nd(nd_a(), src()), relay.ArgumentError, "plan_transform"),
])
def test_bad_nd_plans(call, cls, match):
    refused(cls, call, match)


def test_relabel_and_schedules_of_nd_plans_are_unsupported():
    # plan_nd has no relabel or schedule keyword; the C core refuses them with RELAY_ERR_UNSUPPORTED
    a = nd_a()
    for relabel, schedule, cap in [("greedy", "auto", 0), ("optimal", "auto", 0), ("none", "rounds", 0),
                                   ("none", "alltoallv", 0), ("none", "auto", 4096)]:
        refused(relay.UnsupportedError, lambda: relay._core.plan_nd(4, [a._h], [a._h], ["N"], [None], "d",
                                                                   (relabel, schedule, None, 1.0, cap, "auto")))
    with pytest.raises(TypeError):
        relay.plan_nd(a, a, relabel="greedy")


def test_algebra_refusals():
    p = relay.plan_transform(dst(), src())
    refused(relay.MismatchError, lambda: relay.compose(p, p), "second plan")
    refused(relay.MismatchError, lambda: relay.concat(p, relay.plan_transform(dst(), src(), dtype=np.float32)),
            "type")
    refused(relay.MismatchError, lambda: relay.concat(p, relay.plan_transform(dst(), src(), nranks=5)))
    tc = relay.block_cyclic(7, 10, 2, 2, 2, 2)
    refused(relay.UnsupportedError,
            lambda: relay.compose(relay.plan_transform(tc, src(), op="T", dtype=np.complex128),
                                  relay.plan_transform(dst(), tc, op="C", dtype=np.complex128)))
    nd = relay.plan_nd(nd_a(), nd_a())
    for call in (lambda: relay.invert(nd), lambda: relay.compose(nd, nd), lambda: relay.concat(nd, nd)):
        refused(relay.UnsupportedError, call)
    bmmc = relay.plan_bmmc(relay.BMMC.identity(4), 2, 2)
    refused(relay.MismatchError, lambda: relay.compose(p, bmmc))
    refused(relay.UnsupportedError, lambda: relay.concat(bmmc, bmmc))


def test_plan_queries_out_of_range():
    p = relay.plan_transform(dst(), src())
    refused(relay.ArgumentError, lambda: p.info(rank=4), "rank 4")
    refused(relay.ArgumentError, lambda: p.info(rank=-2), "rank")
    refused(relay.ArgumentError, lambda: p.info(rank=-1), "rank")
    refused(relay.ArgumentError, lambda: p.info(limit=-1), "limit")
    refused(relay.ArgumentError, lambda: p.dst_layout(1))
    refused(relay.ArgumentError, lambda: p.src_layout(-1))
    refused(relay.ArgumentError, lambda: p.dst_elems(4))
    refused(relay.ArgumentError, lambda: p.src_elems(-1))
    refused(relay.ArgumentError, lambda: p.src_elems(0, 1))
    refused(relay.ArgumentError, lambda: p.perm())  # not an N-D plan
    nd = relay.plan_nd(nd_a(), nd_a())
    refused(relay.ArgumentError, lambda: nd.perm(1))
    refused(relay.ArgumentError, lambda: nd.info(rank=4))
    refused(relay.ArgumentError, lambda: nd.dst_elems(-1))


WIDE = [2**31, -2**31 - 1, 2**63, -2**63 - 1, 2**200]


@pytest.mark.parametrize("wide", WIDE)
def test_integers_out_of_range_raise_relay_errors(wide):
    """Integers no C type of the call holds raise ArgumentError, never a bare OverflowError."""
    p = relay.plan_transform(dst(), src())
    b = p.encode()
    lay, nd = src(), nd_a()
    calls = [  # ranks, counts and indices: C ints
        lambda: relay.decode(b, rank=wide), lambda: p.info(rank=wide), lambda: p.dst_elems(wide),
        lambda: p.src_elems(0, wide), lambda: p.dst_layout(wide), lambda: lay.local_elems(wide),
        lambda: lay.local_shape(wide), lambda: lay.global_indices(wide), lambda: nd.local_shape(wide),
        lambda: nd.locate(wide, [0, 0]), lambda: relay.local_view(lay, wide, np.zeros(1)),
        lambda: relay.block_cyclic(10, 7, 3, 2, wide, 2), lambda: relay.grid(wide, [0, 2], [0, 2], [0]),
        lambda: NDLayout((10, 9), wide, [Shard(0)]), lambda: relay.plan_transform(dst(), src(), nranks=wide),
        lambda: relay.plan_bmmc(relay.BMMC.identity(4), wide, 2),
    ]
    if abs(wide) >= 2**63:  # extents, indices and sizes: int64
        calls += [
            lambda: lay.locate(wide, 0), lambda: nd.locate(0, [wide, 0]), lambda: relay.block_cyclic(wide, 7, 3, 2, 2, 2),
            lambda: relay.block_cyclic(10, 7, 3, 2, 2, 2, lld=wide), lambda: relay.grid(2, [0, wide], [0, 2], [0]),
            lambda: NDLayout((wide, 9), 2, [Shard(0)]), lambda: NDLayout((10, 9), 2, [Shard(0, block=wide)]),
            lambda: p.info(limit=wide),
        ]
    for call in calls:
        try:
            call()
        except relay.Error as e:
            assert e.message and not isinstance(e, OverflowError)
        else:
            pytest.fail(f"no error for {wide} in call {calls.index(call)}")


def test_info_of_a_section_plan_is_refused_not_crashed():
    for r in range(4):
        part = relay.plan_transform(dst(), src(), rank=r)
        refused(relay.ArgumentError, lambda: part.info(), "sections")
        refused(relay.ArgumentError, lambda: part.volumes(), "sections")
        refused(relay.ArgumentError, lambda: part.info(rank=(r + 1) % 4), "section")
        refused(relay.ArgumentError, lambda: part.heatmap())
        assert part.info(rank=r)["rank"] == r


# ---- hostile bytes -------------------------------------------------------------------------

def hostile_plans():
    a = nd_a()
    return {
        "transform": relay.plan_transform(dst(), src(), relabel="greedy"),
        "rounds": relay.plan_transform([dst(), src()], [src(), dst()], schedule="rounds", dtype=np.complex64),
        "bmmc": relay.plan_bmmc(relay.BMMC.gray_code(6), 2, 1),
        "hsumma": relay.plan_hsumma(20, 12, 16, (2, 2), groups=(1, 2), inner_block=4, outer_block=8),
        "nd": relay.plan_nd(NDLayout((9, 10), (4,), [Shard(1, splits=[0, 2, 2, 7, 10])], order="F"), a, op="T"),
    }


def exercise(data, nranks):
    """Decodes data whole and by rank; anything that decodes must also inspect."""
    outcomes = []
    for rank in (None, 0, nranks - 1):
        try:
            plan = relay.decode(data, rank=rank)
        except relay.Error as e:
            assert e.message and e.status in ("RELAY_ERR_FORMAT", "RELAY_ERR_VERSION", "RELAY_ERR_ARG",
                                              "RELAY_ERR_NOMEM"), (e.status, e.message)
            outcomes.append(type(e).__name__)
            continue
        try:
            plan.info(rank=rank)
            plan.stats, plan.relabeling, plan.fingerprint
        except relay.Error:
            pass
        outcomes.append("decoded")
    return outcomes


@pytest.mark.parametrize("name", ["transform", "rounds", "bmmc", "hsumma", "nd"])
def test_flipped_bytes_never_crash(name):
    plan = hostile_plans()[name]
    data = plan.encode()
    rng = random.Random(20240611 + len(name))
    seen = {}
    positions = list(range(len(data))) if len(data) <= 600 else rng.sample(range(len(data)), 600)
    for pos in positions:
        bad = bytearray(data)
        bad[pos] ^= 1 << rng.randrange(8)
        for outcome in exercise(bytes(bad), plan.nranks):
            seen[outcome] = seen.get(outcome, 0) + 1
    for _ in range(100):  # a few bytes at once, and random values
        bad = bytearray(data)
        for _ in range(rng.randint(2, 6)):
            bad[rng.randrange(len(bad))] = rng.randrange(256)
        for outcome in exercise(bytes(bad), plan.nranks):
            seen[outcome] = seen.get(outcome, 0) + 1
    assert seen.get("FormatError", 0) + seen.get("VersionError", 0) > 0, seen


@pytest.mark.parametrize("name", ["transform", "bmmc", "hsumma", "nd"])
def test_truncated_and_padded_bytes_are_refused(name, tmp_path):
    plan = hostile_plans()[name]
    data = plan.encode()
    for cut in range(len(data)):
        with pytest.raises(relay.FormatError):
            relay.decode(data[:cut])
    path = tmp_path / "t.plan"
    for cut in (0, 1, 16, len(data) // 2, len(data) - 1):
        path.write_bytes(data[:cut])
        with pytest.raises(relay.FormatError):
            relay.load(path)
        for r in (0, plan.nranks - 1):
            try:
                relay.load(path, rank=r)  # may need only a section the cut left whole
            except relay.FormatError:
                pass
        # file_nranks reads the preamble and header alone: a cut there is refused,
        # a cut in the sections may pass, but never with another rank count
        if cut <= 16:
            with pytest.raises(relay.FormatError):
                relay.file_nranks(path)
        else:
            try:
                assert relay.file_nranks(path) == plan.nranks
            except relay.FormatError:
                pass
    exercise(data + b"\0" * 7, plan.nranks)  # trailing bytes: refused or ignored, never a crash
    rng = random.Random(7)
    for _ in range(50):
        exercise(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))), 1)
    exercise(b"\xff" * 4096, 1)
    exercise(b"\x80" * 64, 1)
