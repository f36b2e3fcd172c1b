#!/usr/bin/env bash
# predict_schedule.sh — relay-plan transform --schedule predicted --machine M:
# the plan's schedule is the fastest of the schedules relay-dump --predict
# --json predicts for the same layouts planned with rounds, and the plan
# carries every prediction as its tuning (machine, job shape, seconds), by
# name and by path, under a memory cap (rounds alone), replayed under MPI
# with its choice; and the refusals (unknown machine, --machine without
# predicted, predicted without --machine, nd: layouts, a bad machine file).
# RELAY_PREDICT=OFF (a build without SimGrid): predicted is refused, saying so.
. "$(dirname "$0")/common.sh"

FROM=bc:200x160:8x8:4x4
TO=bc:200x160:16x16:2x8:grid=col

expect_error 2 "--machine without --schedule predicted" \
    "$PLAN" transform --ranks 16 --from $FROM --to $TO --machine fat-tree -o x.plan
expect_error 2 "--schedule predicted without --machine" \
    "$PLAN" transform --ranks 16 --from $FROM --to $TO --schedule predicted -o x.plan
expect_error 2 "--schedule predicted with nd: layouts" "$PLAN" transform --ranks 4 --from nd:8x8:mesh=2x2 \
    --to nd:8x8:mesh=4 --schedule predicted --machine fat-tree -o x.plan
if [ "${RELAY_PREDICT:-ON}" = OFF ]; then
    expect_error 1 "--schedule predicted without SimGrid" \
        "$PLAN" transform --ranks 16 --from $FROM --to $TO --schedule predicted --machine fat-tree -o x.plan
    grep -q "built without SimGrid" err.txt || fail "no 'built without SimGrid' in: $(cat err.txt)"
    finish
fi
expect_error 2 "--schedule predicted on no such machine" \
    "$PLAN" transform --ranks 16 --from $FROM --to $TO --schedule predicted --machine no-such-machine -o x.plan
printf 'topology = star\nranks_per_node = 4\nmemory_bandwidth = fast\n' >bad.machine
expect_error 1 "--schedule predicted on a bad machine file" \
    "$PLAN" transform --ranks 16 --from $FROM --to $TO --schedule predicted --machine ./bad.machine -o x.plan
grep -q "bad.machine:3: memory_bandwidth" err.txt || fail "the bad machine file's line is not named: $(cat err.txt)"

# check_choice NAME MACHINE NAME_IN_PLAN RANKS FEWEST MOST ARGS...: plans
# ARGS with --schedule predicted on MACHINE and with rounds, and compares the
# plan's schedule and tuning with relay-dump --predict --json of the rounds plan.
check_choice() {
    local name=$1 machine=$2 recorded=$3 ranks=$4 fewest=$5 most=$6
    shift 6
    "$PLAN" transform --ranks "$ranks" "$@" --schedule predicted --machine "$machine" -o "$name.plan" >plan.txt 2>err.txt ||
        { fail "$name: relay-plan --schedule predicted: $(cat err.txt)"; return; }
    grep -q "^$name.plan: predicted on $recorded (" plan.txt || fail "$name: no prediction line: $(cat plan.txt)"
    "$PLAN" transform --ranks "$ranks" "$@" --schedule rounds -o "$name-rounds.plan" >/dev/null 2>err.txt ||
        { fail "$name: relay-plan --schedule rounds: $(cat err.txt)"; return; }
    "$DUMP" "$name.plan" --json >plan.json 2>err.txt || { fail "$name: relay-dump --json: $(cat err.txt)"; return; }
    "$DUMP" "$name-rounds.plan" --predict "$machine" --json >predicted.json 2>err.txt ||
        { fail "$name: relay-dump --predict: $(cat err.txt)"; return; }
    "$PYTHON" - plan.json predicted.json "$recorded" "$fewest" "$most" <<'PY' || { fail "$name: the recorded choice is not the predicted fastest"; return; }
import json, sys
plan = json.load(open(sys.argv[1]))
order = ["p2p", "rounds", "alltoallv", "neighbor"]  # relay_predict_schedules': the first of a tie wins
listed = {s["schedule"]: s["seconds"] for s in json.load(open(sys.argv[2]))["prediction"]["schedules"]}
predicted = {s: listed[s] for s in order if s in listed}
t = plan["tuning"]
fastest = min(predicted, key=lambda s: (predicted[s], order.index(s)))
assert plan["schedule"] == fastest == t["best"], (plan["schedule"], t["best"], predicted)
assert t["machine"] == sys.argv[3] and t["replays"] == 1, t
assert (t["ranks_per_node_min"], t["ranks_per_node_max"]) == (int(sys.argv[4]), int(sys.argv[5])), t
kept = [c["schedule"] for c in t["choices"]]
assert kept == [s for s in predicted if s != "rounds" or fastest == "rounds"], (kept, predicted)
for c in t["choices"]:
    assert not c["packed"] and abs(c["seconds"] - predicted[c["schedule"]]) <= 1e-9 * predicted[c["schedule"]], (c, predicted)
PY
    "$DUMP" "$name.plan" >dump.txt 2>err.txt || fail "$name: relay-dump: $(cat err.txt)"
    grep -q "predicted on $recorded for $fewest-$most ranks per node" dump.txt ||
        { fail "$name: relay-dump: $(grep tuning dump.txt)"; return; }
    echo "ok: $name: $(head -1 plan.txt)"
}

check_choice fat fat-tree fat-tree 16 16 16 --from $FROM --to $TO
check_choice aries dragonfly-aries dragonfly-aries 64 4 12 --from bc:400x320:8x8:8x8 --to bc:400x320:16x16:4x16:grid=col
machines="$(dirname "$DUMP")/../share/relay/machines"
cp "$machines/torus-bgp.machine" my-torus.machine
check_choice by-path ./my-torus.machine my-torus 16 4 4 --from $FROM --to bc:160x200:16x16:2x8:grid=col --op T
check_choice capped fat-tree fat-tree 16 16 16 --from $FROM --to $TO --max-buffer 4096
"$PYTHON" -c 'import json,sys; t=json.load(open("plan.json"))["tuning"]; assert [c["schedule"] for c in t["choices"]] == ["rounds"], t' ||
    fail "capped: the tuning is not rounds alone"

# The plan replays, its choice and all, in a job of the shape it was predicted for (one node of 4).
check_choice replay laptop laptop 4 4 4 --from bc:40x40:4x4:2x2 --to bc:40x40:8x8:1x4
"$MPIEXEC" -n 4 "$RUN" replay.plan --verify --json --iters 2 >run.json 2>err.txt || fail "relay-run replay.plan: $(cat err.txt)"
"$PYTHON" - run.json plan.json <<'PY' || fail "relay-run replayed another schedule than the predicted one"
import json, sys
run, plan = (json.load(open(f)) for f in sys.argv[1:])
assert run["verified"] and run["wrong_elements"] == 0 and run["schedule"] == plan["tuning"]["best"], (run, plan["tuning"])
PY
finish
