#!/usr/bin/env bash
# fft_python.sh — Python's distributed 3-D FFT: relay's DistArray reshapes
# with numpy.fft against mpi4py-fft's PFFT, and the reshapes alone against
# its Transfer (bench/fft_python.py says how); then DistArray.redistribute's
# cost over a bare Executor.run (bench/distarray_overhead.py).  Builds
# nothing: BUILD_DIR must hold relay's Python package.  Prints two markdown
# tables and records them (bench/record.py: python_fft, python_distarray).
#   bash bench/fft_python.sh [BUILD_DIR] [ITERS]
#   SIZES="128 256" CASES="2:slab 4:slab 4:pencil" RANKS="1 2" by default
# mpi4py-fft comes from `scripts/install-deps.sh --bench` (Debian's python3-mpi4py-fft).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/env.sh"
build=$(cd "${1:-$here/../build}" && pwd)
iters=${2:-9}
sizes=${SIZES:-128 256}
cases=${CASES:-2:slab 4:slab 4:pencil}
ranks=${RANKS:-1 2}
python=${PYTHON:-/usr/bin/python3}
"$python" -c "import mpi4py_fft" 2>/dev/null ||
  { echo "fft_python.sh: no mpi4py_fft for $python (bash scripts/install-deps.sh --bench)" >&2; exit 1; }
export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}"
mpiexec=$(relay_mpiexec "$build")

tables() {
  echo "$(date -u +%Y-%m-%dT%H:%MZ), OMP_NUM_THREADS=$OMP_NUM_THREADS, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  header=--header
  for n in $sizes; do
    for c in $cases; do
      "$mpiexec" -n "${c%%:*}" "$python" "$here/fft_python.py" --n "$n" --decomp "${c#*:}" --iters "$iters" $header
      header=
    done
  done
  echo
  header=--header
  for p in $ranks; do
    "$mpiexec" -n "$p" "$python" "$here/distarray_overhead.py" --rounds "$iters" $header
    header=
  done
  echo
  echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
}
tables | tee "$build/bench/fft_python.md"
python3 "$here/record.py" python_fft python_distarray < "$build/bench/fft_python.md" > /dev/null
