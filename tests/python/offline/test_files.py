"""Plans as files and bytes: save/load/encode/decode round trips for every
kind, any buffer type, one rank's section, file_nranks, pickling, and the
tuning a plan carries."""

import os
import pickle

import numpy as np
import pytest

import relay
from relay import Tuning, TuningChoice


def _layouts():
    src = relay.block_cyclic(10, 7, 3, 2, 2, 2)
    dst = relay.block_cyclic(10, 7, 4, 4, 2, 1)
    a = relay.NDLayout((10, 9), (2, 2), [relay.Shard(0), relay.Replicate()])
    b = relay.NDLayout((9, 10), (2, 2), [relay.Replicate(), relay.Shard(1)], order="F")
    return src, dst, a, b


KIND_FACTORIES = {
    "transform-optimal": lambda src, dst, a, b: relay.plan_transform(dst, src, relabel="optimal",
                                                                     dtype=np.complex128),
    "transform-batch-rounds": lambda src, dst, a, b: relay.plan_transform([dst, dst], [src, src], schedule="rounds",
                                                                          dtype=np.float32),
    "transform-cap": lambda src, dst, a, b: relay.plan_transform(dst, src, max_buffer_bytes=96),
    "bmmc": lambda src, dst, a, b: relay.plan_bmmc(relay.BMMC.shuffle(5), 2, 1, np.int16),
    "hsumma": lambda src, dst, a, b: relay.plan_hsumma(20, 12, 16, (2, 2), groups=(2, 1), inner_block=4,
                                                      outer_block=8),
    "nd": lambda src, dst, a, b: relay.plan_nd(b, a, op="T", node_of_rank=[0, 1, 0, 1]),
}
IDS = sorted(KIND_FACTORIES)


def make(name):
    return KIND_FACTORIES[name](*_layouts())


def same_plan(x, y):
    assert x.fingerprint == y.fingerprint
    assert x.kind == y.kind and x.nranks == y.nranks and x.count == y.count
    assert x.dtype == y.dtype and x.schedule == y.schedule and x.rounds == y.rounds
    assert x.stats == y.stats and x.relabeling == y.relabeling
    assert x.max_buffer_bytes == y.max_buffer_bytes
    assert x.info() == y.info()


@pytest.mark.parametrize("name", IDS)
def test_save_load_encode_decode(name, tmp_path):
    plan = make(name)
    path = tmp_path / "p.plan"
    plan.save(path)
    data = plan.encode()
    assert isinstance(data, bytes) and path.read_bytes() == data
    same_plan(relay.load(path), plan)
    same_plan(relay.load(str(path)), plan)
    same_plan(relay.load(os.fsencode(path)), plan)
    for buf in (data, bytearray(data), memoryview(data), np.frombuffer(data, np.uint8),
                np.frombuffer(data, np.uint8).copy()):
        same_plan(relay.decode(buf), plan)
    assert relay.decode(data).encode() == data
    assert relay.file_nranks(path) == plan.nranks
    same_plan(pickle.loads(pickle.dumps(plan)), plan)
    # overwriting keeps one file, the new plan
    relay.plan_bmmc(relay.BMMC.identity(3), 1, 2).save(path)
    assert relay.load(path).kind == "bmmc"
    assert sorted(os.listdir(tmp_path)) == ["p.plan"]


@pytest.mark.parametrize("name", IDS)
def test_load_one_rank(name, tmp_path):
    plan = make(name)
    path = tmp_path / "p.plan"
    plan.save(path)
    data = plan.encode()
    for r in range(plan.nranks):
        for part in (relay.load(path, rank=r), relay.decode(data, rank=r), relay.load(path, rank=np.int64(r))):
            assert part.fingerprint == plan.fingerprint
            assert part.stats == plan.stats and part.nranks == plan.nranks
            assert part.info(rank=r) == plan.info(rank=r)
    for bad in (plan.nranks, -2, -1):
        with pytest.raises(relay.ArgumentError) as e:
            relay.load(path, rank=bad)
        assert e.value.message and e.value.status == "RELAY_ERR_ARG"
        with pytest.raises(relay.ArgumentError):
            relay.decode(data, rank=bad)


def test_section_of_a_transform_plan_cannot_be_written_or_pickled(tmp_path):
    plan = make("transform-optimal")
    path = tmp_path / "p.plan"
    plan.save(path)
    part = relay.load(path, rank=1)
    with pytest.raises(relay.ArgumentError):
        part.save(tmp_path / "q.plan")
    with pytest.raises(relay.ArgumentError):
        part.encode()
    with pytest.raises(relay.ArgumentError):
        pickle.dumps(part)
    with pytest.raises(relay.ArgumentError):
        part.info()
    assert sorted(os.listdir(tmp_path)) == ["p.plan"]


def test_failed_save_leaves_no_file(tmp_path):
    plan = make("transform-optimal")
    missing = tmp_path / "no" / "such" / "dir" / "p.plan"
    with pytest.raises(relay.PlanIOError) as e:
        plan.save(missing)
    assert isinstance(e.value, OSError) and e.value.status == "RELAY_ERR_IO" and e.value.message
    assert not missing.parent.exists()
    assert list(tmp_path.iterdir()) == []
    # a directory in the file's place: refused, and nothing left beside it
    (tmp_path / "d.plan").mkdir()
    with pytest.raises(relay.PlanIOError):
        plan.save(tmp_path / "d.plan")
    assert sorted(os.listdir(tmp_path)) == ["d.plan"] and not os.listdir(tmp_path / "d.plan")


def test_missing_and_unreadable_files(tmp_path):
    missing = tmp_path / "missing.plan"
    for call in (lambda: relay.load(missing), lambda: relay.file_nranks(missing), lambda: relay.load(missing, 0)):
        with pytest.raises(relay.PlanIOError) as e:
            call()
        assert isinstance(e.value, OSError) and "missing.plan" in e.value.message
    with pytest.raises(relay.PlanIOError):
        relay.load(tmp_path)  # a directory
    junk = tmp_path / "junk.plan"
    junk.write_bytes(b"not a plan at all" * 3)
    for call in (lambda: relay.load(junk), lambda: relay.file_nranks(junk)):
        with pytest.raises(relay.FormatError) as e:
            call()
        assert e.value.status in ("RELAY_ERR_FORMAT", "RELAY_ERR_VERSION") and e.value.message
    empty = tmp_path / "empty.plan"
    empty.write_bytes(b"")
    with pytest.raises(relay.FormatError):
        relay.load(empty)


def test_decode_refuses_what_is_not_a_buffer():
    with pytest.raises(TypeError):
        relay.decode("a string")
    with pytest.raises(relay.FormatError):
        relay.decode(b"")


# ---- tuning -------------------------------------------------------------------------

TUNING = Tuning((TuningChoice("p2p", True, False, 0.002), TuningChoice("p2p", False, False, 0.001),
                 TuningChoice("alltoallv", False, False, 0.003), TuningChoice("neighbor", False, False, 0.004)),
                1, (1, 2), 5)


def fresh():
    return relay.plan_transform(relay.block_cyclic(10, 7, 4, 4, 2, 1), relay.block_cyclic(10, 7, 3, 2, 2, 2),
                                schedule="p2p")


def test_tuning_round_trips(tmp_path):
    plan = fresh()
    fingerprint, data = plan.fingerprint, plan.encode()
    assert plan.tuning is None
    plan.tuning = TUNING
    assert plan.tuning == TUNING
    assert plan.fingerprint == fingerprint, "tuning leaves the fingerprint alone"
    assert plan.encode() != data
    path = tmp_path / "t.plan"
    plan.save(path)
    assert relay.load(path).tuning == TUNING
    assert relay.load(path, rank=3).tuning == TUNING
    assert relay.decode(plan.encode()).tuning == TUNING
    assert pickle.loads(pickle.dumps(plan)).tuning == TUNING
    info = plan.info()["tuning"]
    assert info["replays"] == 5 and (info["ranks_per_node_min"], info["ranks_per_node_max"]) == (1, 2)
    assert [(c["schedule"], c["packed"], c["seconds"]) for c in info["choices"]] == \
        [(c.schedule, c.packed, c.seconds) for c in TUNING.choices]
    plan.tuning = None
    assert plan.tuning is None and plan.encode() == data
    plan.tuning = Tuning((), 0, (1, 1), 1)  # no choices: no tuning
    assert plan.tuning is None


def test_tuning_of_a_rounds_plan_and_an_nd_plan():
    rounds = relay.plan_transform(relay.block_cyclic(10, 7, 4, 4, 2, 1), relay.block_cyclic(10, 7, 3, 2, 2, 2),
                                  schedule="rounds")
    t = Tuning((TuningChoice("rounds", False, False, 1.0), TuningChoice("p2p", True, False, 2.0)), 0, (4, 4), 3)
    rounds.tuning = t
    assert relay.decode(rounds.encode()).tuning == t
    predicted = Tuning(t.choices, 0, (2, 2), 1, "dragonfly-aries")  # as relay-plan --schedule predicted records
    rounds.tuning = predicted
    assert rounds.tuning == predicted and relay.decode(rounds.encode()).tuning == predicted
    assert rounds.info()["tuning"]["machine"] == "dragonfly-aries"
    a = relay.NDLayout((10, 9), (2, 2), [relay.Shard(0), relay.Replicate()])
    nd = relay.plan_nd(relay.NDLayout((10, 9), (4,), [relay.Replicate()]), a)
    t = Tuning((TuningChoice("p2p", False, False, 1.0), TuningChoice("p2p", False, True, 0.5)), 1, (1, 4), 3)
    nd.tuning = t
    assert nd.tuning == t and relay.decode(nd.encode()).tuning == t
    assert nd.info()["tuning"]["best_forward"] is True


@pytest.mark.parametrize("bad", [
    Tuning(TUNING.choices, 4, (1, 2), 5),                                   # best out of range
    Tuning(TUNING.choices, -1, (1, 2), 5),
    Tuning((TUNING.choices[0], TUNING.choices[0]), 0, (1, 2), 5),           # timed twice
    Tuning((TuningChoice("p2p", True, False, -1.0),), 0, (1, 2), 5),        # negative seconds
    Tuning((TuningChoice("p2p", True, False, float("nan")),), 0, (1, 2), 5),
    Tuning((TuningChoice("p2p", True, False, float("inf")),), 0, (1, 2), 5),
    Tuning((TuningChoice("rounds", False, False, 1.0),), 0, (1, 2), 5),     # not a rounds plan
    Tuning((TuningChoice("auto", False, False, 1.0),), 0, (1, 2), 5),
    Tuning((TuningChoice("p2p", False, True, 1.0),), 0, (1, 2), 5),         # forwards: N-D plans only
    Tuning((TuningChoice("p2p", False, False, 1.0),), 0, (1, 9), 5),        # more ranks per node than ranks
    Tuning((TuningChoice("p2p", False, False, 1.0),), 0, (3, 2), 5),
    Tuning((TuningChoice("p2p", False, False, 1.0),), 0, (0, 2), 5),
    Tuning((TuningChoice("xx", False, False, 1.0),), 0, (1, 2), 5),        # not a schedule
    Tuning((TuningChoice("p2p", False, False, 1.0),) * 9, 0, (1, 2), 5),   # more than 8 choices
    Tuning(TUNING.choices, 1, (1, 2), 1, "m" * 32),                         # a machine name past 31 bytes
    Tuning(TUNING.choices, 1, (1, 2), 1, "fat\x01tree"),                    # not printable
])
def test_tuning_refusals_leave_the_plan_unchanged(bad):
    plan = fresh()
    plan.tuning = TUNING
    data = plan.encode()
    with pytest.raises(relay.ArgumentError) as e:
        plan.tuning = bad
    assert e.value.message and e.value.status == "RELAY_ERR_ARG"
    assert plan.tuning == TUNING and plan.encode() == data


def test_tuning_refused_by_bmmc_and_hsumma_plans():
    for plan in (make("bmmc"), make("hsumma")):
        with pytest.raises(relay.ArgumentError):
            plan.tuning = TUNING
        assert plan.tuning is None
