#!/usr/bin/env bash
# nd.sh — N-D plans through the three tools: relay-plan transform with nd:
# layout specs (and --perm) writes a plan; relay-dump reads it back (the
# summary, whose nd: specs rebuild the same plan; --json with the keys of
# every kind, an "nd" object and volumes that add up, and the element count
# every replica of A and partial piece of B implies; --rank R for every rank,
# each agreeing with the summary's per_rank entry); mpiexec relay-run
# replays it and --verify checks every element and A's padding.  Cases: 3-D
# pencil reshapes with the axes reordered, DTensor's S0,R -> R,S1 on a 2 x 2
# mesh (with a node map too), partial sources, a replicated A receiving
# directly and forwarded (--replicas), groups on disjoint ranks,
# uneven and empty split shards, one rank.  Then malformed specs and options
# that go with matrices only: one line each, status 2 (1 for what the planner
# refuses), and the tools' refusals of what N-D plans do not have.
. "$(dirname "$0")/common.sh"

# check_nd NAME NP TYPE FROM TO [ARGS...]: plan, dump and replay one case.
check_nd() {
    local name=$1 np=$2 type=$3 from=$4 to=$5
    shift 5
    local plan="$name.plan" r
    plan_case "$name" transform --ranks "$np" --from "$from" --to "$to" --type "$type" "$@" || return
    json_check dump.json "$name: relay-dump --json" \
        "all(k in d for k in ['format_version','kind','ranks','type','op','relabel','sigma','schedule','rounds','bytes_total','bytes_remote','bytes_remote_identity','messages','pieces','fingerprint','per_rank','nd'])" \
        "d['kind'] == 'nd' and d['ranks'] == $np and d['type'] == '$type' and d['relabel'] == 'none' and d['sigma'] == list(range($np))" \
        "d['schedule'] == 'p2p' and d['rounds'] == 1 and d['nd']['volumes_from'] == 'derived'" \
        "[r['rank'] for r in d['per_rank']] == list(range($np)) and d['per_rank_left_out'] == 0" \
        "${VOLUMES_ADD_UP[@]}" \
        "all(d['bytes_total'] == __import__('math').prod(p['dst']['shape']) * p['dst']['replicas'] * p['src']['partial_pieces'] * {'s': 4, 'd': 8, 'c': 8, 'z': 16}[d['type']] for p in d['nd']['pairs'])" \
        "all([p['src']['shape'][j] for j in p['perm']] == p['dst']['shape'] for p in d['nd']['pairs'])"
    json_check dump.json "$name: relay-dump counts the plan's messages, those passed on included" \
        "d['messages'] == $(sed -n 's/.* \([0-9]*\) messages,.*/\1/p' plan.txt)"

    # The summary's nd: specs (A's, then B's) rebuild the same plan.
    "$DUMP" "$plan" >dump.txt 2>err.txt || fail "$name: relay-dump failed: $(cat err.txt)"
    grep -q '^  kind       nd$' dump.txt || fail "$name: the summary does not name the kind nd"
    local specs
    mapfile -t specs < <(sed -n 's/^ *\(nd:.*\)$/\1/p' dump.txt)
    if [ "${#specs[@]}" -ne 2 ]; then
        fail "$name: the summary shows ${#specs[@]} nd: specs, expected 2"
    elif ! "$PLAN" transform --ranks "$np" --from "${specs[1]}" --to "${specs[0]}" --type "$type" "$@" -o again.plan >/dev/null 2>err.txt; then
        fail "$name: the summary's specs do not plan: $(cat err.txt)"
    else
        [ "$("$DUMP" again.plan | grep -o 'fingerprint [0-9a-f]*')" = "$(grep -o 'fingerprint [0-9a-f]*' dump.txt)" ] ||
            fail "$name: the summary's specs ${specs[*]} plan another plan"
    fi

    for ((r = 0; r < np; r++)); do
        "$DUMP" "$plan" --rank "$r" --json >"rank$r.json" 2>err.txt || fail "$name: relay-dump --rank $r --json failed: $(cat err.txt)"
        "$DUMP" "$plan" --rank "$r" >rank.txt 2>err.txt || fail "$name: relay-dump --rank $r failed: $(cat err.txt)"
        grep -q "rank $r of $np (nd" rank.txt || fail "$name: relay-dump --rank $r: no heading"
    done
    "$PYTHON" - "$np" <<'PY' || fail "$name: relay-dump --rank R does not add up to the summary's per_rank"
import json, sys
np = int(sys.argv[1])
d = json.load(open("dump.json"))
ok = True
for r in range(np):
    x = json.load(open("rank%d.json" % r))
    want = d["per_rank"][r]
    got = {k: x[k] for k in want}
    msgs = lambda key: sum(m["bytes"] for m in x[key])
    checks = [got == want, x["rank"] == r and x["kind"] == "nd",
              msgs("send") == x["send_bytes"] and msgs("recv") == x["recv_bytes"],
              sum(t["bytes"] for t in x["local"]) == x["local_bytes"],
              len(x["send"]) == x["send_msgs"] and len(x["recv"]) == x["recv_msgs"],
              all(t["boxes"] == __import__("math").prod(t["runs"]) for m in x["send"] + x["recv"] for t in m["transfers"])]
    if not all(checks):
        print("  rank %d: %s" % (r, checks), file=sys.stderr)
        ok = False
sys.exit(0 if ok else 1)
PY

    local remote
    remote=$("$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["bytes_remote"])' dump.json)
    "$MPIEXEC" -n "$np" "$RUN" "$plan" --verify --json --iters 2 >run.json 2>err.txt ||
        fail "$name: relay-run at $np ranks failed: $(cat err.txt)"
    json_check run.json "$name: relay-run --json" \
        "d['verified'] is True and d['wrong_elements'] == 0 and d['ranks'] == $np and d['bytes_remote'] == $remote"
    echo "ok: $name"
}

# 3-D pencils: x-pencils to y-pencils with x and y swapped (A Fortran-ordered
# and padded), and on to z-pencils with the axes rotated and conjugated.
check_nd pencil-xy 4 z nd:11x10x7:mesh=2x2:place=S1,S2 nd:10x11x7:mesh=2x2:place=S1,S2:order=F:pad=10x7x5 --perm 1,0,2
check_nd pencil-yz 4 c nd:10x11x7:mesh=2x2:place=S1,S2 nd:7x10x11:mesh=2x2:place=S1,S2 --perm 2,0,1 --op C
check_nd slab-transpose 2 d nd:12x9:mesh=2 nd:9x12:mesh=2 --op T
# DTensor's S0,R -> R,S1 on a 2 x 2 mesh: every rank reads its own replica.
check_nd dtensor 4 d nd:10x9:mesh=2x2:place=S0,R nd:10x9:mesh=2x2:place=R,S1
grep -q 'replica' rank.txt || fail "dtensor: relay-dump --rank does not name the source replicas"
check_nd dtensor-nodes 4 s nd:10x9:mesh=2x2:place=R,S0 nd:10x9:mesh=4:place=S1/b2 --ranks-per-node 2
json_check dump.json "dtensor-nodes: node map" "d['nd']['node_map'] is True"
grep -q 'node map   given: 2 nodes' dump.txt || fail "dtensor-nodes: the summary does not show the node map"
# Partial sources: summed into a sharded A, all pieces onto one rank, with axes reordered.
check_nd partial 4 s nd:9x8:mesh=2x2:place=P,S1 nd:9x8:mesh=2x2:place=S0/b2,S1
grep -q 'partial piece' rank.txt || fail "partial: relay-dump --rank does not name the partial pieces"
check_nd partial-all 4 c nd:6x5x4:mesh=2x2:place=P,P 'nd:6x5x4:mesh=1@3'
check_nd partial-perm 4 z nd:6x5x4:mesh=2x2:place=S2,P nd:4x6x5:mesh=2x2@3,2,1,0:place=S0,R:pad=3x6x5 --perm 2,0,1
# A replicated A on ranks 1-3: forwarded down a tree, and each replica from B.
check_nd forward 4 z 'nd:12x6:mesh=1@0' 'nd:12x6:mesh=3@1-3:place=R' --replicas forward
json_check dump.json "forward: the plan's choice" "d['nd']['pairs'][0]['forward'] is True"
grep -q 'passed on, read by rank 0' rank.txt || fail "forward: relay-dump --rank does not show what is passed on"
# Every rank a replica of A, B in quarters: replicas pass on several
# transfers to one peer, each a message of its own (12 messages, not 8).
check_nd forward-all 4 d 'nd:12x8:mesh=2x2:place=S0,S1' 'nd:12x8:mesh=4:place=R' --replicas forward
check_nd direct 4 d 'nd:12x6:mesh=1@0' 'nd:12x6:mesh=3@1-3:place=R' --replicas direct
json_check dump.json "direct: the plan's choice" "d['nd']['pairs'][0]['forward'] is False" \
    "[r['send_msgs'] for r in d['per_rank']] == [3, 0, 0, 0]"
# Groups on disjoint ranks: B on 0-1, A on 2-3.
check_nd disjoint 4 d 'nd:10x9:mesh=2@0-1' 'nd:9x10:mesh=2@2-3:place=S1' --op T
json_check dump.json "disjoint: who sends and receives" \
    "[r['send_bytes'] > 0 for r in d['per_rank']] == [True, True, False, False]" \
    "[r['recv_bytes'] > 0 for r in d['per_rank']] == [False, False, True, True]" \
    "all(r['local_bytes'] == 0 for r in d['per_rank'])"
# Uneven and empty split shards, a mesh in another rank order; one rank.
check_nd splits 3 d 'nd:7x5:mesh=3:place=S0/0|0|2|7' 'nd:7x5:mesh=3@2,0,1:place=S1/b2'
check_nd one-rank 1 z nd:17:mesh=1 nd:17:mesh=1:pad=20

# --limit bounds the ranks derived: the volumes are then the plan's statistics.
"$DUMP" pencil-xy.plan --json >full.json 2>err.txt || fail "limit: relay-dump --json failed: $(cat err.txt)"
"$DUMP" pencil-xy.plan --json --limit 2 >dump.json 2>err.txt || fail "limit: relay-dump --json --limit 2 failed: $(cat err.txt)"
json_check dump.json "limit: relay-dump --json --limit 2" \
    "len(d['per_rank']) == 2 and d['per_rank_left_out'] == 2 and d['nd']['volumes_from'] == 'statistics'" \
    "d['bytes_remote'] == json.load(open('full.json'))['bytes_remote'] and d['messages'] == json.load(open('full.json'))['messages']"
"$DUMP" pencil-xy.plan --rank 0 --json --limit 1 >rank.json 2>err.txt || fail "limit: relay-dump --rank 0 --limit 1 failed: $(cat err.txt)"
json_check rank.json "limit: relay-dump --rank 0 --json --limit 1" \
    "len(d['send']) <= 1 and len(d['send']) + d['send_left_out'] == d['send_msgs']" \
    "len(d['recv']) <= 1 and len(d['recv']) + d['recv_left_out'] == d['recv_msgs']"

# Malformed specs and options: one line each, no plan file.
GOOD=nd:8x6:mesh=2
for spec in 'nd:' 'nd:8x6' 'nd:8xx6:mesh=2' 'nd:1x1x1x1x1x1x1x1x1:mesh=1' 'nd:8x6:mesh=0' 'nd:8x6:mesh=1x1x1x1x1' \
    'nd:8x6:mesh=2x2x2' 'nd:8x6:mesh=2x2@0-2' 'nd:8x6:mesh=2@0,9' 'nd:8x6:mesh=2@1-0' 'nd:8x6:mesh=2@0,0' \
    'nd:8x6:mesh=2@a' 'nd:8x6:mesh=2x2:place=S0' 'nd:8x6:mesh=2:place=S2' 'nd:8x6:mesh=2:place=Q' \
    'nd:8x6:mesh=2:place=S0/b0' 'nd:8x6:mesh=2:place=S0/0|8' 'nd:8x6:mesh=2:place=S0/0|9|8' \
    'nd:8x6:mesh=2x2:place=S0,S0' 'nd:8x6:mesh=2:order=X' 'nd:8x6:mesh=2:pad=4' 'nd:8x6:mesh=2:pad=3x6' \
    'nd:8x6:mesh=2:mesh=2' 'nd:8x6:mesh=2:colour=red' 'nd:8x6:mesh=2:place' 'nd:8x6:mesh=4x2x1:place=S0,S1,R' \
    'nd:8x6:mesh=2x2x2' 'nd:8x6:mesh=1x1x1'; do
    plan_error 2 "bad spec $spec" transform --ranks 4 --from "$spec" --to $GOOD -o out.plan
done
plan_error 2 "nd: and bc: layouts" transform --ranks 2 --from $GOOD --to bc:8x6:4x4:1x2 -o out.plan
plan_error 2 "--replicas with matrices" transform --ranks 2 --from bc:8x6:4x4:1x2 --to bc:8x6:4x4:1x2 --replicas forward -o out.plan
plan_error 2 "bad --replicas" transform --ranks 2 --from $GOOD --to $GOOD --replicas tree -o out.plan
plan_error 2 "--perm with matrices" transform --ranks 2 --from bc:8x6:4x4:1x2 --to bc:6x8:4x4:1x2 --perm 1,0 -o out.plan
plan_error 2 "--perm of the wrong length" transform --ranks 2 --from $GOOD --to nd:6x8:mesh=2 --perm 1,0,2 -o out.plan
plan_error 2 "--perm not a permutation" transform --ranks 2 --from $GOOD --to nd:6x8:mesh=2 --perm 1,1 -o out.plan
plan_error 2 "--perm malformed" transform --ranks 2 --from $GOOD --to nd:6x8:mesh=2 --perm 1,x -o out.plan
plan_error 2 "--perm with op N" transform --ranks 2 --from $GOOD --to nd:6x8:mesh=2 --perm 1,0 --op N -o out.plan
plan_error 2 "shapes that do not match after --perm" transform --ranks 2 --from $GOOD --to $GOOD --perm 1,0 -o out.plan
plan_error 2 "a mesh beyond --ranks" transform --ranks 2 --from $GOOD --to 'nd:8x6:mesh=2@2-3' -o out.plan
plan_error 2 "a partial destination" transform --ranks 2 --from $GOOD --to nd:8x6:mesh=2:place=P -o out.plan
plan_error 1 "relabeling" transform --ranks 2 --from $GOOD --to $GOOD --relabel greedy -o out.plan
plan_error 1 "a rounds schedule" transform --ranks 2 --from $GOOD --to $GOOD --schedule rounds -o out.plan
plan_error 1 "a memory cap" transform --ranks 2 --from $GOOD --to $GOOD --max-buffer 4096 -o out.plan

# What N-D plans do not have, refused by the tools.
"$PLAN" transform --ranks 2 --from $GOOD --to nd:6x8:mesh=2 --perm 1,0 -o nd.plan >/dev/null 2>err.txt || fail "relay-plan: $(cat err.txt)"
expect_error 2 "relay-dump --svg of an N-D plan" "$DUMP" nd.plan --svg nd.svg
[ -e nd.svg ] && fail "relay-dump --svg of an N-D plan wrote nd.svg"
expect_error 2 "relay-dump --stats of an N-D plan" "$DUMP" nd.plan --stats nd.csv

# relay-run times an N-D replay per message (--stats), and tunes a plan
# whose destination is replicated (--tune: direct and forwarding timed,
# the tuned plan replays and verifies).
"$MPIEXEC" -n 2 "$RUN" nd.plan --stats nd.csv --iters 2 >/dev/null 2>err.txt || fail "relay-run --stats of an N-D plan: $(cat err.txt)"
grep -q '^rank,kind,peer,bytes' nd.csv || fail "relay-run --stats of an N-D plan wrote no rows"
"$PLAN" transform --ranks 2 --from $GOOD --to nd:8x6:mesh=2:place=R -o replicated.plan >/dev/null 2>err.txt ||
    fail "relay-plan: $(cat err.txt)"
"$MPIEXEC" -n 2 "$RUN" replicated.plan --tune=tuned.plan --iters 3 >/dev/null 2>err.txt || fail "relay-run --tune of an N-D plan: $(cat err.txt)"
"$MPIEXEC" -n 2 "$RUN" tuned.plan --verify >/dev/null 2>err.txt || fail "the tuned N-D plan does not verify: $(cat err.txt)"
"$DUMP" tuned.plan --json >tuned.json 2>err.txt || fail "relay-dump of the tuned N-D plan: $(cat err.txt)"
json_check tuned.json "relay-dump --json of a tuned N-D plan" "len(d['tuning']['choices']) == 2"
finish
