#!/usr/bin/env bash
# test.sh — installs dependencies, builds relay four times and runs the
# tests of each under ctest (docs/testing.md says what each suite covers and
# keeps CI's budget in minutes per suite):
#   openmpi       Open MPI, optimised: every test, the MPI tests at 1, 2, 3,
#                 4 and 8 ranks; the CUDA backend, where a toolkit is found,
#                 for one GPU architecture;
#   openmpi-asan  Open MPI under AddressSanitizer + UndefinedBehaviorSanitizer:
#                 the unit tests and the MPI tests at 1, 2 and 4 ranks;
#   mpich-asan    MPICH 4 under the sanitizers: every test that starts MPI,
#                 at 2 ranks, and at 4 the tests that run the MPI-4
#                 persistent collectives Open MPI 4.1 lacks;
#   mpich         MPICH 4, Debug, unsanitized: the few tests that start MPI
#                 and cannot run sanitized (the installed package, unchanged
#                 ScaLAPACK programs with the drop-in, a message above 2 GiB).
# Then it fuzzes the plan decoder for a minute (RELAY_FUZZ_SECONDS), and
# prints each suite's minutes, building and testing apart.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
started=$SECONDS
scripts/install-deps.sh
scripts/install-hooks.sh

# ---- minutes per step, printed at the end (also when a step fails) ----
steps=()
minutes() { awk -v s="$1" 'BEGIN { printf "%5.1f", s / 60 }'; }
timed() { # LABEL COMMAND...: runs COMMAND and notes its minutes under LABEL
  local label=$1 start=$SECONDS status=0 failed=""
  shift
  "$@" || status=$?
  [ "$status" -eq 0 ] || failed=" (failed)"
  steps+=("$(printf '%-34s %s min%s' "$label" "$(minutes $((SECONDS - start)))" "$failed")")
  return "$status"
}
report_minutes() {
  echo "== minutes per suite"
  [ ${#steps[@]} -eq 0 ] || printf '  %s\n' "${steps[@]}"
  printf '  %-34s %s min\n' "total" "$(minutes $((SECONDS - started)))"
}
trap report_minutes EXIT
steps+=("$(printf '%-34s %s min' "dependencies" "$(minutes $((SECONDS - started)))")")

build() { # DIR CMAKE_ARGS...
  local dir=$1
  shift
  echo "== configure and build $dir $*"
  # && rather than set -e, which a caller's || (timed's) switches off.
  cmake -S . -B "$dir" "$@" >/dev/null && cmake --build "$dir" -j "$JOBS" >/dev/null
}
run_tests() { # DIR CTEST_ARGS...
  local dir=$1
  shift
  echo "== test $dir $*"
  (cd "$dir" && ctest --output-on-failure -j "$JOBS" --timeout 900 "$@")
}

# The tests that never start MPI: the unit tests, and the checks that only
# plan, dump, predict, use Python offline, compile Fortran interfaces or read
# the repository's hooks.
not_mpi='^(test_.*|hostile[.](lead[.])?dump|fuzz[.]reproducers|tools[.](volumes|predict)|python[.]offline|example[.]python_offline|fortran[.]tran_kinds|hooks[.].*)$'
# The runs the MPICH suite makes at 4 ranks as well as at 2: those of the
# tests that run MPI_Alltoallv_init, MPI_Neighbor_alltoallv_init
# (alltoallv and neighbor schedules) or MPI_Bcast_init (SUMMA and HSUMMA
# broadcasts), MPI-4, which only MPICH has here (tools.roundtrip and
# example.relay_matmul run them too, in their one run); and those through
# shared-memory windows (RELAY_SHM=on), whose use differs between the MPIs.
mpich_at4='^(mpi_transform|mpi_exec|mpi_scalapack|mpi_lying_plans|mpi_hsumma)[.](.*[.])?np4$|[.]shm_on[.]np4$'

# ctest -R's pattern for the MPICH suite in build DIR: every test that
# starts MPI once, at 2 ranks where it runs at several (a name's .npN), and
# the runs of mpich_at4 too.
mpich_selection() { # DIR
  local names
  names=$(list_tests "$1" -E "$not_mpi" | awk -v at4="$mpich_at4" '
    { name[NR] = $0; f = $0; if (sub(/[.]np[0-9]+$/, "", f)) { family[NR] = f; if ($0 ~ /[.]np2$/) at2[f] = 1 } }
    END {
      for (i = 1; i <= NR; i++) {
        n = name[i]; f = family[i]
        if (f == "" || !(f in at2) || n ~ /[.]np2$/ || n ~ at4) print n
      }
    }')
  exactly "$names"
}
# ctest -R's pattern for the tests that start MPI in build DIR but are not
# in build SANITIZED: those the sanitizers cannot hold.
unsanitized_selection() { # DIR SANITIZED
  exactly "$(comm -23 <(list_tests "$1" -E "$not_mpi" | sort) <(list_tests "$2" | sort))"
}
list_tests() { # DIR CTEST_ARGS...: the names of the tests ctest would run
  local dir=$1
  shift
  (cd "$dir" && ctest -N "$@" | sed -n 's/^ *Test *#[0-9]*: //p')
}
exactly() { # NAMES (one a line): a ctest -R pattern for these tests alone
  local names=${1//./[.]}
  echo "^(${names//$'\n'/|})\$"
}

# CUDA, where a toolkit is found, in the first suite only (the sanitized
# builds leave it out) and for one architecture: it is compiled, not run,
# on a machine without a GPU.
cuda_arch=${RELAY_CUDA_ARCHITECTURES:-90}
timed "openmpi: build" build build -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CUDA_ARCHITECTURES=$cuda_arch"
timed "openmpi: test" run_tests build
# Without relay_predict: AddressSanitizer cannot follow SimGrid's actor
# stacks (cmake/RelayPredict.cmake), so the sanitized builds leave it out.
# Debug's assertions at -O1, as AddressSanitizer's documentation advises
# for reasonable speed (-O0's tests ran twice as long).
sanitized=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-g -O1" "-DCMAKE_Fortran_FLAGS_DEBUG=-g -O1"
           -DRELAY_SANITIZE=ON -DRELAY_BUILD_BENCH=OFF)
timed "openmpi-asan: build" build build-asan "${sanitized[@]}" "-DRELAY_TEST_RANKS=${RELAY_ASAN_RANKS:-1;2;4}"
# The entries of fixed rank counts other than 1, 2 and 4 (the transports'
# runs at 3, the examples at 6 and 8) run in the first suite, and the
# examples under the sanitizers in the MPICH suite.
timed "openmpi-asan: test" run_tests build-asan -E '[.]np[^124]$'
# The MPICH suites run what differs between the MPIs: the tools' checks
# skip the work of relay-plan and relay-dump alone (RELAY_TOOLS_MPI_ONLY).
export RELAY_TOOLS_MPI_ONLY=1
timed "mpich-asan: build" build build-mpich-asan "${sanitized[@]}" -DMPI_EXECUTABLE_SUFFIX=.mpich "-DRELAY_TEST_RANKS=2;4"
timed "mpich-asan: test" run_tests build-mpich-asan -R "$(mpich_selection build-mpich-asan)"
timed "mpich: build" build build-mpich -DCMAKE_BUILD_TYPE=Debug -DMPI_EXECUTABLE_SUFFIX=.mpich -DRELAY_BUILD_BENCH=OFF \
  -DRELAY_CUDA=OFF "-DRELAY_TEST_RANKS=2;4"
timed "mpich: test" run_tests build-mpich -R "$(unsanitized_selection build-mpich build-mpich-asan)"
unset RELAY_TOOLS_MPI_ONLY
echo "== fuzz the plan decoder"
timed "fuzz" scripts/fuzz.sh "${RELAY_FUZZ_SECONDS:-60}" build
echo "test.sh: all suites passed"
