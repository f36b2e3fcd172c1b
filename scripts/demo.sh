#!/usr/bin/env bash
# demo.sh — installs dependencies, builds relay, and runs the demo under
# mpiexec: plan a block-cyclic 32x32 -> 128x128 transpose, show what it moves,
# replay it and verify every element.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$JOBS" >/dev/null
mpiexec -n 4 --oversubscribe build/examples/relay-demo 2000 5
