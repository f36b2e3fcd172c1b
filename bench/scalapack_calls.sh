#!/usr/bin/env bash
# scalapack_calls.sh — the cold-call table: relay's ScaLAPACK-
# compatible calls against ScaLAPACK's own, call by call, at 2 and 4 ranks
# (bench/scalapack_calls.c).  Prints one markdown table per run; RUNS runs
# per rank count, alternating 2 and 4, so that machine noise spreads over
# both (docs/benchmarks.md holds the latest).
#   bash bench/scalapack_calls.sh [BUILD_DIR] [RUNS] [CALLS] [REPS] [HIT_N]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/env.sh"
build=${1:-$here/../build-rel}
runs=${2:-3}
calls=${3:-120}
reps=${4:-20}
hit_n=${5:-2000}
bench="$build/bench/scalapack_calls"
[ -x "$bench" ] || { echo "scalapack_calls.sh: $bench not built (cmake -DCMAKE_BUILD_TYPE=Release)" >&2; exit 1; }
mpiexec=$(relay_mpiexec "$build")
table() {
  for run in $(seq "$runs"); do
    for np in 2 4; do
      "$mpiexec" -n "$np" "$bench" "$calls" "$reps" "$hit_n" "$run"
    done
  done
}
# The tables on stdout, and once every run succeeded in
# bench/results/scalapack_calls.csv.
table | tee "$build/bench/scalapack_calls.md"
python3 "$here/record.py" scalapack_calls < "$build/bench/scalapack_calls.md" > /dev/null
