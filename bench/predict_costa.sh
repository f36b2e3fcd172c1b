#!/usr/bin/env bash
# predict_costa.sh — COSTA's section 7 by simulation: relay's
# schedules with and without process relabeling, predicted by relay-dump
# --predict on Piz Daint's model (tools/machines/dragonfly-aries.machine),
# for the paper's cases:
#   7.1  128 nodes, 2 ranks a node, a 16 x 16 grid: N x N doubles from
#        32 x 32 to 128 x 128 blocks, copied (pdgemr2d, op N) and transposed
#        (pdtran, op T), N = 100,000 and 200,000 (the paper's range);
#   7.2  Figure 3's layouts: 10^5 x 10^5 doubles on a 10 x 10 grid numbered
#        row-major, to 10^4 x 10^4 blocks on the grid numbered column-major,
#        from b x b blocks (50 nodes at 2 ranks a node): the time relabeling
#        saves, beside the volume it saves.
# The shipped model has 12 ranks a node (an XC50 GPU node); the paper ran 2
# (one per socket of an XC40 CPU node, 18 threads each).  So the machines
# are copies of it:
#   daint-2         ranks_per_node = 2, all else shipped (a rank packs at
#                   one core's 5.6e9 bytes/s);
#   daint-2-socket  also memory_bandwidth = 30e9, a socket's STREAM copy
#                   (about 60 GB/s read + write) for a rank of 18 threads;
#   star-2          daint-2's numbers on topology star (every node one link
#                   to one crossbar): no dragonfly links to contend for, to
#                   tell the network's part from the volume's.
# Each plan is made with rounds so that all four schedules are predicted;
# relabeled plans with --relabel optimal (COSTA's linear assignment).
# Prints two markdown tables: every schedule on daint-2 with the fastest on
# the other two machines, then what relabeling saves (volume, time).
#   bash bench/predict_costa.sh [BUILD_DIR]   SIZES="100000 200000" by default
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
sizes=${SIZES:-100000 200000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

shipped="$build/share/relay/machines/dragonfly-aries.machine"
sed 's/^ranks_per_node = .*/ranks_per_node = 2/' "$shipped" >"$work/daint-2.machine"
grep -q '^ranks_per_node = 2$' "$work/daint-2.machine" || { echo "no ranks_per_node in $shipped" >&2; exit 1; }
sed 's/^memory_bandwidth = .*/memory_bandwidth = 30e9/' "$work/daint-2.machine" >"$work/daint-2-socket.machine"
sed -e 's/^topology = .*/topology = star/' -e '/^\(chassis_per_group\|routers_per_chassis\|nodes_per_router\)/d' \
    -e '/^\(chassis_links\|router_links\|group_links\)/d' "$work/daint-2.machine" >"$work/star-2.machine"
machines="daint-2 daint-2-socket star-2"

# predict NAME RANKS FROM TO OP: each relabeling's remote bytes and every
# machine's predictions, one JSON line each to results.jsonl.
predict() {
    local name=$1 ranks=$2 from=$3 to=$4 op=$5
    for relabel in none optimal; do
        "$build/bin/relay-plan" transform --ranks "$ranks" --from "$from" --to "$to" --op "$op" --relabel "$relabel" \
            --schedule rounds -o "$work/p.plan" >/dev/null
        "$build/bin/relay-dump" "$work/p.plan" --json >"$work/volumes.json"
        for m in $machines; do
            "$build/bin/relay-dump" "$work/p.plan" --predict "$work/$m.machine" --json >"$work/$m.json"
        done
        python3 - "$name" "$relabel" "$work" $machines >>"$work/results.jsonl" <<'PY'
import json, sys
name, relabel, work, machines = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
volumes = json.load(open(f"{work}/volumes.json"))
ms = {m: {s["schedule"]: s["seconds"] * 1e3 for s in json.load(open(f"{work}/{m}.json"))["prediction"]["schedules"]}
      for m in machines}
print(json.dumps({"case": name, "relabel": relabel, "remote": volumes["bytes_remote"], "ms": ms}))
PY
    done
}

for n in $sizes; do
    predict "7.1 pdgemr2d N=$n" 256 "bc:${n}x${n}:32x32:16x16" "bc:${n}x${n}:128x128:16x16" N
    predict "7.1 pdtran N=$n" 256 "bc:${n}x${n}:32x32:16x16" "bc:${n}x${n}:128x128:16x16" T
done
for b in 1000 2000 2500 5000 10000; do
    predict "Fig. 3 b=$b" 100 "bc:100000x100000:${b}x${b}:10x10" "bc:100000x100000:10000x10000:10x10:grid=col" N
done

# The tables on stdout, and in bench/results/predict_costa.csv (the second,
# what relabeling saves).
python3 - "$work/results.jsonl" > "$work/table.md" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
order = ["p2p", "rounds", "alltoallv", "neighbor"]
def fastest(ms):
    best = min(order, key=lambda s: (ms[s], order.index(s)))
    return ms[best], best
print("| case | relabel | remote GiB | daint-2: p2p / rounds / alltoallv / neighbor ms | daint-2 fastest | daint-2-socket fastest ms | star-2 fastest ms |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    ms = r["ms"]
    cells = [" / ".join(f"{ms['daint-2'][s]:.1f}" for s in order), fastest(ms["daint-2"])[1]]
    cells += ["%.1f (%s)" % fastest(ms[m]) for m in ("daint-2-socket", "star-2")]
    print(f"| {r['case']} | {r['relabel']} | {r['remote'] / 2**30:.2f} | " + " | ".join(cells) + " |")
print()
print("| case | volume saved by relabeling % | time saved, daint-2 % | daint-2-socket % | star-2 % |")
print("|---|---|---|---|---|")
for none, opt in zip(rows[::2], rows[1::2]):
    saved = lambda m: 100 * (1 - fastest(opt["ms"][m])[0] / fastest(none["ms"][m])[0])
    vol = 100 * (1 - opt["remote"] / none["remote"]) if none["remote"] else 0.0
    print(f"| {none['case']} | {vol:.1f} | " + " | ".join(f"{saved(m):.1f}" for m in ("daint-2", "daint-2-socket", "star-2")) + " |")
PY
cat "$work/table.md"
python3 "$here/record.py" - predict_costa < "$work/table.md" > /dev/null
