"""BMMC permutations against a GF(2) computation written here, BMMC plans'
volumes counted index by index, and HSUMMA plans against the step rules,
the checkerboard / block-cyclic distributions and the broadcast cost model
of relay/hsumma.h, written out independently."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import relay
from relay import BMMC
from conftest import examples, BlockCyclicRef, gf2_apply, gf2_rank


def ref_apply(perm, x):
    return gf2_apply(perm.columns, perm.complement, perm.n, x)


def table(perm):
    return [ref_apply(perm, x) for x in range(1 << perm.n)]


def bit(x, i):
    return (x >> i) & 1


# ---- the standard permutations, from their definitions in relay/bmmc.h ---------

@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_standard_permutations(n):
    N = 1 << n
    xs = range(N)
    assert table(BMMC.identity(n)) == list(xs)
    assert table(BMMC.bit_reversal(n)) == [sum(bit(x, n - 1 - i) << i for i in range(n)) for x in xs]
    assert table(BMMC.vector_reversal(n)) == [N - 1 - x for x in xs]
    assert table(BMMC.gray_code(n)) == [x ^ (x >> 1) for x in xs]
    assert table(BMMC.shuffle(n)) == [x if x == N - 1 else (2 * x) % (N - 1) for x in xs]
    unshuffle = table(BMMC.unshuffle(n))
    shuffle = table(BMMC.shuffle(n))
    assert [unshuffle[shuffle[x]] for x in xs] == list(xs)
    for perm in (BMMC.identity(n), BMMC.gray_code(n), BMMC.shuffle(n)):
        assert perm.n == n and len(perm.columns) == n


@pytest.mark.parametrize("rows_log,cols_log", [(0, 3), (1, 1), (2, 3), (3, 1)])
def test_transpose_permutation(rows_log, cols_log):
    R, C = 1 << rows_log, 1 << cols_log
    perm = BMMC.transpose(rows_log, cols_log)
    assert perm.n == rows_log + cols_log
    # column-major R x C: element (i, j) at i + j*R goes to (j, i) of the C x R transpose, j + i*C
    for i in range(R):
        for j in range(C):
            assert perm.apply(i + j * R) == j + i * C == ref_apply(perm, i + j * R)


# ---- random permutations ---------------------------------------------------------

@st.composite
def bmmcs(draw, n=None):
    """Nonsingular by construction: the identity under random column
    operations (XOR one column into another, swap two)."""
    n = draw(st.integers(1, 8)) if n is None else n
    cols = [1 << j for j in range(n)]
    for _ in range(draw(st.integers(0, 3 * n))):
        a, b = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        if a == b:
            continue
        if draw(st.booleans()):
            cols[a] ^= cols[b]
        else:
            cols[a], cols[b] = cols[b], cols[a]
    return BMMC(n, tuple(cols), draw(st.integers(0, (1 << n) - 1)))


@settings(max_examples=examples(150))
@given(st.data())
def test_apply_then_inverse_against_gf2(data):
    a = data.draw(bmmcs())
    b = data.draw(bmmcs(a.n))
    N = 1 << a.n
    want = table(a)
    assert sorted(want) == list(range(N)), "a nonsingular matrix permutes the indices"
    assert [a.apply(x) for x in range(N)] == want
    np.testing.assert_array_equal(a.apply(np.arange(N)), want)
    np.testing.assert_array_equal(a.apply(np.arange(N).reshape(-1, 2) if N > 1 else np.arange(N)),
                                  np.array(want).reshape(-1, 2) if N > 1 else want)
    assert table(a.then(b)) == [ref_apply(b, ref_apply(a, x)) for x in range(N)]
    inv = a.inverse()
    assert [ref_apply(inv, y) for y in want] == list(range(N))
    assert table(a.then(inv)) == list(range(N))
    assert table(inv.inverse()) == want


def test_apply_refuses_indices_beyond_n_bits_and_agrees_on_arrays():
    perm = BMMC.gray_code(4)
    for bad in (16, -1):
        with pytest.raises(relay.ArgumentError):
            perm.apply(bad)
        with pytest.raises(relay.ArgumentError):
            perm.apply(np.array([0, bad]))
    # bits beyond n in a column or the complement are ignored alike by both paths
    odd = BMMC(2, (1 | 8, 2), 4 | 1)
    assert [odd.apply(x) for x in range(4)] == list(odd.apply(np.arange(4))) == [gf2_apply((1, 2), 1, 2, x)
                                                                                for x in range(4)]
    assert perm.apply(np.zeros(0, np.int64)).shape == (0,)


# ---- BMMC plans ---------------------------------------------------------------------

def bmmc_reference(perm, p, f, elem_size):
    """bytes each rank sends each other rank: index x, at rank bits f..f+p-1, goes to index y."""
    P = 1 << p
    v = np.zeros((P, P), np.int64)
    for x in range(1 << perm.n):
        y = ref_apply(perm, x)
        v[(x >> f) % P, (y >> f) % P] += elem_size
    return v


@settings(max_examples=examples(80))
@given(st.data())
def test_bmmc_plan_against_reference(data):
    perm = data.draw(bmmcs())
    p = data.draw(st.integers(0, min(perm.n, 3)))
    f = data.draw(st.integers(0, perm.n - p))
    dtype = data.draw(st.sampled_from([np.int8, np.float32, np.complex128, np.dtype("S3")]))
    plan = relay.plan_bmmc(perm, p, f, dtype)
    es = np.dtype(dtype).itemsize
    assert plan.kind == "bmmc"
    assert plan.nranks == 1 << p
    assert plan.dtype == np.float64  # a BMMC plan moves bytes
    assert plan.schedule == "p2p" and plan.rounds == 1
    assert plan.relabeling == tuple(range(1 << p))
    v = bmmc_reference(perm, p, f, es)
    off = v - np.diag(np.diag(v))
    stats = plan.stats
    assert stats["bytes_total"] == (1 << perm.n) * es
    assert stats["bytes_remote"] == stats["bytes_remote_identity"] == off.sum()
    assert stats["messages"] == np.count_nonzero(off)
    info = relay.bmmc_info(plan)
    assert (info["n"], info["p"], info["f"], info["elem_size"]) == (perm.n, p, f, es)
    assert info["perm"] == perm
    # r = the GF(2) rank of the block of A that maps source offset bits to target rank bits
    rank_bits = range(f, f + p)
    offset_bits = [i for i in range(perm.n) if i not in rank_bits]
    block_rows = [sum(bit(perm.columns[j], i) << k for k, j in enumerate(offset_bits)) for i in rank_bits]
    assert info["rank"] == gf2_rank(block_rows)
    assert max(np.count_nonzero(v[r]) for r in range(1 << p)) == 1 << info["rank"]
    if f == perm.n - p:  # processor-major: y = V (W x) ^ c
        for x in range(1 << perm.n):
            assert ref_apply(info["v"], ref_apply(info["w"], x)) == ref_apply(perm, x)
    assert info["w"].complement == 0
    dump = plan.info()
    assert dump["bmmc"]["a"] == list(perm.columns) and dump["bmmc"]["c"] == perm.complement
    assert dump["bmmc"]["partners"] == 1 << info["rank"]
    for row in dump["per_rank"]:
        r = row["rank"]
        assert row["send_bytes"] == off[r].sum() and row["recv_bytes"] == off[:, r].sum()
        assert row["local_bytes"] == v[r, r]


def test_bmmc_plan_algebra():
    perm = BMMC.transpose(3, 3)
    plan = relay.plan_bmmc(perm, 2, 4, np.complex64)
    inv = relay.invert(plan)
    assert relay.bmmc_info(inv)["perm"] == perm.inverse()
    both = relay.compose(plan, relay.plan_bmmc(BMMC.gray_code(6), 2, 4, np.complex64))
    assert relay.bmmc_info(both)["perm"] == perm.then(BMMC.gray_code(6))
    ident = relay.compose(plan, inv)
    assert ident.stats["bytes_remote"] == 0
    assert table(relay.bmmc_info(ident)["perm"]) == list(range(64))
    with pytest.raises(relay.MismatchError) as e:
        relay.compose(plan, relay.plan_bmmc(perm, 2, 0, np.complex64))
    assert e.value.message and e.value.status == "RELAY_ERR_MISMATCH"
    with pytest.raises(relay.UnsupportedError):
        relay.concat(plan, plan)


def test_bmmc_refusals():
    with pytest.raises(relay.ArgumentError, match="singular"):
        relay.plan_bmmc(BMMC(2, (1, 1)), 1, 0)
    with pytest.raises(relay.ArgumentError, match="singular"):
        BMMC(2, (3, 3)).inverse()
    with pytest.raises(relay.ArgumentError):
        relay.plan_bmmc(BMMC(2, (1, 6)), 1, 0)       # bits beyond n
    with pytest.raises(relay.ArgumentError):
        relay.plan_bmmc(BMMC(2, (1, 2), 8), 1, 0)    # complement beyond n
    with pytest.raises(relay.ArgumentError):
        relay.plan_bmmc(BMMC.identity(2), 3, 0)      # more ranks than elements
    with pytest.raises(relay.ArgumentError):
        relay.plan_bmmc(BMMC.identity(4), 2, 3)      # f > n - p
    with pytest.raises(relay.ArgumentError):
        relay.plan_bmmc(BMMC.identity(4), 1, 0, np.dtype([]))  # elements of 0 bytes
    with pytest.raises(relay.ArgumentError):
        BMMC.identity(2).then(BMMC.identity(3))
    for bad in (0, 63):
        with pytest.raises(relay.ArgumentError):
            BMMC.identity(bad)
    with pytest.raises(relay.ArgumentError):
        BMMC(3, (1, 2)).apply(0)                     # n columns needed
    with pytest.raises(relay.ArgumentError):
        BMMC.transpose(-1, 2)
    plan = relay.plan_transform(relay.block_cyclic(4, 4, 2, 2, 1, 1), relay.block_cyclic(4, 4, 2, 2, 1, 1))
    with pytest.raises(relay.ArgumentError):
        relay.bmmc_info(plan)


# ---- HSUMMA ---------------------------------------------------------------------------

def parts(length, q):
    """relay/hsumma.h's checkerboard cut: part i starts at i*(L/q) + min(i, L%q)."""
    return [i * (length // q) + min(i, length % q) for i in range(q)] + [length]


def owner_cuts(length, q, dist, nb):
    if dist == "checkerboard":
        return set(parts(length, q))
    return set(range(0, length, nb)) if q > 1 else set()


def steps_reference(k, s, t, b, B, dist, nb):
    """Outer steps: at most B indices of k held by one grid column of A and one
    grid row of B; inner steps: at most b of each outer step."""
    cuts = sorted(owner_cuts(k, t, dist, nb) | owner_cuts(k, s, dist, nb) | set(range(0, k, B)) | {0, k})
    outer = inner = 0
    for lo, hi in zip(cuts, cuts[1:]):
        if hi > lo:
            outer += 1
            inner += -(-(hi - lo) // b)
    return outer, inner


def checkerboard_locate(m, n, s, t, i, j):
    rp, cp = parts(m, s), parts(n, t)
    pr = max(x for x in range(s) if rp[x] <= i and rp[x + 1] > i)
    pc = max(x for x in range(t) if cp[x] <= j and cp[x + 1] > j)
    li, lj = i - rp[pr], j - cp[pc]
    return pr * t + pc, li + lj * (rp[pr + 1] - rp[pr])


HSUMMA_CASES = [
    (20, 12, 16, (2, 2), (1, 2), 4, 8, "checkerboard", 64),
    (7, 9, 13, (2, 3), (2, 3), 2, 5, "checkerboard", 64),
    (30, 30, 1, (3, 1), (1, 1), 1, 1, "checkerboard", 64),
    (5, 5, 0, (1, 1), (1, 1), 3, 3, "checkerboard", 64),
    (20, 12, 16, (2, 2), (2, 1), 2, 5, "block_cyclic", 3),
    (64, 64, 100, (4, 2), (2, 2), 3, 7, "block_cyclic", 5),
]


@pytest.mark.parametrize("m,n,k,grid,groups,b,B,dist,nb", HSUMMA_CASES)
def test_hsumma_plan(m, n, k, grid, groups, b, B, dist, nb):
    plan = relay.plan_hsumma(m, n, k, grid, groups=groups, inner_block=b, outer_block=B, dist=dist, dist_block=nb,
                             dtype=np.complex64)
    s, t = grid
    assert plan.kind == "hsumma" and plan.nranks == s * t
    assert plan.dtype == np.complex64
    info = relay.hsumma_info(plan)
    params = info["params"]
    assert (params.m, params.n, params.k, params.grid, params.groups) == (m, n, k, grid, groups)
    assert (params.inner_block, params.outer_block, params.dist) == (b, B, dist)
    assert params.dtype == np.complex64
    assert info["groups_from"] == "given"
    again = relay.plan_hsumma(params.m, params.n, params.k, params.grid, dtype=params.dtype, groups=params.groups,
                              inner_block=params.inner_block, outer_block=params.outer_block, dist=params.dist,
                              dist_block=params.dist_block, network=params.network)
    assert again.fingerprint == plan.fingerprint, "the parameters hsumma_info reports plan the same plan"
    outer, inner = steps_reference(k, s, t, b, B, dist, nb)
    assert (info["outer_steps"], info["inner_steps"]) == (outer, inner)
    assert plan.rounds == outer + inner
    dump = plan.info()
    assert dump["hsumma"]["outer_steps"] == outer and dump["hsumma"]["group_rows"] == groups[0]
    assert sum(r["send_bytes"] for r in dump["per_rank"]) == plan.stats["bytes_remote"]
    assert sum(r["recv_bytes"] for r in dump["per_rank"]) == plan.stats["bytes_remote"]
    # the operands' layouts: A m x k, B k x n, C m x n, column-major at the local row count
    for which, (rows, cols) in zip("ABC", [(m, k), (k, n), (m, n)]):
        layout = relay.hsumma_layout(plan, which)
        assert layout.shape == (rows, cols) and layout.nranks == s * t and layout.order == "F"
        ref = None if dist == "checkerboard" else BlockCyclicRef(rows, cols, nb, nb, s, t)
        for i in range(rows):
            for j in range(cols):
                want = checkerboard_locate(rows, cols, s, t, i, j) if ref is None else ref.locate(i, j)
                assert layout.locate(i, j) == want, (which, i, j)
        for r in range(s * t):
            elems = layout.local_elems(r)
            got = plan.dst_elems(r) if which == "C" else plan.src_elems(r, "AB".index(which))
            assert got == elems
    assert relay.hsumma_layout(plan, "c").shape == (m, n)


def test_hsumma_groups_from_model_and_bind():
    net = relay.Network(1e-5, 1e-9, "binomial")
    plan = relay.plan_hsumma(256, 256, 256, (4, 4), network=net, inner_block=16, outer_block=16)
    info = relay.hsumma_info(plan)
    assert info["groups_from"] == "model"
    params = relay.HsummaParams(256, 256, 256, (4, 4), inner_block=16, outer_block=16)
    assert info["params"].groups == relay.hsumma_best_groups(params, net)
    assert info["params"].network == net
    open_plan = relay.plan_hsumma(256, 256, 256, (4, 4))
    info = relay.hsumma_info(open_plan)
    assert info["groups_from"] == "at_bind" and info["params"].groups == (0, 0)
    assert open_plan.info()["hsumma"]["group_rows"] == open_plan.info()["hsumma"]["group_cols"] == 0


def bcast_factors(q, model):
    if q <= 1:
        return 0.0, 0.0
    if model == "binomial":           # Table I: L = W = log2 q
        return math.log2(q), math.log2(q)
    return math.log2(q) + q - 1, 2 * (q - 1) / q   # Table II: Van de Geijn


def model_reference(m, n, k, s, t, I, J, b, B, es, alpha, beta, bcast):
    """Per outer step A's panel (m/s x B) over J ranks and B's (B x n/t) over I;
    per inner step over t/J and s/I ranks with b in place of B."""
    lat = bw = 0.0
    for steps, blk, qa, qb in ((k / B, B, J, I), (k / b, b, t // J, s // I)):
        la, wa = bcast_factors(qa, bcast)
        lb, wb = bcast_factors(qb, bcast)
        lat += steps * (la + lb) * alpha
        bw += steps * (wa * (m / s) * blk + wb * blk * (n / t)) * es * beta
    return lat + bw, lat, bw


@pytest.mark.parametrize("bcast", ["binomial", "vdg"])
@pytest.mark.parametrize("m,n,k,s,t,b,B,dtype", [
    (256, 256, 256, 4, 4, 16, 16, np.float64),
    (256, 256, 256, 4, 4, 16, 32, np.float32),
    (128, 256, 512, 2, 4, 8, 8, np.complex128),
])
def test_hsumma_model_and_best_groups(bcast, m, n, k, s, t, b, B, dtype):
    net = relay.Network(2e-5, 3e-9, bcast)
    params = relay.HsummaParams(m, n, k, (s, t), dtype=dtype, inner_block=b, outer_block=B)
    es = np.dtype(dtype).itemsize
    costs = {}
    for I in [d for d in range(1, s + 1) if s % d == 0]:
        for J in [d for d in range(1, t + 1) if t % d == 0]:
            got = relay.hsumma_model(params, (I, J), net)
            want = model_reference(m, n, k, s, t, I, J, b, B, es, net.alpha, net.beta, bcast)
            assert got == pytest.approx(want, rel=1e-9), (I, J)
            costs[(I, J)] = got[0]
    best = relay.hsumma_best_groups(params, net)
    assert costs[best] == pytest.approx(min(costs.values()), rel=1e-12)
    ties = [g for g, c in costs.items() if c <= min(costs.values()) * (1 + 1e-12)]
    assert best[0] * best[1] == min(g[0] * g[1] for g in ties)  # ties go to fewer groups


def test_hsumma_refusals():
    for kw in [dict(groups=(3, 1)), dict(inner_block=8, outer_block=4), dict(dist="cyclic"),
               dict(network=relay.Network(1e-6, 1e-9, "tree")), dict(dtype=np.int64)]:
        with pytest.raises(relay.ArgumentError) as e:
            relay.plan_hsumma(20, 12, 16, (2, 2), **kw)
        assert e.value.message and e.value.status == "RELAY_ERR_ARG"
    with pytest.raises(relay.ArgumentError):
        relay.plan_hsumma(-1, 12, 16, (2, 2))
    with pytest.raises(relay.ArgumentError):
        relay.plan_hsumma(20, 12, 16, (0, 2))
    params = relay.HsummaParams(64, 64, 64, (4, 4))
    with pytest.raises(relay.ArgumentError):
        relay.hsumma_model(params, (3, 2), relay.Network(1e-5, 1e-9))
    with pytest.raises(relay.ArgumentError):
        relay.hsumma_model(params, (2, 2), relay.Network(-1.0, 1e-9))
    plan = relay.plan_hsumma(20, 12, 16, (2, 2), groups=(1, 1))
    for which in ("D", "AB", "", 1, None):
        with pytest.raises(relay.ArgumentError):
            relay.hsumma_layout(plan, which)
    with pytest.raises(relay.ArgumentError):
        plan.src_elems(0, 2)
    with pytest.raises(relay.ArgumentError):
        plan.dst_layout()
    for algebra in (lambda: relay.invert(plan), lambda: relay.compose(plan, plan), lambda: relay.concat(plan, plan)):
        with pytest.raises(relay.UnsupportedError) as e:
            algebra()
        assert e.value.status == "RELAY_ERR_UNSUPPORTED"
    with pytest.raises(relay.ArgumentError):
        relay.hsumma_info(relay.plan_bmmc(BMMC.identity(3), 1, 2))
