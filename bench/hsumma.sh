#!/usr/bin/env bash
# hsumma.sh — the HSUMMA tables of docs/benchmarks.md: the cost model for
# the paper's BlueGene/P and exascale cases, then SUMMA against every
# HSUMMA grouping at 4, 8 and 16 (oversubscribed) ranks, all groupings of a
# rank count in one job.
#   bash bench/hsumma.sh [BUILD_DIR] [N] [B] [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/env.sh"
build=${1:-$here/../build-rel}
n=${2:-2048}
b=${3:-64}
rounds=${4:-7}
bench="$build/bench/hsumma_bench"
[ -x "$bench" ] || { echo "hsumma.sh: $bench not built (cmake -DCMAKE_BUILD_TYPE=Release)" >&2; exit 1; }
export OPENBLAS_NUM_THREADS=1
mpiexec=$(relay_mpiexec "$build")
table() {
  "$mpiexec" -n 1 "$bench" --model
  for p in 4 8 16; do
    "$mpiexec" -n "$p" "$bench" "$n" "$b" "$rounds"
  done
}
# The tables on stdout, and once every job succeeded the measured ones in
# bench/results/hsumma.csv (the model's tables, a formula's values, are
# not recorded).
table | tee "$build/bench/hsumma.md"
python3 "$here/record.py" - - hsumma < "$build/bench/hsumma.md" > /dev/null
