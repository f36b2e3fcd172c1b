#!/usr/bin/env bash
# install-hooks.sh — in a git checkout of relay, makes git run the hooks
# kept in scripts/hooks/ (commit-msg: subjects `area: summary` in at most
# 72 characters) by setting core.hooksPath; outside one (a tarball, or relay
# inside another project's repository) it does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(git rev-parse --show-toplevel 2>/dev/null) || exit 0
[ "$top" -ef . ] || exit 0
if [ "$(git config --get core.hooksPath || true)" != scripts/hooks ]; then
  git config core.hooksPath scripts/hooks || echo "install-hooks: could not set core.hooksPath (scripts/hooks/)" >&2
fi
