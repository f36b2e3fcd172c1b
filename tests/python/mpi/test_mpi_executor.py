"""The Executor: split-phase replays, closing, timings, memory, tuning,
plans that travel (comm.bcast, files saved by rank 0 and loaded per rank),
and every refusal: mismatched plans and rank counts (MismatchError on every
rank), bad buffers (BufferMismatch naming what was expected and given),
misuse; and the GIL released while a replay waits."""

from __future__ import annotations

import gc
import os
import pickle
import shutil
import tempfile
import threading
import time
import weakref

import numpy as np
import pytest

import relay
from relay_mpi_support import (check_2d, collective_skip, global_array, local_2d, numroc, plan_t, random_layout_2d,
                               random_nd, run_transform, scalars, tol)
from scalapack_reference import indxg2p


def fixed_pair(comm, seed=0, op="T"):
    rng = np.random.default_rng(5000 + seed)
    m, n = int(rng.integers(8, 30)), int(rng.integers(8, 30))
    dst, _ = random_layout_2d(rng, m, n, comm.size)
    src, _ = random_layout_2d(rng, *((m, n) if op == "N" else (n, m)), comm.size)
    return dst, src


def buffers(comm, dst, src, dtype, seed=0):
    B = global_array(src.shape, dtype, seed)
    A = global_array(dst.shape, dtype, seed + 1)
    return local_2d(dst, comm.rank, A, dtype), local_2d(src, comm.rank, B, dtype), A, B


# ---- split phase, closing --------------------------------------------------------------


def test_split_phase_and_misuse(comm, chk):
    dst, src = fixed_pair(comm, 1)
    dtype = np.complex128
    plan = plan_t(comm, dst, src, op="C", dtype=dtype)
    alpha, beta = scalars(dtype, 0)
    a, b, A, B = buffers(comm, dst, src, dtype)
    with relay.Executor(plan, comm) as ex:
        chk.check(not ex.in_flight, "in flight before any start")
        chk.raises(relay.ArgumentError, ex.wait, what="wait without start")
        ex.start(a, b, alpha, beta)
        chk.check(ex.in_flight, "not in flight after start")
        chk.raises(relay.ArgumentError, ex.start, a, b, alpha, beta, words=["in flight"], what="start twice")
        chk.raises(relay.ArgumentError, ex.run, a, b, what="run while in flight")
        chk.raises(relay.ArgumentError, ex.time, True, what="timing while in flight")
        chk.check(ex.in_flight, "a refused second start ended the replay in flight")
        local_work = sum(range(1000))  # the caller's work between start and wait
        ex.wait()
        chk.check(not ex.in_flight and local_work, "in flight after wait")
        chk.raises(relay.ArgumentError, ex.wait, what="wait twice")
    with chk.local("split-phase result"):
        want = alpha * np.conj(B.T) + beta * A
        check_2d(chk, dst, comm.rank, a, want, "split phase", **tol(dtype))
    chk.agree()


def test_executor_holds_buffers_until_wait(comm, chk):
    """Between start and wait the executor keeps the buffer objects alive
    (views passed and dropped by the caller); after wait it lets them go."""
    dst, src = fixed_pair(comm, 2, "N")
    plan = plan_t(comm, dst, src)
    ex = relay.Executor(plan, comm)
    a, b, A, B = buffers(comm, dst, src, np.float64)
    views = [a[:], b[:]]                 # the objects relay holds: views of arrays kept here
    refs = [weakref.ref(v) for v in views]
    ex.start(views[0], views[1])
    del views
    gc.collect()
    chk.check(all(r() is not None for r in refs), "the buffers of a replay in flight were freed before wait")
    ex.wait()
    gc.collect()
    chk.check(all(r() is None for r in refs), "the executor still holds the buffers after wait")
    ex.close()
    with chk.local("held buffers"):
        check_2d(chk, dst, comm.rank, a, B, "held buffers' replay")
    chk.agree()


def test_close(comm, chk):
    dst, src = fixed_pair(comm, 3)
    plan = plan_t(comm, dst, src, op="T", dtype=np.float32)
    a, b, A, B = buffers(comm, dst, src, np.float32)
    ex = relay.Executor(plan, comm)
    ex.start(a, b, 2.0)
    ex.close()                     # completes the replay in flight (collective)
    with chk.local("closing in flight"):
        check_2d(chk, dst, comm.rank, a, 2 * B.T, "replay completed by close", **tol(np.float32))
    ex.close()                     # idempotent
    for name, call in [("run", lambda: ex.run(a, b)), ("start", lambda: ex.start(a, b)), ("wait", ex.wait),
                       ("in_flight", lambda: ex.in_flight), ("memory", lambda: ex.memory),
                       ("timings", ex.timings), ("schedule", lambda: ex.schedule)]:
        chk.raises(relay.Error, call, words=["closed"], what=f"{name} after close")
    with relay.Executor(plan, comm) as ex2:
        pass
    chk.raises(relay.Error, ex2.run, a, b, what="run after the with block")
    chk.agree()


# ---- refusals -----------------------------------------------------------------------------


def test_buffer_mismatch(comm, chk):
    size = comm.size
    lay = relay.block_cyclic(8, 8, 2, 2, 1, size)  # every rank holds columns
    plan = plan_t(comm, lay, lay, op="N")
    n = lay.local_elems(comm.rank)
    good_a, good_b = np.zeros(n), np.arange(n, dtype=np.float64)
    with relay.Executor(plan, comm) as ex:
        chk.check(ex.dst_elems == (n,) and ex.src_elems == (n,), f"executor sizes {ex.dst_elems} {ex.src_elems}")
        cases = [
            ("wrong dtype", np.zeros(n, np.float32), good_b, ["dst", "expected", "got", str(n), "float64", "float32"]),
            ("wrong src dtype", good_a, np.zeros(n, np.complex128), ["src", "expected", "got", "float64", "complex128"]),
            ("too small dst", np.zeros(n - 1), good_b, ["dst", "too small", "expected", "got", str(n), str(n - 1)]),
            ("too small src", good_a, np.zeros(n - 1), ["src", "too small", str(n), str(n - 1)]),
            ("read-only dst", np.zeros(n), good_b, ["dst", "read-only", "expected", "got"]),
            ("non-contiguous dst", np.zeros(2 * n)[::2], good_b, ["dst", "of another shape or order", "expected", "got"]),
            ("non-contiguous src", good_a, np.zeros((n, 2))[:, 0], ["src", "of another shape or order"]),
            ("None dst", None, good_b, ["dst", "None", str(n)]),
            ("list dst", [0.0] * n, good_b, ["dst", "buffer"]),
            ("list of one float as dst", [0.0], good_b, ["dst", "buffer protocol", "float"]),
            ("int64 dst", np.zeros(n, np.int64), good_b, ["dst", "expected", "float64"]),
        ]
        cases[4][1].setflags(write=False)
        overlap = np.zeros(2 * n - 1)
        cases.append(("overlapping dst and src", overlap[:n], overlap[n - 1:], ["overlap", "dst", "src"]))
        for what, a, b, words in cases:
            e = chk.raises(relay.BufferMismatch, ex.run, a, b, words=words, what=what)
            if e is not None:
                chk.check(isinstance(e, TypeError) and isinstance(e, ValueError) and isinstance(e, relay.Error),
                          f"{what}: BufferMismatch is not a TypeError, ValueError and relay.Error")
            chk.raises(relay.BufferMismatch, ex.start, a, b, what=f"{what} (start)")
            chk.check(not ex.in_flight, f"{what}: a refused start left a replay in flight")
        chk.raises(relay.ArgumentError, ex.run, good_a, good_b, 1j, what="complex alpha for a real plan")
        chk.raises(relay.ArgumentError, ex.run, good_a, good_b, None, "x", what="beta that is no number")
        # the executor is still usable, and a read-only source is fine
        ro = good_b.copy()
        ro.setflags(write=False)
        ex.run(good_a, ro, -1.0)
        chk.check(np.array_equal(good_a, -good_b), "replay after refusals")
    # a batch wants one buffer per pair
    batch = plan_t(comm, [lay, lay], [lay, lay])
    with relay.Executor(batch, comm) as ex:
        chk.raises(relay.BufferMismatch, ex.run, good_a, [good_b, good_b], words=["dst", "2"], what="one dst for 2")
        chk.raises(relay.BufferMismatch, ex.run, [good_a], [good_b, good_b], what="a list of 1 dst for 2")
        chk.raises(relay.BufferMismatch, ex.run, [good_a, np.zeros(n, np.float32)], [good_b, good_b],
                   words=["dst[1]"], what="batch dst[1] of another type")
        a2 = np.zeros(n)
        ex.run([good_a, a2], (good_b, 2 * good_b))
        chk.check(np.array_equal(good_a, good_b) and np.array_equal(a2, 2 * good_b), "batch replay after refusals")
    chk.agree()


def scalapack_local(global_values, rank, mb, nb, nprow, npcol):
    """Rank's ScaLAPACK local matrix (LOCr x LOCc) of a block-cyclic layout
    on a row-major grid with block (0, 0) on process (0, 0), by indxg2p."""
    pr, pc = divmod(rank, npcol)
    rows = [i for i in range(global_values.shape[0]) if indxg2p(i, mb, 0, nprow) == pr]
    cols = [j for j in range(global_values.shape[1]) if indxg2p(j, nb, 0, npcol) == pc]
    return global_values[np.ix_(rows, cols)]


def test_local_arrays_by_shape_and_order(comm, chk):
    """A replay takes a layout's local array (its storage, or the logical view
    of it) or 1-D raw storage, and refuses the other order, a transpose, a
    strided slice and other shapes: each once replayed into wrong values."""
    size, rank = comm.size, comm.rank
    n = 24                                       # every rank holds at least 2 rows and 2 columns below
    B = global_array((n, n), np.float64, 7)
    src = relay.block_cyclic(n, n, 2, 2, 1, size)
    lld = max(numroc(n, 3, p, 0, size) for p in range(size)) + 3
    dst = relay.block_cyclic(n, n, 3, 2, size, 1, lld=lld)
    plan = plan_t(comm, dst, src, op="N")
    b = np.asfortranarray(scalapack_local(B, rank, 2, 2, 1, size))
    want = scalapack_local(B, rank, 3, 2, size, 1)
    mloc = want.shape[0]
    with relay.Executor(plan, comm) as ex:
        with chk.local("2-D accepted"):
            storage = np.full((lld, n), -1.0, order="F")
            ex.run(storage, b)
            chk.check(np.array_equal(storage[:mloc], want) and (storage[mloc:] == -1).all(), "the storage array")
            storage[...] = -1
            ex.run(storage[:mloc], b.reshape(-1, order="F"))
            chk.check(np.array_equal(storage[:mloc], want) and (storage[mloc:] == -1).all(),
                      "the logical view, from 1-D raw storage")
        chk.agree("2-D accepted")
        storage = np.zeros((lld, n), order="F")
        cases = [("a ScaLAPACK local matrix in numpy's C order", storage, np.ascontiguousarray(b), "src"),
                 ("the destination transposed", storage.T, b, "dst"),
                 ("every other column", np.zeros((lld, 2 * n), order="F")[:, ::2], b, "dst"),
                 ("the logical rows in C order", np.zeros((mloc, n)), b, "dst")]
        for what, a, bb, slot in cases:
            chk.raises(relay.BufferMismatch, ex.run, a, bb, what=what,
                       words=[f"{slot} is of another shape or order", "F-ordered", "got shape"])
    shape = (2 * size, 5)
    layout = relay.NDLayout(shape, size, [relay.Shard(0)], order="C")
    plan = relay.plan_nd(layout, layout, nranks=size)
    A = global_array(shape, np.float64, 8)
    local = np.ascontiguousarray(A[2 * rank:2 * rank + 2])
    with relay.Executor(plan, comm) as ex:
        with chk.local("N-D accepted"):
            a = np.zeros((2, 5))
            ex.run(a, local)
            raw = np.zeros(10)
            ex.run(raw, local.reshape(-1))
            chk.check(np.array_equal(a, local) and np.array_equal(raw, local.reshape(-1)), "C order and raw storage")
        chk.agree("N-D accepted")
        for what, a in [("an F-ordered array for a C layout", np.zeros((2, 5), order="F")),
                        ("a transposed view", np.zeros((5, 2)).T), ("a strided slice", np.zeros((2, 10))[:, ::2]),
                        ("another shape", np.zeros((5, 2)))]:
            chk.raises(relay.BufferMismatch, ex.run, a, local, what=what,
                       words=["dst is of another shape or order", "C-ordered local array of shape (2, 5)"])
    chk.agree()


def test_mismatched_plans_raise_on_every_rank(comm, chk):
    collective_skip(comm, comm.size < 2, "a plan mismatch needs two ranks")
    size = comm.size
    src = relay.block_cyclic(12, 10, 2, 3, size, 1)
    dst = relay.block_cyclic(10, 12, 3, 2, 1, size)
    other = relay.block_cyclic(10, 12, 5, 2, 1, size)   # rank 0 plans this one
    plan = plan_t(comm, other if comm.rank == 0 else dst, src, op="T")
    chk.raises(relay.MismatchError, relay.Executor, plan, comm, what="rank 0's plan differs")
    # the same layouts, another element type on the last rank
    plan = plan_t(comm, dst, src, op="T", dtype=np.float32 if comm.rank == size - 1 else np.float64)
    chk.raises(relay.MismatchError, relay.Executor, plan, comm, what="last rank's plan has another type")
    # another op on rank 1
    plan = plan_t(comm, dst, src, op="C" if comm.rank == 1 else "T", dtype=np.complex64)
    chk.raises(relay.MismatchError, relay.Executor, plan, comm, what="rank 1's plan conjugates")
    # N-D: rank 0 shards another dimension
    a = relay.NDLayout((4, 6), size, [relay.Shard(1 if comm.rank == 0 else 0)])
    b = relay.NDLayout((6, 4), size, [relay.Shard(0)])
    chk.raises(relay.MismatchError, relay.Executor, relay.plan_nd(a, b, op="T", nranks=size), comm,
               what="rank 0's N-D plan differs")
    chk.agree()
    # and the communicator is fine afterwards
    run_transform(comm, chk, plan_t(comm, dst, src, op="T"), [dst], [src], ["T"], np.float64, seed=1,
                  what="after mismatches")


def test_wrong_rank_count_raises_on_every_rank(comm, chk):
    size = comm.size
    for nranks in [size + 1, size + 3] + ([size - 1] if size > 1 else []):
        lay = relay.block_cyclic(9, 9, 2, 2, 1, min(size, nranks))
        plan = relay.plan_transform(lay, lay, nranks=nranks)
        chk.raises(relay.MismatchError, relay.Executor, plan, comm, what=f"a {nranks}-rank plan on {size} ranks")
        nd = relay.NDLayout((5, 3), nranks, [relay.Shard(0)])
        chk.raises(relay.MismatchError, relay.Executor, relay.plan_nd(nd, nd), comm,
                   what=f"a {nranks}-rank N-D plan on {size} ranks")
    grid = (1, size + 1)
    chk.raises(relay.MismatchError, relay.Executor, relay.plan_hsumma(4, 4, 4, grid, groups=(1, 1)), comm,
               what=f"an HSUMMA plan for {grid}")
    chk.agree()


# ---- timings, memory, schedules --------------------------------------------------------------


@pytest.mark.parametrize("schedule", ["p2p", "rounds", "alltoallv"])
def test_timings_and_memory(comm, chk, schedule):
    rank = comm.rank
    dst, src = fixed_pair(comm, 4)
    dtype = np.complex64
    plan = plan_t(comm, dst, src, op="T", dtype=dtype, schedule=schedule)
    vol, bins = plan.volumes()
    a, b, A, B = buffers(comm, dst, src, dtype)
    with relay.Executor(plan, comm) as ex:
        chk.check(ex.schedule[0] == schedule, f"executor schedule {ex.schedule}")
        mem = ex.memory
        with chk.local("memory"):
            chk.check(bins == 1 and vol.shape == (comm.size, comm.size), f"volumes {vol.shape} bins {bins}")
            remote = vol[rank].sum() + vol[:, rank].sum() - 2 * vol[rank, rank]
            chk.check(mem.remote_bytes == remote, f"memory.remote_bytes {mem.remote_bytes}, volumes say {remote}")
            chk.check(mem.extra_bytes >= 0, f"extra bytes {mem.extra_bytes}")
            chk.check(vol.sum() == plan.stats["bytes_total"], f"volumes total {vol.sum()}, stats {plan.stats}")
            chk.check(vol.sum() - np.trace(vol) == plan.stats["bytes_remote"], "volumes' remote bytes vs stats")
        ex.time(True)
        for _ in range(3):
            ex.run(a, b)
        replays, rows = ex.timings()
        with chk.local("timings"):
            chk.check(replays == 3, f"{replays} replays timed, expected 3")
            kinds = {r.kind for r in rows}
            chk.check(kinds <= {"send", "recv", "local", "completion"}, f"row kinds {kinds}")
            chk.check(all(isinstance(r, relay.Timing) for r in rows), "rows are not Timing tuples")
            chk.check(all(r.pack_s >= 0 and r.wait_s >= 0 and r.unpack_s >= 0 for r in rows), f"negative times {rows}")
            for kind, mine in (("send", lambda p: vol[rank, p]), ("recv", lambda p: vol[p, rank])):
                got = {}
                for r in rows:
                    if r.kind == kind:
                        got[r.peer] = got.get(r.peer, 0) + r.bytes
                want = {p: int(mine(p)) for p in range(comm.size) if p != rank and mine(p) > 0}
                chk.check(got == want, f"{kind} rows' bytes per peer {got}, volumes say {want}")
            if vol[rank, rank] > 0:
                chk.check("local" in kinds, f"no local row though {vol[rank, rank]} bytes stay on rank {rank}")
            if comm.size > 1 and (vol[rank].sum() - vol[rank, rank]) > 0:
                chk.check(any(r.kind == "send" and r.pack_s >= 0 for r in rows), "no send rows")
        ex.time(False)
        ex.run(a, b)
        chk.check(ex.timings()[0] == 3, f"a replay untimed was counted: {ex.timings()[0]}")
        ex.time(True)
        chk.check(ex.timings()[0] == 0, "time(True) did not restart the sums")
        ex.start(a, b)
        ex.wait()
        chk.check(ex.timings()[0] == 1, f"a split-phase replay counts once: {ex.timings()[0]}")
    with chk.local("result"):
        check_2d(chk, dst, rank, a, B.T, "timed replays", **tol(dtype))
    chk.agree()


# ---- tuning -----------------------------------------------------------------------------------------


def check_tuning(comm, chk, plan, t, replays, what):
    with chk.local(what):
        chk.check(isinstance(t, relay.Tuning) and t == plan.tuning, f"{what}: tune returned {t}, plan holds "
                  f"{plan.tuning}")
        chk.check(len(t.choices) >= 1 and 0 <= t.best < len(t.choices), f"{what}: {t}")
        secs = [c.seconds for c in t.choices]
        chk.check(t.best == int(np.argmin(secs)), f"{what}: best {t.best} is not the fastest of {secs}")
        chk.check(all(s >= 0 for s in secs) and t.replays == replays, f"{what}: {t}")
        ways = [(c.schedule, c.packed, c.forward, c.window) for c in t.choices]
        chk.check(len(set(ways)) == len(ways), f"{what}: a way timed twice: {ways}")
        chk.check(1 <= t.ranks_per_node[0] <= t.ranks_per_node[1] <= comm.size, f"{what}: {t.ranks_per_node}")
    everyone = comm.allgather(t)
    chk.check(all(x == everyone[0] for x in everyone), f"{what}: ranks hold different tunings")


def test_tune_transform(comm, chk):
    dst, src = fixed_pair(comm, 5)
    plan = plan_t(comm, dst, src, op="T", dtype=np.float64)
    t = relay.tune(plan, comm, replays=3)
    check_tuning(comm, chk, plan, t, 3, "relay.tune")
    with chk.local("tuned choices"):
        scheds = {c.schedule for c in t.choices}
        chk.check({"p2p", "alltoallv"} <= scheds, f"the transform's choices {scheds} lack p2p or alltoallv")
        # a transpose between ranks of one node (mpiexec's ranks here) is timed through the window too
        windows = [c for c in t.choices if c.window]
        expect = 1 if comm.size > 1 and os.environ.get("RELAY_SHM", "") != "off" else 0
        chk.check(len(windows) == expect and all(c.schedule == "p2p" for c in windows),
                  f"{len(windows)} choices through the window, expected {expect}: {t.choices}")
    chk.agree()
    with relay.Executor(plan, comm) as ex:
        chk.check(ex.schedule[0] == t.choices[t.best].schedule, f"executor replays {ex.schedule}, the tuning chose "
                  f"{t.choices[t.best]}")
        for rep in range(2):
            run_transform(comm, chk, plan, [dst], [src], ["T"], np.float64, alpha=2.0, beta=1.0, seed=rep,
                          executor=ex, what=f"tuned replay {rep}")
    # the tuning travels with the plan and can be removed
    with chk.local("tuning in bytes"):
        again = pickle.loads(pickle.dumps(plan))
        chk.check(again.tuning == t, f"pickled plan's tuning {again.tuning}")
        t2 = plan.tuning
        plan.tuning = None
        chk.check(plan.tuning is None, "tuning not removed")
        plan.tuning = t2
        chk.check(plan.tuning == t, "tuning not restored")
    chk.agree()
    t3 = plan.tune(comm, replays=2)
    check_tuning(comm, chk, plan, t3, 2, "Plan.tune")
    run_transform(comm, chk, plan, [dst], [src], ["T"], np.float64, seed=9, what="replay after Plan.tune")
    # a capped plan replays in rounds only
    capped = plan_t(comm, dst, src, op="T", max_buffer_bytes=128)
    tc = relay.tune(capped, comm, replays=1)
    check_tuning(comm, chk, capped, tc, 1, "capped")
    chk.check({c.schedule for c in tc.choices} == {"rounds"}, f"a capped plan tuned {tc.choices}")
    run_transform(comm, chk, capped, [dst], [src], ["T"], np.float64, seed=3, what="tuned capped plan")
    chk.agree()


def test_tune_nd_replicated_destination(comm, chk):
    size = comm.size
    src = relay.NDLayout((6, 5, 4), size, [relay.Shard(2)], order="F")
    dst = relay.NDLayout((4, 5, 6), (1, size) if size > 1 else 1,
                         [relay.Shard(0), relay.Replicate()] if size > 1 else [relay.Replicate()])
    plan = relay.plan_nd(dst, src, op="T", dtype=np.complex64, nranks=size)
    t = relay.tune(plan, comm, replays=2)
    check_tuning(comm, chk, plan, t, 2, "N-D tune")
    if size > 1:
        chk.check({c.forward for c in t.choices} == {True, False}, f"a replicated destination tuned {t.choices}")
    run_transform(comm, chk, plan, [dst], [src], ["T"], np.complex64, alpha=1j, seed=4, what="tuned N-D plan")


def test_tunings_that_choose_differently_mismatch(comm, chk):
    collective_skip(comm, comm.size < 2, "needs two ranks")
    dst, src = fixed_pair(comm, 6)
    plan = plan_t(comm, dst, src, op="T")
    t = relay.tune(plan, comm, replays=1)
    collective_skip(comm, len(t.choices) < 2, "only one way to replay")
    if comm.rank == 0:
        other = (t.best + 1) % len(t.choices)
        plan.tuning = relay.Tuning(t.choices, other, t.ranks_per_node, t.replays)
    chk.raises(relay.MismatchError, relay.Executor, plan, comm, what="rank 0's tuning chooses another way")
    chk.agree()


# ---- plans that travel ------------------------------------------------------------------------------


def test_plans_broadcast_by_pickling(comm, chk):
    rank = comm.rank
    plans = None
    if rank == 0:  # only rank 0 knows the layouts
        rng = np.random.default_rng(5555)  # the other ranks never see these layouts
        m, n = int(rng.integers(5, 25)), int(rng.integers(5, 25))
        dst, _ = random_layout_2d(rng, m, n, comm.size)
        src, _ = random_layout_2d(rng, n, m, comm.size)
        nd_src = random_nd(rng, (4, 3, 5), comm.size, allow_partial=True)
        nd_dst = random_nd(rng, (5, 4, 3), comm.size)
        plans = [plan_t(comm, dst, src, op="C", dtype=np.complex128, relabel="optimal"),
                 relay.plan_nd(nd_dst, nd_src, op="T", perm=[2, 0, 1], nranks=comm.size, dtype=np.float32)]
        if comm.size & (comm.size - 1) == 0:
            plans.append(relay.plan_bmmc(relay.BMMC.bit_reversal(5), comm.size.bit_length() - 1, 1, np.int32))
    plans = comm.bcast(plans, root=0)
    fps = comm.allgather([p.fingerprint for p in plans])
    chk.check(all(f == fps[0] for f in fps), f"broadcast plans' fingerprints differ: {fps}")
    p2d, pnd = plans[0], plans[1]
    run_transform(comm, chk, p2d, [p2d.dst_layout()], [p2d.src_layout()], ["C"], np.complex128, alpha=2 - 1j,
                  beta=0.5, seed=2, what="broadcast 2-D plan")
    run_transform(comm, chk, pnd, [pnd.dst_layout()], [pnd.src_layout()], ["T"], np.float32, perms=[[2, 0, 1]],
                  seed=3, what="broadcast N-D plan")
    if len(plans) > 2:
        with relay.Executor(plans[2], comm) as ex:
            x = np.arange(ex.src_elems[0], dtype=np.int32) + 1000 * rank
            y = np.zeros_like(x)
            ex.run(y, x)
        everything = np.concatenate(comm.allgather(y))
        chk.check(sorted(everything.tolist()) == sorted(np.concatenate(comm.allgather(x)).tolist()),
                  "the broadcast BMMC plan lost or duplicated elements")
    chk.agree()


@pytest.fixture
def shared_dir(comm):
    path = tempfile.mkdtemp(prefix="relay-mpi-") if comm.rank == 0 else None
    path = comm.bcast(path, root=0)
    yield path
    comm.Barrier()
    if comm.rank == 0:
        shutil.rmtree(path, ignore_errors=True)


def test_plans_saved_by_rank_0_and_loaded_per_rank(comm, chk, shared_dir):
    rank, size = comm.rank, comm.size
    dst, src = fixed_pair(comm, 7)                        # every rank can build the layouts
    nd_dst = relay.NDLayout((3, 8), size, [relay.Shard(1, block=3)], order="F", ranks=list(range(size))[::-1])
    nd_src = relay.NDLayout((8, 3), (1, size), [relay.Replicate(), relay.Shard(0, splits=None)])
    paths = [os.path.join(shared_dir, f) for f in ("t.plan", "nd.plan", "tuned.plan")]
    fingerprints = None
    if rank == 0:                                         # but rank 0 alone plans and saves
        plans = [plan_t(comm, dst, src, op="T", dtype=np.float32, schedule="rounds"),
                 relay.plan_nd(nd_dst, nd_src, op="C", dtype=np.complex64, nranks=size),
                 plan_t(comm, dst, src, op="T", dtype=np.float32)]
        for p, path in zip(plans, paths):
            p.save(path)
        fingerprints = [p.fingerprint for p in plans]
    fingerprints = comm.bcast(fingerprints, root=0)
    tuned = relay.load(paths[2], rank=rank)
    t = relay.tune(tuned, comm, replays=1)               # tuned in the job, saved again by rank 0
    if rank == 0:
        whole = relay.load(paths[2])
        whole.tuning = t
        whole.save(paths[2])
    comm.Barrier()
    loaded = [relay.load(path, rank=rank) for path in paths]
    with chk.local("loaded plans"):
        for path, p, fp in zip(paths, loaded, fingerprints):
            chk.check(relay.file_nranks(path) == size, f"{path}: file_nranks {relay.file_nranks(path)}")
            chk.check(p.fingerprint == fp, f"{path}: loaded fingerprint {p.fingerprint:x}, saved {fp:x}")
            chk.check(relay.load(path).fingerprint == fp, f"{path}: whole load's fingerprint")
            if size > 1 and p.kind == "transform":  # N-D plans hold a header alone, nothing per rank
                chk.raises(relay.ArgumentError, p.save, os.path.join(shared_dir, f"again{rank}.plan"),
                           words=["sections"], what="saving a plan loaded for one rank")
        chk.check(loaded[0].schedule == "rounds", f"loaded schedule {loaded[0].schedule}")
        chk.check(loaded[2].tuning == t, f"the saved tuning did not come back: {loaded[2].tuning} vs {t}")
    chk.agree()
    run_transform(comm, chk, loaded[0], [dst], [src], ["T"], np.float32, alpha=-2.0, beta=1.0, seed=5,
                  what="loaded 2-D plan")
    run_transform(comm, chk, loaded[1], [nd_dst], [nd_src], ["C"], np.complex64, alpha=1 + 1j, seed=6,
                  what="loaded N-D plan")
    run_transform(comm, chk, loaded[2], [dst], [src], ["T"], np.float32, seed=7, what="loaded tuned plan")
    # the bytes travel too: decode one rank's section
    data = comm.bcast(relay.load(paths[0]).encode() if rank == 0 else None, root=0)
    mine = relay.decode(np.frombuffer(data, np.uint8), rank=rank)
    run_transform(comm, chk, mine, [dst], [src], ["T"], np.float32, seed=8, what="decoded for this rank")


def test_plan_loaded_for_another_rank_is_refused(comm, chk, shared_dir):
    collective_skip(comm, comm.size < 2, "needs two ranks")
    dst, src = fixed_pair(comm, 8)
    path = os.path.join(shared_dir, "p.plan")
    if comm.rank == 0:
        plan_t(comm, dst, src, op="T").save(path)
    comm.Barrier()
    plan = relay.load(path, rank=(comm.rank + 1) % comm.size)   # every rank loads its neighbour's section
    chk.raises(relay.MismatchError, relay.Executor, plan, comm, what="each rank holds another rank's section")
    chk.agree()


# ---- threads ---------------------------------------------------------------------------------------


def slow_peer_plan(comm):
    """A plan in which rank 0 receives everything from rank 1."""
    size = comm.size
    src = relay.grid(size, [0, 40], [0, 30], [[1]])
    dst = relay.grid(size, [0, 30], [0, 40], [[0]])
    return relay.plan_transform(dst, src, op="T", nranks=size), dst, src


def test_gil_released_while_waiting(comm, chk):
    collective_skip(comm, comm.size < 2, "needs a slow peer")
    rank = comm.rank
    plan, dst, src = slow_peer_plan(comm)
    a, b, A, B = buffers(comm, dst, src, np.float64)
    ticks = [0]
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks[0] += 1
            time.sleep(0.002)

    with relay.Executor(plan, comm) as ex:
        comm.Barrier()
        thread = threading.Thread(target=ticker, daemon=True)
        if rank == 0:
            thread.start()
            time.sleep(0.05)
        if rank == 1:
            time.sleep(1.0)  # the slow peer
        before, t0 = ticks[0], time.monotonic()
        ex.run(a, b)
        during, took = ticks[0] - before, time.monotonic() - t0
        stop.set()
        if rank == 0:
            thread.join()
            chk.check(took > 0.5, f"rank 0's replay took {took:.3f} s: it did not wait for its slow peer")
            chk.check(during >= 10, f"the ticker thread ran {during} times during a {took:.3f} s replay: the GIL "
                      "was held while relay waited")
    with chk.local("result"):
        check_2d(chk, dst, rank, a, B.T, "replay from a slow peer")
    chk.agree()


def test_second_thread_call_is_refused(comm, chk):
    collective_skip(comm, comm.size < 2, "needs a slow peer")
    rank = comm.rank
    plan, dst, src = slow_peer_plan(comm)
    a, b, A, B = buffers(comm, dst, src, np.float64)
    with relay.Executor(plan, comm) as ex:
        comm.Barrier()
        if rank == 0:
            errors = []

            def replay():
                try:
                    ex.run(a, b)
                except Exception as e:  # noqa: BLE001
                    errors.append(e)

            thread = threading.Thread(target=replay)
            thread.start()
            time.sleep(0.3)  # the thread now waits for rank 1, without the GIL
            chk.raises(RuntimeError, ex.run, a, b, words=["another thread"], what="a second thread's run")
            chk.raises(RuntimeError, lambda: ex.in_flight, what="a second thread's in_flight")
            chk.raises(RuntimeError, ex.close, what="a second thread's close")
            thread.join()
            chk.check(not errors, f"the first thread's replay failed: {errors}")
        else:
            if rank == 1:
                time.sleep(1.0)
            ex.run(a, b)
    with chk.local("result"):
        check_2d(chk, dst, rank, a, B.T, "the first thread's replay")
    chk.agree()


def test_executors_replay_from_different_threads(comm, chk):
    """Two executors, each replayed in its own thread, in the same order on
    every rank (MPI_THREAD_MULTIPLE, mpi4py's default)."""
    collective_skip(comm, __import__("mpi4py").MPI.Query_thread() < __import__("mpi4py").MPI.THREAD_MULTIPLE,
                    "MPI without THREAD_MULTIPLE")
    rank = comm.rank
    d1, s1 = fixed_pair(comm, 10, "N")
    d2, s2 = fixed_pair(comm, 11, "T")
    p1, p2 = plan_t(comm, d1, s1, op="N"), plan_t(comm, d2, s2, op="T", dtype=np.complex64)
    a1, b1, A1, B1 = buffers(comm, d1, s1, np.float64)
    a2, b2, A2, B2 = buffers(comm, d2, s2, np.complex64)
    e1, e2 = relay.Executor(p1, comm), relay.Executor(p2, comm)
    errors = []

    def go(ex, a, b):
        try:
            for _ in range(3):
                ex.run(a, b)
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    threads = [threading.Thread(target=go, args=(e1, a1, b1)), threading.Thread(target=go, args=(e2, a2, b2))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    e1.close()
    e2.close()
    chk.check(not errors, f"threaded replays failed: {errors}")
    with chk.local("results"):
        check_2d(chk, d1, rank, a1, B1, "thread 1")
        check_2d(chk, d2, rank, a2, B2.T, "thread 2", **tol(np.complex64))
    chk.agree()


# ---- a replay refused on one rank only -----------------------------------------------------------


def owners_of(layout, nranks):
    """The rank holding each element of a 2-D layout, from every rank's global_indices."""
    owner = np.full(layout.shape, -1)
    for q in range(nranks):
        rows, cols = layout.global_indices(q)
        held = rows >= 0
        owner[rows[held], cols[held]] = q
    return owner


@pytest.mark.parametrize("schedule", ["p2p", "alltoallv", "rounds"])
def test_refused_on_one_rank_only(comm, chk, schedule):
    """A replay whose arguments are refused on rank 0 alone: rank 0 raises,
    but still takes part (relay replays over NaN there, as the C API's
    refused start does), so the other ranks complete, with NaN exactly
    where elements come from rank 0, those that receive from it raising
    PeerRefused naming it; the executor stays usable."""
    collective_skip(comm, comm.size < 2, "needs two ranks")
    rank, size = comm.rank, comm.size
    rng = np.random.default_rng(5100)
    m, n = 14, 11
    src = relay.block_cyclic(n, m, 2, 3, 1, size)          # B's columns over the ranks: every rank sends
    dst, _ = random_layout_2d(rng, m, n, size)
    plan = plan_t(comm, dst, src, op="T", schedule=schedule)
    owner = owners_of(src, size).T                          # the rank holding B(j, i), for A(i, j)
    good_a, good_b, A, B = buffers(comm, dst, src, np.float64)
    bad = [("a too small dst", lambda a, b: (a[:-1], b, None), relay.BufferMismatch),
           ("a float32 src", lambda a, b: (a, b.astype(np.float32), None), relay.BufferMismatch),
           ("a complex alpha", lambda a, b: (a, b, 1j), relay.ArgumentError),
           ("a read-only dst", lambda a, b: (np.frombuffer(a.tobytes()), b, None), relay.BufferMismatch)]
    rows, cols = dst.global_indices(rank)
    held = rows >= 0
    from0 = owner[rows[held], cols[held]] == 0
    with relay.Executor(plan, comm) as ex:
        for k, (what, spoil, cls) in enumerate(bad):
            a, b = good_a.copy(), good_b.copy()
            args = spoil(a, b) if rank == 0 else (a, b, None)
            split = k % 2 == 1
            told = None
            if rank == 0:
                chk.raises(cls, ex.start if split else ex.run, *args, what=f"rank 0 with {what}")
                chk.check(not ex.in_flight, f"{what}: a refused start left a replay in flight")
            else:
                try:
                    if split:
                        ex.start(*args)
                        ex.wait()
                    else:
                        ex.run(*args)
                except relay.PeerRefused as e:
                    told = str(e)
            if rank != 0:
                with chk.local(what):
                    chk.check((told is not None) == bool(from0.any()) and (told is None or "rank 0 " in told),
                              f"{what}: PeerRefused naming rank 0 exactly where elements come from it: {told}")
                    got = a[held]
                    chk.check(np.all(np.isnan(got[from0])), f"{what}: elements from rank 0 are not NaN")
                    chk.close(got[~from0], B.T[rows[held], cols[held]][~from0], f"{what}: elements from other ranks")
            chk.agree(what)
            # and the executor is fine on every rank afterwards
            a = good_a.copy()
            ex.run(a, good_b, 2.0)
            with chk.local(f"after {what}"):
                check_2d(chk, dst, rank, a, 2 * B.T, f"replay after {what}")
            chk.agree(f"after {what}")


def test_refused_on_one_rank_only_nd_and_hsumma(comm, chk):
    collective_skip(comm, comm.size < 2, "needs two ranks")
    rank, size = comm.rank, comm.size
    # N-D: rank 0's destination is too small
    src = relay.NDLayout((6, 4), size, [relay.Shard(0)])
    dst = relay.NDLayout((4, 6), size, [relay.Shard(0, block=1)], order="F")
    plan = relay.plan_nd(dst, src, op="T", nranks=size)
    B = global_array((6, 4), np.float64, 1)
    with relay.Executor(plan, comm) as ex:
        a = np.zeros(dst.storage_shape(rank), order="F")
        b = np.ascontiguousarray(B[src.global_indices(rank)[0]])
        if rank == 0:
            chk.raises(relay.BufferMismatch, ex.run, a.reshape(-1, order="A")[:-1], b, what="N-D: rank 0's dst")
        else:
            ex.run(a, b)
        chk.agree("N-D refused on rank 0")
        ex.run(a, b)
        with chk.local("N-D after"):
            want = B.T[np.ix_(*dst.global_indices(rank))]
            chk.close(a, want, "N-D replay after rank 0's refusal")
    chk.agree()
    # HSUMMA: rank 0 passes one source
    grid = (1, size)
    hp = relay.plan_hsumma(5, 6, 7, grid, groups=(1, 1), inner_block=2, outer_block=2)
    la, lb, lc = (relay.hsumma_layout(hp, w) for w in "ABC")
    A = global_array((5, 7), np.float64, 2)
    Bm = global_array((7, 6), np.float64, 3)
    loc = lambda l, G: G[l.global_indices(rank)[0].clip(0), l.global_indices(rank)[1].clip(0)]
    a, b, c = loc(la, A), loc(lb, Bm), np.zeros(lc.local_elems(rank))
    with relay.Executor(hp, comm) as ex:
        if rank == 0:
            chk.raises(relay.BufferMismatch, ex.run, c, (a,), what="HSUMMA: rank 0 passes A alone")
        else:
            ex.run(c, (a, b))
        chk.agree("HSUMMA refused on rank 0")
        ex.run(c, (a, b))
        with chk.local("HSUMMA after"):
            rows, cols = lc.global_indices(rank)
            held = rows >= 0
            chk.close(c[held], (A @ Bm)[rows[held], cols[held]], "HSUMMA after rank 0's refusal", rtol=1e-12,
                      atol=1e-9)
    chk.agree()


def test_nd_timings(comm, chk):
    rank, size = comm.rank, comm.size
    src = relay.NDLayout((8, 6), size, [relay.Shard(1)], order="F")
    dst = relay.NDLayout((6, 8), (1, size) if size > 1 else 1,
                         [relay.Replicate(), relay.Shard(1)] if size > 1 else [relay.Replicate()])
    plan = relay.plan_nd(dst, src, op="T", dtype=np.float32, nranks=size)
    with relay.Executor(plan, comm) as ex:
        ex.time(True)
        for rep in range(2):
            run_transform(comm, chk, plan, [dst], [src], ["T"], np.float32, seed=rep, executor=ex,
                          what=f"timed N-D replay {rep}")
        replays, rows = ex.timings()
        chk.check(replays == 2, f"N-D: {replays} replays timed")
        chk.check({r.kind for r in rows} <= {"send", "recv", "local", "completion"}, f"N-D rows {rows}")
        sent = comm.allreduce(sum(r.bytes for r in rows if r.kind == "send" and r.peer != rank))
        got = comm.allreduce(sum(r.bytes for r in rows if r.kind == "recv" and r.peer != rank))
        chk.check(sent == got, f"N-D: ranks send {sent} bytes but receive {got}")
        mem = ex.memory
        total = comm.allreduce(mem.remote_bytes)
        chk.check(total == sent + got, f"N-D: memory's remote bytes {total} vs timings' {sent + got}")
    chk.agree()


def test_deadline_names_the_rank_that_skips(comm, chk):
    """The last rank skips a replay of an executor with a deadline: the
    ranks that wait for it raise ReplayTimeout naming it, within the
    deadline and a margin; every rank then closes without waiting, and a
    new executor replays right."""
    collective_skip(comm, comm.size < 2, "needs two ranks")
    dst, src = fixed_pair(comm, 3, op="N")
    plan = plan_t(comm, dst, src, op="N")
    a, b, A, B = buffers(comm, dst, src, np.float64)
    late = comm.size - 1
    with relay.Executor(plan, comm, deadline=0.5) as ex:
        ex.run(a, b)
        told, took = None, 0.0
        if comm.rank != late:
            t0 = time.monotonic()
            try:
                ex.run(a, b)
            except relay.ReplayTimeout as e:
                told = str(e)
            took = time.monotonic() - t0
        with chk.local("timeout"):
            chk.check(told is None or (f"rank {late} " in told and 0.5 <= took < 4.0),
                      f"a timeout names rank {late}, in time: {told} after {took:.2f} s")
            chk.raises(relay.ArgumentError, ex.set_deadline, -1.0, what="a negative deadline")
        chk.agree("timeout")
    a2 = a.copy()
    with relay.Executor(plan, comm) as ex:
        ex.run(a2, b)
        with chk.local("afresh"):
            check_2d(chk, dst, comm.rank, a2, B, "a new executor after the timeout")
    chk.agree("afresh")
