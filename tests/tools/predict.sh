#!/usr/bin/env bash
# predict.sh — relay-dump --predict MACHINE on plans relay-plan made: every
# shipped machine by name and one by path, text and --json (the schedules
# the plan can be replayed with, the plan's own first, its messages and
# slowest ranks consistent with the plan's volumes), a rounds plan, a
# two-rank plan on every machine (the smallest topologies), and the
# refusals (no such machine, a bad machine file, --rank); a BMMC plan and
# an HSUMMA plan (its one way, auto; HSUMMA's communication and groups);
# N-D plans (p2p alone; every message the plan counts, passed on ones too);
# relay's own engine against SimGrid's.
. "$(dirname "$0")/common.sh"

"$PLAN" transform --ranks 16 --from bc:200x160:8x8:4x4 --to bc:200x160:16x16:2x8:grid=col -o t.plan >/dev/null 2>err.txt ||
    fail "relay-plan: $(cat err.txt)"
"$PLAN" transform --ranks 16 --from bc:200x160:8x8:4x4 --to bc:200x160:16x16:2x8:grid=col --schedule rounds \
    -o rounds.plan >/dev/null 2>err.txt || fail "relay-plan --schedule rounds: $(cat err.txt)"
"$DUMP" t.plan --json >volumes.json 2>err.txt || fail "relay-dump --json: $(cat err.txt)"

# check_json PLAN MACHINE SCHEDULES: --json's prediction names SCHEDULES
# (comma-separated, the plan's own first) and agrees with itself and the plan.
check_json() {
    local plan=$1 machine=$2 want=$3
    "$DUMP" "$plan" --predict "$machine" --json >p.json 2>err.txt || { fail "$plan on $machine --json: $(cat err.txt)"; return; }
    "$PYTHON" - p.json volumes.json "$want" <<'PY' || fail "$plan on $machine: the --json prediction is inconsistent"
import json, sys
p = json.load(open(sys.argv[1]))["prediction"]
volumes = json.load(open(sys.argv[2]))
want = sys.argv[3].split(",")
assert [s["schedule"] for s in p["schedules"]] == want, p["schedules"]
assert p["schedule"] == want[0] and p["seconds"] == p["schedules"][0]["seconds"] > 0, p
assert p["messages"] == volumes["messages"], (p["messages"], volumes["messages"])
ranks = [r["seconds"] for r in p["slowest_ranks"]]
assert len(ranks) == 8 and ranks == sorted(ranks, reverse=True) and ranks[0] == p["seconds"], ranks
assert p["slowest_ranks"][0]["rank"] == p["slowest_rank"]
msgs = [m["seconds"] for m in p["slowest_messages"]]
assert len(msgs) == 8 and msgs == sorted(msgs, reverse=True) and 0 < msgs[0] <= p["seconds"], msgs
assert all(s["seconds"] > 0 for s in p["schedules"])
PY
    echo "ok: $plan on $machine --json"
}

for machine in laptop fat-tree torus-bgp dragonfly-aries; do
    "$DUMP" t.plan --predict "$machine" >p.txt 2>err.txt || { fail "$machine: $(cat err.txt)"; continue; }
    head -1 p.txt | grep -q "predicted replay .* ms (p2p, the plan's schedule" || fail "$machine: first line: $(head -1 p.txt)"
    for word in "slowest ranks" "slowest messages" "every schedule"; do
        grep -q "$word" p.txt || fail "$machine: no '$word' in the text"
    done
    check_json t.plan "$machine" p2p,alltoallv,neighbor
done
check_json rounds.plan fat-tree rounds,p2p,alltoallv,neighbor

# relay's own engine (RELAY_PREDICT_ENGINE=fluid), which relay-dump runs
# unasked past 20,000 messages: the same checks, and the same predictions
# as SimGrid's to 1e-3, every schedule, on a fat tree of 2 ranks a node and
# 4-port switches (8 nodes, 3 levels of switches: routes of 2, 4 and 6
# links sharing them); refused for a torus.
printf '%s\n' "topology = fat-tree" "switch_radix = 4" "ranks_per_node = 2" "memory_bandwidth = 6e9" \
    "piece_seconds = 5e-9" "message_seconds = 5e-7" "link_bandwidth = 12.5e9" "link_latency = 1.5e-7" \
    "node_bandwidth = 8e9" "node_latency = 3e-7" >tree.machine
RELAY_PREDICT_ENGINE=fluid check_json rounds.plan tree.machine rounds,p2p,alltoallv,neighbor
cp p.json fluid.json
check_json rounds.plan tree.machine rounds,p2p,alltoallv,neighbor
"$PYTHON" - fluid.json p.json <<'PY' || fail "relay's engine and SimGrid disagree on rounds.plan"
import json, sys
fluid, simgrid = (json.load(open(f))["prediction"]["schedules"] for f in sys.argv[1:])
for f, s in zip(fluid, simgrid):
    assert f["schedule"] == s["schedule"] and abs(f["seconds"] - s["seconds"]) <= 1e-3 * s["seconds"], (f, s)
PY
RELAY_PREDICT_ENGINE=fluid expect_error 1 "the fluid engine on a torus" "$DUMP" t.plan --predict torus-bgp
RELAY_PREDICT_ENGINE=fluid "$DUMP" t.plan --predict torus-bgp 2>&1 | grep -q "node, star and fat-tree" ||
    fail "the fluid engine on a torus: no reason given"

# The smallest machines each topology makes: two ranks (one node).
"$PLAN" transform --ranks 2 --from bc:8x8:2x2:1x2 --to bc:8x8:4x4:2x1 -o two.plan >/dev/null 2>err.txt ||
    fail "relay-plan, 2 ranks: $(cat err.txt)"
for machine in laptop fat-tree torus-bgp dragonfly-aries; do
    "$DUMP" two.plan --predict "$machine" >p.txt 2>err.txt || fail "2 ranks on $machine: $(cat err.txt)"
done

# A machine file by path, and the same machine by name: the same prediction.
machines="$(dirname "$DUMP")/../share/relay/machines"
"$DUMP" t.plan --predict "$machines/laptop.machine" --json >by_path.json 2>err.txt || fail "by path: $(cat err.txt)"
"$DUMP" t.plan --predict laptop --json >by_name.json 2>err.txt || fail "by name: $(cat err.txt)"
"$PYTHON" -c 'import json,sys; a,b=(json.load(open(f))["prediction"] for f in sys.argv[1:]); assert a["schedules"]==b["schedules"]' \
    by_path.json by_name.json || fail "laptop by path and by name differ"

printf 'topology = star\nranks_per_node = 4\nmemory_bandwidth = fast\n' >bad.machine
expect_error 2 "--predict with a bad machine file" "$DUMP" t.plan --predict bad.machine
grep -q "bad.machine:3: memory_bandwidth" err.txt || fail "the bad machine file's line is not named: $(cat err.txt)"
expect_error 2 "--predict with no such machine" "$DUMP" t.plan --predict no-such-machine
expect_error 2 "--predict with --rank" "$DUMP" t.plan --predict laptop --rank 1
"$PLAN" bmmc --ranks 4 --perm bit-reversal --bits 8 -o b.plan >/dev/null 2>err.txt || fail "relay-plan bmmc: $(cat err.txt)"
"$DUMP" b.plan --predict laptop >p.txt 2>err.txt || fail "--predict of a BMMC plan: $(cat err.txt)"
head -1 p.txt | grep -q "predicted replay .* ms (auto, the plan's schedule" || fail "BMMC: first line: $(head -1 p.txt)"
"$PLAN" hsumma --grid 2x4 --shape 256x256x256 --groups 2x2 --block 32 -o h.plan >/dev/null 2>err.txt ||
    fail "relay-plan hsumma: $(cat err.txt)"
"$DUMP" h.plan --predict torus-bgp --json >h.json 2>err.txt || fail "--predict of an HSUMMA plan: $(cat err.txt)"
"$PYTHON" - h.json <<'PY' || fail "HSUMMA --json prediction inconsistent"
import json, sys
p = json.load(open(sys.argv[1]))["prediction"]
assert p["schedule"] == "auto" and [s["schedule"] for s in p["schedules"]] == ["auto"], p
assert (p["group_rows"], p["group_cols"], p["outer_steps"]) == (2, 2, 8), p
assert 0 < p["comm_seconds"] < p["seconds"] and 0 < p["compute_seconds"] < p["seconds"], p
PY
"$DUMP" h.plan --predict torus-bgp >p.txt 2>err.txt && grep -q "ms communication, .* groups 2 x 2, 8 outer steps" p.txt ||
    fail "HSUMMA text: $(cat p.txt err.txt)"

# N-D: a 3-D transposing reshape onto a replicated A, direct and forwarded.
for how in direct forward; do
    "$PLAN" transform --ranks 16 --from nd:64x64x64:mesh=4x4:place=S0,S1 --to nd:64x64x64:mesh=2x8:place=R,S2 \
        --op T --perm 2,0,1 --replicas $how -o nd.plan >made.txt 2>err.txt || { fail "relay-plan nd ($how): $(cat err.txt)"; continue; }
    "$DUMP" nd.plan --predict fat-tree --json >nd.json 2>err.txt || { fail "--predict of an N-D plan ($how): $(cat err.txt)"; continue; }
    "$PYTHON" - nd.json made.txt <<'PY' || fail "N-D ($how): the --json prediction is inconsistent"
import json, re, sys
p = json.load(open(sys.argv[1]))["prediction"]
stats = int(re.search(r"(\d+) messages", open(sys.argv[2]).read()).group(1))  # relay-plan's summary: the plan's statistics
assert p["schedule"] == "p2p" and [s["schedule"] for s in p["schedules"]] == ["p2p"], p
assert p["messages"] == stats, (p["messages"], stats)
assert 0 < p["slowest_messages"][0]["seconds"] <= p["seconds"] == p["slowest_ranks"][0]["seconds"], p
PY
    "$DUMP" nd.plan --predict laptop >p.txt 2>err.txt && head -1 p.txt | grep -q "predicted replay .* ms (p2p, the plan's schedule" ||
        fail "N-D ($how) text: $(cat p.txt err.txt)"
done
finish
