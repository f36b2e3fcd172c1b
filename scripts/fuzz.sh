#!/usr/bin/env bash
# fuzz.sh SECONDS [BUILD_DIR] — fuzzes the plan decoder with libFuzzer under
# AddressSanitizer and UndefinedBehaviorSanitizer for a bounded time, seeded
# with valid plans written by BUILD_DIR's make_seeds.  Half its mutations
# change one field of a section's records and re-seal the plan, so that they
# reach the lattice checks past the checksums (tests/fuzz/fuzz_plan_decode.c).
# Fails on any crash, leak, sanitizer report or allocation above 512 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${2:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/corpus"
"$build/tests/make_seeds" "$out/corpus"
# plan_format/ alone: the decoder needs neither MPI nor the planner.
clang -std=c17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Iinclude -Iplan_format -Wno-unknown-pragmas \
  tests/fuzz/fuzz_plan_decode.c plan_format/error.c plan_format/layout.c plan_format/plan.c \
  plan_format/hash.c plan_format/validate.c plan_format/mp_reader.c plan_format/codec_read.c \
  plan_format/codec_write.c plan_format/atomic_file.c plan_format/bmmc.c plan_format/hsumma_dist.c \
  plan_format/hsumma_check.c plan_format/hsumma_fields.c plan_format/hsumma.c plan_format/hsumma_model.c \
  -lmsgpackc -lxxhash -lm -o "$out/fuzz_plan_decode"
echo "fuzz: running the plan decoder fuzzer for ${seconds}s"
"$out/fuzz_plan_decode" -max_total_time="$seconds" -malloc_limit_mb=512 -rss_limit_mb=2048 \
  -max_len=8192 -print_final_stats=1 "$out/corpus" 2>"$out/log" || { tail -60 "$out/log"; exit 1; }
grep -E '^stat::number_of_executed_units|^Done' "$out/log" || true
echo "fuzz: 1 passed, 0 failed"
