#!/usr/bin/env python3
"""distarray_overhead.py — what DistArray.redistribute adds to a bare
Executor.run once its move is cached.

One tiny N-D move (a 16 x 16 float64 array from rows to columns on every
rank of the job) is bound twice: by hand (relay.plan_nd, relay.Executor)
and by the DistArray cache.  Blocks of N calls, in interleaved rounds, the
order rotating round by round:

  run          ``ex.run(b, a)`` on the hand-bound executor: the baseline
  out=         ``x.redistribute(y, out=z)``: the look-up, the replay into z
  new          ``x.redistribute(y)``: the same, with a new local array and DistArray
  placements   ``x.redistribute([relay.Shard(1)], out=z)``: the target named
               by placements (one more look-up)

Each block starts after a barrier; its time is the slowest rank's.  The
table gives the median per-call time of ``run`` over the rounds, and for
the others the median (and range) of the rounds' paired differences from
``run``: the overhead per call.

  mpiexec -n P python3 bench/distarray_overhead.py [--calls 20000] [--rounds 9] [--header]
"""

import argparse
import statistics
import time

import numpy as np
from mpi4py import MPI

import relay

COMM = MPI.COMM_WORLD


def block(fn, calls):
    COMM.Barrier()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return COMM.allreduce(time.perf_counter() - t0, op=MPI.MAX) / calls * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--header", action="store_true")
    args = ap.parse_args()
    shape = (16, 16)
    rows = relay.NDLayout(shape, COMM.size, [relay.Shard(0)])
    cols = relay.NDLayout(shape, COMM.size, [relay.Shard(1)])
    g = np.arange(256, dtype=np.float64).reshape(shape)
    x = relay.scatter(g if COMM.rank == 0 else None, rows, COMM)
    z = relay.DistArray.empty(cols, np.float64, COMM)
    plan = relay.plan_nd(cols, rows, nranks=COMM.size)
    ex = relay.Executor(plan, COMM)
    b = relay.empty_local(cols, COMM.rank)
    a = x.storage
    contestants = {
        "run": lambda: ex.run(b, a),
        "out=": lambda: x.redistribute(cols, out=z),
        "new": lambda: x.redistribute(cols),
        "placements": lambda: x.redistribute([relay.Shard(1)], out=z),
    }
    for fn in contestants.values():
        block(fn, 100)
    assert np.array_equal(np.asarray(z), np.asarray(x.redistribute(cols))) and np.array_equal(b, z.storage)
    times = {k: [] for k in contestants}
    names = list(contestants)
    for r in range(args.rounds):
        for k in names[r % len(names):] + names[:r % len(names)]:
            times[k].append(block(contestants[k], args.calls))
    info = relay.plan_cache_info()
    if COMM.rank == 0:
        if args.header:
            print("| ranks | run us/call | redistribute(out=) over run, us/call | redistribute() | "
                  "redistribute(placements, out=) | cache hits, misses |")
            print("|---|---|---|---|---|---|")
        cells = [f"{statistics.median(times['run']):.2f} ({min(times['run']):.2f}-{max(times['run']):.2f})"]
        for k in names[1:]:
            over = sorted(t - base for t, base in zip(times[k], times["run"]))
            cells.append(f"**{statistics.median(over):.2f}** ({over[0]:.2f} to {over[-1]:.2f})")
        print(f"| {COMM.size} | {' | '.join(cells)} | {info.hits}, {info.misses} |")
    ex.close()
    relay.plan_cache_clear()


if __name__ == "__main__":
    main()
