#!/usr/bin/env bash
# compose.sh — what composing two plans gains (relay_plan_compose): a
# redistribution through an intermediate layout, B -> A1 -> A2, replayed as
# the two plans one after the other against the one composed plan, which
# moves each element once.  relay-run times each plan (a median of REPS
# replays); the two-step time is the sum of the first two medians.  The
# three take turns ROUNDS times; the table gives medians over the turns.
#   bash bench/compose.sh [BUILD_DIR] [ROUNDS] [REPS]   RANKS=4, N=4000 by default
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/env.sh"
build=${1:-$here/../build-rel}
rounds=${2:-3}
reps=${3:-11}
ranks=${RANKS:-4}
n=${N:-4000}
mpiexec=$(relay_mpiexec "$build")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The replay's median seconds, from relay-run's line.
replay() { "$mpiexec" -n "$ranks" "$build/bin/relay-run" "$1" --iters "$reps" --warmup 1 --verify |
             sed -n 's/.*median \([0-9.]*\) s.*verified: yes.*/\1/p'; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
plan() { "$build/bin/relay-plan" "$@" > /dev/null; }

# name | B's layout | A1's layout | A2's layout | op1 | op2
cases=(
  "bc32 -> bc128 -> 2-D bc64|bc:$n:32x32:1x$ranks|bc:$n:128x128:1x$ranks|bc:$n:64x64:2x$((ranks / 2))|N|N"
  "transpose, then back to the first grid|bc:$n:32x32:1x$ranks|bc:$n:128x128:$ranks""x1|bc:$n:32x32:1x$ranks|T|T"
)

table() {
  echo "| case | ranks | n | first ms | second ms | two-step ms | composed ms | composed / two-step |"
  echo "|---|---|---|---|---|---|---|---|"
  for c in "${cases[@]}"; do
    IFS='|' read -r name b a1 a2 op1 op2 <<< "$c"
    b=${b/:$n:/:${n}x$n:}; a1=${a1/:$n:/:${n}x$n:}; a2=${a2/:$n:/:${n}x$n:}
    plan transform --ranks "$ranks" --from "$b" --to "$a1" --op "$op1" -o "$work/first.plan"
    plan transform --ranks "$ranks" --from "$a1" --to "$a2" --op "$op2" -o "$work/second.plan"
    plan compose "$work/first.plan" "$work/second.plan" -o "$work/both.plan"
    : > "$work/first"; : > "$work/second"; : > "$work/both"
    for ((r = 0; r < rounds; r++)); do
      for p in first second both; do replay "$work/$p.plan" >> "$work/$p"; done
    done
    f=$(median < "$work/first"); s=$(median < "$work/second"); o=$(median < "$work/both")
    awk -v name="$name" -v P="$ranks" -v n="$n" -v f="$f" -v s="$s" -v o="$o" 'BEGIN {
      printf "| %s | %d | %d | %.2f | %.2f | %.2f | %.2f | %.2f |\n", name, P, n, f * 1e3, s * 1e3, (f + s) * 1e3, o * 1e3, o / (f + s) }'
  done
}
# The table on stdout, and once every replay verified in bench/results/compose.csv.
table | tee "$work/table.md"
python3 "$here/record.py" compose < "$work/table.md" > /dev/null
