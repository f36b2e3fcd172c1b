#!/usr/bin/env bash
# costa.sh — optional: COSTA's ScaLAPACK-like calls (costa_pdgemr2d,
# costa_pdtran) as one more contestant of bench/redist_bench.
# CI does not need it.  Fetches nothing: builds COSTA 2.x from a source tree
# you already have into PREFIX (Release, shared, its ScaLAPACK layer against
# Debian's libscalapack-openmpi, no tests, apps or profiling, so nothing is
# downloaded), unless PREFIX already holds it; then configures relay (Release)
# in BUILD_DIR with -DCOSTA_DIR and builds redist_bench there.  Run the table
# afterwards with bash bench/redist.sh BUILD_DIR.
#   bash bench/costa.sh COSTA_SRC [PREFIX] [BUILD_DIR]
# e.g. release v2.3.2 (COSTA is not part of relay):
#   git clone --branch v2.3.2 https://github.com/eth-cscs/COSTA /opt/costa-src
#   bash bench/costa.sh /opt/costa-src /opt/costa build-costa
#   bash bench/redist.sh build-costa
# Only COSTA's prefixed library (costa_prefixed_scalapack) is linked into
# redist_bench: its unprefixed one defines pdgemr2d_/pdtran_ itself and would
# take ScaLAPACK's place as the baseline.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/env.sh"
src=${1:?usage: bash bench/costa.sh COSTA_SRC [PREFIX] [BUILD_DIR]}
prefix=${2:-/opt/costa}
build=${3:-$here/../build-costa}
scalapack=$(pkg-config --variable=libdir scalapack-openmpi)/libscalapack-openmpi.so
config=$prefix/lib/cmake/costa

if [ ! -f "$config/costaConfig.cmake" ]; then
  cbuild=${COSTA_BUILD:-$prefix-build}
  cmake -S "$src" -B "$cbuild" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER=mpicxx \
    -DBUILD_SHARED_LIBS=ON -DCMAKE_INSTALL_LIBDIR=lib \
    -DCOSTA_SCALAPACK=CUSTOM -DCOSTA_SCALAPACK_LINK_LIBRARIES="$scalapack" \
    -DCOSTA_WITH_TESTS=OFF -DCOSTA_WITH_APPS=OFF \
    -DCOSTA_WITH_BENCHMARKS=OFF -DCOSTA_WITH_PROFILING=OFF \
    -DCMAKE_INSTALL_PREFIX="$prefix"
  cmake --build "$cbuild" -j"$JOBS"
  cmake --install "$cbuild"
fi

cmake -S "$here/.." -B "$build" -DCMAKE_BUILD_TYPE=Release -DCOSTA_DIR="$config"
cmake --build "$build" -j"$JOBS" --target redist_bench
