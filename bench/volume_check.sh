#!/usr/bin/env bash
# volume_check.sh — checks a block-cyclic plan's per-rank volumes, as
# relay-dump --json reports them, against bench/volume_count, which counts
# them independently (up to 10^6 x 10^6 on 65,536 ranks).
#   bash bench/volume_check.sh BUILD_DIR N BS BT P Q
# plans bc:NxN:BSxBS:PxQ -> bc:NxN:BTxBT:PxQ:grid=col, prints the time and
# peak memory of relay-plan, and "volumes agree" or the first difference.
set -euo pipefail
build=$1 n=$2 bs=$3 bt=$4 P=$5 Q=$6
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/time -f "relay-plan: %e s, peak %M KiB" "$build/bin/relay-plan" transform --ranks $((P * Q)) \
    --from "bc:${n}x${n}:${bs}x${bs}:${P}x${Q}" --to "bc:${n}x${n}:${bt}x${bt}:${P}x${Q}:grid=col" -o "$work/p.plan"
ls -l "$work/p.plan" | awk '{print "plan file:", $5, "bytes"}'
"$build/bin/relay-dump" "$work/p.plan" --json | grep -o '{"rank":[0-9]*,"send_bytes"[^}]*}' |
    sed -E 's/.*"rank":([0-9]+),"send_bytes":([0-9]+),"recv_bytes":([0-9]+),"send_msgs":([0-9]+),"recv_msgs":([0-9]+),"local_bytes":([0-9]+).*/\1 \2 \3 \6 \4 \5/' \
    > "$work/relay.txt"
"$build/bench/volume_count" "$n" "$bs" "$bt" "$P" "$Q" > "$work/independent.txt"
if cmp -s "$work/relay.txt" "$work/independent.txt"; then
    echo "volumes agree: $(wc -l < "$work/relay.txt") ranks (send, receive and local bytes, messages)"
else
    echo "volumes differ:" && diff "$work/relay.txt" "$work/independent.txt" | head -5
    exit 1
fi
