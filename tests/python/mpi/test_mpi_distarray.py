"""relay.DistArray: scatter from a global numpy array, redistribute between
2-D layouts and between N-D placements (replicas included), gather and
full, every element type, the cache of bound moves, and every refusal;
each local array checked against the global array through the layout's
global_indices, each gathered array against numpy's."""

from __future__ import annotations

import numpy as np
import pytest

import relay
from relay_mpi_support import DTYPES, global_array, local_nd, random_layout_2d, random_nd, tol

ODD = np.dtype([("a", np.int8), ("b", np.float64)])  # no relay type, now or later


def held_values(layout, rank, storage):
    """(held elements of rank's local array, their global indices) in storage order."""
    if isinstance(layout, relay.NDLayout):
        idx = layout.global_indices(rank)
        return relay.local_view(layout, rank, storage), np.ix_(*idx)
    rows, cols = layout.global_indices(rank)
    held = rows >= 0
    return storage.reshape(-1, order="A")[: rows.size][held], (rows[held], cols[held])


def check_dist(chk, d, want, what):
    """d's local array holds want at the global indices its layout says."""
    with chk.local(what):
        chk.check(isinstance(d, relay.DistArray) and d.dtype == want.dtype, f"{what}: {d!r}, expected {want.dtype}")
        got, index = held_values(d.layout, d.comm.rank, d.storage)
        chk.close(got, want[index], what, **tol(want.dtype))


def check_whole(chk, comm, got, want, root, what):
    with chk.local(what):
        if root is None or comm.rank == root:
            chk.check(isinstance(got, np.ndarray), f"{what}: got {type(got).__name__}")
            chk.close(got, want, what, **tol(want.dtype))
        else:
            chk.check(got is None, f"{what}: rank {comm.rank} is not root {root} but got {type(got).__name__}")


def scatter(comm, g, layout, root):
    return relay.scatter(g if comm.rank == root else None, layout, comm, root=root)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_2d_round_trips(comm, chk, dtype):
    """Random block-cyclic and grid layouts: scatter, move there and back,
    gather on each root, full."""
    rng = np.random.default_rng(6800 + DTYPES.index(dtype))
    for case in range(8):
        m, n = (int(x) for x in rng.integers(1, 30, size=2))
        src, _ = random_layout_2d(rng, m, n, comm.size)
        dst, _ = random_layout_2d(rng, m, n, comm.size)
        g = global_array((m, n), dtype, case)
        root = case % comm.size
        what = f"case {case} {m}x{n} {src!r} -> {dst!r}"
        a = scatter(comm, g, src, root)
        check_dist(chk, a, g, f"{what}: scattered")
        b = a.redistribute(dst)
        check_dist(chk, b, g, f"{what}: moved")
        back = b.redistribute(src)
        check_dist(chk, back, g, f"{what}: moved back")
        check_whole(chk, comm, back.gather(root), g, root, f"{what}: gathered")
        check_whole(chk, comm, b.full(), g, None, f"{what}: full")
        chk.agree(what)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_nd_random_layouts(comm, chk, dtype):
    """Random N-D layouts (Shard even, block-cyclic and split, Replicate,
    padded, C and F), scattered, moved along a chain, gathered."""
    rng = np.random.default_rng(6900 + DTYPES.index(dtype))
    for case in range(8):
        shape = tuple(int(x) for x in rng.integers(1, 7, size=int(rng.integers(1, 4))))
        chain = [random_nd(rng, shape, comm.size) for _ in range(3)]
        g = global_array(shape, dtype, case)
        root = (case + 1) % comm.size
        d = scatter(comm, g, chain[0], root)
        for k, layout in enumerate(chain):
            d = d.redistribute(layout)
            check_dist(chk, d, g, f"case {case} step {k}: {layout!r}")
        check_whole(chk, comm, d.gather(root), g, root, f"case {case}: gathered")
        check_whole(chk, comm, d.full(), g, None, f"case {case}: full")
        chk.agree(f"case {case}")


def test_placements_and_replicas(comm, chk):
    """DTensor's redistribute(placements) on one mesh: shards to replicas and
    back, Shard(-1), and np.asarray of each rank's part."""
    size = comm.size
    mesh = (2, size // 2) if size % 2 == 0 and size > 2 else (size,)
    shape = (6, 5, 7)
    firsts = [relay.Shard(0), relay.Shard(1)][: len(mesh)]
    layout = relay.NDLayout(shape, mesh, firsts, order="F")
    g = global_array(shape, np.complex128, 3)
    d = scatter(comm, g, layout, 0)
    steps = [[relay.Shard(-1), relay.Replicate()][: len(mesh)], [relay.Replicate()] * len(mesh),
             [relay.Shard(1, block=2), relay.Shard(-3)][: len(mesh)], firsts]
    for places in steps:
        d = d.redistribute(places)
        what = f"placements {places}"
        with chk.local(what):
            chk.check(d.layout.mesh == tuple(mesh) and d.layout.order == "F", f"{what}: {d.layout!r}")
            local = np.asarray(d)
            idx = d.layout.global_indices(comm.rank)
            chk.close(local, g[np.ix_(*idx)], what)
            chk.check(local.shape == d.layout.local_shape(comm.rank), f"{what}: np.asarray shape {local.shape}")
            if all(isinstance(p, relay.Replicate) for p in places):
                chk.close(local, g, f"{what}: a replica holds the whole array")
        check_dist(chk, d, g, what)
        chk.agree(what)
    chk.check(d.layout == layout, f"back to the first placements: {d.layout!r} != {layout!r}")
    chk.agree("round trip")


def test_partial_sources_sum(comm, chk):
    """A DistArray of Partial pieces gathers, and moves, to their sum."""
    shape = (5, 4)
    layout = relay.NDLayout(shape, comm.size, [relay.Partial()])
    g = global_array(shape, np.float64, 9)
    d = relay.DistArray(local_nd(layout, comm.rank, g, np.float64, 9), layout, comm)
    check_whole(chk, comm, d.gather(0), g, 0, "gathered")
    check_dist(chk, d.redistribute(relay.NDLayout(shape, comm.size, [relay.Shard(-1)])), g, "moved to shards")
    chk.agree("partial")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_scatter_gather_every_type(comm, chk, dtype):
    size = comm.size
    layouts = [relay.block_cyclic(9, 7, 2, 3, size, 1, order="F"),
               relay.block_cyclic(9, 7, 4, 1, 1, size, order="C", lld=9),
               relay.grid(size, [0, 4, 9], [0, 3, 7], np.arange(4).reshape(2, 2) % size),
               relay.NDLayout((4, 9, 3), size, [relay.Shard(-2)]),
               relay.NDLayout((4, 9, 3), size, [relay.Shard(0, block=1)], order="F",
                              padded=(2, 10, 4) if size > 1 else (5, 10, 4))]
    for k, layout in enumerate(layouts):
        g = global_array(layout.shape, dtype, k)
        for root in sorted({0, size - 1}):
            for source in (g, np.asfortranarray(g)):
                what = f"{layout!r} root {root} {'F' if source.flags.f_contiguous else 'C'}-ordered"
                d = scatter(comm, source, layout, root)
                check_dist(chk, d, g, f"{what}: scattered")
                check_whole(chk, comm, d.gather(root), g, root, f"{what}: gathered")
                check_whole(chk, comm, d.full(), g, None, f"{what}: full")
                chk.agree(what)


def test_plan_cache_counts(comm, chk):
    """The first move between two layouts plans and binds; later ones hit."""
    relay.plan_cache_clear()
    chk.check(relay.plan_cache_info() == (0, 0, 0, relay.plan_cache_info().maxsize), relay.plan_cache_info())
    shape = (8, 6)
    x = relay.NDLayout(shape, comm.size, [relay.Shard(0)])
    y = relay.NDLayout(shape, comm.size, [relay.Shard(1)])
    g = global_array(shape, np.float32, 1)
    a = scatter(comm, g, x, 0)                        # miss: root -> x
    info = relay.plan_cache_info()
    chk.check((info.hits, info.misses, info.size) == (0, 1, 1), f"after scatter: {info}")
    executors = []
    for k in range(3):
        b = a.redistribute(y)                          # miss, then hits
        executors.append(relay.distarray._cache.move(y, x, a.dtype, comm).executor)
        check_dist(chk, b, g, f"move {k}")
    b = a.redistribute([relay.Shard(1)])               # the same target, named by placements: a hit
    b = a.redistribute([relay.Shard(-1)], out=b)       # and again, into b
    info = relay.plan_cache_info()
    # the scatter and the first move miss; the other 7 look-ups hit, 2 of them by placements
    chk.check((info.hits, info.misses, info.size) == (7, 2, 2), f"after moves: {info}")
    chk.check(all(e is executors[0] for e in executors), "one executor serves every move of one pair")
    relay.scatter(g if comm.rank == 0 else None, x, comm)  # root -> x again
    chk.check(relay.plan_cache_info().hits == 8, relay.plan_cache_info())
    a.redistribute(relay.NDLayout(shape, comm.size, [relay.Shard(0)], order="F"))  # another layout: a miss
    chk.check(relay.plan_cache_info()[1:3] == (3, 3), relay.plan_cache_info())
    relay.plan_cache_clear()
    chk.check(relay.plan_cache_info()[:3] == (0, 0, 0), relay.plan_cache_info())
    check_dist(chk, a.redistribute(y), g, "after clearing")
    chk.agree("cache")


def test_eviction_frees_the_oldest(comm, chk, monkeypatch):
    monkeypatch.setattr(relay.distarray._cache, "maxsize", 2)
    relay.plan_cache_clear()
    shape = (4, 3)
    layouts = [relay.NDLayout(shape, comm.size, [relay.Shard(k % 2)], order="CF"[k // 2]) for k in range(4)]
    g = global_array(shape, np.float64, 2)
    d = relay.DistArray(local_nd(layouts[0], comm.rank, g, np.float64), layouts[0], comm)
    for layout in layouts[1:] + layouts[1:]:
        check_dist(chk, d.redistribute(layout), g, f"to {layout!r}")
    info = relay.plan_cache_info()
    chk.check((info.hits, info.misses, info.size) == (0, 6, 2), f"size 2, cycling over 3 targets: {info}")
    relay.plan_cache_clear()
    chk.agree("eviction")


def test_out_is_reused_and_checked(comm, chk):
    shape = (6, 6)
    x = relay.NDLayout(shape, comm.size, [relay.Shard(0)])
    y = relay.NDLayout(shape, comm.size, [relay.Shard(1)])
    g = global_array(shape, np.complex64, 4)
    a = scatter(comm, g, x, 0)
    out = relay.DistArray.zeros(y, np.complex64, comm)
    chk.check(a.redistribute(y, out=out) is out, "redistribute(out=) returns out")
    check_dist(chk, out, g, "into out")
    wrong = relay.DistArray.zeros(y, np.complex128, comm)
    chk.raises(relay.ArgumentError, a.redistribute, y, out=wrong, words=("complex128",), what="out of another type")
    chk.raises(relay.ArgumentError, a.redistribute, y, out=a, words=("out holds",), what="out of another layout")
    check_dist(chk, a.redistribute(y), g, "after the refusals")
    chk.agree("out")


def test_refusals(comm, chk):
    size = comm.size
    shape = (5, 4, 3)
    x = relay.NDLayout(shape, size, [relay.Shard(0)])
    g = global_array(shape, np.float64, 5)
    # scatter: root's array refused on every rank together
    chk.raises(relay.ArgumentError, scatter, comm, g[:4], x, 0, words=("shape (4, 4, 3)", "(5, 4, 3)"),
               what="scatter of another shape")
    chk.raises(relay.ArgumentError, scatter, comm, np.zeros(shape, ODD), x, size - 1, words=("float32",),
               what="scatter of a type relay does not move")
    chk.raises(relay.ArgumentError, relay.scatter, g, x, comm, root=size, words=("root",), what="root past the ranks")
    chk.raises(relay.ArgumentError, relay.scatter, g, x, comm, root=-1, what="negative root")
    d = scatter(comm, g, x, 0)
    chk.raises(relay.ArgumentError, d.gather, size, words=("root",), what="gather to a rank past the ranks")
    # targets relay refuses, on every rank alike
    chk.raises(relay.ArgumentError, d.redistribute, relay.NDLayout((5, 4), size, [relay.Shard(0)]),
               what="another global shape")
    chk.raises(relay.ArgumentError, d.redistribute, relay.block_cyclic(5, 4, 1, 1, size, 1),
               words=("2-D layouts or two N-D layouts",), what="a 2-D target for an N-D array")
    chk.raises(relay.ArgumentError, d.redistribute, [relay.Shard(-4)], words=("-4",), what="Shard(-4) of 3-D")
    chk.raises(relay.ArgumentError, d.redistribute, [relay.Shard(3)], words=("dimension 3",), what="Shard(3) of 3-D")
    chk.raises(relay.ArgumentError, d.redistribute, [relay.Partial()], what="Partial target")
    chk.raises(relay.ArgumentError, d.redistribute, relay.Shard(0), words=("list of placements",),
               what="a placement, not a list")
    chk.raises(relay.ArgumentError, d.redistribute, [relay.Shard(0), relay.Shard(1)], what="placements of another mesh")
    m = scatter(comm, g[:, :, 0].copy(), relay.block_cyclic(5, 4, 2, 2, size, 1), 0)
    chk.raises(relay.ArgumentError, m.redistribute, [relay.Shard(0)], words=("2-D",), what="placements of a 2-D array")
    # local arrays that do not fit the layout: refused on their rank (where it holds elements)
    every = relay.NDLayout(shape, size, [relay.Shard(0, block=1)])
    local = relay.empty_local(every, comm.rank)
    chk.raises(relay.BufferMismatch, relay.DistArray, np.empty((local.shape[0] + 1, 4, 3)), every, comm,
               what="local array of another shape")
    if local.shape[0] > 1:  # with one row, F order is C order
        chk.raises(relay.BufferMismatch, relay.DistArray, np.asfortranarray(local), every, comm,
                   what="local array of another order")
    chk.raises(relay.ArgumentError, relay.DistArray, np.zeros(local.shape, ODD), every, comm, words=("float32",),
               what="local array of another type")
    chk.raises(relay.ArgumentError, relay.DistArray, local, "layout", comm, what="no layout")
    chk.raises(relay.ArgumentError, relay.DistArray.empty, x, ODD, comm, what="empty of another type")
    check_dist(chk, d.redistribute([relay.Shard(-1)]), g, "after the refusals")
    chk.agree("refusals")
