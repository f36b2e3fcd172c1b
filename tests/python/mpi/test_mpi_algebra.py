"""Plans from plans, replayed: compose(p1, p2) equals replaying p1 then p2;
invert(p) brings the data back; concat(x, y) moves both pairs at once."""

from __future__ import annotations

import numpy as np
import pytest

import relay
from relay_mpi_support import (DTYPES, OPS, SENTINEL, apply_op, check_2d, global_array, is_complex, local_2d,
                               op_scalar, plan_t, random_layout_2d, run_transform, scalars, tol)


def shape_for(op, m, n):
    return (m, n) if op == "N" else (n, m)


def replay(comm, plan, dst, src, alpha=None, beta=None):
    with relay.Executor(plan, comm) as ex:
        ex.run(dst, src, alpha, beta)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_compose_equals_two_replays(comm, chk, dtype):
    rng = np.random.default_rng(3000 + DTYPES.index(dtype))
    rank = comm.rank
    case = 0
    for op1 in OPS:
        for op2 in OPS:
            if is_complex(dtype) and {op1, op2} == {"T", "C"}:
                continue  # conjugation without a transpose: unsupported for complex (tested below)
            m, n = int(rng.integers(2, 25)), int(rng.integers(2, 25))
            l0, _ = random_layout_2d(rng, *shape_for(op1, m, n), comm.size)  # B
            l1, _ = random_layout_2d(rng, m, n, comm.size)                   # A1 = op1(B): m x n
            relabel = ["none", "greedy", "optimal"][case % 3]
            p1 = plan_t(comm, l1, l0, op=op1, dtype=dtype, relabel=relabel)
            mid = p1.dst_layout()
            l2, _ = random_layout_2d(rng, *shape_for(op2, m, n), comm.size)  # A2 = op2(A1)
            p2 = plan_t(comm, l2, mid, op=op2, dtype=dtype, relabel=["none", "optimal"][case % 2])
            c = relay.compose(p1, p2)
            a1, b1 = scalars(dtype, case)
            a2, b2 = scalars(dtype, case + 1)
            what = f"compose {op1} then {op2} ({relabel})"
            with chk.local(what):
                chk.check(c.kind == "transform" and c.nranks == comm.size and c.dtype == np.dtype(dtype), repr(c))
                chk.check(c.dst_elems(rank) == p2.dst_elems(rank), f"{what}: dst_elems {c.dst_elems(rank)} vs "
                          f"second's {p2.dst_elems(rank)}")
                B = global_array(l0.shape, dtype, case)
                A2old = global_array(l2.shape, dtype, case + 100)
                b = local_2d(l0, rank, B, dtype)
                a_mid = np.full(p1.dst_elems(rank), SENTINEL, dtype)
                a_two = local_2d(p2.dst_layout(), rank, A2old, dtype)
                a_one = a_two.copy()
            chk.agree(what)
            replay(comm, p1, a_mid, b, a1, None)          # A1 = a1 op1(B)
            replay(comm, p2, a_two, a_mid, a2, b2)        # A2 = a2 op2(A1) + b2 A2
            alpha = a2 * op_scalar(a1, op2)
            replay(comm, c, a_one, b, alpha, b2)          # straight from B
            with chk.local(what):
                want = a2 * apply_op(a1 * apply_op(B, op1), op2) + b2 * A2old
                check_2d(chk, c.dst_layout(), rank, a_one, want, f"{what}: composed", **tol(dtype))
                check_2d(chk, p2.dst_layout(), rank, a_two, want, f"{what}: two replays", **tol(dtype))
                chk.close(a_one, a_two, f"{what}: composed vs two replays", **tol(dtype))
            chk.agree(what)
            case += 1


def test_compose_refusals(comm, chk):
    size = comm.size
    l = relay.block_cyclic(6, 6, 2, 2, 1, size)
    p1 = plan_t(comm, l, l, op="T", dtype=np.complex128)
    p2 = plan_t(comm, l, p1.dst_layout(), op="C", dtype=np.complex128)
    chk.raises(relay.UnsupportedError, relay.compose, p1, p2, what="complex T then C")
    other = relay.block_cyclic(6, 6, 3, 3, size, 1)
    p3 = plan_t(comm, l, other, dtype=np.complex128)
    chk.raises(relay.MismatchError, relay.compose, p1, p3, what="second's source is not first's destination")
    chk.agree()


@pytest.mark.parametrize("dtype", [np.float32, np.complex128], ids=lambda d: np.dtype(d).name)
def test_invert_brings_data_back(comm, chk, dtype):
    rng = np.random.default_rng(3100)
    rank = comm.rank
    for case, op in enumerate(OPS * 2):
        m, n = int(rng.integers(2, 25)), int(rng.integers(2, 25))
        src, _ = random_layout_2d(rng, *shape_for(op, m, n), comm.size)
        dst, _ = random_layout_2d(rng, m, n, comm.size)
        p = plan_t(comm, dst, src, op=op, dtype=dtype, relabel="optimal" if case >= 3 else "none")
        inv = relay.invert(p)
        what = f"invert op {op} case {case}"
        with chk.local(what):
            back = inv.dst_layout()
            chk.check(back.shape == src.shape, f"{what}: inverse delivers {back.shape}, B is {src.shape}")
            chk.check(inv.src_elems(rank) == p.dst_elems(rank), f"{what}: inverse reads {inv.src_elems(rank)}, "
                      f"the plan delivers {p.dst_elems(rank)}")
            B = global_array(src.shape, dtype, case)
            b = local_2d(src, rank, B, dtype)
            a = np.full(p.dst_elems(rank), SENTINEL, dtype)
            b2 = np.full(inv.dst_elems(rank), SENTINEL, dtype)
        chk.agree(what)
        replay(comm, p, a, b)
        replay(comm, inv, b2, a)
        with chk.local(what):
            check_2d(chk, back, rank, b2, B, f"{what}: round trip", **tol(dtype))
            # the inverse's destination stores B where the source layout does
            for (i, j) in [(0, 0), (B.shape[0] - 1, B.shape[1] - 1)]:
                chk.check(back.locate(i, j) == src.locate(i, j), f"{what}: ({i},{j}) at {back.locate(i, j)}, "
                          f"B's layout has it at {src.locate(i, j)}")
        chk.agree(what)
        # composing with the inverse moves nothing between ranks
        ident = relay.compose(p, inv)
        chk.check(ident.stats["bytes_remote"] == 0, f"{what}: plan then inverse moves {ident.stats['bytes_remote']} "
                  "remote bytes")
        run_transform(comm, chk, ident, [ident.dst_layout()], [src], ["N"], dtype, alpha=scalars(dtype)[0],
                      seed=case, what=f"{what}: composed with its inverse")


def test_concat_is_a_batch(comm, chk):
    rng = np.random.default_rng(3200)
    for case in range(4):
        dtype = DTYPES[case]
        ops = [OPS[case % 3], OPS[(case + 1) % 3]]
        m, n = int(rng.integers(2, 25)), int(rng.integers(2, 25))
        pairs = []
        for op in ops:
            src, _ = random_layout_2d(rng, *shape_for(op, m, n), comm.size)
            dst, _ = random_layout_2d(rng, m, n, comm.size)
            pairs.append((dst, src, op))
        x = plan_t(comm, pairs[0][0], pairs[0][1], op=ops[0], dtype=dtype)
        y = plan_t(comm, pairs[1][0], pairs[1][1], op=ops[1], dtype=dtype, relabel="greedy" if case % 2 else "none")
        z = relay.concat(x, y)
        chk.check(z.count == 2, f"concat count {z.count}")
        alpha, beta = scalars(dtype, case)
        run_transform(comm, chk, z, [pairs[0][0], y.dst_layout()], [pairs[0][1], pairs[1][1]], ops, dtype, alpha=alpha,
                      beta=beta, seed=case, mode="split" if case % 2 else "run", what=f"concat case {case}")
    chk.raises(relay.MismatchError, relay.concat, x, plan_t(comm, pairs[0][0], pairs[0][1], op=ops[0],
                                                             dtype=np.float32 if dtype != np.float32 else np.float64),
               what="concat of two element types")
    chk.agree()
