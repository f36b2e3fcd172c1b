"""Shared helpers of the offline suite: independent references (pure Python
and numpy, never relay) for the layouts relay implements, the tools of the
build (RELAY_TEST_BIN), and hypothesis settings that keep runs repeatable."""

import json
import math
import os
import pathlib
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")  # before pyplot is imported anywhere

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# Repeatable by default (derandomized: the same examples every run, within
# ctest's budget); RELAY_HYPOTHESIS_PROFILE=explore searches afresh, and
# RELAY_HYPOTHESIS_SCALE=N runs N times the examples.
settings.register_profile("relay", derandomize=True, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", derandomize=False, deadline=None, print_blob=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("RELAY_HYPOTHESIS_PROFILE", "relay"))


def examples(n: int) -> int:
    return n * int(os.environ.get("RELAY_HYPOTHESIS_SCALE", "1"))

REPO = pathlib.Path(__file__).resolve().parents[3]


def tool_dir() -> pathlib.Path:
    env = os.environ.get("RELAY_TEST_BIN")
    return pathlib.Path(env) if env else REPO / "build" / "bin"


@pytest.fixture(scope="session")
def relay_dump():
    """Runs relay-dump with the given arguments and returns (status, stdout, stderr)."""
    exe = tool_dir() / "relay-dump"
    if not exe.exists():
        pytest.skip(f"{exe} is not built")

    def run(*args):
        p = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, timeout=120)
        return p.returncode, p.stdout, p.stderr

    return run


@pytest.fixture(scope="session")
def dump_json(relay_dump):
    """json.loads of `relay-dump FILE --json [args]`; fails the test if relay-dump fails."""

    def run(path, *args):
        rc, out, err = relay_dump(path, "--json", *args)
        assert rc == 0, f"relay-dump {path} --json {' '.join(map(str, args))}: status {rc}: {err}"
        return json.loads(out)

    return run


# ---- ScaLAPACK block-cyclic references (../scalapack_reference.py) ----------

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from scalapack_reference import indxg2l, indxg2p, numroc  # noqa: E402


class BlockCyclicRef:
    """Where each element of relay.block_cyclic(...) lives, from ScaLAPACK's rules."""

    def __init__(self, m, n, mb, nb, nprow, npcol, grid_order="R", rsrc=0, csrc=0, lld=0, order="F"):
        self.m, self.n, self.mb, self.nb = m, n, mb, nb
        self.nprow, self.npcol, self.grid_order = nprow, npcol, grid_order
        self.rsrc, self.csrc, self.lld, self.order = rsrc, csrc, lld, order
        self.nranks = nprow * npcol

    def rank_of(self, pr, pc):
        return pr * self.npcol + pc if self.grid_order == "R" else pc * self.nprow + pr

    def coords(self, rank):
        if self.grid_order == "R":
            return divmod(rank, self.npcol)
        pc, pr = divmod(rank, self.nprow)
        return pr, pc

    def local_dims(self, rank):
        pr, pc = self.coords(rank)
        return (numroc(self.m, self.mb, pr, self.rsrc, self.nprow),
                numroc(self.n, self.nb, pc, self.csrc, self.npcol))

    def ld(self, rank):
        lr, lc = self.local_dims(rank)
        if isinstance(self.lld, (list, tuple)):  # each rank's own
            return self.lld[rank]
        if self.lld:
            return self.lld
        return max(1, lr if self.order == "F" else lc)

    def storage_shape(self, rank):
        """ScaLAPACK's local array: (lld, LOCc) column-major, (LOCr, lld) row-major; 0 x 0 when empty."""
        lr, lc = self.local_dims(rank)
        if lr == 0 or lc == 0:
            return (0, 0)
        return (self.ld(rank), lc) if self.order == "F" else (lr, self.ld(rank))

    def local_elems(self, rank):
        if not 0 <= rank < self.nranks:
            return 0
        lr, lc = self.local_dims(rank)
        if lr == 0 or lc == 0:
            return 0
        ld = self.ld(rank)
        return ld * (lc - 1) + lr if self.order == "F" else ld * (lr - 1) + lc

    def locate(self, i, j):
        pr, pc = indxg2p(i, self.mb, self.rsrc, self.nprow), indxg2p(j, self.nb, self.csrc, self.npcol)
        rank = self.rank_of(pr, pc)
        li, lj = indxg2l(i, self.mb, self.nprow), indxg2l(j, self.nb, self.npcol)
        ld = self.ld(rank)
        return rank, (li + lj * ld if self.order == "F" else li * ld + lj)

    def owners(self):
        """(m, n) int array: the rank holding each element."""
        out = np.empty((self.m, self.n), np.int64)
        for i in range(self.m):
            for j in range(self.n):
                out[i, j] = self.locate(i, j)[0]
        return out

    def global_indices(self, rank):
        rows = np.full(self.local_elems(rank), -1, np.int64)
        cols = rows.copy()
        for i in range(self.m):
            for j in range(self.n):
                r, k = self.locate(i, j)
                if r == rank:
                    rows[k], cols[k] = i, j
        return rows, cols


class GridRef:
    """Where each element of relay.grid(...) lives, from relay/layout.h's rules."""

    def __init__(self, nranks, row_splits, col_splits, owners, offsets=None, lds=None, order="F"):
        self.nranks, self.rs, self.cs = nranks, list(row_splits), list(col_splits)
        self.owner_list = np.asarray(owners).reshape(-1).tolist()
        self.order = order
        nbr, nbc = len(self.rs) - 1, len(self.cs) - 1
        self.blocks = {}
        fill = [0] * nranks
        for bi in range(nbr):
            for bj in range(nbc):
                b = bi * nbc + bj
                rows, cols = self.rs[bi + 1] - self.rs[bi], self.cs[bj + 1] - self.cs[bj]
                owner = self.owner_list[b]
                if offsets is None:
                    off, ld = fill[owner], rows if order == "F" else cols
                    fill[owner] += rows * cols
                else:
                    off, ld = offsets[b], lds[b]
                self.blocks[(bi, bj)] = (owner, off, ld, rows, cols)

    @property
    def shape(self):
        return self.rs[-1], self.cs[-1]

    def locate(self, i, j):
        bi = int(np.searchsorted(self.rs, i, side="right")) - 1
        bj = int(np.searchsorted(self.cs, j, side="right")) - 1
        owner, off, ld, _, _ = self.blocks[(bi, bj)]
        r, c = i - self.rs[bi], j - self.cs[bj]
        return owner, (off + r + c * ld if self.order == "F" else off + r * ld + c)

    def local_elems(self, rank):
        end = 0
        for owner, off, ld, rows, cols in self.blocks.values():
            if owner == rank and rows and cols:
                end = max(end, off + ((cols - 1) * ld + rows if self.order == "F" else (rows - 1) * ld + cols))
        return end

    def owners(self):
        """(m, n) int array: the rank holding each element."""
        m, n = self.shape
        out = np.empty((m, n), np.int64)
        for i in range(m):
            for j in range(n):
                out[i, j] = self.locate(i, j)[0]
        return out

    def global_indices(self, rank):
        m, n = self.shape
        rows = np.full(self.local_elems(rank), -1, np.int64)
        cols = rows.copy()
        for i in range(m):
            for j in range(n):
                r, k = self.locate(i, j)
                if r == rank:
                    rows[k], cols[k] = i, j
        return rows, cols


# ---- N-D references (torch.chunk, block-cyclic, splits) ------------------------

class NDRef:
    """Which global indices each rank of an N-D layout holds, from the
    placement rules of relay/nd.h written out with numpy.

    placements: tuples ('shard', dim, block, splits) / ('replicate',) / ('partial',)."""

    def __init__(self, shape, mesh, placements, ranks=None, order="C", padded=None):
        self.shape, self.mesh = tuple(shape), tuple(mesh)
        self.places = list(placements)
        self.ranks = list(range(math.prod(self.mesh))) if ranks is None else list(ranks)
        self.order, self.padded = order, padded

    def coords(self, rank):
        if rank not in self.ranks:
            return None
        return tuple(int(c) for c in np.unravel_index(self.ranks.index(rank), self.mesh))

    def dim_indices(self, rank):
        coords = self.coords(rank)
        if coords is None:
            return tuple(np.zeros(0, np.int64) for _ in self.shape)
        idx = [np.arange(e, dtype=np.int64) for e in self.shape]
        for c, p, place in zip(coords, self.mesh, self.places):
            if place[0] != "shard":
                continue
            _, dim, block, splits = place
            n = self.shape[dim]
            if splits is not None:
                idx[dim] = np.arange(splits[c], splits[c + 1], dtype=np.int64)
            elif block == 0:          # torch.chunk: chunks of ceil(n/p), trailing ones short or empty
                size = -(-n // p) if n else 0
                idx[dim] = np.arange(n, dtype=np.int64)[c * size:(c + 1) * size]
            else:                     # block-cyclic
                g = np.arange(n, dtype=np.int64)
                idx[dim] = g[(g // block) % p == c]
        return tuple(idx)

    def local_shape(self, rank):
        return tuple(len(i) for i in self.dim_indices(rank))

    def storage_shape(self, rank):
        """The padded extents where given; a rank that holds nothing stores nothing."""
        local = self.local_shape(rank)
        if self.padded is None or not all(local):
            return local
        return tuple(p if p else e for p, e in zip(self.padded, local))

    def holds(self, rank):
        return self.coords(rank) is not None and all(self.local_shape(rank))

    def local_elems(self, rank):
        return math.prod(self.storage_shape(rank)) if self.holds(rank) else 0

    def locate(self, rank, index):
        idx = self.dim_indices(rank)
        if self.coords(rank) is None:
            return None
        local = []
        for k, g in enumerate(index):
            hit = np.flatnonzero(idx[k] == g)
            if not len(hit):
                return None
            local.append(int(hit[0]))
        return int(np.ravel_multi_index(local, self.storage_shape(rank), order=self.order))

    def partial_piece(self, rank):
        coords = self.coords(rank)
        if coords is None:
            return (0, 1)
        piece, pieces = 0, 1
        for c, p, place in zip(coords, self.mesh, self.places):
            if place[0] == "partial":
                piece, pieces = piece * p + c, pieces * p
        return piece, pieces

    def holders(self):
        """{global index tuple: {partial piece: [ranks holding it]}}"""
        out = {}
        for r in self.ranks:
            piece, _ = self.partial_piece(r)
            idx = self.dim_indices(r)
            for g in np.ndindex(*(len(i) for i in idx)):
                key = tuple(int(idx[k][g[k]]) for k in range(len(g)))
                out.setdefault(key, {}).setdefault(piece, []).append(r)
        return out


def as_relay_placements(places):
    import relay
    out = []
    for p in places:
        if p[0] == "shard":
            out.append(relay.Shard(p[1], p[2], None if p[3] is None else list(p[3])))
        elif p[0] == "replicate":
            out.append(relay.Replicate())
        else:
            out.append(relay.Partial())
    return out


# ---- GF(2) -------------------------------------------------------------------

def gf2_apply(columns, complement, n, x):
    y = complement
    for j in range(n):
        if (x >> j) & 1:
            y ^= columns[j]
    return y & ((1 << n) - 1)


def gf2_rank(rows):
    """Rank over GF(2) of a matrix given as a list of row bitmasks."""
    rows = [r for r in rows if r]
    rank = 0
    while rows:
        pivot = rows.pop()
        if not pivot:
            continue
        rank += 1
        low = pivot & -pivot
        rows = [r ^ pivot if r & low else r for r in rows]
        rows = [r for r in rows if r]
    return rank
