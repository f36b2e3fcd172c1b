"""2-D transforms A := alpha op(B) + beta A replayed on random layouts of
every kind (block-cyclic and grid, every option), every op and dtype, and
checked against numpy; batches, per-rank planning, relabeling, memory caps,
schedules, NaN safety and sub-communicators."""

from __future__ import annotations

import os

import numpy as np
import pytest

import relay
from relay_mpi_support import (DTYPES, OPS, is_complex, numroc, plan_t, random_block_cyclic, random_grid,
                               random_layout_2d, run_transform, scalars)


def random_pair(rng, nranks, op, kinds=(None, None)):
    m, n = int(rng.integers(1, 30)), int(rng.integers(1, 30))
    dst, ddesc = random_layout_2d(rng, m, n, nranks, kinds[0])
    sm, sn = (m, n) if op == "N" else (n, m)
    src, sdesc = random_layout_2d(rng, sm, sn, nranks, kinds[1])
    return dst, src, f"dst {ddesc} src {sdesc}"


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_random_layouts_every_op(comm, chk, dtype):
    rng = np.random.default_rng(1000 + DTYPES.index(dtype))
    kinds = [("block_cyclic", "block_cyclic"), ("grid", "grid"), ("block_cyclic", "grid"), ("grid", "block_cyclic")]
    case = 0
    for op in OPS * 6:
        for kk in kinds:
            dst, src, desc = random_pair(rng, comm.size, op, kk)
            alpha, beta = scalars(dtype, case)
            if case % 4 == 3:
                alpha, beta = None, None
            plan = plan_t(comm, dst, src, op=op, dtype=dtype)
            chk.check(plan.dtype == np.dtype(dtype) and plan.kind == "transform" and plan.nranks == comm.size,
                      f"plan facts {plan}")
            run_transform(comm, chk, plan, [dst], [src], [op], dtype, alpha=alpha, beta=beta, seed=case,
                          what=f"case {case} op {op} {desc}", mode="run" if case % 2 else "split",
                          locate_samples=6 if case < 4 else 0)
            case += 1


def test_block_cyclic_every_option(comm, chk):
    """Sweeps the block-cyclic parameters one by one against one fixed source."""
    size = comm.size
    m, n = 23, 17
    src = relay.block_cyclic(n, m, 3, 4, size, 1)
    grids = sorted({(r, c) for r in range(1, size + 1) for c in range(1, size // r + 1)})
    case = 0
    for (nprow, npcol) in grids:
        for mb, nb in [(1, 1), (5, 2), (23, 17), (7, 40)]:
            for grid_order in "RC":
                order = "FC"[case % 2]
                rsrc, csrc = case % nprow, (case // 2) % npcol
                lld = 0 if case % 3 else 40
                dst = relay.block_cyclic(m, n, mb, nb, nprow, npcol, grid_order=grid_order, rsrc=rsrc, csrc=csrc,
                                         lld=lld, order=order)
                plan = plan_t(comm, dst, src, op="T")
                run_transform(comm, chk, plan, [dst], [src], ["T"], np.float64, alpha=2.0, beta=-1.0, seed=case,
                              what=f"bc {nprow}x{npcol} {mb}x{nb} {grid_order} src ({rsrc},{csrc}) lld {lld} {order}")
                case += 1


def test_block_cyclic_matches_scalapack_formula(comm, chk):
    """global_indices of a block-cyclic layout agrees with ScaLAPACK's mapping
    (docs/api.md), computed here for every element."""
    rng = np.random.default_rng(7)
    for case in range(6):
        m, n = int(rng.integers(1, 25)), int(rng.integers(1, 25))
        lay, d = random_block_cyclic(rng, m, n, comm.size)
        i, j = np.meshgrid(np.arange(m), np.arange(n), indexing="ij")
        pr = (d["rsrc"] + i // d["mb"]) % d["nprow"]
        pc = (d["csrc"] + j // d["nb"]) % d["npcol"]
        owner = pr * d["npcol"] + pc if d["grid_order"] == "R" else pc * d["nprow"] + pr
        lr = (i // (d["mb"] * d["nprow"])) * d["mb"] + i % d["mb"]
        lc = (j // (d["nb"] * d["npcol"])) * d["nb"] + j % d["nb"]
        with chk.local(f"case {case} {d}"):
            rows, cols = lay.global_indices(comm.rank)
            mine = owner == comm.rank
            nprow, npcol, r = d["nprow"], d["npcol"], comm.rank
            pr, pc = (r // npcol, r % npcol) if d["grid_order"] == "R" else (r % nprow, r // nprow)
            if d["order"] == "F":
                lld = d["lld"] or max(1, numroc(m, d["mb"], pr, d["rsrc"], nprow))
                pos = lr + lc * lld
            else:
                lld = d["lld"] or max(1, numroc(n, d["nb"], pc, d["csrc"], npcol))
                pos = lr * lld + lc
            chk.check(np.array_equal(rows[pos[mine]], i[mine]) and np.array_equal(cols[pos[mine]], j[mine]),
                      f"case {case} {d}: global_indices disagree with ScaLAPACK's mapping")
            chk.check(int((rows >= 0).sum()) == int(mine.sum()), f"case {case}: {int((rows >= 0).sum())} held, "
                      f"expected {int(mine.sum())}")
    chk.agree()


@pytest.mark.parametrize("dtype", [np.float64, np.complex64], ids=lambda d: np.dtype(d).name)
def test_beta_zero_nan_never_leaks(comm, chk, dtype):
    rng = np.random.default_rng(31)
    for case, op in enumerate(OPS * 2):
        dst, src, desc = random_pair(rng, comm.size, op)
        plan = plan_t(comm, dst, src, op=op, dtype=dtype)
        alpha = scalars(dtype, case)[0]
        for beta in (None, 0.0, 0j if is_complex(dtype) else 0):
            run_transform(comm, chk, plan, [dst], [src], [op], dtype, alpha=alpha, beta=beta, seed=case,
                          nan_dst=True, what=f"NaN case {case} beta {beta!r} {desc}")


@pytest.mark.parametrize("dtype", [np.float32, np.complex128], ids=lambda d: np.dtype(d).name)
def test_batches(comm, chk, dtype):
    rng = np.random.default_rng(41)
    for case in range(4):
        count = 2 + case
        ops = [OPS[int(rng.integers(3))] for _ in range(count)]
        pairs = [random_pair(rng, comm.size, op) for op in ops]
        dsts, srcs = [p[0] for p in pairs], [p[1] for p in pairs]
        plan = plan_t(comm, dsts, srcs, op=ops, dtype=dtype)
        chk.check(plan.count == count, f"batch count {plan.count}, expected {count}")
        alpha, beta = scalars(dtype, case)
        run_transform(comm, chk, plan, dsts, srcs, ops, dtype, alpha=alpha, beta=beta, seed=10 * case,
                      what=f"batch {case} ops {ops}", mode="split" if case == 1 else "run")


def test_per_rank_planning(comm, chk):
    """Each rank plans its own section (rank=comm.rank): same fingerprint as
    the whole plan, and the replay is right."""
    rng = np.random.default_rng(51)
    for case, op in enumerate(["N", "T", "C"]):
        dst, src, desc = random_pair(rng, comm.size, op)
        whole = plan_t(comm, dst, src, op=op, dtype=np.complex128, relabel="greedy" if case == 2 else "none")
        mine = plan_t(comm, dst, src, op=op, dtype=np.complex128, rank=comm.rank,
                                    relabel="greedy" if case == 2 else "none")
        chk.check(mine.fingerprint == whole.fingerprint, f"case {case}: per-rank fingerprint {mine.fingerprint:x} "
                  f"differs from the whole plan's {whole.fingerprint:x}")
        chk.check(mine.relabeling == whole.relabeling, "per-rank relabeling differs")
        if comm.size > 1:  # at one rank, rank 0's section is the whole plan
            chk.raises(relay.ArgumentError, mine.encode, what="encoding a one-section plan")
        alpha, beta = scalars(np.complex128, case)
        run_transform(comm, chk, mine, [whole.dst_layout()], [src], [op], np.complex128, alpha=alpha, beta=beta,
                      seed=case, what=f"per-rank case {case} {desc}")


@pytest.mark.parametrize("relabel", ["optimal", "greedy"])
def test_relabeling(comm, chk, relabel):
    rng = np.random.default_rng(61)
    size = comm.size
    for case in range(4):
        op = OPS[case % 3]
        m, n = int(rng.integers(4, 30)), int(rng.integers(4, 30))
        src, _ = random_block_cyclic(rng, *((m, n) if op == "N" else (n, m)), size)
        # a destination that is the source's distribution with ranks shuffled: relabeling should undo it
        dst, _ = random_grid(rng, m, n, size)
        plan = plan_t(comm, dst, src, op=op, dtype=np.float64, relabel=relabel)
        sigma = plan.relabeling
        new = plan.dst_layout()
        with chk.local(f"{relabel} case {case}: relabeling facts"):
            chk.check(sorted(sigma) == list(range(size)), f"sigma {sigma} is not a permutation")
            st = plan.stats
            chk.check(st["bytes_remote"] <= st["bytes_remote_identity"] or relabel == "greedy",
                      f"optimal relabeling moves more ({st['bytes_remote']}) than none ({st['bytes_remote_identity']})")
            ident = plan_t(comm, dst, src, op=op, dtype=np.float64)
            chk.check(st["bytes_remote_identity"] == ident.stats["bytes_remote"], "bytes_remote_identity differs from "
                      "the unrelabeled plan's bytes_remote")
            for (i, j) in [(0, 0), (m - 1, n - 1), (m // 2, n // 3)]:
                r, idx = dst.locate(i, j)
                r2, idx2 = new.locate(i, j)
                chk.check((r2, idx2) == (sigma[r], idx), f"({i},{j}): relabeled layout puts it at {(r2, idx2)}, "
                          f"expected sigma[{r}] = {sigma[r]} at {idx}")
            chk.check(plan.dst_elems(comm.rank) == new.local_elems(comm.rank), "dst_elems != dst_layout's")
        run_transform(comm, chk, plan, [new], [src], [op], np.float64, alpha=1.5, beta=0.5, seed=case,
                      what=f"{relabel} case {case}")


def test_relabeling_undoes_a_rank_shuffle(comm, chk):
    """A destination that differs from the source only by a permutation of
    ranks: optimal relabeling moves nothing between ranks, and the data
    still lands right."""
    size = comm.size
    perm = [int(x) for x in np.random.default_rng(3).permutation(size)]
    rs, cs = [0, 5, 11, 20], [0, 3, 9]
    owners = np.arange(9).reshape(3, 3)[:, :2] % size
    src = relay.grid(size, rs, cs, owners)
    dst = relay.grid(size, rs, cs, np.asarray(perm)[owners])
    plan = plan_t(comm, dst, src, relabel="optimal")
    chk.check(plan.stats["bytes_remote"] == 0, f"optimal relabeling leaves {plan.stats['bytes_remote']} remote bytes")
    run_transform(comm, chk, plan, [plan.dst_layout()], [src], ["N"], np.float64, seed=5, what="shuffle")


@pytest.mark.parametrize("cap", [64, 200, 1000, 4096])
def test_memory_capped_plans(comm, chk, cap):
    rng = np.random.default_rng(71 + cap)
    for case, op in enumerate(OPS):
        m, n = int(rng.integers(10, 40)), int(rng.integers(10, 40))
        dst, _ = random_block_cyclic(rng, m, n, comm.size)
        src, _ = random_grid(rng, *((m, n) if op == "N" else (n, m)), comm.size)
        dtype = DTYPES[(case + cap) % 4]
        plan = plan_t(comm, dst, src, op=op, dtype=dtype, max_buffer_bytes=cap)
        chk.check(plan.max_buffer_bytes == cap, f"cap {cap}: plan.max_buffer_bytes {plan.max_buffer_bytes}")
        chk.check(plan.schedule == "rounds", f"capped plan's schedule is {plan.schedule}")
        alpha, beta = scalars(dtype, case)
        run_transform(comm, chk, plan, [dst], [src], [op], dtype, alpha=alpha, beta=beta, seed=case,
                      mode="split" if case % 2 else "run", what=f"cap {cap} case {case} {np.dtype(dtype).name}")
    chk.raises(relay.ArgumentError, relay.plan_transform, dst, src, op=op, schedule="p2p", max_buffer_bytes=cap,
               what="p2p with a cap")
    chk.agree()


@pytest.mark.parametrize("schedule", ["auto", "p2p", "rounds", "alltoallv", "neighbor"])
def test_schedules(comm, chk, schedule):
    rng = np.random.default_rng(81)
    for case, op in enumerate(OPS):
        dst, src, desc = random_pair(rng, comm.size, op)
        plan = plan_t(comm, dst, src, op=op, dtype=np.complex64, schedule=schedule)
        want = schedule if schedule != "auto" else plan.schedule
        chk.check(plan.schedule == want and plan.schedule != "auto", f"plan schedule {plan.schedule}, asked {schedule}")
        if schedule != "rounds":
            chk.check(plan.rounds == 1, f"{schedule}: {plan.rounds} rounds")
        else:
            chk.check(plan.rounds >= 1, f"rounds: {plan.rounds}")
        with relay.Executor(plan, comm) as ex:
            s, packed = ex.schedule
            chk.check(s == plan.schedule, f"executor replays {s}, the plan says {plan.schedule}")
            for rep in range(2):
                run_transform(comm, chk, plan, [dst], [src], [op], np.complex64, alpha=scalars(np.complex64, rep)[0],
                              seed=case * 5 + rep, executor=ex, mode=("run", "split")[rep],
                              what=f"{schedule} case {case} replay {rep}")


def test_sub_communicators(comm, chk):
    """Executors on communicators other than COMM_WORLD: halves of the job,
    each replaying its own plan, then a reversed-rank duplicate."""
    color = comm.rank % 2
    sub = comm.Split(color, comm.rank)
    try:
        rng = np.random.default_rng(91 + color)  # different plans on the two halves
        dst, src, desc = random_pair(rng, sub.size, "T")
        plan = plan_t(sub, dst, src, op="T")
        run_transform(sub, chk, plan, [dst], [src], ["T"], np.float64, alpha=3.0, seed=color, what=f"half {color}")
    finally:
        sub.Free()
    chk.agree()
    rev = comm.Split(0, comm.size - comm.rank)
    try:
        rng = np.random.default_rng(95)
        dst, src, desc = random_pair(rng, rev.size, "C")
        plan = plan_t(rev, dst, src, op="C", dtype=np.complex128)
        run_transform(rev, chk, plan, [dst], [src], ["C"], np.complex128, alpha=1j, beta=2.0, seed=9,
                      what="reversed ranks")
    finally:
        rev.Free()
    chk.agree()


def test_default_communicator_and_none_buffers(comm, chk):
    """Executor(plan) binds COMM_WORLD; a rank that holds nothing of a side
    passes None for it."""
    size = comm.size
    # A lives on rank size-1 only, B on rank 0 only
    dst = relay.grid(size, [0, 6], [0, 5], [[size - 1]])
    src = relay.grid(size, [0, 5], [0, 6], [[0]], order="C")
    plan = plan_t(comm, dst, src, op="T")
    ex = relay.Executor(plan)
    try:
        run_transform(comm, chk, plan, [dst], [src], ["T"], np.float64, alpha=-1.0, beta=0.5, seed=3, executor=ex,
                      none_for_empty=True, what="None where nothing is held")
    finally:
        ex.close()


def test_large_arrays(comm, chk):
    """Messages past OpenMP's threshold and pieces of many runs: a 300 x 260
    complex transpose between block-cyclic layouts of odd blocks."""
    size = comm.size
    dst = relay.block_cyclic(300, 260, 17, 9, size, 1, order="C")
    src = relay.block_cyclic(260, 300, 5, 31, 1, size)
    for op, dtype in [("C", np.complex128), ("T", np.float32)]:
        plan = plan_t(comm, dst, src, op=op, dtype=dtype)
        run_transform(comm, chk, plan, [dst], [src], [op], dtype, alpha=scalars(dtype)[0], beta=scalars(dtype)[1],
                      seed=1, what=f"large {op} {np.dtype(dtype).name}")


def test_numpy_scalars(comm, chk):
    rng = np.random.default_rng(99)
    dst, src, desc = random_pair(rng, comm.size, "C")
    for dtype, alpha, beta in [(np.complex64, np.complex64(1 - 2j), np.float64(0.5)),
                               (np.float32, np.float32(-1.5), np.int64(2)),
                               (np.complex128, 3, 1.0)]:
        plan = plan_t(comm, dst, src, op="C", dtype=dtype)
        run_transform(comm, chk, plan, [dst], [src], ["C"], dtype, alpha=alpha, beta=beta, seed=2,
                      what=f"numpy scalars {alpha!r} {beta!r}")


@pytest.mark.parametrize("pull", ["on", "all"])
def test_reading_the_peers_source(comm, chk, pull, monkeypatch):
    """RELAY_PULL (read at binding): replays that may read the peer's B
    directly, or fall back to MPI where the machine refuses; right either way."""
    monkeypatch.setenv("RELAY_PULL", pull)
    size = comm.size
    dst = relay.block_cyclic(64, 48, 64, 8, 1, size, order="F")       # column slabs
    src = relay.block_cyclic(48, 64, 48, 8, 1, size, order="F")       # transposed runs of 48 x 8 bytes
    for op in ("T", "N"):
        s = src if op == "T" else relay.block_cyclic(64, 48, 16, 48, size, 1)
        plan = plan_t(comm, dst, s, op=op, schedule="p2p")
        with relay.Executor(plan, comm) as ex:
            for rep in range(2):
                run_transform(comm, chk, plan, [dst], [s], [op], np.float64, alpha=2.0, beta=-1.0, seed=rep,
                              executor=ex, mode=("run", "split")[rep], what=f"RELAY_PULL={pull} op {op} replay {rep}")
    monkeypatch.setenv("RELAY_PULL", "sometimes")
    chk.raises(relay.ArgumentError, relay.Executor, plan, comm, words=["RELAY_PULL"], what="RELAY_PULL=sometimes")
    chk.agree()


def test_executor_dropped_without_close(comm, chk):
    """An executor dropped on every rank at the same point is freed with it;
    the next one works."""
    rng = np.random.default_rng(98)
    dst, src, desc = random_pair(rng, comm.size, "N")
    plan = plan_t(comm, dst, src)
    ex = relay.Executor(plan, comm)
    run_transform(comm, chk, plan, [dst], [src], ["N"], np.float64, executor=ex, what="before dropping")
    del ex
    run_transform(comm, chk, plan, [dst], [src], ["N"], np.float64, seed=1, what="after dropping")


LEFT_OPEN = []


def test_executor_left_open_at_exit(comm, chk):
    """An executor never closed: relay closes it at exit, before mpi4py
    finalizes MPI (a failure there fails the whole job's exit status)."""
    rng = np.random.default_rng(97)
    dst, src, desc = random_pair(rng, comm.size, "T")
    plan = plan_t(comm, dst, src, op="T")
    ex = relay.Executor(plan, comm)
    ex.start(*(np.zeros(plan.dst_elems(comm.rank)), np.zeros(plan.src_elems(comm.rank))))
    ex.wait()
    LEFT_OPEN.append(ex)
    other = plan_t(comm, dst, src, op="T", schedule="alltoallv", dtype=np.complex64)
    ex2 = relay.Executor(other, comm)
    ex2.start(np.zeros(other.dst_elems(comm.rank), np.complex64), np.zeros(other.src_elems(comm.rank), np.complex64))
    LEFT_OPEN.append(ex2)  # closed at exit with its replay in flight
    # executors through a shared-memory window: freeing one waits for the
    # node's other ranks, so at exit they must close in the same order on
    # every rank (in the order they were made)
    before = os.environ.get("RELAY_SHM")
    os.environ["RELAY_SHM"] = "on"
    try:
        for k in range(6):
            p2p = plan_t(comm, dst, src, op="T", schedule="p2p", dtype=np.float32 if k % 2 else np.float64)
            LEFT_OPEN.append(relay.Executor(p2p, comm))
    finally:
        if before is None:
            del os.environ["RELAY_SHM"]
        else:
            os.environ["RELAY_SHM"] = before
    chk.agree()
