#!/usr/bin/env bash
# golden.sh — plan files written by an earlier relay stay readable and
# replayable, and today's planner writes a pinned plan for the same request.
#
# tests/golden/*.plan were written by relay-plan at 515bbbe with the
# arguments below; each must decode, replay and verify, whatever the planner
# has learned since.  The fingerprint of today's plan for the same request is
# pinned beside it: it is the file's own, unless the planner has since
# chosen a deliberately different cut, listed here (a plan's statistics,
# which the fingerprint covers, change with its pieces):
#   transform: a block-cyclic dimension on one process is one block (the
#     rows of A's 1 x 4 grid), 190 pieces in 90 lattices -> 100 in 27.
# A change of code that keeps the plan (a BMMC or HSUMMA plan hashing the
# identity sigma it no longer stores) must keep the fingerprint.
GOLDEN="$(cd "$(dirname "$0")/../golden" && pwd)"
. "$(dirname "$0")/common.sh"

# fingerprint_of FILE: its fingerprint as relay-dump prints it.
fingerprint_of() { "$DUMP" "$1" 2>err.txt | grep -o 'fingerprint [0-9a-f]*'; }

# check_golden NAME RANKS PINNED-FINGERPRINT RELAY-PLAN-ARGS...
check_golden() {
    local name=$1 p=$2 pinned="fingerprint $3"
    shift 3
    local file="$GOLDEN/$name.plan" old got
    old=$(fingerprint_of "$file") || fail "$name: relay-dump refused it: $(cat err.txt)"
    "$MPIEXEC" -n "$p" "$RUN" "$file" --verify --iters 2 >run.txt 2>err.txt || fail "$name: relay-run: $(cat err.txt)"
    grep -q "verified: yes" run.txt || fail "$name: relay-run did not verify: $(cat run.txt)"
    "$PLAN" "$@" -o again.plan >/dev/null 2>err.txt || fail "$name: relay-plan $*: $(cat err.txt)"
    got=$(fingerprint_of again.plan)
    [ "$got" = "$pinned" ] || fail "$name: replanned with $got, pinned $pinned (the golden file has $old)"
    echo "ok: $name (file $old, replanned $got)"
}

check_golden transform 4 e21f8a9795ef61fe \
    transform --ranks 4 --from bc:29x37:5x4:2x2 --to bc:37x29:3x7:1x4:src=0,1 --op T --relabel optimal
check_golden bmmc 8 1546185586ffc526 bmmc --ranks 8 --perm bit-reversal --bits 12
check_golden hsumma 8 23e060cea131f3ad hsumma --grid 2x4 --shape 40x40x64 --block 3 --outer-block 8 --groups 1x2
finish
