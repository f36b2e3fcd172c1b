#!/usr/bin/env python3
"""An iterative solver's loop: plan once, replay every iteration.

    mpiexec -n 4 python3 iterative.py [n] [iterations]

Each iteration redistributes the iterate from the solver's layout (a 1-D
row-block distribution, as a sparse matrix-vector code has it) to a 2-D
block-cyclic layout for a dense step, and back, with split-phase replays
that overlap local work.  The plans are built once by rank 0, broadcast
(plans pickle as their bytes), and cached in executors; each replay costs
one call.
"""
import sys
import time

import numpy as np
from mpi4py import MPI

import relay

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
n = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 20

rows = relay.grid(size, np.linspace(0, n, size + 1).astype(int), [0, n], range(size), order="C")
nprow = int(np.sqrt(size))
while size % nprow:
    nprow -= 1
cyclic = relay.block_cyclic(n, n, 64, 64, nprow, size // nprow)

if rank == 0:
    forward = relay.plan_transform(cyclic, rows)       # rows -> 2-D block-cyclic
    backward = relay.invert(forward)                    # and back
else:
    forward = backward = None
forward, backward = comm.bcast((forward, backward))

x = relay.empty_local(rows, rank)
relay.fill_local(rows, rank, x, lambda i, j: np.sin(i + 0.5 * j))
y = relay.empty_local(cyclic, rank)

with relay.Executor(forward, comm) as fwd, relay.Executor(backward, comm) as bwd:
    comm.Barrier()
    start = time.perf_counter()
    for it in range(iterations):
        fwd.start(y, x)          # x travels; local work may run here
        fwd.wait()
        y *= 0.5                 # the dense step, on the 2-D layout
        bwd.run(x, y)            # back to the solver's rows
    seconds = (time.perf_counter() - start) / iterations

try:
    relay.check_local(rows, rank, x, lambda i, j: np.sin(i + 0.5 * j) * 0.5 ** iterations, rtol=1e-12)
    ok = True
except AssertionError as wrong:
    print(wrong, file=sys.stderr)
    ok = False
ok = comm.allreduce(ok, op=MPI.LAND)
if rank == 0:
    print(f"{iterations} iterations of a {n} x {n} round trip on {size} ranks: {seconds * 1e3:.2f} ms each; "
          + ("verified" if ok else "FAILED"))
sys.exit(0 if ok else 1)
