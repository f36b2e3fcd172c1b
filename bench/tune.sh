#!/usr/bin/env bash
# tune.sh — what tuning chooses (relay_exec_tune, relay-run --tune), case by
# case of COSTA's reference table and of the resize table: every way to
# replay each plan timed in one job, the choice that job makes, and how that
# choice and the fixed `auto` rule fare when a second job times them all again.
#
# Per case: the plan is made with rounds (so that its sections hold steps and
# every schedule can be timed on them) and with auto (which names auto's
# pick).  Job 1 tunes the rounds plan (relay-run --tune, REPS replays of each
# choice, interleaved) and keeps its choice; job 2 tunes that tuned plan again,
# a fresh measurement of every choice.  The table gives job 2's medians, job
# 1's choice and its time over job 2's fastest (within noise: near 1), and
# auto's pick and its time over job 2's fastest (auto's loss).  Finally the
# tuned plan replays in a third job, which must run job 1's choice.
# Where a node holds two ranks, p2p through the shared-memory window is one
# more choice (`p2p window`), and `window / p2p` its time over p2p's.
#   bash bench/tune.sh [BUILD_DIR] [REPS]   SIZES="4000 8000" by default;
#   RESIZE=0 leaves the resize table out
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/env.sh"
build=${1:-$here/../build-rel}
reps=${2:-7}
sizes=${SIZES:-4000 8000}
mpiexec=$(relay_mpiexec "$build")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

plan() { "$build/bin/relay-plan" transform "$@" > /dev/null; }
# relay-run --tune=OUT: Open MPI's mpirun takes "--tune FILE" for itself.
tune() { "$mpiexec" -n "$1" "$build/bin/relay-run" "$2" --tune="$3" --iters "$reps" --warmup 1 --verify > /dev/null; }
field() { "$build/bin/relay-dump" "$1" --json | python3 -c "import json, sys; d = json.load(sys.stdin); print($2)"; }

row() { # name ranks from to op
  local name=$1 ranks=$2 from=$3 to=$4 op=$5
  plan --ranks "$ranks" --from "$from" --to "$to" --op "$op" --schedule rounds -o "$work/r.plan"
  plan --ranks "$ranks" --from "$from" --to "$to" --op "$op" -o "$work/a.plan"
  tune "$ranks" "$work/r.plan" "$work/t1.plan"
  tune "$ranks" "$work/t1.plan" "$work/t2.plan"
  local auto picked ran
  auto=$(field "$work/a.plan" "d['schedule']")
  picked=$(field "$work/t1.plan" "d['tuning']['best'] + (' packed' if d['tuning']['best_packed'] else '') + (' window' if d['tuning']['best_window'] else '')")
  ran=$("$mpiexec" -n "$ranks" "$build/bin/relay-run" "$work/t1.plan" --iters 1 --json | python3 -c "import json, sys; print(json.load(sys.stdin)['schedule'])")
  [ "$ran" = "${picked%% *}" ] || { echo "tune.sh: $name: the tuned plan replayed $ran, not $picked" >&2; exit 1; }
  "$build/bin/relay-dump" "$work/t2.plan" --json | python3 -c '
import json, sys
name, ranks, picked, auto = sys.argv[1:5]
t = json.load(sys.stdin)["tuning"]
ms = {c["schedule"] + (" packed" if c["packed"] else "") + (" window" if c["window"] else ""): c["seconds"] for c in t["choices"]}
fastest = min(ms.values())
cell = lambda k: "%.2f" % (1e3 * ms[k]) if k in ms else "-"
window = "%.2f" % (ms["p2p window"] / ms["p2p"]) if "p2p window" in ms else "-"
print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.2f | %s | %.2f |" % (name, ranks, cell("p2p"), cell("p2p packed"),
      cell("p2p window"), window, cell("rounds"), cell("alltoallv"), cell("neighbor"), picked, ms[picked] / fastest, auto,
      ms[auto] / fastest))
' "$name" "$ranks" "$picked" "$auto"
}

table() {
  echo "| case | ranks | p2p ms | p2p packed ms | p2p window ms | window / p2p | rounds ms | alltoallv ms | neighbor ms | job 1 picks | picked / fastest | auto picks | auto / fastest |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  # COSTA's reference case: n x n doubles from nb x nb to 128 x 128 blocks, 1x2 and 2x2.
  for grid in 1x2 2x2; do
    ranks=$((${grid%x*} * ${grid#*x}))
    for n in $sizes; do
      for nb in 32 8; do
        for op in N T; do
          row "$n nb$nb $op $grid" "$ranks" "bc:${n}x$n:${nb}x$nb:$grid" "bc:${n}x$n:128x128:$grid" "$op"
        done
      done
    done
  done
  # The resize table (ReSHAPE): 4096 x 4096 in 64 x 64 blocks between grids, 8 ranks.
  [ "${RESIZE:-1}" = 0 ] && exit 0
  for move in 2x2:2x4 2x4:2x2 2x3:2x4 2x4:2x3 2x2:2x3 2x3:2x2; do
    row "resize ${move/:/ -> }" 8 "bc:4096x4096:64x64:${move%:*}" "bc:4096x4096:64x64:${move#*:}" N
  done
}
# The table on stdout, and once every case ran in bench/results/tune.csv.
table | tee "$work/table.md"
python3 "$here/record.py" tune < "$work/table.md" > /dev/null
