#!/usr/bin/env bash
# test.sh — installs dependencies, builds relay four times and runs the
# tests of each under ctest: against Open MPI optimised, every test; with
# AddressSanitizer + UndefinedBehaviorSanitizer, the cmocka unit tests and
# the MPI tests at RELAY_ASAN_RANKS; against MPICH 4, whose MPI-4 persistent
# collectives Open MPI 4.1 lacks, the tests that start MPI, at
# RELAY_MPICH_RANKS; and the tests that execute those MPI-4 branches once
# more against MPICH under the sanitizers.  Then it fuzzes the plan decoder
# for a minute (RELAY_FUZZ_SECONDS).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
scripts/install-deps.sh
scripts/install-hooks.sh

run_suite() { # build-dir, extra cmake args...  (ctest's own in CTEST_SELECT, if set)
  local dir=$1; shift
  echo "== configure and build $dir $*"
  cmake -S . -B "$dir" "$@" >/dev/null
  cmake --build "$dir" -j "$JOBS" >/dev/null
  echo "== test $dir ${CTEST_SELECT:-}"
  (cd "$dir" && ctest --output-on-failure -j "$JOBS" --timeout 900 ${CTEST_SELECT:-})
}

run_suite build -DCMAKE_BUILD_TYPE=RelWithDebInfo
# Without relay_predict: AddressSanitizer cannot follow SimGrid's actor
# stacks (cmake/RelayPredict.cmake), so the sanitized builds leave it out.
# At 1, 2 and 4 ranks: 3 and 8 (oversubscribed 4x, each rank slowed 2-10x
# by the sanitizers) ran a third of CI's time for paths the plain build
# covers at those counts.
run_suite build-asan -DCMAKE_BUILD_TYPE=Debug -DRELAY_SANITIZE=ON -DRELAY_BUILD_BENCH=OFF \
  "-DRELAY_TEST_RANKS=${RELAY_ASAN_RANKS:-1;2;4}"
# The tests that start MPI, and the Python package's offline suite; not the
# unit tests, nor the checks that only plan, dump or predict (the same code
# as in the first suite, MPI aside).
CTEST_SELECT="-E ^(test_.*|hostile[.](lead[.])?dump|fuzz[.]reproducers|tools[.](volumes|predict))$" \
  run_suite build-mpich -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMPI_EXECUTABLE_SUFFIX=.mpich -DRELAY_BUILD_BENCH=OFF \
  "-DRELAY_TEST_RANKS=${RELAY_MPICH_RANKS:-1;2;4}"
# MPI_Alltoallv_init, MPI_Neighbor_alltoallv_init and MPI_Bcast_init run in these tests (README).
CTEST_SELECT="-R ^(mpi_transform|mpi_exec|mpi_scalapack|mpi_lying_plans|mpi_hsumma|tools.roundtrip|example.relay_matmul)" \
  run_suite build-mpich-asan -DCMAKE_BUILD_TYPE=Debug -DRELAY_SANITIZE=ON -DMPI_EXECUTABLE_SUFFIX=.mpich \
  -DRELAY_BUILD_BENCH=OFF "-DRELAY_TEST_RANKS=2;4"
echo "== fuzz the plan decoder"
scripts/fuzz.sh "${RELAY_FUZZ_SECONDS:-60}" build
echo "test.sh: all suites passed"
