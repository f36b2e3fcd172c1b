#!/usr/bin/env bash
# heffte.sh — relay's pencil reshapes against heFFTe's reshape3d
# (bench/heffte_bench.cpp).  Fetches nothing: builds heFFTe (FFTW backend,
# Debian's libfftw3-dev, the default MPI, Open MPI) from a source tree you
# already have into PREFIX, unless PREFIX already holds it; configures relay
# (Release) in BUILD_DIR against it; builds heffte_bench; runs it RUNS times at
# each rank count of RANKS.
#   bash bench/heffte.sh HEFFTE_SRC [PREFIX] [BUILD_DIR] [REPLAYS]
#        RANKS="2 4" RUNS=3 SIZES="256 384" by default
# e.g. a source tree of release v2.4.1 (heFFTe is not part of relay):
#   git clone --branch v2.4.1 https://github.com/icl-utk-edu/heffte /opt/heffte-src
#   bash bench/heffte.sh /opt/heffte-src /opt/heffte build-heffte 9
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/env.sh"
src=${1:?usage: bash bench/heffte.sh HEFFTE_SRC [PREFIX] [BUILD_DIR] [REPLAYS]}
prefix=${2:-/opt/heffte}
build=${3:-$here/../build-heffte}
replays=${4:-9}
ranks=${RANKS:-2 4}
runs=${RUNS:-3}
sizes=${SIZES:-256 384}

if [ ! -f "$prefix/lib/cmake/Heffte/HeffteConfig.cmake" ]; then
  hbuild=${HEFFTE_BUILD:-$prefix-build}
  cmake -S "$src" -B "$hbuild" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=mpicc -DCMAKE_CXX_COMPILER=mpicxx \
    -DHeffte_ENABLE_FFTW=ON -DHeffte_ENABLE_AVX=OFF \
    -DHeffte_ENABLE_TESTING=OFF -DHeffte_ENABLE_PYTHON=OFF \
    -DCMAKE_INSTALL_PREFIX="$prefix"
  cmake --build "$hbuild" -j"$JOBS"
  cmake --install "$hbuild"
fi

cmake -S "$here/.." -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix"
cmake --build "$build" -j"$JOBS" --target heffte_bench
mpiexec=$(relay_mpiexec "$build")

table() {
  for p in $ranks; do
    for run in $(seq "$runs"); do
      echo "== $p ranks, run $run; $(uptime)"
      # shellcheck disable=SC2086  # sizes are words
      "$mpiexec" -n "$p" "$build/bench/heffte_bench" "$replays" $sizes
    done
  done
}
# The tables on stdout, and once every run succeeded in
# bench/results/nd_heffte.csv.
table | tee "$build/bench/nd_heffte.md"
python3 "$here/record.py" nd_heffte < "$build/bench/nd_heffte.md" > /dev/null
