#!/usr/bin/env bash
# python_overhead.sh — Python's overhead over the C API: per
# replay on a tiny plan and on COSTA's reference case, and planning
# (bench/python_overhead.py says how each is measured).  Builds nothing:
# BUILD_DIR must hold relay's Python package (python/relay) and
# bench/libpython_overhead_c.so.  Prints two markdown tables and records
# them (bench/record.py; docs/benchmarks.md, "Python: overhead, ...", shows them).
#   bash bench/python_overhead.sh [BUILD_DIR] [ROUNDS]
#   RANKS="1 2" SPEC_RANKS=2 N=4000 bash bench/python_overhead.sh build   (a part of it;
#   SPEC_RANKS= leaves the reference case out)
# PYTHON (default /usr/bin/python3) must import numpy and mpi4py.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/env.sh"
build=$(cd "${1:-$here/../build}" && pwd)
rounds=${2:-9}
ranks=${RANKS:-1 2 4}
spec_ranks=${SPEC_RANKS-2 4}   # empty: no reference case
n=${N:-4096}
python=${PYTHON:-/usr/bin/python3}
lib="$build/bench/libpython_overhead_c.so"
[ -f "$lib" ] || { echo "python_overhead.sh: $lib not built" >&2; exit 1; }
compgen -G "$build/python/relay/_core*.so" > /dev/null ||
  { echo "python_overhead.sh: $build/python/relay/_core*.so not built (-DRELAY_BUILD_PYTHON=ON)" >&2; exit 1; }
export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}"
mpiexec=$(relay_mpiexec "$build")
bench=("$python" "$here/python_overhead.py" --lib "$lib" --rounds "$rounds" --n "$n")

table() {
  echo "$(date -u +%Y-%m-%dT%H:%MZ), OMP_NUM_THREADS=$OMP_NUM_THREADS, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  header=--header
  for p in $ranks; do
    cases=tiny
    for s in $spec_ranks; do [ "$s" = "$p" ] && cases=tiny,spec; done
    "$mpiexec" -n "$p" "${bench[@]}" --replays "$cases" $header
    header=
  done
  echo
  "$mpiexec" -n 1 "${bench[@]}" --plan --header
  echo
  echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
}
# The tables on stdout, and once every run succeeded in
# bench/results/python_replay.csv and python_planning.csv.
table | tee "$build/bench/python_overhead.md"
python3 "$here/record.py" python_replay python_planning < "$build/bench/python_overhead.md" > /dev/null
