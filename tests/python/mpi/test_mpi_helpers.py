"""relay's array helpers (empty_local, zeros_local, fill_local, local_view,
check_local, expected_local) inside a job, cross-checked against this
suite's own index arithmetic: buffers filled by relay and checked here, and
the other way round."""

from __future__ import annotations

import numpy as np
import pytest

import relay
from relay_mpi_support import (DTYPES, OPS, apply_op, check_local_buffer, make_local, numroc, plan_t,
                               random_layout_2d, random_nd, random_perm, scalars, tol, values)


def positions(layout, rank, x):
    """A 2-D local buffer as its storage positions (ScaLAPACK's, for a
    block-cyclic layout's local array), as global_indices numbers them."""
    return x.reshape(-1, order="A")[:layout.local_elems(rank)]


def storage_shape(layout, desc, rank):
    """The local array's shape, from this suite's own reference: ScaLAPACK's
    (lld, LOCc) for block-cyclic layouts (row-major: (LOCr, lld)), flat
    for grids."""
    if "mb" not in desc:
        return (layout.local_elems(rank),)
    pr, pc = divmod(rank, desc["npcol"]) if desc["grid_order"] == "R" else divmod(rank, desc["nprow"])[::-1]
    if rank >= desc["nprow"] * desc["npcol"]:
        return (0, 0)
    rows = numroc(desc["m"], desc["mb"], pr, desc["rsrc"], desc["nprow"])
    cols = numroc(desc["n"], desc["nb"], pc, desc["csrc"], desc["npcol"])
    if not rows or not cols:
        return (0, 0)
    ld = desc["lld"] or max(1, rows if desc["order"] == "F" else cols)
    return (ld, cols) if desc["order"] == "F" else (rows, ld)


@pytest.mark.parametrize("dtype", [np.float32, np.complex128], ids=lambda d: np.dtype(d).name)
def test_helpers_2d(comm, chk, dtype):
    rng = np.random.default_rng(6000)
    rank = comm.rank
    for case in range(6):
        op = OPS[case % 3]
        m, n = int(rng.integers(1, 20)), int(rng.integers(1, 20))
        dst, _ = random_layout_2d(rng, m, n, comm.size)
        src, src_desc = random_layout_2d(rng, *((m, n) if op == "N" else (n, m)), comm.size)
        plan = plan_t(comm, dst, src, op=op, dtype=dtype)
        alpha, beta = scalars(dtype, case)
        fb = lambda i, j: values(dtype, case, i, j)
        fa = lambda i, j: values(dtype, case + 1, i, j)
        want = lambda i, j: alpha * (np.conj(fb(j, i)) if op == "C" else fb(j, i) if op == "T" else fb(i, j)) \
            + beta * fa(i, j)
        what = f"2-D helpers case {case} op {op}"
        with chk.local(what):
            b = relay.empty_local(src, rank, dtype)
            chk.check(b.dtype == np.dtype(dtype) and b.shape == storage_shape(src, src_desc, rank),
                      f"{what}: empty_local {b.shape}")
            relay.fill_local(src, rank, b, fb)
            mine = make_local(src, rank, fb(*np.indices(src.shape, sparse=True)), dtype)
            held = src.global_indices(rank)[0] >= 0
            chk.close(positions(src, rank, b)[held], mine[held], f"{what}: fill_local vs global_indices")
            a = relay.zeros_local(dst, rank, dtype)
            chk.check(not a.any(), f"{what}: zeros_local is not zero")
            relay.fill_local(dst, rank, a, fa)
        chk.agree(what)
        with relay.Executor(plan, comm) as ex:
            ex.run(a, b, alpha, beta)
        with chk.local(what):
            relay.check_local(dst, rank, a, want, **tol(dtype))
            flat = positions(dst, rank, a)
            check_local_buffer(chk, dst, rank, np.where(dst.global_indices(rank)[0] >= 0, flat, -777.0).astype(dtype),
                               want(*np.indices(dst.shape, sparse=True)), f"{what}: result", dtype)
            exp, held = relay.expected_local(dst, rank, want, dtype)
            got = flat if exp.ndim == 1 else relay.local_view(dst, rank, a)
            chk.close(got[held], exp[held], f"{what}: expected_local", **tol(dtype))
            if held.any():  # check_local must catch one wrong element
                spoilt = a.copy(order="K")
                positions(dst, rank, spoilt)[np.flatnonzero(dst.global_indices(rank)[0] >= 0)[-1]] += 1
                chk.raises(AssertionError, relay.check_local, dst, rank, spoilt, want, words=["expected"],
                           what=f"{what}: check_local of a spoilt buffer")
        chk.agree(what)


def test_helpers_nd(comm, chk):
    rng = np.random.default_rng(6100)
    rank = comm.rank
    for case in range(8):
        op = OPS[case % 3]
        dtype = DTYPES[case % 4]
        ndim = int(rng.integers(1, 4))
        bshape = tuple(int(x) for x in rng.integers(1, 7, size=ndim))
        perm = random_perm(rng, ndim, op)
        ashape = tuple(np.transpose(np.empty(bshape), perm).shape) if op != "N" else bshape
        src = random_nd(rng, bshape, comm.size, allow_partial=case % 2 == 0, padded=case % 3 == 0)
        dst = random_nd(rng, ashape, comm.size, padded=case % 3 == 1)
        plan = relay.plan_nd(dst, src, op=op, perm=perm, dtype=dtype, nranks=comm.size)
        alpha, _ = scalars(dtype, case)
        fb = lambda *idx: values(dtype, case, *idx)
        B = fb(*np.indices(bshape, sparse=True))
        Awant = alpha * apply_op(B, op, perm)
        what = f"N-D helpers case {case} op {op} perm {perm}"
        with chk.local(what):
            b = relay.empty_local(src, rank, dtype)
            chk.check(b.shape == src.storage_shape(rank) and b.size == src.local_elems(rank)
                      and (b.flags.f_contiguous if src.order == "F" else b.flags.c_contiguous),
                      f"{what}: empty_local {b.shape} {b.flags}")
            relay.fill_local(src, rank, b, fb)
            view = relay.local_view(src, rank, b)
            chk.check(view.shape == src.local_shape(rank), f"{what}: local_view shape {view.shape}")
            a = relay.empty_local(dst, rank, dtype)
            a[...] = np.nan            # beta None: never read
        chk.agree(what)
        with relay.Executor(plan, comm) as ex:
            ex.run(a, b, alpha)
        with chk.local(what):
            want_f = lambda *idx: Awant[np.ix_(*[np.ravel(i) for i in idx])].reshape(
                np.broadcast_shapes(*(np.shape(i) for i in idx)))
            relay.check_local(dst, rank, a, want_f, **tol(dtype))
            # this suite's own check, the padding aside (empty_local leaves it as it was: NaN here)
            a2 = a.copy(order="K")
            pad = np.ones(a2.shape, bool)
            pad[tuple(slice(0, e) for e in dst.local_shape(rank))] = False
            a2[pad] = -777.0
            check_local_buffer(chk, dst, rank, a2, Awant, f"{what}: result", dtype, locate_samples=3)
        chk.agree(what)
