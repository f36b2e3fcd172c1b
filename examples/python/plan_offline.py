#!/usr/bin/env python3
"""Plan and inspect offline, on a laptop, without MPI.

A ScaLAPACK-style code holds B (2000 x 2000 doubles) in 32 x 32 blocks on a
1 x 4 process grid and wants A = B^T in 128 x 128 blocks on a 2 x 2 grid.
This script plans that move for 4 ranks, looks at what it will cost,
compares it with a relabeled plan, and saves the plan for a job to replay
(replay_job.py):

    python3 plan_offline.py demo.plan [heatmap.png]
"""
import sys

import relay

path = sys.argv[1] if len(sys.argv) > 1 else "demo.plan"
src = relay.block_cyclic(2000, 2000, 32, 32, 1, 4)
dst = relay.block_cyclic(2000, 2000, 128, 128, 2, 2)

plan = relay.plan_transform(dst, src, op="T", dtype="float64")
relabeled = relay.plan_transform(dst, src, op="T", relabel="optimal")
print(plan)
for name, p in (("as given", plan), ("relabeled", relabeled)):
    s = p.stats
    print(f"{name:>10}: {s['bytes_remote'] / 2**20:6.1f} MiB cross ranks in {s['messages']} messages, "
          f"sigma = {p.relabeling}")

info = plan.info()                   # what `relay-dump demo.plan --json` prints
busiest = max(info["per_rank"], key=lambda r: r["send_bytes"] + r["recv_bytes"])
print(f"busiest rank {busiest['rank']}: sends {busiest['send_bytes']} B, receives {busiest['recv_bytes']} B")
section = plan.info(rank=0)           # rank 0's messages and their piece lattices
print(f"rank 0 sends {len(section['send'])} messages, receives {len(section['recv'])}")

plan.save(path)
print(f"saved {path} ({relay.file_nranks(path)} ranks, fingerprint {plan.fingerprint:016x})")

if len(sys.argv) > 2:                 # the heat map relay-dump --svg draws, for notebooks
    import matplotlib
    matplotlib.use("Agg")
    ax = plan.heatmap()
    ax.figure.savefig(sys.argv[2])
    print(f"heat map in {sys.argv[2]}")
