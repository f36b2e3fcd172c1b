#!/usr/bin/env bash
# redist.sh — COSTA's reference case: relay against ScaLAPACK, a
# straightforward MPI_Alltoallv and memcpy, n x n doubles from nb x nb to
# 128 x 128 blocks, with and without transpose, on 1x2 and 2x2 grids; then
# the rows that FFTW-MPI's transpose expresses (redist_bench's rows mode:
# grid "Px1 rows", n x n row-major in row blocks of ceil(n/P) rows to its
# transpose, on 2 and 4 ranks), with FFTW-MPI where redist_bench was built
# with it.  COSTA's column is filled where redist_bench was built with COSTA
# (bench/costa.sh).  Sizes that are not powers of two sit beside those that
# are (ScaLAPACK's kernels and relay's both meet cache-set conflicts at
# powers of two).
# Each job times in rounds: every round calls every contestant once, in an
# order that changes from round to round so that each follows each other
# equally often (executor/balanced_order.h), WARMUP rounds of warm-up then REPS
# timed; each time is the median over the timed rounds of the slowest rank's
# time of one call.  Prints one markdown table and records it
# (bench/record.py; docs/benchmarks.md shows the latest).
#   bash bench/redist.sh [--busy] [BUILD_DIR] [REPS] [WARMUP]   (REPS 7, WARMUP 2)
#   SIZES=4000,4096 BLOCKS=32 GRIDS=1x2 ROWS=2 bash bench/redist.sh   (a part of it)
#   GRIDS= bash bench/redist.sh      (the rows only; ROWS= : the grids only)
#   RELAY_BENCH_SKIP=Alltoallv bash bench/redist.sh   (a contestant left out)
#   RELAY_BENCH_TUNE=0 bash bench/redist.sh   (relay's plans untuned: by default each is
#                                              tuned first, relay_exec_tune with 5 replays of
#                                              each choice, timed apart like planning, and
#                                              relay replays the fastest)
# --busy runs the table with a competing busy process pinned to the last
# CPU for its whole length (contention).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/env.sh"
busy=0
if [ "${1:-}" = --busy ]; then busy=1; shift; fi
build=${1:-$here/../build-rel}
reps=${2:-7}
warmup=${3:-2}
sizes=${SIZES:-4000,4096,6000,8000,8192}
blocks=${BLOCKS:-32 8}
grids=${GRIDS-1x2 2x2}
rows=${ROWS-2 4}
bench="$build/bench/redist_bench"
[ -x "$bench" ] || { echo "redist.sh: $bench not built (cmake -DCMAKE_BUILD_TYPE=Release)" >&2; exit 1; }
mpiexec=$(relay_mpiexec "$build")
export RELAY_BENCH_TUNE=${RELAY_BENCH_TUNE-5}

if [ "$busy" = 1 ]; then
  last=$(($(nproc --all) - 1))
  taskset -c "$last" sh -c 'while :; do :; done' &
  spinner=$!
  trap 'kill "$spinner" 2>/dev/null' EXIT
fi

# One header for the whole table: later runs drop theirs.
first=1
run() {
  local ranks=$1
  shift
  "$mpiexec" -n "$ranks" "$bench" "$@" | tail -n +$((first ? 1 : 3))
  first=0
}
table() {
  for grid in $grids; do
    for nb in $blocks; do
      run $((${grid%x*} * ${grid#*x})) "$grid" "$sizes" "$reps" "$warmup" "$nb"
    done
  done
  for p in $rows; do
    run "$p" rows "$sizes" "$reps" "$warmup"
  done
}
# The table on stdout, and once every job succeeded into
# bench/results/redist.csv (redist_busy.csv with --busy).
name=redist
[ "$busy" = 1 ] && name=redist_busy
table | tee "$build/bench/$name.md"
python3 "$here/record.py" "$name" < "$build/bench/$name.md" > /dev/null
