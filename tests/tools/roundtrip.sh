#!/usr/bin/env bash
# roundtrip.sh — relay-plan writes a plan, relay-dump reads it back (summary,
# JSON with the documented keys and consistent volumes, one rank, SVG), and
# relay-run replays it as separate processes under mpiexec at 1, 2 and 4
# ranks and verifies every element: block-cyclic layouts of every grid and
# element order, a JSON grid layout with packed and with explicit storage,
# every op and element type, every schedule.
. "$(dirname "$0")/common.sh"

# A grid layout over P ranks (json:), packed or with explicit offsets/lds.
write_grid_layout() { # file nranks m n explicit
    "$PYTHON" - "$@" <<'PY'
import json, sys
path, p, m, n, explicit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
rows = [0, m // 3, 2 * m // 3, m]
cols = [0, n // 2, n]
owners = [(i * 2 + j) % p for i in range(3) for j in range(2)]
doc = {"nranks": p, "m": m, "n": n, "row_splits": rows, "col_splits": cols, "owners": owners, "order": "col"}
if explicit:
    nxt = [0] * p
    doc["offsets"], doc["lds"] = [], []
    for b, o in enumerate(owners):
        r, c = rows[b // 2 + 1] - rows[b // 2], cols[b % 2 + 1] - cols[b % 2]
        ld = r + 3
        doc["offsets"].append(nxt[o])
        doc["lds"].append(ld)
        nxt[o] += (c - 1) * ld + r + 5
json.dump(doc, open(path, "w"), indent=1)
PY
}

# check_case NAME P M N ESZ OP TYPE FROM TO [RELABEL [EXTRA...]]: A is M x N.
check_case() {
    local name=$1 p=$2 m=$3 n=$4 esz=$5 op=$6 type=$7 from=$8 to=$9 relabel=${10:-none}
    shift $(($# < 10 ? $# : 10))
    local plan="$name.plan" want="" args=("$@") i
    for ((i = 0; i + 1 < ${#args[@]}; i++)); do [ "${args[i]}" = --schedule ] && want=${args[i + 1]}; done
    plan_case "$name" transform --ranks "$p" --from "$from" --to "$to" --op "$op" --type "$type" --relabel "$relabel" "$@" || return
    json_check dump.json "$name: relay-dump --json" \
        "all(k in d for k in ['format_version','kind','ranks','type','op','relabel','sigma','schedule','rounds','bytes_total','bytes_remote','bytes_remote_identity','messages','per_rank'])" \
        "d['bytes_total'] == $m * $n * $esz" \
        "d['ranks'] == $p and len(d['per_rank']) == $p and sorted(d['sigma']) == list(range($p))" \
        "'$relabel' != 'none' or d['sigma'] == list(range($p))" \
        "d['bytes_remote'] <= d['bytes_remote_identity']" \
        "d['kind'] == 'transform' and d['type'] == '$type' and d['op'] == '$op' and d['relabel'] == '$relabel'" \
        "d['schedule'] in ('p2p', 'rounds', 'alltoallv', 'neighbor') and '$want' in ('', 'auto', d['schedule'])" \
        "d['schedule'] != 'rounds' or (d['contention_free'] is True and len(d['steps']) == d['rounds'])" \
        "d['rounds'] == (max([max(r['send_msgs'], r['recv_msgs']) + (r['local_bytes'] > 0) for r in d['per_rank']]) if d['schedule'] == 'rounds' else 1)" \
        "re.fullmatch(r'[0-9]+[.][0-9]+', d['format_version']) is not None" \
        "${VOLUMES_ADD_UP[@]}" \
        "[r['rank'] for r in d['per_rank']] == list(range($p))"
    local remote
    remote=$("$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["bytes_remote"])' dump.json)

    "$DUMP" "$plan" >dump.txt 2>err.txt || fail "$name: relay-dump failed: $(cat err.txt)"
    grep -q "top talkers" dump.txt || fail "$name: relay-dump summary lacks the top talkers"
    "$DUMP" "$plan" --rank $((p - 1)) --json >rank.json 2>err.txt || fail "$name: relay-dump --rank failed: $(cat err.txt)"
    json_check rank.json "$name: relay-dump --rank --json" "d['rank'] == $p - 1 and 'send' in d and 'recv' in d" \
        "('$want' == 'rounds') == all('step' in m for m in d['send'] + d['recv']) or not d['send'] + d['recv']"
    "$DUMP" "$plan" --svg "$name.svg" >/dev/null 2>err.txt || fail "$name: relay-dump --svg failed: $(cat err.txt)"
    "$PYTHON" -c 'import sys, xml.etree.ElementTree as E; sys.exit(0 if E.parse(sys.argv[1]).getroot().tag.endswith("svg") else 1)' "$name.svg" ||
        fail "$name: the SVG is not well-formed"

    "$MPIEXEC" -n "$p" "$RUN" "$plan" --verify --json --iters 3 >run.json 2>err.txt ||
        fail "$name: relay-run at $p ranks failed: $(cat err.txt)"
    [ "$(wc -l <run.json)" -eq 1 ] || fail "$name: relay-run --json printed $(wc -l <run.json) lines"
    json_check run.json "$name: relay-run --json" \
        "d['verified'] is True and d['verify_requested'] is True and d['ranks'] == $p and d['iters'] == 3" \
        "all(k in d for k in ['create_s','run_s_median','run_s_min','bytes_remote'])" \
        "d['run_s_min'] <= d['run_s_median']" \
        "d['bytes_remote'] == $remote"
    echo "ok: $name"
}

for p in 1 2 4; do
    case $p in
    1) wide=1x1 tall=1x1 ;;
    2) wide=1x2 tall=2x1 ;;
    4) wide=1x4 tall=2x2 ;;
    esac
    write_grid_layout packed$p.json "$p" 90 70 0
    write_grid_layout explicit$p.json "$p" 70 90 1
    check_case "bc-N-d-p$p" "$p" 300 200 8 N d "bc:300x200:32x32:$wide" "bc:300x200:64x48:$tall"
    check_case "bc-T-s-p$p" "$p" 300 200 4 T s "bc:200x300:17x23:$tall:grid=col:elem=row" "bc:300x200:40x40:$wide:src=0,$((${wide#*x} - 1))"
    check_case "json-C-z-p$p" "$p" 70 90 16 C z "json:packed$p.json" "bc:70x90:16x16:$tall:elem=row"
    check_case "json-N-c-p$p" "$p" 70 90 8 N c "bc:70x90:9x11:$wide" "json:explicit$p.json"
done
# Relabeled plans: a grid renumbered row- to column-major, and a node-aware case.
check_case "relabel-optimal" 4 120 80 8 N d "bc:120x80:10x10:2x2" "bc:120x80:10x10:2x2:grid=col" optimal
check_case "relabel-greedy-T" 4 80 120 8 T d "bc:120x80:7x9:2x2" "bc:80x120:16x16:1x4" greedy
check_case "relabel-nodes" 4 100 100 4 N s "bc:100x100:10x10:1x4" "bc:100x100:25x25:4x1" optimal \
    --ranks-per-node 2 --node-weight 8
# ReSHAPE: 2x2 -> 2x4 on 8 ranks (the ReSHAPE paper's Table 2: 2 steps, 2 copies, 6 sends).
check_case "reshape-4-to-8" 8 64 96 8 N d "bc:64x96:4x4:2x2" "bc:64x96:4x4:2x4" none --schedule rounds
json_check dump.json "reshape-4-to-8: ReSHAPE steps" \
    "d['rounds'] == 2 and d['superblock'] == {'rows': 2, 'cols': 4, 'reshape_steps': 2}" \
    "sum(len(s['copies']) for s in d['steps']) == 2 and sum(len(s['sends']) for s in d['steps']) == 6"
# 5 * 10^6 one-row blocks: block-cyclic layouts cost
# O(ranks) however many blocks they have, so the plan file is read back.
check_case "tall-one-row-blocks" 2 5000000 1 8 N d "bc:5000000x1:1x1:2x1" "bc:5000000x1:1000x1:1x2"
# Every schedule, on a plan where every rank talks to every other.
for sched in p2p rounds alltoallv neighbor auto; do
    check_case "schedule-$sched" 4 96 96 8 T d "bc:96x96:8x8:2x2" "bc:96x96:12x12:1x4:grid=col" none --schedule "$sched"
done

# Plans from plans: a relabeled transpose, its inverse, the two composed
# (nothing crosses ranks) and concatenated, each replayed and verified.
check_algebra() {
    "$PLAN" transform --ranks 4 --from bc:90x70:8x8:2x2 --to bc:70x90:16x4:1x4 --op T --type z --relabel optimal \
        -o ab.plan >/dev/null 2>err.txt || { fail "algebra: relay-plan transform: $(cat err.txt)"; return; }
    "$PLAN" invert ab.plan -o ba.plan >/dev/null 2>err.txt || fail "algebra: relay-plan invert: $(cat err.txt)"
    "$PLAN" compose ab.plan ba.plan -o aa.plan >/dev/null 2>err.txt || fail "algebra: relay-plan compose: $(cat err.txt)"
    "$PLAN" concat ab.plan ba.plan -o two.plan >/dev/null 2>err.txt || fail "algebra: relay-plan concat: $(cat err.txt)"
    for f in ba aa two; do
        "$MPIEXEC" -n 4 "$RUN" "$f.plan" --verify --iters 2 >run.txt 2>err.txt || fail "algebra: relay-run $f.plan: $(cat err.txt)"
        grep -q "verified: yes" run.txt || fail "algebra: $f.plan did not verify: $(cat run.txt)"
    done
    "$DUMP" aa.plan --json >dump.json 2>err.txt || fail "algebra: relay-dump aa.plan: $(cat err.txt)"
    json_check dump.json "algebra: a plan composed with its inverse" "d['bytes_remote'] == 0 and d['op'] == 'N'"
    "$DUMP" two.plan --json >dump.json 2>err.txt || fail "algebra: relay-dump two.plan: $(cat err.txt)"
    json_check dump.json "algebra: two plans concatenated" "d['messages'] <= 12 and d['bytes_total'] == 2 * 90 * 70 * 16"
}
check_algebra

# check_bmmc NAME P ESZ RELAY-PLAN-BMMC-ARGS...: plan, dump (text, JSON, one
# rank's partners), replay at P ranks and verify every element.
check_bmmc() {
    local name=$1 p=$2 esz=$3
    shift 3
    "$PLAN" bmmc --ranks "$p" --elem-size "$esz" "$@" -o "$name.plan" >plan.txt 2>err.txt || {
        fail "$name: relay-plan bmmc failed: $(cat err.txt)"
        return
    }
    "$DUMP" "$name.plan" >dump.txt 2>err.txt || fail "$name: relay-dump failed: $(cat err.txt)"
    grep -q "rank of V's lower-left block: r = " dump.txt || fail "$name: relay-dump does not show r"
    "$DUMP" "$name.plan" --json >dump.json 2>err.txt || fail "$name: relay-dump --json failed: $(cat err.txt)"
    json_check dump.json "$name: relay-dump --json" \
        "d['kind'] == 'bmmc' and d['ranks'] == $p and len(d['per_rank']) == $p" \
        "d['bmmc']['partners'] == 2 ** d['bmmc']['rank'] and d['bytes_total'] == $esz * 2 ** d['bmmc']['n']" \
        "sum(r['send_bytes'] + r['local_bytes'] for r in d['per_rank']) == d['bytes_total']" \
        "sum(r['send_msgs'] for r in d['per_rank']) == d['messages']"
    "$DUMP" "$name.plan" --rank $((p - 1)) --json >rank.json 2>err.txt || fail "$name: relay-dump --rank failed: $(cat err.txt)"
    json_check rank.json "$name: relay-dump --rank --json" \
        "d['rank'] == $p - 1 and sorted(x['to'] for x in d['partners']) == sorted(x['from'] for x in d['partners'])" \
        "len(set(x['to'] for x in d['partners'])) == len(d['partners'])"
    "$MPIEXEC" -n "$p" "$RUN" "$name.plan" --verify --json --iters 2 >run.json 2>err.txt ||
        fail "$name: relay-run at $p ranks failed: $(cat err.txt)"
    json_check run.json "$name: relay-run --json" "d['verified'] is True and d['ranks'] == $p"
    echo "ok: $name"
}
check_bmmc bmmc-transpose 4 8 --perm transpose:64x32
check_bmmc bmmc-composed-minor 4 4 --perm bit-reversal,gray-code --bits 12 --rank-bits minor --complement 0x5a5
check_bmmc bmmc-matrix-inverse 2 3 --matrix 0x3,0x2,0x4,0x9,0x10,0x20 --rank-bits 2 --inverse
check_bmmc bmmc-one-rank 1 16 --perm vector-reversal --bits 9

# check_hsumma NAME P RELAY-PLAN-HSUMMA-ARGS...: plan, dump (text, JSON, one
# rank), replay at P ranks and verify C against the serial product.
check_hsumma() {
    local name=$1 p=$2
    shift 2
    "$PLAN" hsumma "$@" -o "$name.plan" >plan.txt 2>err.txt || {
        fail "$name: relay-plan hsumma failed: $(cat err.txt)"
        return
    }
    "$DUMP" "$name.plan" >dump.txt 2>err.txt || fail "$name: relay-dump failed: $(cat err.txt)"
    grep -q "outer and .* inner steps per replay" dump.txt || fail "$name: relay-dump does not show the steps"
    "$DUMP" "$name.plan" --json >dump.json 2>err.txt || fail "$name: relay-dump --json failed: $(cat err.txt)"
    json_check dump.json "$name: relay-dump --json" \
        "d['kind'] == 'hsumma' and d['ranks'] == $p and len(d['per_rank']) == $p" \
        "sum(r['recv_bytes'] for r in d['per_rank']) == d['bytes_remote'] == sum(r['send_bytes'] for r in d['per_rank'])" \
        "sum(r['local_bytes'] for r in d['per_rank']) == d['bytes_total'] - d['bytes_remote']" \
        "sum(r['recv_msgs'] for r in d['per_rank']) == d['messages']"
    "$DUMP" "$name.plan" --rank $((p - 1)) --json >rank.json 2>err.txt || fail "$name: relay-dump --rank failed: $(cat err.txt)"
    json_check rank.json "$name: relay-dump --rank --json" "d['rank'] == $p - 1"
    "$MPIEXEC" -n "$p" "$RUN" "$name.plan" --verify --json --iters 2 >run.json 2>err.txt ||
        fail "$name: relay-run at $p ranks failed: $(cat err.txt)"
    json_check run.json "$name: relay-run --json" "d['verified'] is True and d['ranks'] == $p"
    echo "ok: $name"
}
check_hsumma hsumma-summa 4 --grid 2x2 --shape 40x36x44 --groups 1x1 --block 4
check_hsumma hsumma-groups-uneven 8 --grid 2x4 --shape 37x23x29 --groups 2x2 --block 3 --outer-block 7 --type z
check_hsumma hsumma-cyclic 6 --grid 3x2 --shape 30x31x32 --groups 3x1 --block 2 --outer-block 4 --dist cyclic:3 --type s
check_hsumma hsumma-model 8 --grid 4x2 --shape 64x64x64 --alpha 1e-4 --beta 1e-9 --block 4
check_hsumma hsumma-at-bind 4 --grid 1x4 --shape 16x64x50 --block 8 --type c
# Ranks with different broadcast counts on both sides of the persistent-request
# limit (an empty grid row; in-group columns of 65,537 and 65,536): all ranks
# must still choose persistent or plain broadcasts alike.
check_hsumma hsumma-empty-row 4 --grid 2x2 --shape 1x2x40000 --groups 1x1 --block 1
check_hsumma hsumma-persistent-limit 4 --grid 1x4 --shape 2x4x43691 --groups 1x2 --block 1
# --tune writes a plan with the groups it timed fastest, which replays correctly
# (--tune=OUT: Open MPI's mpirun takes "--tune FILE" anywhere on its command
# line for a file of its own parameters).
"$MPIEXEC" -n 4 "$RUN" hsumma-summa.plan --tune=tuned.plan --verify --json --iters 1 >run.json 2>err.txt ||
    fail "hsumma autotune: relay-run failed: $(cat err.txt)"
json_check run.json "hsumma autotune: relay-run --json" "d['verified'] is True and 'group_rows' in d"
"$DUMP" tuned.plan --json >dump.json 2>err.txt || fail "hsumma autotune: relay-dump failed: $(cat err.txt)"
json_check dump.json "hsumma autotune: the tuned plan" "d['hsumma']['groups_from'] == 'autotune'" \
    "2 % d['hsumma']['group_rows'] == 0 and 2 % d['hsumma']['group_cols'] == 0"
"$MPIEXEC" -n 4 "$RUN" tuned.plan --verify --iters 1 >/dev/null 2>err.txt || fail "hsumma autotune: the tuned plan: $(cat err.txt)"
echo "ok: hsumma autotune"
# A transform plan tuned: every way to replay it timed, the fastest kept in
# the file, shown by relay-dump, and replayed by the next job of this shape.
"$PLAN" transform --ranks 4 --from bc:300x200:16x16:2x2 --to bc:300x200:32x8:1x4 --schedule rounds -o rounds.plan >/dev/null ||
    fail "transform tune: relay-plan failed"
"$MPIEXEC" -n 4 "$RUN" rounds.plan --tune=tuned.plan --verify --json --iters 3 >run.json 2>err.txt ||
    fail "transform tune: relay-run failed: $(cat err.txt)"
json_check run.json "transform tune: relay-run --json" "d['verified'] is True"
"$DUMP" tuned.plan --json >dump.json 2>err.txt || fail "transform tune: relay-dump failed: $(cat err.txt)"
json_check dump.json "transform tune: the tuned plan" "d['schedule'] == 'rounds' and d['format_version'] == '2.3'" \
    "sorted(c['schedule'] for c in d['tuning']['choices'] if not c['packed'] and not c['window']) == ['alltoallv', 'neighbor', 'p2p', 'rounds']" \
    "[c['schedule'] for c in d['tuning']['choices'] if c['window']] == ['p2p']" \
    "d['tuning']['replays'] == 3 and d['tuning']['ranks_per_node_max'] >= 1" \
    "min(c['seconds'] for c in d['tuning']['choices']) == [c['seconds'] for c in d['tuning']['choices'] if c['schedule'] == d['tuning']['best'] and c['packed'] == d['tuning']['best_packed'] and c['window'] == d['tuning']['best_window']][0]"
best=$("$PYTHON" -c 'import json; print(json.load(open("dump.json"))["tuning"]["best"])')
"$DUMP" tuned.plan >dump.txt 2>err.txt && grep -q "^  tuning     $best" dump.txt && grep -Eq "  best( |$)" dump.txt ||
    fail "transform tune: relay-dump's text names the tuning: $(cat dump.txt err.txt)"
"$MPIEXEC" -n 4 "$RUN" tuned.plan --verify --json --iters 1 >run.json 2>err.txt || fail "transform tune: the tuned plan: $(cat err.txt)"
json_check run.json "transform tune: the tuned plan replays its best" "d['verified'] is True and d['schedule'] == '$best'"
"$DUMP" rounds.plan --json >dump.json 2>err.txt || fail "transform tune: relay-dump of the untuned plan"
json_check dump.json "transform tune: an untuned plan has no tuning" "'tuning' not in d"
echo "ok: transform tune"
# A memory cap: the plan replays in rounds, chunk by chunk, correctly.
"$PLAN" transform --ranks 3 --from bc:200x300:16x16:1x3 --to bc:300x200:32x8:3x1 --op T --max-buffer 1000 -o capped.plan \
    >/dev/null 2>err.txt || fail "memory cap: relay-plan failed: $(cat err.txt)"
"$DUMP" capped.plan --json >dump.json 2>err.txt || fail "memory cap: relay-dump failed: $(cat err.txt)"
json_check dump.json "memory cap: the plan" "d['max_buffer_bytes'] == 1000 and d['schedule'] == 'rounds'"
"$DUMP" capped.plan | grep -q "^  cap        1000 bytes" || fail "memory cap: relay-dump's text names the cap"
"$MPIEXEC" -n 3 "$RUN" capped.plan --verify --iters 2 >/dev/null 2>err.txt || fail "memory cap: relay-run: $(cat err.txt)"
echo "ok: memory cap"
finish
