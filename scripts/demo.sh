#!/usr/bin/env bash
# demo.sh — installs dependencies, builds relay, and shows the whole flow:
# plan a 32x32 -> 128x128 block-cyclic transpose offline (no MPI), inspect
# the plan file, then replay it under mpiexec and verify every element.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$JOBS" >/dev/null
plan=build/demo.plan
set -x
build/bin/relay-plan transform --ranks 4 --from bc:2000x2000:32x32:1x4 --to bc:2000x2000:128x128:2x2 \
  --op T --type d -o "$plan"
build/bin/relay-dump "$plan"
"$(relay_mpiexec build)" -n 4 build/bin/relay-run "$plan" --iters 5 --verify
