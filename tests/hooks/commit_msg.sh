#!/usr/bin/env bash
# commit_msg.sh — scripts/hooks/commit-msg against messages it must let
# through and messages it must refuse; each refusal must say why.
#   usage: bash commit_msg.sh HOOK
set -u
hook=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
check() { # EXPECTED(pass|refuse) MESSAGE
  printf '%s' "$2" >"$work/msg"
  local got=pass
  "$hook" "$work/msg" 2>"$work/err" || got=refuse
  if [ "$got" = refuse ] && ! grep -q '^commit-msg: ' "$work/err"; then
    got="refuse in silence"
  fi
  if [ "$got" = "$1" ]; then
    echo "ok: $1: ${2%%$'\n'*}"
  else
    echo "FAIL: expected $1, got $got: $(printf '%q' "$2")"
    failures=$((failures + 1))
  fi
}
long_summary=$(printf 'x%.0s' $(seq 1 64))   # 'python: ' + 64 = 72 characters
accented=$(printf 'é%.0s' $(seq 1 60))        # 60 characters, 120 bytes

check pass "python: refuse arrays of another shape or order"
check pass $'executor: pack straight into the landing area\n\nWhy, with numbers.\n'
check pass "tests, docs: name the rank counts each suite runs"
check pass "kernels_simd_template.h: reflow the header comment"
check pass "python: $long_summary"
check pass "docs: $accented"
check pass $'# a comment git strips\n\nCMakeLists.txt: install the license\n# Please enter the commit message\n'
check pass "Merge branch 'ci59'"
check pass "Revert \"executor: pack straight into the landing area\""
check pass "fixup! executor: pack straight into the landing area"
check pass "squash! tests: a case"
check pass "amend! tests: a case"
check refuse "python: x$long_summary"
check refuse "Shared landings: a window whose lock failed is kept"
check refuse "Add a license"
check refuse "python:refuse arrays"
check refuse "python:  "
check refuse ": refuse arrays"
check refuse "python, : refuse arrays"
check refuse $'python: refuse arrays\nof another shape\n'
check refuse ""
check refuse $'# only comments\n\n'
echo "commit_msg: $failures failed"
[ "$failures" = 0 ]
