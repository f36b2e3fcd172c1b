"""N-D transforms A := alpha permute(B) + beta A between arrays on process
meshes: Shard (even, block-cyclic, uneven splits), Replicate and Partial
sources, C and F order, padded storage, different meshes and rank subsets,
every op and dtype, batches; checked against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import relay
from relay_mpi_support import DTYPES, OPS, random_nd, random_perm, run_transform, scalars


def random_nd_pair(rng, nranks, op, *, partial=None):
    ndim = int(rng.integers(1, 4))
    bshape = tuple(int(x) for x in rng.integers(1, 8, size=ndim))
    perm = random_perm(rng, ndim, op)
    ashape = tuple(np.transpose(np.empty(bshape), perm).shape) if op != "N" else bshape
    src = random_nd(rng, bshape, nranks, allow_partial=partial if partial is not None else rng.random() < 0.4)
    dst = random_nd(rng, ashape, nranks)
    return dst, src, perm


def describe(l):
    return (f"{l.shape} mesh {l.mesh} ranks {list(l.ranks)} {[type(p).__name__ + str(getattr(p, 'dim', '')) for p in l.placements]}"
            f" {l.order} padded {l.padded}")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_random_nd_layouts(comm, chk, dtype):
    rng = np.random.default_rng(2000 + DTYPES.index(dtype))
    for case in range(48):
        op = OPS[case % 3]
        dst, src, perm = random_nd_pair(rng, comm.size, op)
        plan = relay.plan_nd(dst, src, op=op, perm=perm, dtype=dtype, nranks=comm.size)
        with chk.local(f"case {case}: plan facts"):
            chk.check(plan.kind == "nd" and plan.nranks == comm.size and plan.dtype == np.dtype(dtype), repr(plan))
            want_perm = tuple(perm) if perm is not None else (tuple(range(dst.ndim))[::-1] if op != "N"
                                                              else tuple(range(dst.ndim)))
            chk.check(plan.perm() == want_perm, f"case {case}: plan.perm() {plan.perm()}, expected {want_perm}")
        alpha, beta = scalars(dtype, case)
        if case % 5 == 4:
            alpha, beta = None, None
        nan_dst = case % 4 == 1  # NaN in A with beta 0 must not leak
        if nan_dst:
            beta = 0.0 if case % 8 == 1 else None
        run_transform(comm, chk, plan, [dst], [src], [op], dtype, alpha=alpha, beta=beta, perms=[perm], seed=case,
                      mode="split" if case % 2 else "run", none_for_empty=case % 3 == 0, nan_dst=nan_dst,
                      locate_samples=5 if case < 3 else 0,
                      what=f"case {case} op {op} perm {perm}: A {describe(dst)} <- B {describe(src)}")


def test_placements_one_by_one(comm, chk):
    """Each placement style on its own, between two fixed meshes."""
    size = comm.size
    shape = (7, 5, 3)
    ranks = list(range(size))
    meshes = [(size,), (1, size)] + ([(2, size // 2)] if size % 2 == 0 and size > 2 else [])
    styles = [relay.Shard(0), relay.Shard(1, block=2), relay.Shard(2, splits=None), relay.Replicate(),
              relay.Shard(0, splits=[0] + [min(7, 3 * k) for k in range(1, size)] + [7])]
    case = 0
    for mesh in meshes:
        for style in styles:
            if len(mesh) == 1:
                places = [style]
            else:
                other = relay.Shard(2) if not (isinstance(style, relay.Shard) and style.dim == 2) else relay.Shard(1)
                places = [other, style] if mesh[0] == 1 else [style, other]
                if getattr(style, "splits", None) is not None and mesh[places.index(style)] != size:
                    continue
            for order in "CF":
                src = relay.NDLayout(shape, mesh, places, ranks=ranks[::-1] if case % 2 else ranks, order=order)
                dst = relay.NDLayout(shape[::-1], (size,), [relay.Shard(case % 3)], order="FC"[case % 2])
                plan = relay.plan_nd(dst, src, op="T", nranks=size)
                run_transform(comm, chk, plan, [dst], [src], ["T"], np.float64, alpha=2.0, beta=1.0, seed=case,
                              what=f"style {style} mesh {mesh} order {order}")
                case += 1


@pytest.mark.parametrize("dtype", [np.float64, np.complex64], ids=lambda d: np.dtype(d).name)
def test_partial_sources_and_replicated_destinations(comm, chk, dtype):
    """Partial pieces sum into the destination; replicated destinations get
    every element on every replica, directly or forwarded."""
    rng = np.random.default_rng(2100)
    size = comm.size
    for case in range(6):
        op = OPS[case % 3]
        shape = tuple(int(x) for x in rng.integers(2, 7, size=2))
        mesh = (size,) if case % 2 else ((2, size // 2) if size % 2 == 0 else (1, size))
        places = [relay.Partial()] + [relay.Shard(int(rng.integers(2)))] * (len(mesh) - 1)
        src = relay.NDLayout(shape, mesh, places, order="CF"[case % 2])
        ashape = shape[::-1] if op != "N" else shape
        dmesh = (size,) if case % 3 else (1, size)
        dst = relay.NDLayout(ashape, dmesh, [relay.Replicate()] * len(dmesh), ranks=list(range(size))[::-1])
        for replicas in ("direct", "forward", "auto"):
            plan = relay.plan_nd(dst, src, op=op, dtype=dtype, replicas=replicas, nranks=size)
            alpha, beta = scalars(dtype, case)
            run_transform(comm, chk, plan, [dst], [src], [op], dtype, alpha=alpha, beta=beta, seed=case,
                          what=f"partial case {case} {replicas}: {describe(dst)} <- {describe(src)}")


def test_disjoint_and_overlapping_rank_subsets(comm, chk):
    size = comm.size
    rng = np.random.default_rng(2200)
    subsets = [([0], [size - 1]), (list(range(size)), [0]), ([size - 1], list(range(size))[::-1])]
    if size >= 4:
        subsets += [([0, 1], [2, 3]), ([3, 1], [0, 2, 1, 3])]
    for case, (dr, sr) in enumerate(subsets):
        shape = (5, 6)
        src = relay.NDLayout(shape, len(sr), [relay.Shard(case % 2, block=int(rng.integers(1, 4)))], ranks=sr,
                             order="F")
        dst = relay.NDLayout(shape[::-1], len(dr), [relay.Shard((case + 1) % 2)], ranks=dr,
                             padded=[7, 0] if case % 2 else None)
        plan = relay.plan_nd(dst, src, op="C", dtype=np.complex128, nranks=size)
        run_transform(comm, chk, plan, [dst], [src], ["C"], np.complex128, alpha=2j, beta=-1.0, seed=case,
                      none_for_empty=True, what=f"subsets {dr} <- {sr}")


def test_nd_batches(comm, chk):
    rng = np.random.default_rng(2300)
    for case in range(3):
        count = case + 2
        ops = [OPS[int(rng.integers(3))] for _ in range(count)]
        pairs = [random_nd_pair(rng, comm.size, op) for op in ops]
        dsts, srcs, perms = [p[0] for p in pairs], [p[1] for p in pairs], [p[2] for p in pairs]
        plan = relay.plan_nd(dsts, srcs, op=ops, perm=perms, dtype=np.complex128, nranks=comm.size)
        chk.check(plan.count == count, f"count {plan.count}")
        alpha, beta = scalars(np.complex128, case)
        run_transform(comm, chk, plan, dsts, srcs, ops, np.complex128, alpha=alpha, beta=beta, perms=perms,
                      seed=7 * case, mode="split" if case == 1 else "run", what=f"nd batch {case} ops {ops}")
