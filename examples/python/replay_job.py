#!/usr/bin/env python3
"""Replay a shipped plan inside an MPI job, and check every element.

    mpiexec -n 4 python3 replay_job.py demo.plan

Each rank reads its own section of the plan file (the file was made
offline by plan_offline.py), fills its part of B from a function of the
global indices, replays A := B^T and checks its part of A.
"""
import sys

import numpy as np
from mpi4py import MPI

import relay

comm = MPI.COMM_WORLD
rank = comm.rank
path = sys.argv[1] if len(sys.argv) > 1 else "demo.plan"

plan = relay.load(path, rank=rank)           # this rank's section alone
src, dst = plan.src_layout(), plan.dst_layout()
b = relay.empty_local(src, rank, plan.dtype)
relay.fill_local(src, rank, b, lambda i, j: i + 1e4 * j)
a = relay.empty_local(dst, rank, plan.dtype)

with relay.Executor(plan, comm) as ex:         # collective: binds once
    ex.run(a, b)                               # A := B^T
try:
    relay.check_local(dst, rank, a, lambda i, j: j + 1e4 * i)
    ok = True
except AssertionError as wrong:
    print(wrong, file=sys.stderr)
    ok = False
ok = comm.allreduce(ok, op=MPI.LAND)
if rank == 0:
    print(f"replayed {path} on {comm.size} ranks: " + ("verified" if ok else "FAILED"))
sys.exit(0 if ok else 1)
