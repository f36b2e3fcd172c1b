#!/usr/bin/env bash
# help.sh — every tool answers --help (and -h) with a man-page style text on
# stdout, exit status 0 and nothing on stderr; relay-plan's lists the coming
# plan kinds, relay-run's documents the fill function.
. "$(dirname "$0")/common.sh"

check_help() { # name command...
    local name=$1
    shift
    "$@" >help.txt 2>err.txt || fail "$name: exit status $?"
    [ -s err.txt ] && fail "$name: wrote to stderr: $(cat err.txt)"
    for section in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES; do
        grep -q "^$section\$" help.txt || fail "$name: no $section section"
    done
}
check_help "relay-plan --help" "$PLAN" --help
check_help "relay-plan -h" "$PLAN" -h
check_help "relay-plan transform --help" "$PLAN" transform --help
grep -q "bmmc" help.txt && grep -q "hsumma" help.txt || fail "relay-plan --help does not list bmmc and hsumma"
check_help "relay-dump --help" "$DUMP" --help
check_help "relay-dump -h" "$DUMP" -h
check_help "relay-run --help" "$RUN" --help
grep -q "1021" help.txt || fail "relay-run --help does not document the fill function"
"$MPIEXEC" -n 2 "$RUN" --help >help.txt 2>err.txt || fail "relay-run --help under mpiexec failed"
[ "$(grep -c '^NAME$' help.txt)" -eq 1 ] || fail "relay-run --help under mpiexec printed the help more than once"
finish
