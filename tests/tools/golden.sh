#!/usr/bin/env bash
# golden.sh — plan files written by an earlier relay stay readable and
# replayable, and today's planner writes the same plan for the same request:
# fingerprints are a format 2 contract, whatever the code that computes
# them (a BMMC or HSUMMA plan hashes the identity sigma it no longer
# stores).  tests/golden/*.plan were written by relay-plan at 515bbbe with
# the arguments below.
GOLDEN="$(cd "$(dirname "$0")/../golden" && pwd)"
. "$(dirname "$0")/common.sh"

# check_golden NAME RANKS RELAY-PLAN-ARGS...
check_golden() {
    local name=$1 p=$2
    shift 2
    local file="$GOLDEN/$name.plan" want got
    want=$("$DUMP" "$file" 2>err.txt | grep -o 'fingerprint [0-9a-f]*') || fail "$name: relay-dump refused it: $(cat err.txt)"
    "$PLAN" "$@" -o again.plan >/dev/null 2>err.txt || fail "$name: relay-plan $*: $(cat err.txt)"
    got=$("$DUMP" again.plan | grep -o 'fingerprint [0-9a-f]*')
    [ -n "$want" ] && [ "$got" = "$want" ] || fail "$name: replanned with $got, the golden file has $want"
    "$MPIEXEC" -n "$p" "$RUN" "$file" --verify --iters 2 >run.txt 2>err.txt || fail "$name: relay-run: $(cat err.txt)"
    grep -q "verified: yes" run.txt || fail "$name: relay-run did not verify: $(cat run.txt)"
    echo "ok: $name ($want)"
}

check_golden transform 4 transform --ranks 4 --from bc:29x37:5x4:2x2 --to bc:37x29:3x7:1x4:src=0,1 --op T --relabel optimal
check_golden bmmc 8 bmmc --ranks 8 --perm bit-reversal --bits 12
check_golden hsumma 8 hsumma --grid 2x4 --shape 40x40x64 --block 3 --outer-block 8 --groups 1x2
finish
