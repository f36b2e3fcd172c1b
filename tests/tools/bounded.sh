#!/usr/bin/env bash
# bounded.sh — the tools' work on a plan stays bounded by what they print
# (N-D plans: by a budget of derived runs too; index plans: by their file),
# and sizes computed from a plan never wrap.
# Every plan here is valid and written by relay-plan; the bounds are output
# sizes and entry counts, checked exactly, plus a timeout per command far
# above the bounded cost (seconds) and far below the unbounded one (the
# walks per grid line or per rank took minutes).
. "$(dirname "$0")/common.sh"

LIMIT_S=120
# peak_rss_kb COMMAND...: the command's peak resident memory in KB (its
# output discarded).
peak_rss_kb() {
    "$PYTHON" -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}

# A sanitizer build aborts on an allocation it cannot serve unless told to
# return NULL, as malloc does elsewhere: relay-run must handle that NULL.
# Its quarantine of freed memory (256 MB) would count in the peak memory
# the N-D cases below check: a little is kept.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}allocator_may_return_null=1:quarantine_size_mb=16"

# bounded WHAT MAX_BYTES COMMAND...: exits 0 within LIMIT_S seconds and
# prints at most MAX_BYTES on stdout (into out.json).
bounded() {
    local what=$1 max=$2
    shift 2
    timeout "$LIMIT_S" "$@" >out.json 2>err.txt || fail "$what: status $? within ${LIMIT_S} s: $(cat err.txt)"
    local size
    size=$(wc -c <out.json)
    [ "$size" -le "$max" ] || fail "$what: $size bytes on stdout, more than $max"
    echo "ok: $what: $size bytes"
}

# One rank, one single-block layout of 2^60 floats (2^62 bytes): relay-dump
# counts it exactly, relay-run cannot allocate it and says so in one line.
HUGE=bc:2147483648x536870912:2147483648x536870912:1x1
"$PLAN" transform --ranks 1 --from $HUGE --to $HUGE --type s -o huge.plan >/dev/null 2>err.txt ||
    fail "relay-plan 2^60 floats: $(cat err.txt)"
bounded "relay-dump 2^60 floats --json" 10000 "$DUMP" huge.plan --json
json_check out.json "2^60 floats" 'd["bytes_total"] == 2**62' 'd["per_rank"][0]["local_bytes"] == 2**62'
expect_mpi_error "relay-run 2^60 floats" 1 huge.plan --verify
grep -q "cannot allocate pair 0's buffers: A 1152921504606846976 and B 1152921504606846976 elements of 4 bytes" err.txt ||
    fail "relay-run 2^60 floats: $(cat err.txt)"

# The rest bounds relay-plan's and relay-dump's work, which starts no MPI:
# with RELAY_TOOLS_MPI_ONLY set (a suite that runs what differs between
# MPIs, docs/testing.md) the check stops here.
[ -z "${RELAY_TOOLS_MPI_ONLY:-}" ] || finish

# HSUMMA, 1024 x 1024 grid, 2^20 outer steps: per_rank needs the traffic of
# 1,028 grid lines; one walk over the steps per line was 2^30 steps.
"$PLAN" hsumma --grid 1024x1024 --shape 1024x1024x1048576 --block 1 --outer-block 1 -o h.plan >/dev/null 2>err.txt ||
    fail "relay-plan hsumma 1024x1024: $(cat err.txt)"
bounded "hsumma 2^20 ranks --json" 1000000 "$DUMP" h.plan --json
json_check out.json "hsumma --json lists the first 4096 ranks" \
    'len(d["per_rank"]) == 4096' 'd["per_rank_left_out"] == 1024 * 1024 - 4096' \
    'len(d["sigma"]) == 4096' 'd["sigma_left_out"] == 1024 * 1024 - 4096' \
    '[r["rank"] for r in d["per_rank"]] == list(range(4096))'
cp out.json h.json
for r in 0 1023 1024 4095; do
    bounded "hsumma --rank $r --json" 1000 "$DUMP" h.plan --rank $r --json
    "$PYTHON" -c 'import json, sys
a = json.load(open("h.json"))["per_rank"][int(sys.argv[1])]
b = json.load(open("out.json"))
sys.exit(a != b)' $r || fail "hsumma: per_rank[$r] of --json differs from --rank $r --json"
done
bounded "hsumma --limit 3" 100000 "$DUMP" h.plan --json --limit 3
json_check out.json "hsumma --limit 3" 'len(d["per_rank"]) == 3' 'd["per_rank_left_out"] == 1024 * 1024 - 3'

# The same per_rank as --rank R for every rank of small grids, whatever the
# groups and distribution (--json sums the steps per line; --rank walks them).
for args in "--grid 4x6 --shape 50x70x300 --block 3 --outer-block 7 --groups 2x3" \
            "--grid 6x4 --shape 33x41x257 --block 2 --outer-block 6 --groups 3x2 --dist cyclic:5" \
            "--grid 2x8 --shape 40x40x333 --block 3 --outer-block 9 --groups 1x4 --dist cyclic:4" \
            "--grid 3x5 --shape 20x20x100 --block 4"; do
    # shellcheck disable=SC2086
    "$PLAN" hsumma $args -o s.plan >/dev/null 2>err.txt || fail "relay-plan hsumma $args: $(cat err.txt)"
    "$DUMP" s.plan --json --limit 0 >s.json
    ranks=$("$PYTHON" -c 'import json; print(json.load(open("s.json"))["ranks"])')
    for r in $(seq 0 $((ranks - 1))); do "$DUMP" s.plan --rank "$r" --json; done >ranks.jsonl
    "$PYTHON" -c 'import json
d = json.load(open("s.json"))
each = [json.loads(line) for line in open("ranks.jsonl")]
assert d["per_rank"] == each and d["per_rank_left_out"] == 0
assert sum(r["send_bytes"] for r in each) == sum(r["recv_bytes"] for r in each) == d["bytes_remote"]' ||
        fail "hsumma $args: per_rank disagrees with --rank R"
done
echo "ok: hsumma per_rank equals --rank R on 4 small grids"

# BMMC on 2^24 ranks: its volumes come in closed form, not from 2^24 ranks,
# and rank 0's 2^16 partners are listed up to the limit.
# The planner's message count (2^40 - 2^20: 2^20 ranks keep a block) is
# the independent reference.
"$PLAN" bmmc --ranks 16777216 --perm bit-reversal --bits 40 -o b.plan >plan.txt 2>err.txt ||
    fail "relay-plan bmmc 2^24 ranks: $(cat err.txt)"
grep -q " 1099510579200 messages" plan.txt || fail "relay-plan bmmc 2^24 ranks: $(cat plan.txt)"
bounded "bmmc 2^24 ranks --json" 1000000 "$DUMP" b.plan --json
json_check out.json "bmmc --json" 'len(d["per_rank"]) == 4096' 'd["per_rank_left_out"] == 2**24 - 4096' \
    'd["messages"] == 2**40 - 2**20'
bounded "bmmc 2^24 ranks summary" 1000000 "$DUMP" b.plan
grep -q "and 61440 more blocks (--limit 0 lists them all)" out.json || fail "bmmc summary: partners not summarised"
bounded "bmmc --rank --json --limit 5" 10000 "$DUMP" b.plan --rank 7 --json --limit 5
json_check out.json "bmmc --rank --limit 5" 'len(d["partners"]) == 5' 'd["partners_left_out"] == 2**16 - 5'
cp out.json five.json
"$DUMP" b.plan --rank 7 --json --limit 0 >all.json
"$PYTHON" -c 'import json
raise SystemExit(json.load(open("all.json"))["partners"][:5] != json.load(open("five.json"))["partners"])' || fail "bmmc --rank --limit 5: not the first 5 partners of --limit 0"
# Memory too is O(one rank): a 2^24-rank plan once cost 200 MB of per-rank
# arrays (sigma, section pointers) to print rank 7's first 5 partners.
# The bound leaves room for a sanitizer build (a few times the 14 MB of a
# release one).
rss=$(peak_rss_kb "$DUMP" b.plan --rank 7 --limit 5)
[ "$rss" -lt 131072 ] || fail "bmmc 2^24 ranks --rank 7 --limit 5: peak memory $rss KB, not O(one rank)"
echo "ok: bmmc 2^24 ranks --rank 7: peak $rss KB"
# The closed form against every rank's own count, on small plans.
for args in "--ranks 16 --perm bit-reversal --bits 10 --complement 0x2a5" "--ranks 8 --perm gray-code --bits 9" \
            "--ranks 32 --perm transpose:32x32" "--ranks 4 --perm shuffle --bits 8 --rank-bits 2"; do
    # shellcheck disable=SC2086
    "$PLAN" bmmc $args -o s.plan >/dev/null 2>err.txt || fail "relay-plan bmmc $args: $(cat err.txt)"
    "$DUMP" s.plan --json --limit 0 >s.json
    json_check s.json "bmmc $args: messages equal the per-rank sum" \
        'd["messages"] == sum(r["send_msgs"] for r in d["per_rank"])' \
        'd["bytes_remote"] == sum(r["send_bytes"] for r in d["per_rank"])'
done

# A rounds plan: steps, per_rank and sigma lists obey --limit.
"$PLAN" transform --ranks 6 --from bc:60x60:5x5:2x3 --to bc:60x60:4x4:3x2 --schedule rounds -o r.plan >/dev/null 2>err.txt ||
    fail "relay-plan rounds: $(cat err.txt)"
"$DUMP" r.plan --json --limit 0 >all.json
"$DUMP" r.plan --json --limit 2 >two.json
json_check all.json "rounds --limit 0" 'd["contention_free"]' 'len(d["steps"]) == d["rounds"]' 'd["steps_left_out"] == 0' \
    'len(d["per_rank"]) == 6'
json_check two.json "rounds --limit 2" 'len(d["steps"]) == 2' 'd["steps_left_out"] == d["rounds"] - 2' \
    'len(d["per_rank"]) == 2' 'd["per_rank_left_out"] == 4' 'len(d["sigma"]) == 2' 'd["sigma_left_out"] == 4'
"$PYTHON" -c 'import json
a, b = json.load(open("all.json")), json.load(open("two.json"))
assert a["steps"][:2] == b["steps"] and a["per_rank"][:2] == b["per_rank"]' || fail "rounds: --limit 2 lists other entries"

# N-D: a 65,536-rank pencil reshape (4096^3 complex doubles on a 256 x 256
# mesh, 16.7 million messages) is a header of a few hundred KB from which
# every rank derives its transfers.  The summary derives the 16 ranks its
# table shows, --json the first --limit, and with --limit 0 it stops once
# the ranks' runs pass relay-dump's budget (their statistics stand in).
"$PLAN" transform --ranks 65536 --from nd:4096x4096x4096:mesh=256x256:place=S1,S2 \
    --to nd:4096x4096x4096:mesh=256x256:place=S0,S2 --type z -o nd.plan >/dev/null 2>err.txt ||
    fail "relay-plan nd 65536 ranks: $(cat err.txt)"
bounded "nd 65536 ranks summary" 20000 "$DUMP" nd.plan
grep -q "not every rank derived" out.json || fail "nd 65536 ranks summary: the volumes do not say where they come from"
bounded "nd 65536 ranks --json" 3000000 "$DUMP" nd.plan --json
json_check out.json "nd --json lists the first 4096 ranks" \
    'len(d["per_rank"]) == 4096 and d["per_rank_left_out"] == 65536 - 4096 and d["nd"]["volumes_from"] == "statistics"' \
    'd["bytes_total"] == 2**40 and d["bytes_remote"] == 2**40 // 256 * 255' \
    'all(r["send_bytes"] == r["recv_bytes"] == 255 * 4096 * 16 and r["send_msgs"] == 255 for r in d["per_rank"])'
bounded "nd 65536 ranks --json --limit 0" 30000000 "$DUMP" nd.plan --json --limit 0
json_check out.json "nd --json --limit 0 stops at the budget" \
    '0 < len(d["per_rank"]) < 65536 and len(d["per_rank"]) + d["per_rank_left_out"] == 65536'
bounded "nd --rank 65535 --json --limit 8" 20000 "$DUMP" nd.plan --rank 65535 --json --limit 8
json_check out.json "nd --rank --limit 8" 'len(d["send"]) == 8 and d["send_left_out"] == 247 and d["recv_left_out"] == 247'

# N-D plans cost what their cuts cost per period, not per block.  Empty
# arrays cut into 2^24 blocks of 1 along two dimensions on both sides (a
# 455-byte plan whose derivation took 5.5 s and 1.5 GB per rank and pair),
# a dimension of 2^24 in blocks of 1 on 2 ranks to blocks of 1 on 3 (2^23
# runs a rank, one progression per pair of ranks now), and one element
# replicated on 2048 ranks to 2048 others with a node map (each receiver
# once scanned every replica: 25-60 s to plan).  relay-plan writes each,
# relay-dump shows it (summary, --json, --rank 0) and relay-run binds and
# replays it, each within a CPU-time and peak-memory ceiling from getrusage
# about ten times what they take here (most of it starting the program).

# within WHAT MAX_CPU_S MAX_KB COMMAND...: the command exits 0 having used
# at most MAX_CPU_S seconds of CPU (its processes together) and MAX_KB of
# peak resident memory (its largest process).
within() {
    local what=$1 cpu=$2 kb=$3
    shift 3
    "$PYTHON" -c 'import resource, subprocess, sys
code = subprocess.run(sys.argv[3:], stdout=subprocess.DEVNULL, stderr=open("err.txt", "w")).returncode
u = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu, kb = u.ru_utime + u.ru_stime, u.ru_maxrss
print(f"{cpu:.2f} s CPU, peak {kb} KB")
sys.exit(1 if code else 2 if cpu > float(sys.argv[1]) or kb > int(sys.argv[2]) else 0)' "$cpu" "$kb" "$@" >usage.txt
    case $? in
    0) echo "ok: $what: $(cat usage.txt)" ;;
    1) fail "$what: failed: $(cat err.txt)" ;;
    *) fail "$what: $(cat usage.txt), more than $cpu s or $kb KB" ;;
    esac
}

N24=16777216
nd_cost() { # NAME NP MAX_CPU_S MAX_KB RELAY-PLAN-ARGS...
    local name=$1 np=$2 cpu=$3 kb=$4
    shift 4
    within "$name: relay-plan" "$cpu" "$kb" "$PLAN" transform --ranks "$np" "$@" --type s -o "$name.plan"
    within "$name: relay-dump" "$cpu" "$kb" "$DUMP" "$name.plan"
    within "$name: relay-dump --json" "$cpu" "$kb" "$DUMP" "$name.plan" --json
    within "$name: relay-dump --rank 0" "$cpu" "$kb" "$DUMP" "$name.plan" --rank 0 --json
}
nd_cost empty1 1 1 262144 --from nd:${N24}x${N24}x0:mesh=1x1:place=S0/b1,S1/b1 --to nd:${N24}x${N24}x0:mesh=1x1:place=S0/b1,S1/b1
[ "$(wc -c <empty1.plan)" -le 455 ] || fail "empty1: the plan takes $(wc -c <empty1.plan) bytes, not 455"
within "empty1: relay-run" 2 262144 "$MPIEXEC" -n 1 "$RUN" empty1.plan --verify
nd_cost empty2 2 1 262144 --from nd:${N24}x${N24}x0:mesh=2x1:place=S0/b1,S1/b1 --to nd:${N24}x${N24}x0:mesh=1x2:place=S0/b1,S1/b1
within "empty2: relay-run" 2 262144 "$MPIEXEC" -n 2 "$RUN" empty2.plan --verify
# 64 MB of floats moved: the replay's buffers are the memory, and its
# 2^23 runs a rank the time (one move each).
nd_cost cyclic23 3 1 262144 --from nd:${N24}:mesh=2:place=S0/b1 --to nd:${N24}:mesh=3:place=S0/b1
within "cyclic23: relay-run" 60 1048576 "$MPIEXEC" -n 3 "$RUN" cyclic23.plan --iters 1 --verify
K_FROM=nd:1:mesh=2048@0-2047:place=R K_TO=nd:1:mesh=2048@2048-4095:place=R
nd_cost replicas 4096 15 262144 --from $K_FROM --to $K_TO --ranks-per-node 4096
nd_cost replicas-no-map 4096 15 262144 --from $K_FROM --to $K_TO

# Index plans: the halo of a 2048 x 2048 grid on a 32 x 32 mesh, 1,024
# ranks.  The file holds a few runs per message, not the 4 million items;
# relay-dump reads and counts it in time linear in the file, and --json
# --limit and --rank print what they list.
within "index halo 1024 ranks: relay-plan" 30 1048576 "$PLAN" index --move sum --halo 2048x2048:32x32:2 -o ix.plan
[ "$(wc -c <ix.plan)" -le 600000 ] || fail "index halo: the plan takes $(wc -c <ix.plan) bytes, more than 600000"
within "index halo: relay-dump" 10 262144 "$DUMP" ix.plan
bounded "index halo --json --limit 3" 3000 "$DUMP" ix.plan --json --limit 3
json_check out.json "index halo --json --limit 3" 'len(d["per_rank"]) == 3' 'd["per_rank_left_out"] == 1021' \
    'd["listed_items"] == 0' 'd["messages"] == 2 * (31 * 32 * 2 + 31 * 31 * 2)'
cp out.json ix.json
bounded "index halo --rank 1023" 3000 "$DUMP" ix.plan --rank 1023
"$PLAN" index --move sum --halo 256x256:32x32:2 -o ix_small.plan >/dev/null 2>err.txt || fail "index small halo: $(cat err.txt)"
"$DUMP" ix_small.plan --json >small.json
"$PYTHON" -c 'import json; a, b = (json.load(open(f)) for f in ("ix.json", "small.json"))
exit(a["runs"] != b["runs"] or a["runs_of_runs"] != b["runs_of_runs"])' ||
    fail "index halo: the runs found differ between a 256 x 256 and a 2048 x 2048 grid"

# 2^61 complex doubles: 2^65 bytes, more than int64_t counts.  The planner
# refuses such a plan (its volumes and statistics would wrap); relay-dump's
# and relay-run's own refusals of one are the hostile corpus's to show.
HUGE=bc:2147483648x1073741824:2147483648x1073741824:1x1
expect_error 2 "relay-plan 2^61 complex" "$PLAN" transform --ranks 1 --from $HUGE --to $HUGE --type z -o huge61.plan
grep -q "beyond 2^63 - 1" err.txt || fail "relay-plan 2^61 complex: $(cat err.txt)"
[ -e huge61.plan ] && fail "relay-plan 2^61 complex left a file"
finish
