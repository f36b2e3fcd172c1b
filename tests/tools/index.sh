#!/usr/bin/env bash
# index.sh — index plans through the tools: relay-plan index from index
# files (items, runs, comments, ranks without a line) and from the --halo
# generator; relay-dump's summary, --json (volumes counted from the
# sections that add up and equal the planner's, the runs found, a halo's
# as many whatever the grid) and --rank R (each rank's
# messages, equal to the summary's per_rank entry); relay-run replays
# and verifies them (a halo at 6 ranks too).  Then bad index files and
# options: one line each, status 2, no plan left behind.
. "$(dirname "$0")/common.sh"

# Rank 0 owns 0-5 in reverse, rank 2 owns 6-9 (rank 1 owns nothing);
# rank 1 holds nothing, the others hold a halo of both, unsorted, one item
# twice.
cat >owners.txt <<'EOF'
# owners: one line per rank that owns something
0: 5:6:-1
2: 6 7 8 9
EOF
cat >holders.txt <<'EOF'
0: 0:4:1 7 7   # items 0 1 2 3, then 7 twice
2: 9 8 6 5 4
3: 2:4:2
EOF
for move in broadcast sum; do
    plan_case "files_$move" index --ranks 4 --move "$move" --owners owners.txt --holders holders.txt --items 10 \
        --item-elems 3 --type z || continue
    json_check dump.json "files $move: relay-dump --json" \
        "d['kind'] == 'index' and d['format_version'] == '4.0' and d['ranks'] == 4 and d['type'] == 'z'" \
        "d['move'] == '$move' and d['items'] == 10 and d['item_elems'] == 3" \
        "[r['rank'] for r in d['per_rank']] == [0, 1, 2, 3] and d['per_rank_left_out'] == 0" \
        "${VOLUMES_ADD_UP[@]}" \
        "d['bytes_total'] == (6 + 5 + 4) * 3 * 16" \
        "d['bytes_total'] == int(re.search(r'(\d+) bytes total', open('plan.txt').read()).group(1))" \
        "d['pieces'] == int(re.search(r'(\d+) runs and listed items', open('plan.txt').read()).group(1))" \
        "d['per_rank'][1] == {'rank': 1, 'send_bytes': 0, 'recv_bytes': 0, 'send_msgs': 0, 'recv_msgs': 0, 'local_bytes': 0}"
    cp dump.json whole.json
    for r in 0 1 2 3; do
        "$DUMP" "files_$move.plan" --rank $r --json >rank.json 2>err.txt || fail "files $move: relay-dump --rank $r: $(cat err.txt)"
        "$PYTHON" -c 'import json, sys
w = json.load(open("whole.json"))["per_rank"][int(sys.argv[1])]
d = json.load(open("rank.json"))
items = lambda ms: sum(m["items"] for m in ms)
ok = d["rank"] == w["rank"] and len(d["send"]) == w["send_msgs"] and len(d["recv"]) == w["recv_msgs"]
ok = ok and items(d["send"]) * 48 == w["send_bytes"] and items(d["recv"]) * 48 == w["recv_bytes"]
ok = ok and items(d["local"]) * 48 == w["local_bytes"]
sys.exit(not ok)' $r || fail "files $move: --rank $r disagrees with the summary's per_rank: $(cat rank.json)"
    done
    "$DUMP" "files_$move.plan" >dump.txt 2>err.txt || fail "files $move: relay-dump: $(cat err.txt)"
    grep -q "^  move       $move" dump.txt || fail "files $move: the summary does not name the move"
    grep -q "^runs found" dump.txt || fail "files $move: the summary does not show the runs found"
    "$MPIEXEC" -n 4 "$RUN" "files_$move.plan" --verify --iters 3 --warmup 1 >run.txt 2>err.txt ||
        fail "files $move: relay-run --verify: $(cat err.txt)"
    grep -q 'verified: yes' run.txt || fail "files $move: relay-run did not verify: $(cat run.txt)"
done

# A halo given by the generator: as many runs for a 40 x 40 grid as for a
# 4000 x 4000 one, nothing listed at width 2, and every rank's halo bytes.
for n in 40 4000; do
    plan_case "halo$n" index --move sum --halo ${n}x${n}:2x3:2 || continue
    json_check dump.json "halo $n: relay-dump --json" \
        "d['ranks'] == 6 and d['move'] == 'sum' and d['type'] == 'd' and d['items'] == $n * $n" \
        "${VOLUMES_ADD_UP[@]}" "d['listed_items'] == 0" \
        "d['bytes_total'] - sum(r['local_bytes'] for r in d['per_rank']) == d['bytes_remote']"
    "$PYTHON" -c 'import json; d = json.load(open("dump.json")); print(d["runs"], d["runs_of_runs"], d["messages"])' >"runs$n.txt"
done
"$MPIEXEC" -n 6 "$RUN" halo40.plan --verify --iters 2 >run.txt 2>err.txt || fail "halo: relay-run --verify: $(cat err.txt)"
grep -q 'verified: yes' run.txt || fail "halo: relay-run did not verify: $(cat run.txt)"
cmp -s runs40.txt runs4000.txt || fail "halo: the runs found depend on the grid's size: $(cat runs40.txt) and $(cat runs4000.txt)"

# Bad index files and options: one line, status 2, no plan.
printf '0: 1 2\n0: 3\n' >twice.txt
printf '0: 1 x\n' >token.txt
printf '5: 1\n' >rank.txt
printf '0: 1 2 12\n' >range.txt
printf '0: 1 2\n1: 2\n' >owned_twice.txt
printf '0: 1\n' >only_one.txt
files() { echo --ranks 2 --move broadcast --items 10 --owners "$1" --holders "$2" -o out.plan; }
# shellcheck disable=SC2046
{
    plan_error 2 "a rank on two lines" index $(files twice.txt only_one.txt)
    plan_error 2 "a token that is no item" index $(files only_one.txt token.txt)
    plan_error 2 "a rank beyond --ranks" index $(files only_one.txt rank.txt)
    plan_error 2 "an item out of range" index $(files only_one.txt range.txt)
    plan_error 2 "an item owned twice" index $(files owned_twice.txt only_one.txt)
    grep -q "item 2 is owned twice, by rank 0 (slot 1) and rank 1 (slot 0)" err.txt || fail "relay-plan: $(cat err.txt)"
    plan_error 2 "an item held without an owner" index $(files only_one.txt owned_twice.txt)
    plan_error 1 "a missing file" index $(files only_one.txt no_such.txt)
}
plan_error 2 "--halo with --owners" index --move sum --halo 4x4:2x2 --owners only_one.txt -o out.plan
plan_error 2 "a malformed --halo" index --move sum --halo 4x4:5x2 -o out.plan
plan_error 2 "--halo on too few ranks" index --ranks 3 --move sum --halo 4x4:2x2 -o out.plan
plan_error 2 "no --move" index --halo 4x4:2x2 -o out.plan
plan_error 2 "an unknown --move" index --move scatter --halo 4x4:2x2 -o out.plan
plan_case halo_small index --move broadcast --halo 4x4:2x2 || true
expect_error 2 "relay-dump --svg of an index plan" "$DUMP" halo_small.plan --svg x.svg
finish
