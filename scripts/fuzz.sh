#!/usr/bin/env bash
# fuzz.sh [--coverage] SECONDS [BUILD_DIR] — fuzzes the plan decoder with
# libFuzzer under AddressSanitizer and UndefinedBehaviorSanitizer for a
# bounded time, seeded with valid plans of every kind written by
# BUILD_DIR's make_seeds (docs/fuzzing.md).
#
# The fuzzer is a fuzzing build: FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
# skips the integrity checks (checksums, fingerprint), and most mutations
# edit one field of a plan and re-encode it (tests/fuzz/plan_mutator.c), so
# that they reach the validation behind the checksums.  The time is split
# between the seeds of every kind and those of BMMC and HSUMMA alone; each
# part stops at its first crash, leak, sanitizer report, allocation above
# 512 MiB, input slower than 10 s or broken promise of the decoder, and the
# script fails if any part found one, naming each.  Then it replays the
# corpus and prints how many distinct validation failures it reaches
# (relay_last_error() with numbers as N).
#
# --coverage also replays the corpus through a build instrumented for
# llvm-cov and prints the line coverage of the decoder and validation files.
# RELAY_FUZZ_KEEP=DIR keeps everything (corpus, crashes, reports) in DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
coverage=0
if [ "${1:-}" = --coverage ]; then
  coverage=1
  shift
fi
seconds=${1:-60}
build=${2:-build}
out=${RELAY_FUZZ_KEEP:-$(mktemp -d)}
[ -n "${RELAY_FUZZ_KEEP:-}" ] || trap 'rm -rf "$out"' EXIT
mkdir -p "$out/corpus/all" "$out/crashes"

# The decoder and what it calls: plan_format/ alone (neither MPI nor the
# planner), its sources as its CMakeLists.txt lists them, so that a file
# added there is fuzzed too.
mapfile -t format_sources < <(sed -n '/^add_library(relay_format_objects/,/)/p' plan_format/CMakeLists.txt |
                              grep -o '[a-z_0-9/]*\.c' | sed 's|^|plan_format/|')
sources=(tests/fuzz/fuzz_plan_decode.c tests/fuzz/plan_mutator.c "${format_sources[@]}")
# What --coverage measures: the decoder and validation files whole, and of
# layout.c and bmmc.c the checks (their other functions serve the planner
# and the executor).
measured=(codec_read.c nd_codec.c index_codec.c index_plan.c mp_reader.c validate.c tuning.c hsumma_check.c hsumma_fields.c layout.c bmmc.c)
checks='^(layout\.c:)?(relay_layout_block_cyclic|relay_layout_grid|layout_new|bc_check|bc_build|bc_fill_rank_sizes|check_[a-z_]+|rl_bmmc_validate|rl_bmmc_from_factors)$'

fuzz_build() { # OUTPUT FLAGS...
  local output=$1
  shift
  clang -std=c17 -g -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION "$@" -Iinclude -Iplan_format -Iplan_format/lattice -Wno-unknown-pragmas \
    "${sources[@]}" -lmsgpackc -lxxhash -lm -o "$output"
}

run_fuzzer() { # CORPUS SECONDS
  echo "fuzz: fuzzing from the $1 seeds for ${2}s"
  "$out/fuzz_plan_decode" -max_total_time="$2" -timeout=10 -malloc_limit_mb=512 -rss_limit_mb=2048 -max_len=16384 \
    -print_final_stats=1 -artifact_prefix="$out/crashes/" "$out/corpus/$1" >"$out/$1.log" 2>&1 || true
  grep -E '^stat::number_of_executed_units|^Done' "$out/$1.log" || true
}

# Half the time from the seeds of every kind (grafts between kinds), an
# eighth each from the BMMC, HSUMMA, N-D and index seeds alone, which the
# larger transform plans would otherwise crowd out.
fuzz_every_kind() {
  "$build/tests/make_seeds" "$out/corpus/all"
  for kind in bmmc hsumma nd index; do
    mkdir -p "$out/corpus/$kind"
    cp "$out/corpus/all/$kind"-* "$out/corpus/$kind"
  done
  run_fuzzer all $(((seconds + 1) / 2))
  for kind in bmmc hsumma nd index; do run_fuzzer $kind $(((seconds + 7) / 8)); done
}

# Each crash found, with the first line of its report.  An empty input is a
# crash outside the decoder (in the mutator): its report is in the logs.
report_crashes() {
  for f in "$out/crashes"/*; do
    [ -e "$f" ] || continue
    if [ ! -s "$f" ]; then
      echo "fuzz: $(basename "$f"): $(grep -h -m1 -E 'runtime error|ERROR: ' "$out"/*.log || echo 'no report')"
      continue
    fi
    local rerun
    rerun=$("$out/fuzz_plan_decode" -malloc_limit_mb=512 -timeout=10 "$f" 2>&1 || true)
    echo "fuzz: $(basename "$f"): $(grep -m1 -E 'runtime error|ERROR: |^fuzz_plan_decode: ' <<<"$rerun" ||
      echo 'no report on a rerun')"
  done
}

# Every corpus input once more, each refusal's message noted.
count_failures() {
  : >"$out/failures"
  RELAY_FUZZ_FAILURES="$out/failures" "$out/fuzz_plan_decode" -runs=0 "$out/corpus"/* >/dev/null 2>&1
  sort "$out/failures" | uniq -c | sort -rn >"$out/failures.count"
  echo "fuzz: $(find "$out/corpus" -type f | wc -l) corpus inputs reach $(wc -l <"$out/failures.count") distinct validation failures:"
  sed 's/^/  /' "$out/failures.count"
}

measure_coverage() {
  fuzz_build "$out/fuzz_coverage" -O0 -fsanitize=fuzzer -fprofile-instr-generate -fcoverage-mapping
  LLVM_PROFILE_FILE="$out/corpus.profraw" "$out/fuzz_coverage" -runs=0 "$out/corpus"/* >/dev/null 2>&1
  llvm-profdata merge -sparse "$out/corpus.profraw" -o "$out/corpus.profdata"
  echo "fuzz: line coverage of the decoder and validation by the corpus"
  llvm-cov report -show-functions "$out/fuzz_coverage" -instr-profile="$out/corpus.profdata" \
    "${measured[@]/#/plan_format/}" >"$out/coverage.txt"
  # Per file, the lines and missed lines (columns 5 and 6) of the measured functions.
  awk -v checks="$checks" '
    /^File / { file = $2; gsub(/.*\/|[\047:]/, "", file); partial = file == "layout.c" || file == "bmmc.c"
               if (!(file in lines)) order[n++] = file; next }
    NF == 10 && $1 != "TOTAL" && $5 ~ /^[0-9]+$/ && (!partial || $1 ~ checks) { lines[file] += $5; missed[file] += $6 }
    END {
      for (i = 0; i < n; i++) {
        f = order[i]; all += lines[f]; miss += missed[f]
        printf "  %-24s %5d lines %4d missed %6.2f%%\n", f (f == "layout.c" || f == "bmmc.c" ? " (checks)" : ""),
               lines[f], missed[f], 100 * (lines[f] - missed[f]) / lines[f]
      }
      printf "  %-24s %5d lines %4d missed %6.2f%%\n", "TOTAL", all, miss, 100 * (all - miss) / all
    }' "$out/coverage.txt"
}

fuzz_build "$out/fuzz_plan_decode" -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
fuzz_every_kind
report_crashes
count_failures
[ "$coverage" = 0 ] || measure_coverage
crashes=$(find "$out/crashes" -type f | wc -l)
if [ "$crashes" -gt 0 ]; then
  echo "fuzz: $crashes crashes, listed above (RELAY_FUZZ_KEEP=DIR keeps their inputs in DIR/crashes)"
  echo "fuzz: 0 passed, 1 failed"
  exit 1
fi
echo "fuzz: 1 passed, 0 failed"
