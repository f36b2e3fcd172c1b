"""Shared helpers of the MPI tests of the package relay (tests/python/mpi).

Everything here is independent of relay's own helpers (relay.fill_local,
relay.check_local): the global arrays are built in numpy from functions of
the indices, the expected result is computed in numpy, and each rank's local
buffer is compared through the layout's global_indices (and, at some
positions, locate), so that the tests can catch a wrong replay and a wrong
index helper alike.

Random layouts come from numpy's default_rng with fixed seeds.  They depend
on the seed and the communicator's size only, never on the rank, so that
every rank builds the same layouts and plans.
"""

from __future__ import annotations

import math
import pathlib
import sys
import traceback
from contextlib import contextmanager

import numpy as np
import pytest

import relay

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from scalapack_reference import numroc  # noqa: E402,F401  - the suites' shared ScaLAPACK reference

DTYPES = (np.float32, np.float64, np.complex64, np.complex128)
OPS = ("N", "T", "C")
SENTINEL = -777.0  # where a buffer position holds no element: must stay untouched


# ---- collective pass/fail ---------------------------------------------------------


class Checker:
    """Collects a rank's local failures; :meth:`agree` (collective) fails the
    test on every rank when any rank recorded one, with every rank's words."""

    def __init__(self, comm):
        self.comm = comm
        self.errors: list[str] = []

    def check(self, cond, msg) -> bool:
        if not cond:
            self.errors.append(msg() if callable(msg) else str(msg))
        return bool(cond)

    @contextmanager
    def local(self, what: str = ""):
        """Runs local code (no collective calls inside); an exception is
        recorded instead of leaving the other ranks hanging."""
        try:
            yield
        except Exception as e:  # noqa: BLE001 - recorded, reported collectively
            tb = traceback.format_exc(limit=4)
            self.errors.append(f"{what}: {type(e).__name__}: {e}\n{tb}")

    def raises(self, cls, fn, *args, words=(), what="", **kwargs):
        """Calls fn, which must raise cls (local, or collective when fn is
        collective: then every rank calls it).  Returns the exception or None."""
        try:
            fn(*args, **kwargs)
        except cls as e:
            text = str(e)
            for w in words:
                self.check(str(w) in text, f"{what}: message {text!r} lacks {w!r}")
            return e
        except Exception as e:  # noqa: BLE001
            self.errors.append(f"{what}: expected {cls.__name__}, got {type(e).__name__}: {e}")
            return None
        self.errors.append(f"{what}: expected {cls.__name__}, nothing was raised")
        return None

    def close(self, got, want, what, rtol=0.0, atol=0.0) -> bool:
        got, want = np.asarray(got), np.asarray(want)
        if got.shape != want.shape:
            return self.check(False, f"{what}: shape {got.shape}, expected {want.shape}")
        ok = np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=False)
        if ok.all():
            return True
        bad = np.argwhere(~ok) if got.ndim else np.zeros((1, 0), int)
        first = tuple(int(x) for x in bad[0])
        self.errors.append(f"{what}: {int((~ok).sum())} of {ok.size} differ; first at {first}: "
                           f"got {got[first]!r}, expected {want[first]!r}")
        return False

    def agree(self, what: str = "") -> None:
        """Collective: fails on every rank if any rank recorded a failure."""
        mine = self.errors[:12]
        self.errors = []
        everyone = self.comm.allgather(mine)
        lines = [f"rank {r}: {m}" for r, errs in enumerate(everyone) for m in errs]
        if lines:
            pytest.fail((what + ":\n" if what else "") + "\n".join(lines), pytrace=False)


def collective_skip(comm, cond: bool, reason: str) -> None:
    """Skips on every rank when cond holds (cond must be the same on every rank)."""
    flags = comm.allgather(bool(cond))
    assert len(set(flags)) == 1, f"ranks disagree on whether to skip: {flags}"
    if flags[0]:
        pytest.skip(reason)


# ---- values ------------------------------------------------------------------------


def tol(dtype) -> dict:
    single = np.dtype(dtype) in (np.dtype(np.float32), np.dtype(np.complex64))
    return dict(rtol=2e-5, atol=1e-3) if single else dict(rtol=1e-12, atol=1e-9)


def is_complex(dtype) -> bool:
    return np.issubdtype(np.dtype(dtype), np.complexfloating)


def scalars(dtype, which: int = 0):
    """(alpha, beta) of the dtype's kind: small binary fractions, exact in float32."""
    if is_complex(dtype):
        return [(1.5 - 0.5j, 0.25 + 1.0j), (-2.0 + 1.0j, 0.5 - 0.5j), (1.0, 0.0)][which % 3]
    return [(1.5, -0.5), (-2.0, 0.25), (1.0, 0.0)][which % 3]


def values(dtype, seed, *idx):
    """A global array's values at broadcastable integer indices: small
    integers (complex ones with an imaginary part), distinct enough to catch
    any misplaced element, exact in every dtype."""
    v = np.zeros(np.broadcast_shapes(*(np.shape(i) for i in idx)), np.int64) + (seed * 7919) % 211
    for k, i in enumerate(idx):
        v = v + np.asarray(i, np.int64) * (31 + 17 * k + seed % 13) ** (k + 1)
    re = (v % 2003).astype(np.float64) - 1000.0
    if is_complex(dtype):
        im = ((v * 7 + 3) % 997).astype(np.float64) - 500.0
        return (re + 1j * im).astype(dtype)
    return re.astype(dtype)


def global_array(shape, dtype, seed) -> np.ndarray:
    return values(dtype, seed, *np.indices(shape, sparse=True)) if all(shape) else np.zeros(shape, dtype)


def apply_op(b: np.ndarray, op: str, perm=None) -> np.ndarray:
    if op == "N":
        return b
    t = np.transpose(b, perm)
    return np.conj(t) if op == "C" else t


def op_scalar(x, op):
    return np.conj(x) if op == "C" else x


# ---- 2-D layouts: local buffers and checks --------------------------------------


def local_2d(layout: relay.Layout, rank: int, global_values: np.ndarray, dtype) -> np.ndarray:
    """Rank's buffer for a 2-D layout: the global array's elements where the
    rank holds them (from global_indices), SENTINEL in the gaps."""
    rows, cols = layout.global_indices(rank)
    buf = np.full(rows.shape, SENTINEL, dtype)
    held = rows >= 0
    buf[held] = global_values[rows[held], cols[held]]
    return buf


def check_2d(chk: Checker, layout: relay.Layout, rank: int, buf: np.ndarray, want_global: np.ndarray, what,
             rtol=0.0, atol=0.0, locate_samples: int = 0, rng=None) -> None:
    rows, cols = layout.global_indices(rank)
    held = rows >= 0
    chk.check(buf.size >= rows.size, f"{what}: buffer of {buf.size} for {rows.size} positions")
    flat = buf.reshape(-1)[: rows.size]
    chk.close(flat[held], want_global[rows[held], cols[held]], f"{what} (held elements)", rtol, atol)
    gaps = flat[~held]
    chk.check(np.all(gaps == np.asarray(SENTINEL, buf.dtype)), f"{what}: {int(np.sum(gaps != SENTINEL))} gap "
              "positions (holding no element) were written")
    # every held element's global index must locate back to (rank, position)
    if locate_samples and held.any():
        pos = np.flatnonzero(held)
        pick = pos if rng is None else rng.choice(pos, min(locate_samples, pos.size), replace=False)
        for p in pick[:locate_samples]:
            where = layout.locate(int(rows[p]), int(cols[p]))
            chk.check(tuple(where) == (rank, int(p)), f"{what}: locate{(int(rows[p]), int(cols[p]))} = {where}, "
                      f"but global_indices puts it at rank {rank} position {int(p)}")


# ---- N-D layouts: local buffers and checks ---------------------------------------


def nd_piece(layout: relay.NDLayout, rank: int) -> tuple[int, int]:
    """(piece, pieces) along the Partial mesh dimensions, computed here from
    the layout's mesh, ranks and placements."""
    ranks = list(layout.ranks)
    mesh = layout.mesh
    pieces = math.prod(s for s, p in zip(mesh, layout.placements) if isinstance(p, relay.Partial))
    if rank not in ranks:
        return 0, pieces
    coords = np.unravel_index(ranks.index(rank), mesh)
    piece = 0
    for c, s, p in zip(coords, mesh, layout.placements):
        if isinstance(p, relay.Partial):
            piece = piece * s + int(c)
    return piece, pieces


def local_nd(layout: relay.NDLayout, rank: int, global_values: np.ndarray, dtype, partial_seed: int = 0):
    """Rank's storage for an N-D layout (padded extents, layout order),
    SENTINEL in the padding; Partial pieces split the values so that they
    sum to the global array (piece q < last holds other integers, the last
    the rest)."""
    storage = np.full(layout.storage_shape(rank), SENTINEL, dtype, order=layout.order)
    local = layout.local_shape(rank)
    if not all(local) or rank not in layout.ranks:
        return storage
    idx = layout.global_indices(rank)
    view = storage[tuple(slice(0, e) for e in local)]
    full = global_values[np.ix_(*idx)]
    piece, pieces = nd_piece(layout, rank)
    if pieces > 1:
        parts = [values(dtype, partial_seed + 101 + q, *np.ix_(*idx)) for q in range(pieces - 1)]
        view[...] = parts[piece] if piece < pieces - 1 else full - sum(parts)
    else:
        view[...] = full
    return storage


def check_nd(chk: Checker, layout: relay.NDLayout, rank: int, storage, want_global: np.ndarray, what,
             rtol=0.0, atol=0.0, locate_samples: int = 0, rng=None) -> None:
    local = layout.local_shape(rank)
    if storage is None:
        chk.check(layout.local_elems(rank) == 0, f"{what}: no buffer but {layout.local_elems(rank)} elements held")
        return
    shape = layout.storage_shape(rank)
    chk.check(storage.shape == tuple(shape), f"{what}: storage shape {storage.shape}, expected {shape}")
    contiguous = storage.flags.f_contiguous if layout.order == "F" else storage.flags.c_contiguous
    chk.check(contiguous, f"{what}: the buffer checked is not stored in the layout's order {layout.order}")
    if not all(local):
        return
    idx = layout.global_indices(rank)
    for k, (ix, e) in enumerate(zip(idx, local)):
        chk.check(len(ix) == e and np.all(np.diff(ix) > 0), f"{what}: dimension {k} indices {ix} are not "
                  f"{e} increasing global indices")
    view = storage[tuple(slice(0, e) for e in local)]
    chk.close(view, want_global[np.ix_(*idx)], f"{what} (held elements)", rtol, atol)
    pad = np.ones(storage.shape, bool)
    pad[tuple(slice(0, e) for e in local)] = False
    chk.check(np.all(storage[pad] == np.asarray(SENTINEL, storage.dtype)),
              f"{what}: {int(np.sum(storage[pad] != SENTINEL))} padding positions were written")
    if locate_samples:
        flat = storage.reshape(-1, order="A")
        n = min(locate_samples, view.size)
        pick = (rng or np.random.default_rng(0)).choice(view.size, n, replace=False)
        for p in pick:
            loc = np.unravel_index(int(p), local)
            g = tuple(int(ix[c]) for ix, c in zip(idx, loc))
            where = layout.locate(rank, g)
            want_pos = int(np.ravel_multi_index(loc, shape, order=layout.order))
            chk.check(where == want_pos, f"{what}: locate({rank}, {g}) = {where}, expected {want_pos}")
            if where is not None:
                chk.close(flat[where], want_global[g], f"{what}: element {g} at locate's position", rtol, atol)


# ---- random 2-D layouts ------------------------------------------------------------


def random_block_cyclic(rng, m, n, nranks, order=None):
    nprow = int(rng.integers(1, nranks + 1))
    npcol = int(rng.integers(1, nranks // nprow + 1))
    mb = int(rng.integers(1, max(1, m) + 1)) if rng.random() < 0.3 else int(rng.integers(1, max(1, m // 2) + 2))
    nb = int(rng.integers(1, max(1, n) + 1)) if rng.random() < 0.3 else int(rng.integers(1, max(1, n // 2) + 2))
    rsrc, csrc = int(rng.integers(nprow)), int(rng.integers(npcol))
    grid_order = "R" if rng.random() < 0.5 else "C"
    order = order or ("F" if rng.random() < 0.5 else "C")
    lld = 0
    if rng.random() < 0.4:
        if order == "F":
            lld = max(numroc(m, mb, p, rsrc, nprow) for p in range(nprow))
        else:
            lld = max(numroc(n, nb, p, csrc, npcol) for p in range(npcol))
        lld = max(1, lld) + int(rng.integers(0, 4))
    desc = dict(m=m, n=n, mb=mb, nb=nb, nprow=nprow, npcol=npcol, grid_order=grid_order, rsrc=rsrc, csrc=csrc,
                lld=lld, order=order)
    return relay.block_cyclic(m, n, mb, nb, nprow, npcol, grid_order=grid_order, rsrc=rsrc, csrc=csrc, lld=lld,
                              order=order), desc


def random_splits(rng, n, most):
    k = int(rng.integers(1, min(n, most) + 1))
    inner = np.sort(rng.choice(np.arange(1, n), k - 1, replace=False)) if k > 1 else np.array([], int)
    return [0] + [int(x) for x in inner] + [n]


def random_grid(rng, m, n, nranks, order=None):
    rs, cs = random_splits(rng, m, 5), random_splits(rng, n, 5)
    nbr, nbc = len(rs) - 1, len(cs) - 1
    owners = rng.integers(0, nranks, size=(nbr, nbc))
    order = order or ("F" if rng.random() < 0.5 else "C")
    offsets = lds = None
    if rng.random() < 0.5:  # explicit placement, with gaps and wide leading dimensions
        offsets = np.zeros((nbr, nbc), np.int64)
        lds = np.zeros((nbr, nbc), np.int64)
        used = [0] * nranks
        for i in rng.permutation(nbr * nbc):
            bi, bj = divmod(int(i), nbc)
            r, c = rs[bi + 1] - rs[bi], cs[bj + 1] - cs[bj]
            o = int(owners[bi, bj])
            ld = (r if order == "F" else c) + int(rng.integers(0, 3))
            off = used[o] + int(rng.integers(0, 3))
            offsets[bi, bj], lds[bi, bj] = off, ld
            used[o] = off + ld * (c if order == "F" else r)
    desc = dict(m=m, n=n, rows=rs, cols=cs, owners=owners.tolist(), placed=offsets is not None, order=order)
    return relay.grid(nranks, rs, cs, owners, offsets=offsets, lds=lds, order=order), desc


def random_layout_2d(rng, m, n, nranks, kind=None):
    kind = kind or ("block_cyclic" if rng.random() < 0.5 else "grid")
    return random_block_cyclic(rng, m, n, nranks) if kind == "block_cyclic" else random_grid(rng, m, n, nranks)


# ---- random N-D layouts --------------------------------------------------------------


def factorizations(k, ndims):
    """Every way to write k as an ordered product of ndims positive factors."""
    if ndims == 1:
        return [(k,)]
    return [(d,) + rest for d in range(1, k + 1) if k % d == 0 for rest in factorizations(k // d, ndims - 1)]


def random_placement(rng, shape, used_dims, p, allow_partial):
    free = [d for d in range(len(shape)) if d not in used_dims]
    roll = rng.random()
    if free and roll < 0.65:
        d = int(rng.choice(free))
        n = shape[d]
        style = rng.integers(3)
        if style == 0:
            return relay.Shard(d)
        if style == 1:
            return relay.Shard(d, block=int(rng.integers(1, max(1, n) + 1)))
        inner = np.sort(rng.integers(0, n + 1, size=p - 1))
        return relay.Shard(d, splits=[0] + [int(x) for x in inner] + [n])
    if allow_partial and roll < 0.85:
        return relay.Partial()
    return relay.Replicate()


def random_nd(rng, shape, nranks, *, allow_partial=False, order=None, padded=None):
    k = int(rng.integers(1, nranks + 1))
    mesh_ndims = int(rng.integers(1, 4))
    mesh = [tuple(int(x) for x in f) for f in factorizations(k, mesh_ndims)]
    mesh = mesh[int(rng.integers(len(mesh)))]
    ranks = [int(x) for x in rng.permutation(nranks)[:k]]
    if rng.random() < 0.4:
        ranks = sorted(ranks)
    used, places = set(), []
    for p in mesh:
        pl = random_placement(rng, shape, used, p, allow_partial)
        if isinstance(pl, relay.Shard):
            used.add(pl.dim)
        places.append(pl)
    order = order or ("C" if rng.random() < 0.5 else "F")
    lay = relay.NDLayout(shape, mesh, places, ranks=ranks, order=order)
    if padded is None:
        padded = rng.random() < 0.3
    if padded:
        most = [max(lay.local_shape(r)[d] for r in range(nranks)) for d in range(len(shape))]
        pad = [0 if rng.random() < 0.3 else m + int(rng.integers(0, 3)) for m in most]
        if any(pad) and all(most):
            lay = relay.NDLayout(shape, mesh, places, ranks=ranks, order=order, padded=pad)
    return lay


def random_perm(rng, ndim, op):
    if op == "N":
        return None
    if rng.random() < 0.3:
        return None  # reverse, numpy's .T
    return [int(x) for x in rng.permutation(ndim)]


# ---- BMMC -----------------------------------------------------------------------------


def gf2_rank(columns, n):
    rows = list(columns)
    rank = 0
    for bit in range(n):
        pivot = next((i for i in range(rank, len(rows)) if rows[i] >> bit & 1), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for i in range(len(rows)):
            if i != rank and rows[i] >> bit & 1:
                rows[i] ^= rows[rank]
        rank += 1
    return rank


def random_bmmc(rng, n):
    while True:
        cols = [int(x) for x in rng.integers(0, 1 << n, size=n)]
        if gf2_rank(cols, n) == n:
            return relay.BMMC(n, tuple(cols), int(rng.integers(0, 1 << n)))


def bmmc_global_index(offsets, rank, p, f):
    o = np.asarray(offsets, np.uint64)
    low = o & np.uint64((1 << f) - 1)
    return low | (np.uint64(rank) << np.uint64(f)) | ((o >> np.uint64(f)) << np.uint64(f + p))


def log2_exact(x):
    return x.bit_length() - 1 if x > 0 and x & (x - 1) == 0 else -1


# ---- one replay, checked against numpy ------------------------------------------------


def make_local(layout, rank, global_values, dtype, partial_seed=0):
    if isinstance(layout, relay.NDLayout):
        return local_nd(layout, rank, global_values, dtype, partial_seed)
    return local_2d(layout, rank, global_values, dtype)


def check_local_buffer(chk, layout, rank, buf, want, what, dtype, locate_samples=0, rng=None):
    if isinstance(layout, relay.NDLayout):
        check_nd(chk, layout, rank, buf, want, what, locate_samples=locate_samples, rng=rng, **tol(dtype))
    else:
        check_2d(chk, layout, rank, buf, want, what, locate_samples=locate_samples, rng=rng, **tol(dtype))


def expected(b_global, a_old, op, alpha, beta, perm=None):
    want = apply_op(b_global, op, perm) * (1 if alpha is None else alpha)
    if beta is not None and beta != 0:
        want = want + beta * a_old
    return want


def run_transform(comm, chk, plan, dsts, srcs, ops, dtype, *, alpha=None, beta=None, seed=0, what="",
                  mode="run", nan_dst=False, perms=None, none_for_empty=False, locate_samples=0, executor=None):
    """Binds plan (unless an executor is given), replays it once over
    buffers built from numpy global arrays and checks every rank's
    destination buffers.  dsts: where A lands (a relabeled plan's
    dst_layout()); srcs: B's layouts; ops and perms per pair.  Collective."""
    rank = comm.rank
    count = len(srcs)
    perms = perms or [None] * count
    with chk.local(f"{what}: preparing buffers"):
        b_globals = [global_array(l.shape, dtype, seed + 3 * k) for k, l in enumerate(srcs)]
        a_olds = [global_array(l.shape, dtype, seed + 3 * k + 1) for k, l in enumerate(dsts)]
        bs = [make_local(l, rank, g, dtype, seed) for l, g in zip(srcs, b_globals)]
        as_ = [make_local(l, rank, g, dtype) for l, g in zip(dsts, a_olds)]
        if nan_dst:
            for a in as_:
                a[...] = np.nan
        wants = [expected(g, old, op, alpha, beta, perm)
                 for g, old, op, perm in zip(b_globals, a_olds, ops, perms)]
        for k, (l, a) in enumerate(zip(dsts, as_)):
            chk.check(a.size == plan.dst_elems(rank, k), f"{what}: dst {k} layout holds {a.size} elements on rank "
                      f"{rank}, the plan says {plan.dst_elems(rank, k)}")
        if none_for_empty:
            bs = [None if b.size == 0 else b for b in bs]
            as_ = [None if a.size == 0 else a for a in as_]
    chk.agree(what)
    ex = executor or relay.Executor(plan, comm)
    try:
        dst_arg = as_[0] if count == 1 and rank % 2 == 0 else list(as_)
        src_arg = bs[0] if count == 1 and rank % 2 == 0 else tuple(bs)
        if mode == "run":
            ex.run(dst_arg, src_arg, alpha, beta)
        else:
            ex.start(dst_arg, src_arg, alpha, beta)
            chk.check(ex.in_flight, f"{what}: not in flight after start")
            ex.wait()
            chk.check(not ex.in_flight, f"{what}: in flight after wait")
    finally:
        if executor is None:
            ex.close()
    rng = np.random.default_rng(seed)
    for k, (l, a, want) in enumerate(zip(dsts, as_, wants)):
        with chk.local(f"{what}: checking pair {k}"):
            if a is None:
                chk.check(l.local_elems(rank) == 0, f"{what}: pair {k} None buffer")
                continue
            if nan_dst and isinstance(l, relay.Layout):
                # gaps hold NaN too: only held elements are compared
                rows, _ = l.global_indices(rank)
                a = a.copy(order="K")
                a[rows < 0] = SENTINEL
            if nan_dst and isinstance(l, relay.NDLayout):
                a = a.copy(order="K")
                pad = np.ones(a.shape, bool)
                pad[tuple(slice(0, e) for e in l.local_shape(rank))] = False
                a[pad] = SENTINEL
            check_local_buffer(chk, l, rank, a, want, f"{what}: pair {k} (op {ops[k]})", dtype,
                               locate_samples, rng)
    chk.agree(what)


def plan_t(comm, dst, src, **kw):
    """relay.plan_transform over comm's ranks (layouts may span fewer)."""
    kw.setdefault("nranks", comm.size)
    return relay.plan_transform(dst, src, **kw)
