#!/usr/bin/env bash
# redist.sh — the SPEC section 6 table: relay against ScaLAPACK, a
# straightforward MPI_Alltoallv and memcpy, n x n doubles from nb x nb to
# 128 x 128 blocks, with and without transpose, on 1x2 and 2x2 grids.
# Sizes that are not powers of two sit beside those that are (ScaLAPACK's
# kernels and relay's both meet cache-set conflicts at powers of two).
# Prints one markdown table (docs/benchmarks.md holds the latest).
#   bash bench/redist.sh [--busy] [BUILD_DIR] [REPS] [WARMUP]
#   SIZES=4000,4096 BLOCKS=32 GRIDS=1x2 bash bench/redist.sh   (a part of it)
# --busy runs the table with a competing busy process pinned to the last
# CPU for its whole length (SPEC section 6, contention).
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
grids=${GRIDS:-1x2 2x2}
bench="$build/bench/redist_bench"
[ -x "$bench" ] || { echo "redist.sh: $bench not built (cmake -DCMAKE_BUILD_TYPE=Release)" >&2; exit 1; }
mpiexec=$(relay_mpiexec "$build")

if [ "$busy" = 1 ]; then
  last=$(($(nproc --all) - 1))
  taskset -c "$last" sh -c 'while :; do :; done' &
  spinner=$!
  trap 'kill "$spinner" 2>/dev/null' EXIT
fi

first=1
for grid in $grids; do
  ranks=$((${grid%x*} * ${grid#*x}))
  for nb in $blocks; do
    # One header for the whole table: later runs drop theirs.
    "$mpiexec" -n "$ranks" "$bench" "$grid" "$sizes" "$reps" "$warmup" "$nb" | tail -n +$((first ? 1 : 3))
    first=0
  done
done
