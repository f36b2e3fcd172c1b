# common.sh — sourced by the tools.* tests: the tool paths from the command
# line, a scratch directory removed on exit, and checks shared by the tests.
#   usage: bash TEST.sh PLAN_DIR DUMP_DIR RUN_DIR MPIEXEC
set -u
if [ $# -ne 4 ]; then
    echo "usage: $0 PLAN_DIR DUMP_DIR RUN_DIR MPIEXEC" >&2
    exit 2
fi
PLAN="$1/relay-plan"
DUMP="$2/relay-dump"
RUN="$3/relay-run"
MPIEXEC="$4"
# The Python the build found (RELAY_TOOLS_PYTHON, set by ctest), not whichever
# python3 comes first on PATH: a version manager's shim costs 0.4 s a call.
PYTHON="${RELAY_TOOLS_PYTHON:-python3}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
FAILURES=0

fail() {
    echo "FAIL: $*" >&2
    FAILURES=$((FAILURES + 1))
}

finish() {
    if [ "$FAILURES" -ne 0 ]; then
        echo "$FAILURES check(s) failed" >&2
        exit 1
    fi
    echo "all checks passed"
    exit 0
}

# expect_error STATUS DESCRIPTION COMMAND...: the command must exit with
# STATUS (or any non-zero status for STATUS "nonzero"), print exactly one
# line on stderr and nothing on stdout.
expect_error() {
    local want=$1 what=$2
    shift 2
    "$@" >out.txt 2>err.txt
    local got=$?
    local lines
    lines=$(wc -l <err.txt)
    if [ "$want" = nonzero ] && [ "$got" -eq 0 ]; then
        fail "$what: exit status 0, expected non-zero"
    elif [ "$want" != nonzero ] && [ "$got" -ne "$want" ]; then
        fail "$what: exit status $got, expected $want (stderr: $(cat err.txt))"
    fi
    [ "$lines" -eq 1 ] || fail "$what: $lines lines on stderr, expected 1: $(cat err.txt)"
    [ -s out.txt ] && fail "$what: unexpected output on stdout: $(head -c 200 out.txt)"
    echo "ok ($got): $what: $(cat err.txt)"
}

# plan_case NAME ARGS...: relay-plan ARGS -o NAME.plan must succeed with
# one line on stdout, and relay-dump NAME.plan --json goes to dump.json.
# Returns 1 when relay-plan fails.
plan_case() {
    local name=$1
    shift
    if ! "$PLAN" "$@" -o "$name.plan" >plan.txt 2>err.txt; then
        fail "$name: relay-plan failed: $(cat err.txt)"
        return 1
    fi
    [ "$(wc -l <plan.txt)" -eq 1 ] || fail "$name: relay-plan printed $(wc -l <plan.txt) lines"
    "$DUMP" "$name.plan" --json >dump.json 2>err.txt || fail "$name: relay-dump --json failed: $(cat err.txt)"
}

# plan_error STATUS DESCRIPTION ARGS...: relay-plan ARGS must fail as
# expect_error says and leave no out.plan behind.
plan_error() {
    local want=$1 what=$2
    shift 2
    expect_error "$want" "relay-plan: $what" "$PLAN" "$@"
    [ -e out.plan ] && fail "relay-plan: $what: left out.plan behind"
    rm -f out.plan
}

# expect_mpi_error DESCRIPTION NP ARGS...: relay-run under mpiexec must fail
# and exactly one of its lines (mpiexec adds its own) must be on stderr.
expect_mpi_error() {
    local what=$1 np=$2
    shift 2
    "$MPIEXEC" -n "$np" "$RUN" "$@" >out.txt 2>err.txt
    local got=$?
    local lines
    lines=$(grep -c '^relay-run:' err.txt)
    [ "$got" -ne 0 ] || fail "$what: exit status 0 under mpiexec"
    [ "$lines" -eq 1 ] || fail "$what: $lines relay-run lines on stderr, expected 1: $(cat err.txt)"
    [ -s out.txt ] && fail "$what: unexpected output on stdout: $(head -c 200 out.txt)"
    echo "ok ($got): $what: $(grep '^relay-run:' err.txt)"
}

# What json_check asks of a relay-dump --json summary whose per_rank lists
# every rank: its sends and its receives add up to bytes_remote and
# messages, and with the local bytes to bytes_total.
VOLUMES_ADD_UP=(
    "sum(r['send_bytes'] for r in d['per_rank']) == d['bytes_remote'] == sum(r['recv_bytes'] for r in d['per_rank'])"
    "d['bytes_remote'] + sum(r['local_bytes'] for r in d['per_rank']) == d['bytes_total']"
    "sum(r['send_msgs'] for r in d['per_rank']) == d['messages'] == sum(r['recv_msgs'] for r in d['per_rank'])"
)

# json_check FILE DESCRIPTION EXPRESSION...: every Python expression over
# the parsed JSON object `d` must be true (one Python process for all).
json_check() {
    local file=$1 what=$2
    shift 2
    "$PYTHON" -c 'import json, re, sys
d = json.load(open(sys.argv[1]))
bad = [e for e in sys.argv[2:] if not eval(e)]
for e in bad:
    print("  false: " + e, file=sys.stderr)
sys.exit(1 if bad else 0)' "$file" "$@" || fail "$what: $(head -c 300 "$file")"
}
