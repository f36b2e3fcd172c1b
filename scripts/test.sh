#!/usr/bin/env bash
# test.sh — installs dependencies, builds relay three times and runs every
# test of each under ctest: against Open MPI optimised, and with
# AddressSanitizer + UndefinedBehaviorSanitizer (cmocka unit tests and MPI
# tests at 1, 2, 3, 4 and 8 ranks), then against MPICH 4, whose MPI-4
# persistent collectives Open MPI 4.1 lacks (MPI tests at RELAY_MPICH_RANKS);
# then fuzzes the plan decoder for a minute (RELAY_FUZZ_SECONDS).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
scripts/install-deps.sh

run_suite() { # build-dir, extra cmake args...
  local dir=$1; shift
  echo "== configure and build $dir $*"
  cmake -S . -B "$dir" "$@" >/dev/null
  cmake --build "$dir" -j "$JOBS" >/dev/null
  echo "== test $dir"
  (cd "$dir" && ctest --output-on-failure -j "$JOBS" --timeout 900)
}

run_suite build -DCMAKE_BUILD_TYPE=RelWithDebInfo
run_suite build-asan -DCMAKE_BUILD_TYPE=Debug -DRELAY_SANITIZE=ON -DRELAY_BUILD_BENCH=OFF
run_suite build-mpich -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMPI_EXECUTABLE_SUFFIX=.mpich -DRELAY_BUILD_BENCH=OFF \
  "-DRELAY_TEST_RANKS=${RELAY_MPICH_RANKS:-1;2;4}"
echo "== fuzz the plan decoder"
scripts/fuzz.sh "${RELAY_FUZZ_SECONDS:-60}" build
echo "test.sh: all suites passed"
