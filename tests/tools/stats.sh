#!/usr/bin/env bash
# stats.sh — relay-run --stats and relay-dump --stats: per-message timings
# of replays, checked against the plan's own volumes (relay-dump --json),
# under every schedule; and the refusals (other plan kinds, another plan's
# timings, a damaged file, --rank), which leave no file behind.
. "$(dirname "$0")/common.sh"

# check_stats SCHEDULE: a 4-rank transpose whose every rank sends and
# receives, timed over 5 replays.
check_stats() {
    local sched=$1 plan="stats-$1.plan" csv="stats-$1.csv"
    "$PLAN" transform --ranks 4 --from bc:96x80:8x8:2x2 --to bc:80x96:12x12:1x4 --op T --type z --schedule "$sched" \
        -o "$plan" >/dev/null 2>err.txt || { fail "$sched: relay-plan: $(cat err.txt)"; return; }
    "$MPIEXEC" -n 4 "$RUN" "$plan" --iters 5 --verify --stats "$csv" >run.txt 2>err.txt ||
        { fail "$sched: relay-run --stats: $(cat err.txt)"; return; }
    grep -q "verified: yes" run.txt || fail "$sched: the timed replays did not verify"
    "$DUMP" "$plan" --json >plan.json 2>err.txt || fail "$sched: relay-dump --json: $(cat err.txt)"
    "$PYTHON" - "$csv" plan.json "$sched" <<'PY' || fail "$sched: the timings do not match the plan"
import csv, json, sys
lines = open(sys.argv[1]).read().splitlines()
plan = json.load(open(sys.argv[2]))
assert lines[0] == '# relay-run --stats: plan %s, 4 ranks, 5 replays' % plan['fingerprint'], lines[0]
rows = list(csv.DictReader(lines[1:]))
per = {r['rank']: r for r in plan['per_rank']}
for rank in range(4):
    mine = [r for r in rows if int(r['rank']) == rank]
    sends = [r for r in mine if r['kind'] == 'send']
    recvs = [r for r in mine if r['kind'] == 'recv']
    local = [r for r in mine if r['kind'] == 'local']
    done = [r for r in mine if r['kind'] == 'completion']
    p = per[rank]
    assert len(sends) == p['send_msgs'] and len(recvs) == p['recv_msgs'], (rank, len(sends), len(recvs), p)
    assert sum(int(r['bytes']) for r in sends) == p['send_bytes'], rank
    assert sum(int(r['bytes']) for r in recvs) == p['recv_bytes'], rank
    assert len(local) == 1 and int(local[0]['bytes']) == p['local_bytes'], rank
    assert len(done) == 1 and len(mine) == len(sends) + len(recvs) + 2, rank
    assert all(int(r['peer']) != rank for r in sends + recvs), rank
    assert all(float(r[c]) >= 0 for r in mine for c in ('pack_s', 'wait_s', 'unpack_s')), rank
    assert all(float(r['wait_s']) == 0 and float(r['unpack_s']) == 0 for r in sends), rank
    assert all(float(r['pack_s']) == 0 for r in recvs + local + done), rank
    assert sum(float(r['pack_s']) for r in sends) > 0, rank        # every send was packed
    assert sum(float(r['unpack_s']) for r in recvs) > 0, rank      # every receive unpacked
PY
    "$DUMP" "$plan" --stats "$csv" --svg "stats-$sched.svg" >dump.txt 2>err.txt || fail "$sched: relay-dump --stats: $(cat err.txt)"
    grep -q "slowest ranks" dump.txt && grep -q "slowest messages" dump.txt || fail "$sched: relay-dump --stats printed no report"
    grep -q "measured: seconds per replay" "stats-$sched.svg" || fail "$sched: the svg lacks the measured map"
    "$DUMP" "$plan" --stats "$csv" --json >dump.json 2>err.txt || fail "$sched: relay-dump --stats --json: $(cat err.txt)"
    json_check dump.json "$sched: relay-dump --stats --json" "d['stats']['replays'] == 5" \
        "len(d['stats']['slowest_ranks']) == 4" "0 < len(d['stats']['slowest_messages']) <= 10"
}
for sched in p2p rounds alltoallv neighbor; do check_stats "$sched"; done

# Refusals.
"$PLAN" bmmc --ranks 2 --perm bit-reversal --bits 6 -o bmmc.plan >/dev/null || fail "cannot plan bmmc.plan"
expect_mpi_error "relay-run --stats on a BMMC plan" 2 bmmc.plan --stats no.csv
[ -e no.csv ] && fail "relay-run --stats on a BMMC plan left no.csv"
"$PLAN" transform --ranks 4 --from bc:96x80:8x8:2x2 --to bc:96x80:12x12:1x4 -o other.plan >/dev/null || fail "cannot plan other.plan"
expect_error 1 "relay-dump --stats of another plan" "$DUMP" other.plan --stats stats-p2p.csv
expect_error 1 "relay-dump --stats of a missing file" "$DUMP" stats-p2p.plan --stats missing.csv
sed '4s/,send,/,sent,/;4s/,recv,/,sent,/' stats-p2p.csv >bad.csv
expect_error 1 "relay-dump --stats of a damaged row" "$DUMP" stats-p2p.plan --stats bad.csv --svg bad.svg
[ -e bad.svg ] && fail "a damaged stats file left bad.svg"
# Values whose sums would not stay finite, and numbers past their types.
{ head -2 stats-p2p.csv; echo "0,send,1,8,1e308,0,0"; } >huge.csv
expect_error 1 "relay-dump --stats of a row of 1e308 seconds" "$DUMP" stats-p2p.plan --stats huge.csv --svg huge.svg
[ -e huge.svg ] && fail "a row of 1e308 seconds left huge.svg"
{ head -2 stats-p2p.csv; echo "4294967296,send,1,8,0,0,0"; } >wide.csv
expect_error 1 "relay-dump --stats of a rank past int" "$DUMP" stats-p2p.plan --stats wide.csv
sed '1s/ 5 replays/ 99999999999999999999 replays/' stats-p2p.csv >many.csv
expect_error 1 "relay-dump --stats of a replay count past int64" "$DUMP" stats-p2p.plan --stats many.csv
head -c -1 stats-p2p.csv >open-ended.csv
"$DUMP" stats-p2p.plan --stats open-ended.csv >/dev/null 2>err.txt || fail "a last row without its newline: $(cat err.txt)"
sed '1d' stats-p2p.csv >headless.csv
expect_error 1 "relay-dump --stats without its first line" "$DUMP" stats-p2p.plan --stats headless.csv
expect_error 2 "relay-dump --stats with --rank" "$DUMP" stats-p2p.plan --stats stats-p2p.csv --rank 1
expect_error 2 "relay-dump --stats of a BMMC plan" "$DUMP" bmmc.plan --stats stats-p2p.csv
finish
