#!/usr/bin/env bash
# demo.sh — installs dependencies, builds relay, installs it (prefix
# RELAY_PREFIX, default /usr/local, where Debian's python3 finds the
# package: `python3 -c "import relay"` works afterwards), and shows the
# whole flow: plan a 32x32 -> 128x128 block-cyclic transpose offline (no
# MPI), inspect the plan file, then replay it under mpiexec and verify
# every element; then the same from Python.  In a git checkout it also
# installs the repository's commit-msg hook (scripts/install-hooks.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
scripts/install-deps.sh
scripts/install-hooks.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$JOBS" >/dev/null
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
"${sudo_cmd[@]}" cmake --install build --prefix "${RELAY_PREFIX:-/usr/local}" >/dev/null
python=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' build/CMakeCache.txt)
plan=build/demo.plan
set -x
build/bin/relay-plan transform --ranks 4 --from bc:2000x2000:32x32:1x4 --to bc:2000x2000:128x128:2x2 \
  --op T --type d -o "$plan"
build/bin/relay-dump "$plan"
"$(relay_mpiexec build)" -n 4 build/bin/relay-run "$plan" --iters 5 --verify
PYTHONPATH="$(pwd)/build/python" "$python" examples/python/plan_offline.py build/demo-py.plan
PYTHONPATH="$(pwd)/build/python" "$(relay_mpiexec build)" -n 4 "$python" examples/python/replay_job.py build/demo-py.plan
