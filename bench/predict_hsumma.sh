#!/usr/bin/env bash
# predict_hsumma.sh — the HSUMMA paper's Figures 8 and 9 (BlueGene/P,
# n = 65536, b = B = 256) by simulation on tools/machines/torus-bgp.machine
# (docs/benchmarks.md, "Predicting a replay"): Figure 8, communication time
# against the number of groups G at 16,384 ranks; Figure 9, SUMMA and the
# best HSUMMA at 2,048 to 16,384 ranks.  STEPS of the 256 outer steps are
# simulated and scaled (every step is alike).  One simulation at a time.
#   bash bench/predict_hsumma.sh [BUILD_DIR] [STEPS] [BCAST] [FIGURE]
# BCAST: binomial (default) or vdg; FIGURE: 8, 9 or both (default).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
steps=${2:-8}
bcast=${3:-binomial}
figure=${4:-both}
bench="$build/bench/predict_hsumma"
machine="$here/../tools/machines/torus-bgp.machine"
[ -x "$bench" ] || { echo "predict_hsumma.sh: $bench not built (needs SimGrid: relay_predict)" >&2; exit 1; }

table() {
  if [ "$figure" != 9 ]; then
      echo "## Figure 8: 16384 ranks, every G"
      "$bench" "$machine" 65536 256 16384 "$steps" "$bcast"
      echo
  fi
  if [ "$figure" != 8 ]; then
      echo "## Figure 9: SUMMA and every G at 2048 to 16384 ranks (the best G is the row of the least comm s)"
      for p in 2048 4096 8192 16384; do
          "$bench" "$machine" 65536 256 "$p" "$steps" "$bcast"
          echo
      done
  fi
}
# The tables on stdout, and once every simulation succeeded in
# bench/results/predict_hsumma.csv.
table | tee "$build/bench/predict_hsumma.md"
python3 "$here/record.py" predict_hsumma < "$build/bench/predict_hsumma.md" > /dev/null
