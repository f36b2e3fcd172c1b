#!/usr/bin/env bash
# calibrate.sh — relay-run --calibrate OUT under mpiexec with 2 ranks: OUT is
# a machine file relay-dump --predict reads (a node, its measured values
# positive, comments saying when) and predicts a plan with; one rank, a
# plan FILE beside it, or an OUT that cannot be written fail and leave no file.
. "$(dirname "$0")/common.sh"

"$MPIEXEC" -n 2 "$RUN" --calibrate here.machine >out.txt 2>err.txt || fail "--calibrate: $(cat err.txt)"
[ -s out.txt ] && fail "--calibrate printed on stdout: $(head -c 200 out.txt)"
grep -q "^# relay-run --calibrate: measured .* UTC with 2 ranks" here.machine || fail "no 'measured' comment: $(head -2 here.machine)"
grep -q "^topology = node$" here.machine || fail "not a node: $(cat here.machine)"
for key in cores_per_node memory_bandwidth transpose_bandwidth piece_seconds message_seconds gemm_flops node_bandwidth node_latency; do
    grep -Eq "^$key = [0-9.e+-]+$" here.machine || fail "$key missing: $(cat here.machine)"
done
awk -F' = ' '/^(cores_per_node|memory_bandwidth|transpose_bandwidth|node_bandwidth|node_latency|message_seconds|gemm_flops) /{ if ($2 + 0 <= 0) bad = bad " " $1 }
             END { if (bad) { print bad; exit 1 } }' here.machine >bad.txt || fail "not positive:$(cat bad.txt)"

"$PLAN" transform --ranks 2 --from bc:400x400:8x8:1x2 --to bc:400x400:32x32:1x2 -o t.plan >/dev/null 2>err.txt ||
    fail "relay-plan: $(cat err.txt)"
"$DUMP" t.plan --predict here.machine >p.txt 2>err.txt || fail "--predict here.machine: $(cat err.txt)"
grep -q "here.machine: predicted replay .* ms" p.txt || fail "no prediction: $(head -1 p.txt)"
echo "ok: calibrated and predicted: $(head -1 p.txt)"

expect_mpi_error "--calibrate with one rank" 1 --calibrate one.machine
[ -e one.machine ] && fail "one rank left one.machine"
[ -e x.machine ] && fail "a bad command line left x.machine"
expect_mpi_error "--calibrate with a plan FILE" 2 --calibrate x.machine t.plan
expect_mpi_error "--calibrate into no such directory" 2 --calibrate no/such/dir.machine
ls no 2>/dev/null && fail "a file was left in no/"
finish
