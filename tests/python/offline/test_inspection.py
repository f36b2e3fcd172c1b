"""Plan.info() is `relay-dump FILE --json` (whole plan, --rank R, --limit N)
for every plan kind; volumes() and heatmap() against volumes counted here."""


import numpy as np
import pytest

import relay
from conftest import BlockCyclicRef


def plans():
    src = relay.block_cyclic(10, 7, 3, 2, 2, 2)
    dst = relay.block_cyclic(10, 7, 4, 4, 2, 1)
    a = relay.NDLayout((10, 9), (2, 2), [relay.Shard(0), relay.Replicate()])
    b = relay.NDLayout((9, 10), (4,), [relay.Shard(1, block=3)], ranks=[3, 1, 0, 2], order="F")
    tuned = relay.plan_transform(dst, src, schedule="p2p", dtype=np.complex64)
    tuned.tuning = relay.Tuning((relay.TuningChoice("p2p", True, False, 2e-3),
                                 relay.TuningChoice("p2p", False, False, 1e-3)), 1, (1, 2), 7)
    return {
        "transform": relay.plan_transform(dst, src),
        "transform-T-greedy": relay.plan_transform(dst, relay.block_cyclic(7, 10, 2, 2, 2, 2), op="T",
                                                   relabel="greedy", dtype=np.float32),
        "transform-rounds": relay.plan_transform(dst, src, schedule="rounds"),
        "transform-cap": relay.plan_transform(dst, src, max_buffer_bytes=100),
        "transform-batch": relay.plan_transform([dst, src], [src, dst], op=["N", "N"]),
        "transform-tuned": tuned,
        "bmmc": relay.plan_bmmc(relay.BMMC.bit_reversal(6), 2, 4),
        "bmmc-minor": relay.plan_bmmc(relay.BMMC.gray_code(7), 3, 0, np.complex64),
        "hsumma": relay.plan_hsumma(20, 12, 16, (2, 2), groups=(1, 2), inner_block=4, outer_block=8),
        "hsumma-model": relay.plan_hsumma(64, 64, 64, (2, 4), network=relay.Network(1e-5, 1e-9, "binomial"),
                                          dist="block_cyclic", dist_block=8),
        "nd": relay.plan_nd(b, a, op="T", replicas="direct"),
        "nd-forward": relay.plan_nd(relay.NDLayout((10, 9), (4,), [relay.Replicate()]), a, replicas="forward",
                                    dtype=np.complex128),
    }


class _Plans(dict):
    """The plans above, built on first use (a failure fails the tests that use it, not the collection)."""

    def __missing__(self, name):
        self.update(plans())
        return dict.__getitem__(self, name)


PLANS = _Plans()
NAMES = ["bmmc", "bmmc-minor", "hsumma", "hsumma-model", "nd", "nd-forward", "transform", "transform-T-greedy",
         "transform-batch", "transform-cap", "transform-rounds", "transform-tuned"]


@pytest.mark.parametrize("name", NAMES)
def test_info_is_relay_dump_json(name, tmp_path, dump_json):
    plan = PLANS[name]
    path = tmp_path / f"{name}.plan"
    plan.save(path)
    info = plan.info()
    assert info == dump_json(path)
    assert info["kind"] == plan.kind
    assert info["ranks"] == plan.nranks
    assert int(info["fingerprint"], 16) == plan.fingerprint
    assert info["bytes_total"] == plan.stats["bytes_total"]
    assert info["bytes_remote"] == plan.stats["bytes_remote"]
    assert info["messages"] == plan.stats["messages"]
    assert info["sigma"] == list(plan.relabeling)
    if plan.kind != "hsumma":
        assert info["schedule"] == plan.schedule
    for r in range(plan.nranks):
        assert plan.info(rank=r) == dump_json(path, "--rank", r), f"rank {r}"
    # the plan as the file holds it, and as one rank loads it, say the same
    assert relay.load(path).info() == info
    last = plan.nranks - 1
    assert relay.load(path, rank=last).info(rank=last) == plan.info(rank=last)


@pytest.mark.parametrize("name", ["transform", "bmmc-minor", "hsumma", "nd"])
@pytest.mark.parametrize("limit", [0, 1, 3])
def test_info_limit(name, limit, tmp_path, dump_json):
    plan = PLANS[name]
    path = tmp_path / "p.plan"
    plan.save(path)
    info = plan.info(limit=limit)
    assert info == dump_json(path, "--limit", limit)
    shown = plan.nranks if limit == 0 else min(limit, plan.nranks)
    assert len(info["per_rank"]) == shown
    assert info["per_rank_left_out"] == plan.nranks - shown
    assert [row["rank"] for row in info["per_rank"]] == list(range(shown))
    assert len(info["sigma"]) == shown and info["sigma_left_out"] == plan.nranks - shown
    assert plan.info(rank=0, limit=limit) == dump_json(path, "--rank", 0, "--limit", limit)


def test_info_defaults_to_limit_4096():
    plan = relay.plan_transform(relay.block_cyclic(1, 4100, 1, 1, 1, 4100), relay.block_cyclic(1, 4100, 1, 2, 1, 4100))
    info = plan.info()
    assert len(info["per_rank"]) == 4096 and info["per_rank_left_out"] == 4
    assert len(plan.info(limit=0)["per_rank"]) == 4100


def test_tuning_in_info():
    info = PLANS["transform-tuned"].info()
    assert info["tuning"]["best"] == "p2p" and info["tuning"]["best_packed"] is False
    assert info["tuning"]["replays"] == 7
    assert [c["seconds"] for c in info["tuning"]["choices"]] == [2e-3, 1e-3]
    assert "tuning" not in PLANS["transform"].info()


# ---- volumes and the heat map ---------------------------------------------------------

@pytest.mark.parametrize("name", [n for n in NAMES if n.startswith("transform")])
def test_volumes_sum_to_the_statistics(name):
    plan = PLANS[name]
    matrix, bins = plan.volumes()
    assert bins == 1 and matrix.shape == (plan.nranks, plan.nranks) and matrix.dtype == np.float64
    stats = plan.stats
    assert matrix.sum() == stats["bytes_total"]
    assert matrix.sum() - np.trace(matrix) == stats["bytes_remote"]
    assert np.count_nonzero(matrix - np.diag(np.diag(matrix))) == stats["messages"]
    per_rank = plan.info(limit=0)["per_rank"]
    off = matrix - np.diag(np.diag(matrix))
    assert [r["send_bytes"] for r in per_rank] == off.sum(axis=1).tolist()
    assert [r["recv_bytes"] for r in per_rank] == off.sum(axis=0).tolist()
    assert [r["local_bytes"] for r in per_rank] == np.diag(matrix).tolist()


def test_volumes_bin_ranks_above_256():
    n = 600
    dst_ref = BlockCyclicRef(4, n, 1, 1, 1, 300)
    src_ref = BlockCyclicRef(4, n, 1, 2, 1, 300)
    plan = relay.plan_transform(relay.block_cyclic(4, n, 1, 1, 1, 300), relay.block_cyclic(4, n, 1, 2, 1, 300))
    matrix, bins = plan.volumes()
    assert bins == 2 and matrix.shape == (150, 150)
    want = np.zeros((150, 150))
    d, s = dst_ref.owners(), src_ref.owners()
    np.add.at(want, (s.ravel() // 2, d.ravel() // 2), 8)
    np.testing.assert_array_equal(matrix, want)
    assert plan.stats["bytes_total"] == matrix.sum()


def test_volumes_of_other_kinds_are_refused():
    for name in ("bmmc", "hsumma", "nd"):
        with pytest.raises(relay.ArgumentError) as e:
            PLANS[name].volumes()
        assert e.value.message


def test_heatmap_draws_with_matplotlib():
    import matplotlib
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    assert matplotlib.get_backend().lower() == "agg"
    plan = PLANS["transform"]
    ax = plan.heatmap()
    try:
        assert isinstance(ax, Axes)
        assert ax.get_xlabel().startswith("receiver") and ax.get_ylabel().startswith("sender")
        assert str(plan.stats["bytes_remote"]) in ax.get_title()
        image = ax.get_images()[0]
        data = image.get_array()
        matrix = plan.volumes()[0]
        np.testing.assert_array_equal(np.ma.getdata(data)[~np.ma.getmaskarray(data)], matrix[matrix > 0])
        assert np.ma.getmaskarray(data).sum() == (matrix <= 0).sum()
        ax.figure.canvas.draw()
    finally:
        plt.close(ax.figure)
    fig, given = plt.subplots()
    try:
        assert plan.heatmap(ax=given, title="mine") is given
        assert given.get_title() == "mine"
        fig.canvas.draw()
    finally:
        plt.close(fig)


def test_heatmap_of_a_plan_that_moves_nothing():
    import matplotlib.pyplot as plt

    empty = relay.block_cyclic(0, 0, 1, 1, 1, 2)
    plan = relay.plan_transform(empty, empty)
    assert plan.volumes()[0].sum() == 0
    ax = plan.heatmap()
    ax.figure.canvas.draw()
    plt.close(ax.figure)
    binned = relay.plan_transform(relay.block_cyclic(4, 600, 1, 1, 1, 300), relay.block_cyclic(4, 600, 1, 2, 1, 300))
    ax = binned.heatmap()
    assert "x 2 ranks" in ax.get_xlabel()
    ax.figure.canvas.draw()
    plt.close(ax.figure)


def test_heatmap_of_other_kinds_is_refused():
    with pytest.raises(relay.ArgumentError):
        PLANS["bmmc"].heatmap()


def test_info_of_huge_plans_is_bounded_by_limit():
    # 2^24 ranks in a few hundred bytes: info lists --limit entries, never all ranks
    plan = relay.plan_bmmc(relay.BMMC.bit_reversal(60), 24, 36, np.int8)
    assert plan.nranks == 1 << 24
    info = plan.info(limit=16)
    assert len(info["per_rank"]) == 16 and info["per_rank_left_out"] == (1 << 24) - 16
    assert info["bytes_total"] == 1 << 60
    partners = plan.info(rank=(1 << 24) - 1, limit=8)
    assert len(partners["partners"]) == 8 and partners["partners_left_out"] == (1 << info["bmmc"]["rank"]) - 8
    h = relay.plan_hsumma(2 ** 20, 2 ** 20, 2 ** 20, (1024, 1024), groups=(32, 32), inner_block=2 ** 10,
                          outer_block=2 ** 12)
    info = h.info(limit=5)
    assert [r["rank"] for r in info["per_rank"]] == list(range(5)) and info["per_rank_left_out"] == 1024 * 1024 - 5
    assert h.info(rank=12345)["rank"] == 12345
