#!/usr/bin/env bash
# redist.sh — the SPEC section 6 table: relay against ScaLAPACK, a
# straightforward MPI_Alltoallv and memcpy, n = 2048, 4096, 8192, 32 -> 128
# blocks, with and without transpose, on 1x2 and 2x2 grids.  Prints one
# markdown table (docs/benchmarks.md holds the latest).
#   bash bench/redist.sh [BUILD_DIR] [REPS] [WARMUP]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/env.sh"
build=${1:-$here/../build-rel}
reps=${2:-9}
warmup=${3:-2}
bench="$build/bench/redist_bench"
[ -x "$bench" ] || { echo "redist.sh: $bench not built (cmake -DCMAKE_BUILD_TYPE=Release)" >&2; exit 1; }
mpiexec=$(relay_mpiexec "$build")
"$mpiexec" -n 2 "$bench" 1x2 2048,4096,8192 "$reps" "$warmup"
"$mpiexec" -n 4 "$bench" 2x2 2048,4096,8192 "$reps" "$warmup" | tail -n +3
