#!/usr/bin/env bash
# volumes.sh — relay-dump --json on a plan for 4,096 ranks prints the
# documented keys, and its numbers agree with an independent count: the
# overlay of the two block-cyclic grids computed here in Python from
# ScaLAPACK's owner formula (every cell between consecutive cuts of both
# grids is one piece).
. "$(dirname "$0")/common.sh"

FROM=bc:6144x8192:64x64:64x64:src=3,5
TO=bc:8192x6144:96x80:64x64:grid=col
"$PLAN" transform --ranks 4096 --from $FROM --to $TO --op T --type z -o big.plan >plan.txt 2>err.txt ||
    fail "relay-plan at 4096 ranks failed: $(cat err.txt)"
"$DUMP" big.plan --json >dump.json 2>err.txt || fail "relay-dump --json failed: $(cat err.txt)"
"$DUMP" big.plan >dump.txt 2>err.txt || fail "relay-dump failed: $(cat err.txt)"
grep -q "median" dump.txt || fail "the per-rank table of 4096 ranks is not abbreviated"
[ "$(wc -l <dump.txt)" -lt 80 ] || fail "the summary of 4096 ranks has $(wc -l <dump.txt) lines"
"$DUMP" big.plan --svg big.svg >/dev/null 2>err.txt || fail "relay-dump --svg failed: $(cat err.txt)"
"$PYTHON" -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' big.svg || fail "the SVG is not well-formed"

"$PYTHON" - dump.json <<'PY' || fail "relay-dump disagrees with the independent count"
import json, sys

d = json.load(open(sys.argv[1]))
keys = ["format_version", "kind", "ranks", "type", "op", "relabel", "sigma", "schedule", "rounds",
        "bytes_total", "bytes_remote", "bytes_remote_identity", "messages", "per_rank"]
missing = [k for k in keys if k not in d]
assert not missing, f"missing keys {missing}"

ESZ, P = 16, 4096
# B (--from) is 6144 x 8192, 64 x 64 blocks, 64 x 64 grid numbered row-major, source (3, 5).
# A (--to) is 8192 x 6144, 96 x 80 blocks, 64 x 64 grid numbered column-major; A(i, j) = B(j, i).
def owner_b(i, j):
    pr, pc = (i // 64 + 3) % 64, (j // 64 + 5) % 64
    return pr * 64 + pc
def owner_a(i, j):
    pr, pc = (i // 96) % 64, (j // 80) % 64
    return pc * 64 + pr

def cuts(extent, *blocks):
    return sorted({x for b in blocks for x in range(0, extent, b)} | {extent})

rows = cuts(8192, 96, 64)   # A's rows: A's block rows and B's block columns
cols = cuts(6144, 80, 64)   # A's columns: A's block columns and B's block rows
send = [0] * P; recv = [0] * P; local = [0] * P
pairs = set(); pieces = 0
for r0, r1 in zip(rows, rows[1:]):
    for c0, c1 in zip(cols, cols[1:]):
        src, dst = owner_b(c0, r0), owner_a(r0, c0)
        size = (r1 - r0) * (c1 - c0) * ESZ
        pieces += 1
        if src == dst:
            local[src] += size
        else:
            send[src] += size; recv[dst] += size; pairs.add((src, dst))
send_msgs = [0] * P; recv_msgs = [0] * P
for s, t in pairs:
    send_msgs[s] += 1; recv_msgs[t] += 1

expect = {"ranks": P, "kind": "transform", "type": "z", "op": "T", "rounds": 1,
          "bytes_total": 8192 * 6144 * ESZ, "bytes_remote": sum(send), "bytes_remote_identity": sum(send),
          "messages": len(pairs), "pieces": pieces, "sigma": list(range(P))}
for k, v in expect.items():
    assert d[k] == v, f"{k}: relay-dump says {d[k] if k != 'sigma' else '...'}, the count says {v if k != 'sigma' else '...'}"
for r, row in enumerate(d["per_rank"]):
    want = {"rank": r, "send_bytes": send[r], "recv_bytes": recv[r], "send_msgs": send_msgs[r],
            "recv_msgs": recv_msgs[r], "local_bytes": local[r]}
    assert row == want, f"rank {r}: relay-dump says {row}, the count says {want}"
print(f"ok: 4096 ranks, {len(pairs)} messages, {sum(send)} remote bytes, {pieces} pieces agree")
PY
finish
