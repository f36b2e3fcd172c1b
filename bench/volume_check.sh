#!/usr/bin/env bash
# volume_check.sh — checks a block-cyclic plan's per-rank volumes, as
# relay-dump --json reports them, against bench/volume_count, which counts
# them independently (up to 10^6 x 10^6 on 65,536 ranks).
#   bash bench/volume_check.sh BUILD_DIR N BS BT P Q
# plans bc:NxN:BSxBS:PxQ -> bc:NxN:BTxBT:PxQ:grid=col and prints a markdown
# row: the time and peak memory of relay-plan, the file's size and whether
# the volumes agree (else the first differences, and exit status 1); the
# row is recorded in bench/results/volume_check.csv (bench/record.py).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1 n=$2 bs=$3 bt=$4 P=$5 Q=$6
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/time -o "$work/time" -f "%e %M" "$build/bin/relay-plan" transform --ranks $((P * Q)) \
    --from "bc:${n}x${n}:${bs}x${bs}:${P}x${Q}" --to "bc:${n}x${n}:${bt}x${bt}:${P}x${Q}:grid=col" -o "$work/p.plan" \
    > /dev/null
read -r seconds kib < "$work/time"
"$build/bin/relay-dump" "$work/p.plan" --json | grep -o '{"rank":[0-9]*,"send_bytes"[^}]*}' |
    sed -E 's/.*"rank":([0-9]+),"send_bytes":([0-9]+),"recv_bytes":([0-9]+),"send_msgs":([0-9]+),"recv_msgs":([0-9]+),"local_bytes":([0-9]+).*/\1 \2 \3 \6 \4 \5/' \
    > "$work/relay.txt"
"$build/bench/volume_count" "$n" "$bs" "$bt" "$P" "$Q" > "$work/independent.txt"
if ! cmp -s "$work/relay.txt" "$work/independent.txt"; then
    echo "volumes differ:" && diff "$work/relay.txt" "$work/independent.txt" | head -5
    exit 1
fi
{
    echo "| n | ranks | blocks | relay-plan s | peak MiB | file MiB | volumes |"
    echo "|---|---|---|---|---|---|---|"
    awk -v n="$n" -v P="$P" -v Q="$Q" -v bs="$bs" -v bt="$bt" -v s="$seconds" -v kib="$kib" \
        -v bytes="$(stat -c %s "$work/p.plan")" -v ranks="$(wc -l < "$work/relay.txt")" \
        'BEGIN { printf "| %d | %d (%d x %d) | %d -> %d | %.2f | %d | %.1f | agree (%d ranks) |\n",
                 n, P * Q, P, Q, bs, bt, s, kib / 1024, bytes / 1048576, ranks }'
} | tee "$work/table.md"
python3 "$here/record.py" volume_check < "$work/table.md" > /dev/null
