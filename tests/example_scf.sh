#!/usr/bin/env bash
# example_scf.sh — examples/scf_redistribute.f90 built against ScaLAPACK
# alone and with relay's drop-in ahead of it: the two runs must print the
# same checksum (identical results), and the drop-in's statistics must show
# that relay served every call, planning once per routine and replaying
# after (cache hits).
#   usage: bash example_scf.sh SCALAPACK_BUILD DROPIN_BUILD LAUNCHER...
#   (LAUNCHER: the mpiexec command line up to the program)
set -u
[ $# -ge 3 ] || { echo "usage: $0 SCALAPACK_BUILD DROPIN_BUILD LAUNCHER..." >&2; exit 2; }
plain=$1 dropin=$2
shift 2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$@" "$plain" >"$out/plain" 2>&1 || { cat "$out/plain"; echo "FAIL: the ScaLAPACK build failed" >&2; exit 1; }
RELAY_SCALAPACK_STATS=1 "$@" "$dropin" >"$out/dropin" 2>&1 ||
    { cat "$out/dropin"; echo "FAIL: the drop-in build failed" >&2; exit 1; }
echo "== against ScaLAPACK:" && cat "$out/plain"
echo "== with the drop-in ahead:" && cat "$out/dropin"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
plain_sum=$(grep '^checksum' "$out/plain")
dropin_sum=$(grep '^checksum' "$out/dropin")
[ -n "$plain_sum" ] && [ "$plain_sum" = "$dropin_sum" ] || fail "checksums differ: '$plain_sum' and '$dropin_sum'"
# relay drop-in, rank 0: total CALLS HITS MISSES REFUSED SCALAPACK
read -r calls hits misses refused alone < <(awk '/^relay drop-in, rank 0: total / { print $6, $7, $8, $9, $10 }' "$out/dropin")
[ -n "${calls:-}" ] || fail "the drop-in printed no statistics"
[ "${misses:-}" = 2 ] && [ "${refused:-}" = 0 ] && [ "${alone:-}" = 0 ] && [ "${hits:-0}" -eq $((${calls:-0} - 2)) ] ||
    fail "expected one plan per routine and cache hits after: ${calls:-?} calls, ${hits:-?} hits," \
         "${misses:-?} misses, ${refused:-?} refused, ${alone:-?} by ScaLAPACK alone"
[ "$failures" -eq 0 ] && echo "identical results, $hits cache hits in $calls calls"
exit $((failures > 0))
