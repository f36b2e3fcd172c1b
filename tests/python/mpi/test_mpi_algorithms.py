"""BMMC permutations replayed against BMMC.apply of the global index, and
(H)SUMMA products C := alpha A B + beta C against numpy's matmul."""

from __future__ import annotations

import numpy as np
import pytest

import relay
from relay_mpi_support import (DTYPES, SENTINEL, bmmc_global_index, collective_skip, global_array, log2_exact,
                               random_bmmc, scalars)


# ---- BMMC -------------------------------------------------------------------------------


def bmmc_case(comm, chk, perm, p, f, dtype, what, mode="run", reps=1):
    rank = comm.rank
    n = perm.n
    local = 1 << (n - p)
    with chk.local(what):
        plan = relay.plan_bmmc(perm, p, f, dtype)
        info = relay.bmmc_info(plan)
        chk.check(plan.kind == "bmmc" and plan.nranks == 1 << p, f"{what}: {plan}")
        chk.check((info["n"], info["p"], info["f"], info["elem_size"]) == (n, p, f, np.dtype(dtype).itemsize),
                  f"{what}: bmmc_info {info}")
        chk.check(info["perm"] == perm, f"{what}: info's perm {info['perm']} is not {perm}")
        offsets = np.arange(local, dtype=np.uint64)
        x = bmmc_global_index(offsets, rank, p, f)
        src = x.astype(dtype)                          # element names its global index
        # expected: out[y] = in[x] with y = perm(x): invert through apply over every index
        every = np.arange(1 << n, dtype=np.uint64)
        image = perm.apply(every)
        chk.check(np.array_equal(np.sort(image), every), f"{what}: BMMC.apply is not a permutation")
        pre = np.empty(1 << n, np.uint64)
        pre[image.astype(np.int64)] = every
        want = pre[x.astype(np.int64)].astype(dtype)   # my position holds global index x: which element lands there
        chk.check(all(int(perm.apply(int(v))) == int(image[int(v)]) for v in every[:: max(1, (1 << n) // 17)]),
                  f"{what}: BMMC.apply of one index differs from apply of the array")
    chk.agree(what)
    with relay.Executor(plan, comm) as ex:
        chk.check(ex.dst_elems == (local,) and ex.src_elems == (local,), f"{what}: executor sizes {ex}")
        m = ex.memory
        chk.check(m.extra_bytes >= 2 * local * np.dtype(dtype).itemsize, f"{what}: extra bytes {m.extra_bytes}")
        for rep in range(reps):
            out = np.full(local, -1, dtype)
            if mode == "run":
                ex.run(out, src)
            else:
                ex.start(out, src)
                ex.wait()
            chk.check(np.array_equal(out, want), lambda: f"{what} replay {rep}: {int(np.sum(out != want))} of {local} "
                      f"elements differ; first at offset {int(np.argmax(out != want))}: "
                      f"{out[np.argmax(out != want)]} expected {want[np.argmax(out != want)]}")
    remote = comm.allreduce(m.remote_bytes)
    chk.check(remote == 2 * plan.stats["bytes_remote"], f"{what}: ranks move {remote} bytes (send+recv), the plan "
              f"says {plan.stats['bytes_remote']} each way")
    chk.agree(what)


def test_bmmc_random_and_standard(comm, chk):
    p = log2_exact(comm.size)
    collective_skip(comm, p < 0, "BMMC needs a power-of-two rank count")
    rng = np.random.default_rng(4000)
    dtypes = [np.int64, np.float64, np.complex128, np.int8, np.dtype("S3")]
    for case in range(8):
        n = int(rng.integers(max(p, 1), 9))
        perm = random_bmmc(rng, n)
        f = int(rng.integers(0, n - p + 1)) if case % 3 else (0 if case % 2 else n - p)
        dtype = dtypes[case % len(dtypes)]
        if np.dtype(dtype).kind == "S":
            bmmc_bytes_case(comm, chk, perm, p, f, f"random {case} n {n} f {f} 3-byte elements")
            continue
        bmmc_case(comm, chk, perm, p, f, dtype, f"random {case} n {n} f {f} {np.dtype(dtype).name}",
                  mode="split" if case % 2 else "run", reps=2)
    n = 6
    standard = [relay.BMMC.identity(n), relay.BMMC.transpose(2, 4), relay.BMMC.bit_reversal(n),
                relay.BMMC.vector_reversal(n), relay.BMMC.gray_code(n), relay.BMMC.shuffle(n),
                relay.BMMC.unshuffle(n), relay.BMMC.shuffle(n).then(relay.BMMC.gray_code(n)),
                relay.BMMC.gray_code(n).inverse()]
    for k, perm in enumerate(standard):
        bmmc_case(comm, chk, perm, p, (k * 2) % (n - p + 1), np.float64, f"standard {k} {perm}")


def bmmc_bytes_case(comm, chk, perm, p, f, what):
    """Elements of 3 bytes (a BMMC plan moves bytes): each names its index in
    its bytes, checked the same way."""
    rank, n = comm.rank, perm.n
    local = 1 << (n - p)
    plan = relay.plan_bmmc(perm, p, f, np.dtype("S3"))
    x = bmmc_global_index(np.arange(local, dtype=np.uint64), rank, p, f).astype(np.int64)
    src = np.zeros((local, 3), np.uint8)
    src[:, 0], src[:, 1], src[:, 2] = x & 255, x >> 8 & 255, 200
    every = np.arange(1 << n, dtype=np.uint64)
    pre = np.empty(1 << n, np.int64)
    pre[perm.apply(every).astype(np.int64)] = every.astype(np.int64)
    want = np.zeros((local, 3), np.uint8)
    w = pre[x]
    want[:, 0], want[:, 1], want[:, 2] = w & 255, w >> 8 & 255, 200
    out = np.zeros((local, 3), np.uint8)
    with relay.Executor(plan, comm) as ex:
        ex.run(out.view("S3").reshape(-1), src.view("S3").reshape(-1))
    chk.check(np.array_equal(out, want), f"{what}: {int(np.sum(np.any(out != want, axis=1)))} elements differ")
    chk.agree(what)


def test_bmmc_compose_invert_and_refusals(comm, chk):
    p = log2_exact(comm.size)
    collective_skip(comm, p < 0, "BMMC needs a power-of-two rank count")
    rng = np.random.default_rng(4100)
    n = 7
    a, b = random_bmmc(rng, n), random_bmmc(rng, n)
    pa, pb = relay.plan_bmmc(a, p, 1, np.float64), relay.plan_bmmc(b, p, 1, np.float64)
    both = relay.compose(pa, pb)
    with chk.local("bmmc compose"):
        chk.check(relay.bmmc_info(both)["perm"] == a.then(b), "compose of BMMC plans is not a.then(b)")
        chk.check(relay.bmmc_info(relay.invert(pa))["perm"] == a.inverse(), "invert of a BMMC plan")
        every = np.arange(1 << n, dtype=np.uint64)
        chk.check(np.array_equal(b.apply(a.apply(every)), a.then(b).apply(every)), "then() is not b after a")
    chk.agree()
    bmmc_case(comm, chk, a.then(b), p, 1, np.float64, "composed permutation")
    # the composed plan, replayed, equals the two replays
    local = 1 << (n - p)
    x = bmmc_global_index(np.arange(local, dtype=np.uint64), comm.rank, p, 1).astype(np.float64)
    mid, two, one = np.empty(local), np.empty(local), np.empty(local)
    for plan, dst, src in [(pa, mid, x), (pb, two, mid), (both, one, x)]:
        with relay.Executor(plan, comm) as ex:
            ex.run(dst, src)
    chk.check(np.array_equal(one, two), "compose(pa, pb) differs from pa then pb")
    # a BMMC executor takes no alpha or beta
    with relay.Executor(pa, comm) as ex:
        chk.raises(relay.Error, ex.run, np.empty(local), x.copy(), 2.0, None, what="alpha given to a BMMC plan")
        ex.run(mid, x)  # still usable
    chk.agree()
    # tuning is for transform and N-D plans: refused on every rank, none left waiting
    chk.raises(relay.UnsupportedError, relay.tune, pa, comm, 2, what="tuning a BMMC plan")
    chk.agree()
    # a plan for twice the ranks: refused on every rank
    wrong = relay.plan_bmmc(a, p + 1, 0, np.float64)
    chk.raises(relay.MismatchError, relay.Executor, wrong, comm, what=f"BMMC plan for {2 << p} ranks on {comm.size}")
    chk.agree()


# ---- SUMMA and HSUMMA ----------------------------------------------------------------------


def grid_of(size):
    r = int(np.sqrt(size))
    while size % r:
        r -= 1
    return (r, size // r)


def divisors(x):
    return [d for d in range(1, x + 1) if x % d == 0]


def local_matrix(layout, rank, G, dtype):
    rows, cols = layout.global_indices(rank)
    buf = np.full(rows.shape, SENTINEL, dtype)
    held = rows >= 0
    buf[held] = G[rows[held], cols[held]]
    return buf


def hsumma_case(comm, chk, plan, m, n, k, dtype, alpha, beta, what, executor=None):
    rank = comm.rank
    with chk.local(what):
        la, lb, lc = (relay.hsumma_layout(plan, w) for w in "ABC")
        chk.check(la.shape == (m, k) and lb.shape == (k, n) and lc.shape == (m, n),
                  f"{what}: layouts {la.shape} {lb.shape} {lc.shape}")
        chk.check(plan.src_elems(rank, 0) == la.local_elems(rank) and plan.src_elems(rank, 1) == lb.local_elems(rank)
                  and plan.dst_elems(rank) == lc.local_elems(rank), f"{what}: buffer sizes disagree with the layouts")
        A = global_array((m, k), dtype, 1) / 64
        B = global_array((k, n), dtype, 2) / 64
        C0 = global_array((m, n), dtype, 3)
        a, b, c = local_matrix(la, rank, A, dtype), local_matrix(lb, rank, B, dtype), local_matrix(lc, rank, C0, dtype)
        want = (1 if alpha is None else alpha) * (A.astype(np.complex128) @ B.astype(np.complex128))
        if beta:
            want = want + beta * C0
        if not np.iscomplexobj(np.empty(0, dtype)):
            want = want.real
    chk.agree(what)
    ex = executor or relay.Executor(plan, comm)
    try:
        ex.run(c, (a, b), alpha, beta)
        report = ex.hsumma_report()
    finally:
        if executor is None:
            ex.close()
    with chk.local(what):
        rows, cols = lc.global_indices(rank)
        held = rows >= 0
        single = np.dtype(dtype) in (np.dtype(np.float32), np.dtype(np.complex64))
        chk.close(c[held], want[rows[held], cols[held]], f"{what}: C", rtol=1e-4 if single else 1e-11,
                  atol=1e-2 if single else 1e-8)
        chk.check(np.all(c[~held] == np.asarray(SENTINEL, dtype)), f"{what}: C's gaps written")
    chk.agree(what)
    return report


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_hsumma_groups_given(comm, chk, dtype):
    grid = grid_of(comm.size)
    m, n, k = 19, 13, 23
    case = 0
    for gr in divisors(grid[0]):
        for gc in divisors(grid[1]):
            dist = "checkerboard" if case % 2 == 0 else "block_cyclic"
            plan = relay.plan_hsumma(m, n, k, grid, dtype=dtype, groups=(gr, gc), inner_block=3, outer_block=7,
                                     dist=dist, dist_block=4)
            with chk.local("facts"):
                info = relay.hsumma_info(plan)
                chk.check(plan.kind == "hsumma" and info["groups_from"] == "given" and
                          info["params"].groups == (gr, gc) and info["params"].grid == grid,
                          f"hsumma_info {info}")
            alpha, beta = scalars(dtype, case)
            report = hsumma_case(comm, chk, plan, m, n, k, dtype, alpha, beta, f"groups {gr}x{gc} {dist} grid {grid}")
            chk.check(tuple(report["groups"]) == (gr, gc), f"executor runs groups {report['groups']}, asked {(gr, gc)}")
            case += 1
    # the grid the other way round, when it is not square
    if grid[0] != grid[1]:
        plan = relay.plan_hsumma(k, m, n, grid[::-1], dtype=dtype, groups=(1, 1), inner_block=5, outer_block=5)
        hsumma_case(comm, chk, plan, k, m, n, dtype, None, None, f"grid {grid[::-1]}")
    chk.agree()


def test_hsumma_automatic_groups(comm, chk):
    grid = grid_of(comm.size)
    m, n, k = 24, 20, 30
    net = relay.Network(alpha=1e-5, beta=1e-9)
    params = relay.HsummaParams(m, n, k, grid, inner_block=4, outer_block=8)
    best = relay.hsumma_best_groups(params, net)
    plan = relay.plan_hsumma(m, n, k, grid, inner_block=4, outer_block=8, network=net)
    with chk.local("model"):
        info = relay.hsumma_info(plan)
        chk.check(info["groups_from"] == "model" and info["params"].groups == tuple(best),
                  f"model groups {info['params'].groups} from {info['groups_from']}, best {best}")
    hsumma_case(comm, chk, plan, m, n, k, np.float64, 2.0, 0.5, "model groups")
    measured = relay.hsumma_measure_network(comm)
    chk.check(measured.alpha >= 0 and measured.beta >= 0, f"measured network {measured}")
    everyone = comm.allgather(measured)
    chk.check(all(x == everyone[0] for x in everyone), f"ranks measured different networks: {everyone}")
    at_bind = relay.plan_hsumma(m, n, k, grid, inner_block=4, outer_block=8, dtype=np.complex128)
    chk.check(relay.hsumma_info(at_bind)["groups_from"] == "at_bind", "groups chosen at bind")
    report = hsumma_case(comm, chk, at_bind, m, n, k, np.complex128, 1j, None, "groups at bind")
    gr, gc = report["groups"]
    chk.check(grid[0] % gr == 0 and grid[1] % gc == 0, f"bind chose groups {report['groups']} for grid {grid}")
    tuned = relay.hsumma_autotune(relay.plan_hsumma(m, n, k, grid, inner_block=4, outer_block=8, groups=(1, 1),
                                                     dtype=np.float32), comm)
    with chk.local("autotune"):
        info = relay.hsumma_info(tuned)
        g = info["params"].groups
        chk.check(info["groups_from"] == "autotune" and grid[0] % g[0] == 0 and grid[1] % g[1] == 0,
                  f"autotuned plan: {info}")
    everyone = comm.allgather(relay.hsumma_info(tuned)["params"].groups)
    chk.check(len(set(everyone)) == 1, f"ranks autotuned different groups {everyone}")
    hsumma_case(comm, chk, tuned, m, n, k, np.float32, -1.0, 2.0, "autotuned")
    chk.agree()


def test_hsumma_replays_twice_and_refuses(comm, chk):
    grid = grid_of(comm.size)
    plan = relay.plan_hsumma(9, 8, 7, grid, groups=grid, inner_block=2, outer_block=4, dtype=np.complex64)
    with relay.Executor(plan, comm) as ex:
        for rep in range(2):
            hsumma_case(comm, chk, plan, 9, 8, 7, np.complex64, *scalars(np.complex64, rep), f"replay {rep}",
                        executor=ex)
        a = np.zeros(plan.src_elems(comm.rank, 0), np.complex64)
        b = np.zeros(plan.src_elems(comm.rank, 1), np.complex64)
        c = np.zeros(plan.dst_elems(comm.rank), np.complex64)
        chk.raises(relay.BufferMismatch, ex.run, c, a, what="HSUMMA with one source")
        chk.raises(relay.BufferMismatch, ex.run, c, (a.astype(np.complex128), b), what="HSUMMA A of another type")
        chk.raises(relay.UnsupportedError, ex.time, True, what="timing an HSUMMA executor")
    chk.raises(relay.UnsupportedError, relay.tune, plan, comm, what="tuning an HSUMMA plan")
    chk.raises(relay.ArgumentError, relay.plan_hsumma, 9, 8, 7, (3, 1), groups=(2, 1),
               what="groups that do not divide the grid")
    chk.agree()
