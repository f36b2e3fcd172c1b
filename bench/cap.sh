#!/usr/bin/env bash
# cap.sh — what a memory cap (relay-plan --max-buffer) costs and saves: an
# n x n double transpose on 2 x 2 ranks from 32 x 32 to 128 x 128 blocks,
# uncapped (p2p and rounds) and capped at several sizes; relay-run times
# each (a median of REPS replays), the capped plans also with their chunks
# through the shared-memory window, and reports the most memory a rank's
# executor holds beyond the matrices.  The plans take turns ROUNDS times;
# the table gives medians over the turns.
#   bash bench/cap.sh [BUILD_DIR] [ROUNDS] [REPS]   N=4000 by default
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/env.sh"
build=${1:-$here/../build-rel}
rounds=${2:-3}
reps=${3:-7}
n=${N:-4000}
mpiexec=$(relay_mpiexec "$build")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

plan() { "$build/bin/relay-plan" transform --ranks 4 --from "bc:${n}x$n:32x32:2x2" --to "bc:${n}x$n:128x128:2x2" --op T "$@" > /dev/null; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# name+window: the same plan with its on-node chunks through the
# shared-memory window (RELAY_SHM=on), the others through MPI (off).
names=(p2p rounds cap16M cap16M+window cap1M cap1M+window cap64K cap64K+window)
plan --schedule p2p -o "$work/p2p.plan"
plan --schedule rounds -o "$work/rounds.plan"
plan --max-buffer $((16 << 20)) -o "$work/cap16M.plan"
plan --max-buffer $((1 << 20)) -o "$work/cap1M.plan"
plan --max-buffer $((64 << 10)) -o "$work/cap64K.plan"
for ((r = 0; r < rounds; r++)); do
  for p in "${names[@]}"; do
    shm=off; [[ $p == *+window ]] && shm=on
    RELAY_SHM=$shm "$mpiexec" -n 4 "$build/bin/relay-run" "$work/${p%+window}.plan" --iters "$reps" --warmup 1 --verify --json |
      python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["verified"]; print(d["run_s_median"], d["extra_bytes"])' >> "$work/$p"
  done
done
table() {
  base=$(cut -d' ' -f1 < "$work/p2p" | median)
  echo "| plan | cap | replay ms | / p2p | extra MiB per rank (max) |"
  echo "|---|---|---|---|---|"
  for p in "${names[@]}"; do
    t=$(cut -d' ' -f1 < "$work/$p" | median); m=$(cut -d' ' -f2 < "$work/$p" | median)
    cap=$("$build/bin/relay-dump" "$work/${p%+window}.plan" --json | python3 -c 'import json, sys; c = json.load(sys.stdin)["max_buffer_bytes"]; print(c if c else "none")')
    awk -v p="$p" -v c="$cap" -v t="$t" -v b="$base" -v m="$m" 'BEGIN { printf "| %s | %s | %.2f | %.2f | %.2f |\n", p, c, t * 1e3, t / b, m / 1048576 }'
  done
}
# The table on stdout, and in bench/results/cap.csv.
table | tee "$work/table.md"
python3 "$here/record.py" cap < "$work/table.md" > /dev/null
