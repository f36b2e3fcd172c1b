#!/usr/bin/env bash
# pull.sh — what reading the peer's B gains (executor/transform_pull.c):
# transposes on 1 x 2 replayed by relay-run with RELAY_PULL=off (every
# message packed and moved by MPI) and on (the receiver reads B's runs
# itself where they are 4 KB or longer), the two taking turns.
#   slab  n x n, one block per rank (runs of n/2 doubles: pulled)
#   bc32  n x n, 32 x 32 -> 128 x 128 blocks (runs of 1 KB: not pulled)
# Prints a markdown table: the median of each side over ROUNDS turns of
# `relay-run --iters REPS` (itself a median), and their ratio.
#   bash bench/pull.sh [BUILD_DIR] [ROUNDS] [REPS]      SIZES=4000,8000 by default
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/env.sh"
build=${1:-$here/../build-rel}
rounds=${2:-3}
reps=${3:-11}
sizes=${SIZES:-4000,8000}
mpiexec=$(relay_mpiexec "$build")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The replay's median seconds, from relay-run's line.
replay() { RELAY_PULL=$1 "$mpiexec" -n 2 "$build/bin/relay-run" "$2" --iters "$reps" --warmup 1 --verify |
             sed -n 's/.*median \([0-9.]*\) s.*verified: yes.*/\1/p'; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

table() {
  echo "| case | n | staged ms (RELAY_PULL=off) | pulled ms (RELAY_PULL=on) | pulled / staged |"
  echo "|---|---|---|---|---|"
  for n in ${sizes//,/ }; do
    half=$(((n + 1) / 2))
    "$build/bin/relay-plan" transform --ranks 2 --from "bc:${n}x${n}:${n}x${half}:1x2" \
      --to "bc:${n}x${n}:${n}x${half}:1x2" --op T -o "$work/slab.plan" > /dev/null
    "$build/bin/relay-plan" transform --ranks 2 --from "bc:${n}x${n}:32x32:1x2" \
      --to "bc:${n}x${n}:128x128:1x2" --op T -o "$work/bc32.plan" > /dev/null
    for c in slab bc32; do
      : > "$work/off"; : > "$work/on"
      for ((r = 0; r < rounds; r++)); do
        replay off "$work/$c.plan" >> "$work/off"
        replay on "$work/$c.plan" >> "$work/on"
      done
      off=$(median < "$work/off"); on=$(median < "$work/on")
      [ -n "$off" ] && [ -n "$on" ] || { echo "pull.sh: a replay failed or did not verify ($c, n = $n)" >&2; exit 1; }
      awk -v c="$c" -v n="$n" -v a="$off" -v b="$on" \
        'BEGIN {printf "| %s | %d | %.2f | %.2f | %.2f |\n", c, n, a * 1e3, b * 1e3, b / a}'
    done
  done
}
# The table on stdout, and once every replay succeeded in bench/results/pull.csv.
table | tee "$work/table.md"
python3 "$here/record.py" pull < "$work/table.md" > /dev/null
