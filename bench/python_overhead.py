#!/usr/bin/env python3
"""python_overhead.py -- what relay's Python package adds to the C API.

Replays: the same transform is planned once from Python (relay.plan_transform)
and once from C (relay_plan_transform), both are bound on the same
communicator, and both replay over the *same* numpy arrays A and B, in the
same process of the same mpiexec job, in interleaved rounds:

  C      lib.poc_replays(exec, A, B, N): N calls of relay_exec_run in a C loop
         (bench/python_overhead_c.c, loaded with ctypes; one ctypes call per
         block of N, so ctypes' own microsecond falls outside the per-call time)
  Python N calls of ``ex.run(a, b)`` in a Python for loop, as an application
         writes it (the loop, the attribute lookup and the method call count
         as Python's overhead, as they would for the application)
  _core  N calls of ``relay._core.exec_run(h, a, b, None, None)``: the
         extension without the Python wrapper, to split the overhead.
  C'     the C loop again, on a second executor of the same C plan: an A/A
         control, whose ratio to C is what "no measurable difference" means
         on this machine at that moment.

Why a ctypes-loaded C library rather than a second C program: the two sides
then share the process, its MPI library and thread level (mpi4py's
MPI_THREAD_MULTIPLE), the buffers, the caches and the machine's load at that
moment; a round of each follows the other within milliseconds, the order
rotating each round.  The C side links librelay.so, built from the same
object files that relay._core links statically (cmake/RelayLibrary.cmake),
so both replay the same compiled code; the plans' fingerprints are checked
equal and both replays' results compared.  The communicator reaches C as
its Fortran handle (Comm.py2f(), then MPI_Comm_f2c), as relay._core takes
it: no mpi4py ABI detail (MPI._addressof, MPI._handleof) is needed.

Each block starts after a barrier; its time is the slowest rank's
(MPI_MAX).  Per call: block time / N; the table gives medians over the
rounds of the per-call times, the median of the rounds' paired differences
(Python - C) and ratios (Python / C), and the ratios' range over rounds.

Planning (--plan): relay.plan_transform(dst, src, op=..., relabel=...) from
Python against relay_plan_transform from C (the C layouts are built outside
the timed call, as Python's are) and C again (C', the A/A control), one
process, the order rotating round by round; the medians and their ratios.

  mpiexec -n P python3 bench/python_overhead.py --lib BUILD/bench/libpython_overhead_c.so \
      [--replays tiny,spec] [--plan] [--n 4096] [--rounds 9] [--header]

Needs PYTHONPATH=BUILD/python (relay), numpy and mpi4py.
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import sys
import time

import numpy as np
from mpi4py import MPI

import relay
from relay import _core

OPS = {"N": 0, "T": 1, "C": 2}
GRID_ORDERS = {"C": 0, "R": 1}
RELABELS = {"none": 0, "greedy": 1, "optimal": 2}


def load_lib(path: str) -> ctypes.CDLL:
    lib = ctypes.CDLL(path)
    i, i64, vp = ctypes.c_int, ctypes.c_int64, ctypes.c_void_p
    lib.poc_plan.argtypes = [i, i64, i64, i64, i64, i, i, i, i64, i64, i, i, i, i, i, ctypes.POINTER(ctypes.c_double)]
    lib.poc_plan.restype = vp
    lib.poc_fingerprint.argtypes = [vp]
    lib.poc_fingerprint.restype = ctypes.c_uint64
    lib.poc_buffer_elems.argtypes = [vp, i, i]
    lib.poc_buffer_elems.restype = i64
    lib.poc_plan_free.argtypes = [vp]
    lib.poc_plan_free.restype = None
    lib.poc_bind.argtypes = [vp, i]
    lib.poc_bind.restype = vp
    lib.poc_replays.argtypes = [vp, vp, vp, i]
    lib.poc_replays.restype = ctypes.c_double
    lib.poc_exec_free.argtypes = [vp]
    lib.poc_exec_free.restype = None
    return lib


class Case:
    """A -> op(B) between two block-cyclic layouts of square doubles."""

    def __init__(self, name, n, src_nb, src_grid, src_order, dst_nb, dst_grid, dst_order, op, nranks,
                 relabel="none"):
        self.name, self.n, self.op, self.nranks, self.relabel = name, n, op, nranks, relabel
        self.src = (src_nb, src_grid, src_order)
        self.dst = (dst_nb, dst_grid, dst_order)

    def layouts(self):
        (snb, (spr, spc), so), (dnb, (dpr, dpc), do) = self.src, self.dst
        src = relay.block_cyclic(self.n, self.n, snb, snb, spr, spc, grid_order=so)
        dst = relay.block_cyclic(self.n, self.n, dnb, dnb, dpr, dpc, grid_order=do)
        return dst, src

    def plan_py(self, dst, src):
        return relay.plan_transform(dst, src, op=self.op, relabel=self.relabel)

    def plan_c(self, lib, seconds=None):
        (snb, (spr, spc), so), (dnb, (dpr, dpc), do) = self.src, self.dst
        h = lib.poc_plan(self.nranks, self.n, self.n, snb, snb, spr, spc, GRID_ORDERS[so], dnb, dnb, dpr, dpc,
                         GRID_ORDERS[do], OPS[self.op], RELABELS[self.relabel],
                         None if seconds is None else ctypes.byref(seconds))
        if not h:
            raise RuntimeError(f"{self.name}: relay_plan_transform failed in C")
        return h

    def describe(self):
        (snb, (spr, spc), so), (dnb, (dpr, dpc), do) = self.src, self.dst
        return (f"{self.n}x{self.n}, {snb}x{snb} on {spr}x{spc}{'' if so == 'R' else ' col'} -> "
                f"{dnb}x{dnb} on {dpr}x{dpc}{'' if do == 'R' else ' col'}, {self.op}")


def near_square(p):
    r = int(p ** 0.5)
    while p % r:
        r -= 1
    return r, p // r


def tiny_case(p):
    # A 4 x 4 matrix of 1 x 1 blocks on a 1 x P grid, transposed onto the
    # same grid: on P ranks, each sends (P-1)/P of its elements.
    return Case("tiny", 4, 1, (1, p), "R", 1, (1, p), "R", "T", p)


def spec_case(p, n, nb):
    # COSTA's reference case as bench/redist_bench.c: nb x nb -> 128 x 128 blocks on
    # the same PR x PC grid (1x2 at 2 ranks, 2x2 at 4), transposed.
    g = near_square(p)
    return Case("spec", n, nb, g, "R", 128, g, "R", "T", p)


def plan_cases(n, ranks):
    # bench/plan_scale.c's move: 32 x 32 blocks on pr x pc (row-major
    # numbering) to 128 x 128 on pc x pr (column-major), every section.
    pr, pc = near_square(ranks)
    return [Case("plan", n, 32, (pr, pc), "R", 128, (pc, pr), "C", "N", ranks, relabel)
            for relabel in ("none", "optimal")]


def fmt_us(x):
    return f"{x:.2f}" if x < 1000 else f"{x:.0f}"


def fmt_ratio_range(r):
    return f"{min(r):.3f}-{max(r):.3f}"


# ---- replays -----------------------------------------------------------------


def replay_rows(comm, lib, case, count, rounds, header):
    rank, size = comm.rank, comm.size
    dst, src = case.layouts()
    plan = case.plan_py(dst, src)
    cplan = case.plan_c(lib)
    if lib.poc_fingerprint(cplan) != plan.fingerprint:
        raise RuntimeError(f"{case.name}: the C and Python plans differ")
    a = np.zeros(max(1, plan.dst_elems(rank)))
    b = np.arange(max(1, plan.src_elems(rank)), dtype=np.float64) + 1e6 * rank
    ex = relay.Executor(plan, comm)
    cex, cex2 = lib.poc_bind(cplan, comm.py2f()), lib.poc_bind(cplan, comm.py2f())
    if not cex or not cex2:
        raise RuntimeError(f"{case.name}: relay_exec_create failed in C")
    h = ex._h
    a_ptr, b_ptr = a.ctypes.data, b.ctypes.data

    # Same result both ways.
    ex.run(a, b)
    want = a.copy()
    a[...] = 0
    if lib.poc_replays(cex, a_ptr, b_ptr, 1) < 0:
        raise RuntimeError("relay_exec_run failed in C")
    same = comm.allreduce(int(np.array_equal(a, want)), op=MPI.MIN) == 1

    def c_block(e):
        t = lib.poc_replays(e, a_ptr, b_ptr, count)
        if t < 0:
            raise RuntimeError("relay_exec_run failed in C")
        return t

    def py_block():
        t0 = time.perf_counter()
        for _ in range(count):
            ex.run(a, b)
        return time.perf_counter() - t0

    def core_block():
        t0 = time.perf_counter()
        for _ in range(count):
            _core.exec_run(h, a, b, None, None)
        return time.perf_counter() - t0

    blocks = {"C": lambda: c_block(cex), "C'": lambda: c_block(cex2), "Python": py_block, "_core": core_block}
    names = list(blocks)
    times = {k: [] for k in names}
    for r in range(-1, rounds):              # round -1: warm-up
        order = names[r % len(names):] + names[:r % len(names)]
        for k in order:
            comm.Barrier()
            t = comm.allreduce(blocks[k](), op=MPI.MAX) / count
            if r >= 0:
                times[k].append(t)
    ex.close()
    lib.poc_exec_free(cex)
    lib.poc_exec_free(cex2)
    lib.poc_plan_free(cplan)

    if rank == 0:
        us = {k: [t * 1e6 for t in v] for k, v in times.items()}
        med = {k: statistics.median(v) for k, v in us.items()}
        diff = [p - c for p, c in zip(us["Python"], us["C"])]
        ratio = [p / c for p, c in zip(us["Python"], us["C"])]
        cdiff = [p - c for p, c in zip(us["_core"], us["C"])]
        aa = [p / c for p, c in zip(us["C'"], us["C"])]
        if header:
            print("| case | ranks | replays x rounds | C us/call | Python us/call | _core us/call | Python - C us "
                  "| _core - C us | Python / C | Python / C range | C' / C | C' / C range | same result |")
            print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        print(f"| {case.name}: {case.describe()} | {size} | {count} x {rounds} | {fmt_us(med['C'])} | "
              f"{fmt_us(med['Python'])} | {fmt_us(med['_core'])} | {statistics.median(diff):.2f} | "
              f"{statistics.median(cdiff):.2f} | {statistics.median(ratio):.3f} | {fmt_ratio_range(ratio)} | "
              f"{statistics.median(aa):.3f} | {fmt_ratio_range(aa)} | {'yes' if same else 'NO'} |", flush=True)


# ---- planning ----------------------------------------------------------------


def plan_rows(lib, cases, rounds, header):
    if header:
        print("| case | ranks | relabel | rounds | C ms | Python ms | Python - C ms | Python / C | "
              "Python / C range | C' / C | C' / C range | same plan |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for case in cases:
        dst, src = case.layouts()
        sec = ctypes.c_double()
        same = True
        t = {"C": [], "C'": [], "Python": []}
        fps = {}
        names = list(t)
        for r in range(-1, rounds):          # round -1: warm-up
            for k in names[r % 3:] + names[:r % 3]:
                if k == "Python":
                    t0 = time.perf_counter()
                    p = case.plan_py(dst, src)
                    dt = time.perf_counter() - t0
                    fps[k] = p.fingerprint
                    del p
                else:
                    h = case.plan_c(lib, sec)
                    dt = sec.value
                    fps[k] = lib.poc_fingerprint(h)
                    lib.poc_plan_free(h)
                if r >= 0:
                    t[k].append(dt)
            same = same and len(set(fps.values())) == 1
        ratio = [p / c for p, c in zip(t["Python"], t["C"])]
        aa = [p / c for p, c in zip(t["C'"], t["C"])]
        c_ms, py_ms = statistics.median(t["C"]) * 1e3, statistics.median(t["Python"]) * 1e3
        print(f"| {case.describe()} | {case.nranks} | {case.relabel} | {rounds} | {c_ms:.3f} | {py_ms:.3f} | "
              f"{py_ms - c_ms:.3f} | {statistics.median(ratio):.3f} | {fmt_ratio_range(ratio)} | "
              f"{statistics.median(aa):.3f} | {fmt_ratio_range(aa)} | {'yes' if same else 'NO'} |", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", required=True, help="BUILD/bench/libpython_overhead_c.so")
    ap.add_argument("--replays", default="tiny,spec", help="comma-separated: tiny, spec (or empty)")
    ap.add_argument("--plan", action="store_true", help="time planning instead (one process)")
    ap.add_argument("--n", type=int, default=4096, help="the reference case's n (default 4096)")
    ap.add_argument("--nb", type=int, default=32, help="the reference case's source blocks (default 32)")
    ap.add_argument("--tiny-replays", type=int, default=1000)
    ap.add_argument("--spec-replays", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--plan-n", type=int, default=100000)
    ap.add_argument("--plan-ranks", type=int, default=1024)
    ap.add_argument("--plan-rounds", type=int, default=15)
    ap.add_argument("--header", action="store_true", help="print the table's header first")
    args = ap.parse_args(argv)
    lib = load_lib(args.lib)
    comm = MPI.COMM_WORLD
    if args.plan:
        if comm.rank == 0:
            plan_rows(lib, plan_cases(args.plan_n, args.plan_ranks), args.plan_rounds, args.header)
        return
    header = args.header
    for name in filter(None, args.replays.split(",")):
        if name == "tiny":
            replay_rows(comm, lib, tiny_case(comm.size), args.tiny_replays, args.rounds, header)
        elif name == "spec":
            replay_rows(comm, lib, spec_case(comm.size, args.n, args.nb), args.spec_replays, args.rounds, header)
        else:
            sys.exit(f"python_overhead.py: unknown case {name!r}")
        header = False


if __name__ == "__main__":
    main()
