#!/usr/bin/env bash
# first_call.sh — the first result a program gets, in fresh processes
# (bench/first_call.c): ScaLAPACK's first call against relay's shipped plan
# (load, bind, first replay) and the drop-in's first call, on the section 6
# cases.  Every job runs one contestant in fresh processes; JOBS jobs per
# contestant and case, the contestants' order rotating from job to job.
# Prints per case the medians (first call, then the second call; wall and
# CPU time, the latter what a call cost apart from waiting for a time slice
# on a shared machine) and the ratios to ScaLAPACK's, records them in
# bench/results/first_call.csv, and leaves every job's lines in
# BUILD_DIR/bench/first_call.log.
#   bash bench/first_call.sh [BUILD_DIR] [JOBS] ["PRxPC N NB OP" ...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/env.sh"
build=${1:-$here/../build-rel}
jobs=${2:-7}
shift $(($# < 2 ? $# : 2))
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(
  "1x1 4000 32 T" "1x2 4000 32 N" "1x2 4000 32 T" "1x2 6000 8 T" "1x2 8000 8 T" "1x2 8000 32 T"
  "2x2 8192 32 N" "2x2 8000 32 T" "2x2 8000 8 T" "2x2 8192 8 T")
bench="$build/bench/first_call"
[ -x "$bench" ] || { echo "first_call.sh: $bench not built (cmake -DCMAKE_BUILD_TYPE=Release)" >&2; exit 1; }
mpiexec=$(relay_mpiexec "$build")
plans=$(mktemp -d)
trap 'rm -rf "$plans"' EXIT
log="$build/bench/first_call.log"
: > "$log"
contestants=(scalapack shipped dropin)
for c in "${cases[@]}"; do
  read -r grid n nb op <<< "$c"
  np=$(( ${grid%x*} * ${grid#*x} ))
  "$mpiexec" -n "$np" "$bench" save "$grid" "$n" "$nb" "$op" "$plans"
  for job in $(seq 0 $((jobs - 1))); do
    for k in 0 1 2; do
      who=${contestants[$(( (job + k) % 3 ))]}
      "$mpiexec" -n "$np" "$bench" "$who" "$grid" "$n" "$nb" "$op" "$plans" >> "$log"
    done
  done
done
python3 - "$log" "$jobs" <<'EOF' | tee "$build/bench/first_call.md"
import statistics, sys
from collections import defaultdict
wall, cpu = defaultdict(list), defaultdict(list)
for line in open(sys.argv[1]):
    who, grid, n, nb, op, part, ms, _, cpu_ms, *_ = line.split()
    wall[(grid, n, nb, op), who, part].append(float(ms))
    cpu[(grid, n, nb, op), who, part].append(float(cpu_ms))
def med(t, case, who, part):
    v = t.get((case, who, part))
    return statistics.median(v) if v else float("nan")
def pair(case, who, part, base):  # "wall (CPU)", and the ratios to ScaLAPACK's call `base`
    w, c = med(wall, case, who, part), med(cpu, case, who, part)
    ratio = f" | {w / med(wall, case, 'scalapack', base):.2f} ({c / med(cpu, case, 'scalapack', base):.2f})" if base else ""
    return f"{w:.1f} ({c:.1f}){ratio}"
print(f"First calls in fresh processes: medians of {sys.argv[2]} jobs per contestant, wall ms and (CPU ms)."
      " Ratios are to ScaLAPACK's first call, for second calls to its second.\n")
print("| grid | n | src nb | op | ScaLAPACK first | shipped: load + bind + first replay | shipped / ScaLAPACK"
      " | drop-in first call | drop-in / ScaLAPACK | ScaLAPACK second | drop-in second call"
      " | drop-in second / ScaLAPACK second | shipped second replay |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for case in dict.fromkeys(k[0] for k in wall):
    grid, n, nb, op = case
    print(f"| {grid} | {n} | {nb.removeprefix('nb')} | {op} | {pair(case, 'scalapack', 'first', None)}"
          f" | {pair(case, 'shipped', 'first', 'first')} | {pair(case, 'dropin', 'first', 'first')}"
          f" | {pair(case, 'scalapack', 'then', None)} | {pair(case, 'dropin', 'then', 'then')}"
          f" | {pair(case, 'shipped', 'then', None)} |")
EOF
python3 "$here/record.py" first_call < "$build/bench/first_call.md" > /dev/null
