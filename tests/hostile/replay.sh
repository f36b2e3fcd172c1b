#!/usr/bin/env bash
# replay.sh — replays the hostile corpus (make_hostile.c) through the tools.
#   replay.sh CORPUS RELAY_DUMP RELAY_RUN MPIEXEC dump CLASS...
#       relay-dump on every file of each class: a refused file (class
#       refused, or crashes: the fuzzer's reproducers) exits 1 with
#       exactly one line on stderr and nothing on stdout; any other prints
#       and exits 0.  Never a crash or a sanitizer report.
#   replay.sh ... run NP
#       relay-run --verify at NP ranks on the files run-npNP.txt lists: a
#       refused file makes every rank exit (no hang: 60 s at most), non-zero,
#       with between 1 and NP relay-run lines on stderr; a harmless one
#       exits 0 with "verified: yes".
#   replay.sh ... run-redescribed
#       the same on every file of redescribed/ (one end of a direct
#       message described otherwise); prints the slowest run.
#   replay.sh ... run-index
#       every file of index/ (index plans that lie consistently,
#       index_lies.c): relay-dump shows it or refuses it in one line;
#       relay-run --verify at its rank count refuses it on every rank, at
#       read or bind, as above.
#   replay.sh ... run-lead
#       relay-run --verify on every file of lead/ at its rank count: each
#       must be refused as above or, where its lie changes nothing the
#       replay does (a one-rank layout of other blocks, same storage),
#       verify; never hang or give wrong elements.
set -u
CORPUS=$1 DUMP=$2 RUN=$3 MPIEXEC=$4 MODE=$5
shift 5
FAILURES=0 CHECKED=0
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

fail() {
    echo "FAIL: $*" >&2
    FAILURES=$((FAILURES + 1))
}

dump_one() { # class file
    "$DUMP" "$2" >"$WORK/out" 2>"$WORK/err"
    local status=$? lines
    lines=$(wc -l <"$WORK/err")
    CHECKED=$((CHECKED + 1))
    if [ "$1" = refused ] || [ "$1" = crashes ]; then
        [ "$status" -eq 1 ] || fail "relay-dump $2: exit $status, expected 1: $(head -c 300 "$WORK/err")"
        [ "$lines" -eq 1 ] || fail "relay-dump $2: $lines lines on stderr, expected 1: $(head -c 300 "$WORK/err")"
        [ -s "$WORK/out" ] && fail "relay-dump $2: output on stdout"
    else
        [ "$status" -eq 0 ] || fail "relay-dump $2: exit $status, expected 0: $(head -c 300 "$WORK/err")"
    fi
}

dump_either() { # file: shown, or refused with one line and nothing on stdout
    "$DUMP" "$1" >"$WORK/out" 2>"$WORK/err"
    local status=$?
    if [ "$status" -eq 1 ]; then
        [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "relay-dump $1: a refusal of more than one line: $(head -c 300 "$WORK/err")"
        [ -s "$WORK/out" ] && fail "relay-dump $1: output on stdout"
    elif [ "$status" -ne 0 ]; then
        fail "relay-dump $1: exit $status: $(head -c 300 "$WORK/err")"
    fi
}

run_one() { # class np file
    timeout -k 5 60 "$MPIEXEC" -n "$2" "$RUN" "$3" --verify </dev/null >"$WORK/out" 2>"$WORK/err"
    local status=$? lines
    lines=$(grep -c '^relay-run:' "$WORK/err")
    CHECKED=$((CHECKED + 1))
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        fail "relay-run -n $2 $3: still running after 60 s (a rank left waiting?)"
    elif grep -q 'verification failed' "$WORK/err"; then
        fail "relay-run -n $2 $3: a lie was replayed: $(grep 'verification failed' "$WORK/err" | head -c 300)"
    elif { [ "$1" = lead ] || [ "$1" = redescribed ]; } && [ "$status" -eq 0 ]; then
        grep -q 'verified: yes' "$WORK/out" || fail "relay-run -n $2 $3: a lie was replayed: $(head -c 300 "$WORK/out")"
    elif [ "$1" = harmless ]; then
        [ "$status" -eq 0 ] || fail "relay-run -n $2 $3: exit $status: $(head -c 300 "$WORK/err")"
        grep -q 'verified: yes' "$WORK/out" || fail "relay-run -n $2 $3: not verified: $(head -c 300 "$WORK/out")"
    else
        [ "$status" -ne 0 ] || fail "relay-run -n $2 $3: exit 0, expected a refusal"
        [ "$lines" -ge 1 ] && [ "$lines" -le "$2" ] ||
            fail "relay-run -n $2 $3: $lines relay-run lines, expected 1..$2: $(head -c 300 "$WORK/err")"
        grep -q -E 'ERROR: (Address|Undefined|Leak)Sanitizer|runtime error:' "$WORK/err" &&
            fail "relay-run -n $2 $3: sanitizer report"
    fi
}

case $MODE in
dump)
    for class in "$@"; do
        for f in "$CORPUS/$class"/*.plan; do dump_one "$class" "$f"; done
    done ;;
run)
    while read -r entry; do run_one "${entry%%/*}" "$1" "$CORPUS/$entry"; done <"$CORPUS/run-np$1.txt" ;;
run-lead | run-redescribed | run-index)
    class=${MODE#run-}
    SLOWEST=0
    for f in "$CORPUS/$class"/*.plan; do
        np=$(basename "$f" | sed 's/^np\([0-9]*\)-.*/\1/')
        [ "$class" = index ] && dump_either "$f"
        start=$(date +%s%N)
        run_one "$class" "$np" "$f"
        took=$(( ($(date +%s%N) - start) / 1000000 ))
        [ "$took" -gt "$SLOWEST" ] && SLOWEST=$took
    done
    echo "the slowest relay-run (mpiexec's start included) took $SLOWEST ms" ;;
*)
    echo "replay.sh: unknown mode $MODE" >&2
    exit 2 ;;
esac
[ "$CHECKED" -gt 0 ] || fail "no file checked"
if [ "$FAILURES" -ne 0 ]; then
    echo "$FAILURES of $CHECKED checks failed" >&2
    exit 1
fi
echo "all $CHECKED files behaved"
