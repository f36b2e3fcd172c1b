#!/usr/bin/env bash
# bad_input.sh — every tool rejects bad input with one line on stderr, a
# non-zero exit status (2 for a wrong command line, 1 for a bad file or a
# failed step), nothing on stdout, and no output file left behind: unknown
# options, missing values, bad numbers, bad layout specs and layout files,
# missing and unreadable files, wrong positional counts, corrupted and
# truncated plan files, a format 1.x plan (refused with a hint to rebuild it),
# a plan for another rank count.
. "$(dirname "$0")/common.sh"

GOOD_FROM=bc:40x30:8x8:1x2
GOOD_TO=bc:40x30:16x16:2x1

plan_error 2 "no plan kind"
plan_error 2 "unknown plan kind" frobnicate
plan_error 2 "bmmc: ranks not a power of two" bmmc --ranks 6 --perm bit-reversal --bits 8 -o out.plan
plan_error 2 "bmmc: singular matrix" bmmc --ranks 2 --matrix 1,2,3 -o out.plan
plan_error 2 "bmmc: unknown permutation" bmmc --ranks 2 --perm reversal --bits 8 -o out.plan
plan_error 2 "bmmc: named permutation without --bits" bmmc --ranks 2 --perm gray-code -o out.plan
plan_error 2 "bmmc: --perm and --matrix" bmmc --ranks 2 --perm identity --bits 3 --matrix 1,2,4 -o out.plan
plan_error 2 "bmmc: mismatched composition" bmmc --ranks 2 --perm transpose:4x8,identity --bits 4 -o out.plan
plan_error 2 "bmmc: more ranks than elements" bmmc --ranks 16 --perm identity --bits 3 -o out.plan
plan_error 2 "bmmc: rank bits out of range" bmmc --ranks 4 --perm identity --bits 6 --rank-bits 5 -o out.plan
plan_error 2 "bmmc: bad complement" bmmc --ranks 2 --perm identity --bits 4 --complement 0x1g -o out.plan
plan_error 2 "bmmc: complement beyond n" bmmc --ranks 2 --perm identity --bits 4 --complement 0x10 -o out.plan
plan_error 2 "bmmc: matrix column beyond n" bmmc --ranks 2 --matrix 1,2,8 -o out.plan
plan_error 2 "hsumma: groups not dividing the grid rows" hsumma --grid 2x4 --shape 8x8x8 --groups 3x1 -o out.plan
plan_error 2 "hsumma: groups not dividing the grid columns" hsumma --grid 2x4 --shape 8x8x8 --groups 1x3 -o out.plan
plan_error 2 "hsumma: groups larger than the grid" hsumma --grid 2x4 --shape 8x8x8 --groups 4x4 -o out.plan
plan_error 2 "hsumma: zero groups" hsumma --grid 2x4 --shape 8x8x8 --groups 0x2 -o out.plan
plan_error 2 "hsumma: malformed groups" hsumma --grid 2x4 --shape 8x8x8 --groups 2by2 -o out.plan
plan_error 2 "hsumma: outer block below the inner" hsumma --grid 2x2 --shape 8x8x8 --block 8 --outer-block 4 -o out.plan
plan_error 2 "hsumma: missing --shape" hsumma --grid 2x2 -o out.plan
plan_error 2 "hsumma: malformed --shape" hsumma --grid 2x2 --shape 8x8 -o out.plan
plan_error 2 "hsumma: bad --dist" hsumma --grid 2x2 --shape 8x8x8 --dist cyclic -o out.plan
plan_error 2 "hsumma: --alpha without --beta" hsumma --grid 2x2 --shape 8x8x8 --alpha 1e-6 -o out.plan
plan_error 2 "hsumma: panel beyond int counts" hsumma --grid 1x1 --shape 70000x70000x70000 --block 40000 -o out.plan
plan_error 2 "hsumma: statistics beyond int64" hsumma --grid 256x256 --shape 16777216x16777216x94906265 --block 16384 --groups 1x1 --type z -o out.plan
plan_error 2 "unknown option" transform --ranks 2 --from $GOOD_FROM --to $GOOD_TO --bogus -o out.plan
plan_error 2 "missing value" transform --ranks 2 --from $GOOD_FROM --to $GOOD_TO -o
plan_error 2 "missing --to" transform --ranks 2 --from $GOOD_FROM -o out.plan
plan_error 2 "positional argument" transform --ranks 2 --from $GOOD_FROM --to $GOOD_TO extra -o out.plan
plan_error 2 "bad --ranks (text)" transform --ranks four --from $GOOD_FROM --to $GOOD_TO -o out.plan
plan_error 2 "bad --ranks (zero)" transform --ranks 0 --from $GOOD_FROM --to $GOOD_TO -o out.plan
plan_error 2 "bad --ranks (negative)" transform --ranks -3 --from $GOOD_FROM --to $GOOD_TO -o out.plan
plan_error 2 "bad --ranks (overflow)" transform --ranks 99999999999999999999 --from $GOOD_FROM --to $GOOD_TO -o out.plan
plan_error 2 "too few ranks for the layouts" transform --ranks 1 --from $GOOD_FROM --to $GOOD_TO -o out.plan
plan_error 2 "bad --op" transform --ranks 2 --from $GOOD_FROM --to $GOOD_TO --op X -o out.plan
plan_error 2 "bad --type" transform --ranks 2 --from $GOOD_FROM --to $GOOD_TO --type q -o out.plan
plan_error 2 "shapes do not fit op T" transform --ranks 2 --from $GOOD_FROM --to $GOOD_TO --op T -o out.plan
plan_error 2 "bad --relabel" transform --ranks 2 --from $GOOD_FROM --to $GOOD_TO --relabel best -o out.plan
plan_error 2 "bad --node-weight" transform --ranks 2 --from $GOOD_FROM --to $GOOD_TO --relabel optimal --ranks-per-node 1 --node-weight 0.5 -o out.plan
plan_error 2 "both node maps" transform --ranks 2 --from $GOOD_FROM --to $GOOD_TO --ranks-per-node 1 --node-map m.txt -o out.plan
printf '0 1 7' >short.map
plan_error 1 "node map with a node out of range" transform --ranks 2 --from $GOOD_FROM --to $GOOD_TO --relabel optimal --node-map short.map -o out.plan
printf '0' >short.map
plan_error 1 "node map too short" transform --ranks 2 --from $GOOD_FROM --to $GOOD_TO --relabel optimal --node-map short.map -o out.plan
plan_error 2 "unknown --schedule" transform --ranks 2 --from $GOOD_FROM --to $GOOD_TO --schedule fastest -o out.plan
plan_error 2 "--max-buffer with p2p" transform --ranks 2 --from $GOOD_FROM --to $GOOD_TO --schedule p2p --max-buffer 64 -o out.plan
plan_error 2 "--max-buffer below an element" transform --ranks 2 --from $GOOD_FROM --to $GOOD_TO --max-buffer 4 -o out.plan
plan_error 2 "--max-buffer 0" transform --ranks 2 --from $GOOD_FROM --to $GOOD_TO --max-buffer 0 -o out.plan
for spec in bc:10x10:0x2:1x1 bc:10x10:2x2 bc:10x10:2x2:1x1:grid=diagonal bc:10x10:2x2:2x2:src=2,0 \
            bc:10xten:2x2:1x1 bc:10x10:2x2:1x1:lld=5 blockcyclic:10x10 json: bc:10x10:2x2:1x1:src=0; do
    plan_error 2 "bad layout spec $spec" transform --ranks 4 --from "$spec" --to bc:10x10:2x2:1x1 -o out.plan
done
plan_error 1 "missing layout file" transform --ranks 2 --from json:missing.json --to $GOOD_TO -o out.plan
mkdir unreadable.json
plan_error 1 "unreadable layout file (a directory)" transform --ranks 2 --from json:unreadable.json --to $GOOD_TO -o out.plan
GRID='"nranks":2,"m":40,"n":30,"row_splits":[0,20,40],"col_splits":[0,30]'
bad_json() { # what content
    printf '%s' "$2" >bad.json
    plan_error 1 "layout file: $1" transform --ranks 2 --from json:bad.json --to $GOOD_TO -o out.plan
}
bad_json "empty" ''
bad_json "not an object" '[1,2]'
bad_json "unknown key" "{$GRID,\"owners\":[0,1],\"colour\":\"red\"}"
bad_json "duplicate key" "{$GRID,\"owners\":[0,1],\"owners\":[0,1]}"
bad_json "missing owners" "{$GRID}"
bad_json "owners count" "{$GRID,\"owners\":[0,1,1]}"
bad_json "owner out of range" "{$GRID,\"owners\":[0,2]}"
bad_json "fraction" "{$GRID,\"owners\":[0,1.5]}"
bad_json "trailing comma" "{$GRID,\"owners\":[0,1],}"
bad_json "trailing text" "{$GRID,\"owners\":[0,1]} x"
bad_json "unterminated" "{$GRID,\"owners\":[0,1"
bad_json "bad order" "{$GRID,\"owners\":[0,1],\"order\":\"diagonal\"}"
bad_json "offsets without lds" "{$GRID,\"owners\":[0,1],\"offsets\":[0,0]}"
bad_json "splits past the matrix" '{"nranks":2,"m":40,"n":30,"row_splits":[0,20,41],"col_splits":[0,30],"owners":[0,1]}'
bad_json "overlapping explicit blocks" "{$GRID,\"owners\":[0,0],\"offsets\":[0,10],\"lds\":[20,20]}"
plan_error 1 "output directory missing" transform --ranks 2 --from $GOOD_FROM --to $GOOD_TO -o nodir/out.plan
[ -e nodir ] && fail "relay-plan created nodir"

# A good plan to damage.
"$PLAN" transform --ranks 2 --from $GOOD_FROM --to $GOOD_TO --op N -o good.plan >/dev/null || fail "cannot plan good.plan"
SIZE=$(wc -c <good.plan)

# Plans from plans that do not fit together, or are not there.
"$PLAN" hsumma --grid 1x2 --shape 8x8x8 --groups 1x1 -o h.plan >/dev/null || fail "cannot plan h.plan"
plan_error 2 "compose: one plan" compose good.plan -o out.plan
plan_error 2 "invert: two plans" invert good.plan good.plan -o out.plan
plan_error 2 "concat: no -o" concat good.plan good.plan
plan_error 1 "compose: no such file" compose good.plan missing.plan -o out.plan
plan_error 1 "compose: plans that do not chain" compose good.plan good.plan -o out.plan
plan_error 1 "invert: an HSUMMA plan" invert h.plan -o out.plan
plan_error 1 "concat: a transform and an HSUMMA plan" concat good.plan h.plan -o out.plan

# relay-dump: a failing --svg leaves no file.
expect_error 2 "relay-dump: no file" "$DUMP"
expect_error 2 "relay-dump: two files" "$DUMP" good.plan good.plan
expect_error 2 "relay-dump: unknown option" "$DUMP" good.plan --verbose
expect_error 2 "relay-dump: missing value" "$DUMP" good.plan --rank
expect_error 2 "relay-dump: bad --rank" "$DUMP" good.plan --rank x
expect_error 2 "relay-dump: --rank beyond the plan" "$DUMP" good.plan --rank 2
expect_error 2 "relay-dump: --json takes no value" "$DUMP" good.plan --json=1
expect_error 1 "relay-dump: missing file" "$DUMP" missing.plan
expect_error 1 "relay-dump: a directory" "$DUMP" unreadable.json
expect_error 1 "relay-dump: not a plan" "$DUMP" bad.json
expect_error 1 "relay-dump: --svg into a missing directory" "$DUMP" good.plan --svg nodir/out.svg
[ -e nodir ] && fail "relay-dump created nodir"
if [ "$(id -u)" -ne 0 ]; then
    cp good.plan locked.plan && chmod 000 locked.plan
    expect_error 1 "relay-dump: unreadable file" "$DUMP" locked.plan
fi

# Damaged plans: flipped bytes at the start, middle and end, and truncations.
damage() { # out position (flip) | out -length (truncate)
    "$PYTHON" - good.plan "$1" "$2" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
pos = int(sys.argv[3])
if pos < 0:
    data = data[:len(data) + pos]
else:
    data[pos] ^= 0x40
open(sys.argv[2], "wb").write(data)
PY
}
for pos in 3 40 $((SIZE / 3)) $((SIZE / 2)) $((SIZE - 1)) -1 -$((SIZE / 2)); do
    damage bad.plan "$pos"
    expect_error 1 "relay-dump: damaged plan ($pos)" "$DUMP" bad.plan
    expect_error 1 "relay-dump --rank 1: damaged plan ($pos)" "$DUMP" bad.plan --rank 1 --json
    expect_mpi_error "relay-run: damaged plan ($pos)" 2 bad.plan --verify
done

# A format 1.x plan (pieces, not lattices) is refused with the way out: rebuild it.
"$PYTHON" - good.plan old.plan <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
at = data.index(b"\xa5major") + 6
assert data[at] == 2, "good.plan is not format 2"
open(sys.argv[2], "wb").write(data[:at] + b"\x01" + data[at + 1:])
PY
expect_error 1 "relay-dump: a format 1.x plan" "$DUMP" old.plan
grep -q "rebuild" err.txt || fail "relay-dump: refusing a 1.x plan does not say to rebuild it: $(cat err.txt)"
expect_mpi_error "relay-run: a format 1.x plan" 2 old.plan

# relay-run: one line from one rank, every rank exits non-zero, no hang.
expect_error 2 "relay-run: no file" "$RUN"
expect_error 2 "relay-run: unknown option" "$RUN" good.plan --fast
expect_error 2 "relay-run: bad --iters" "$RUN" good.plan --iters 0
expect_error 2 "relay-run: missing --warmup value" "$RUN" good.plan --warmup
expect_error 1 "relay-run: missing file" "$RUN" missing.plan
expect_mpi_error "relay-run: missing file at 2 ranks" 2 missing.plan
expect_mpi_error "relay-run: bad option at 2 ranks" 2 good.plan --iters=-1
expect_mpi_error "relay-run: plan for 2 ranks run on 1" 1 good.plan
expect_mpi_error "relay-run: plan for 2 ranks run on 3" 3 good.plan
grep -q "is a plan for 2 ranks; this job has 3" err.txt || fail "relay-run: the mismatch is not named from the header: $(cat err.txt)"
# A file whose header promises sections the file has no room for is refused
# from the header, by relay-dump and by relay-run.
for cut in $(seq 40 20 800); do
  head -c "$(( SIZE - cut ))" good.plan > short.plan
  "$DUMP" short.plan 2>&1 | grep -q "too few for the sections of its 2 ranks" && break
done
expect_error 1 "relay-dump: a file too short for its sections" "$DUMP" short.plan
grep -q "too few for the sections of its 2 ranks" err.txt || fail "relay-dump: short file: $(cat err.txt)"
expect_mpi_error "relay-run: a file too short for its sections" 2 short.plan
expect_mpi_error "relay-run: a file that is not a plan" 2 bad.json
"$PLAN" bmmc --ranks 4 --perm bit-reversal --bits 10 -o bmmc.plan >/dev/null || fail "relay-plan bmmc failed"
expect_mpi_error "relay-run: BMMC plan for 4 ranks run on 2" 2 bmmc.plan
expect_mpi_error "relay-run: BMMC plan for 4 ranks run on 3" 3 bmmc.plan
expect_error 2 "relay-dump: --svg of a BMMC plan" "$DUMP" bmmc.plan --svg out.svg
expect_error 2 "relay-dump: --rank beyond a BMMC plan" "$DUMP" bmmc.plan --rank 4
"$PLAN" hsumma --grid 2x2 --shape 20x20x20 --block 4 -o hsumma.plan >/dev/null || fail "relay-plan hsumma failed"
expect_mpi_error "relay-run: HSUMMA plan for 4 ranks run on 2" 2 hsumma.plan
expect_mpi_error "relay-run: HSUMMA plan for 4 ranks run on 3" 3 hsumma.plan
expect_mpi_error "relay-run: --tune of a BMMC plan" 4 bmmc.plan --tune=out.plan
expect_mpi_error "relay-run: --autotune (--tune's earlier name) of a BMMC plan" 4 bmmc.plan --autotune=out.plan
expect_error 2 "relay-dump: --svg of an HSUMMA plan" "$DUMP" hsumma.plan --svg out.svg
expect_error 2 "relay-dump: --rank beyond an HSUMMA plan" "$DUMP" hsumma.plan --rank 4
finish
