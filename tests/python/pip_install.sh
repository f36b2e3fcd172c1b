#!/usr/bin/env bash
# pip_install.sh — the Python package installed the way Python users install
# it: pip, from a copy of the source tree, into a fresh virtual environment,
# offline (no package index is reached).
#
#   source WORK SRC    copies SRC's files (git's view: tracked and not
#                      ignored) to WORK/src, keeping WORK/src/build-python,
#                      pip's build folder, so that a later install
#                      recompiles only what changed
#   system WORK PYTHON MPIEXEC...   a venv of PYTHON (the build's: Debian's
#                      /usr/bin/python3) that sees its packages
#                      (--system-site-packages: numpy, mpi4py, pytest):
#                      `pip install --no-build-isolation .` and `pip wheel`;
#                      the metadata (pip show); relay imported from the
#                      venv; then the offline suite, and the MPI suite under
#                      MPIEXEC... (the launcher, its rank count flag and
#                      count, ending with WORK/venv-system/bin/python)
#   path WORK PYTHON   a venv of the python3 first on PATH when it is
#                      another interpreter than PYTHON (a pyenv's, say;
#                      skipped where there is none, or where its venv has
#                      no setuptools), without numpy and with no index to
#                      fetch it; wheel added from Debian's wheel of it
#                      (/usr/share/python-wheels): pip refuses to install
#                      relay without numpy, and with --no-deps builds it
#                      (--no-build-isolation: Debian's setuptools wheel is
#                      patched for Debian's python and fails under others);
#                      `import relay` then fails only with relay's message
#                      that numpy is missing.
# Both check that relay._core loads nothing from /usr/local (the wheel links
# relay in; /usr/local is where the CMake install goes).
# RELAY_TEST_BIN: the build's tools, for the offline suite.
# Exit 77: skipped, with the reason on stdout.
set -euo pipefail
mode=$1 work=$2
shift 2
src=$work/src
tests=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
debian_wheels=/usr/share/python-wheels
# pip as configured by nobody: no configuration file, no index, no links.
unset PYTHONPATH PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_FIND_LINKS
export PIP_CONFIG_FILE=/dev/null PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
export PYTHONDONTWRITEBYTECODE=1

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
step() { echo "== [${SECONDS}s] $*"; }

copy_source() { # SRC
    mkdir -p "$src"
    find "$src" -mindepth 1 -maxdepth 1 ! -name build-python -exec rm -rf {} +
    if git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        (cd "$1" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -C "$src" -xf -
    else
        tar -C "$1" --exclude=./build --exclude='./build-*' -cf - . | tar -C "$src" -xf -
    fi
}

# new_venv PYTHON DIR [venv options]: a fresh venv at DIR.
new_venv() {
    local python=$1 dir=$2
    shift 2
    rm -rf "$dir"
    "$python" -m venv "$@" "$dir"
}

# check_core VENV: relay._core lies in VENV and ldd finds all it needs,
# none of it under /usr/local.
check_core() {
    local venv=$1 core libs
    core=$(cd "$work" && "$venv/bin/python" -c \
        "import importlib.util as u; print(u.find_spec('relay').submodule_search_locations[0])")
    case $core in "$venv"/*) ;; *) fail "relay found at $core, not in $venv" ;; esac
    core=$(ls "$core"/_core*.so)
    libs=$(ldd "$core")
    echo "$libs"
    if grep -q "not found" <<<"$libs"; then fail "ldd $core: a library is not found"; fi
    if grep -q "/usr/local" <<<"$libs"; then fail "ldd $core: loads from /usr/local"; fi
}

# pip_show VENV: the metadata pip reports, checked against the package.
pip_show() {
    local venv=$1 show version
    show=$("$venv/bin/python" -m pip show relay)
    echo "$show"
    version=$(cd "$work" && "$venv/bin/python" -c "import relay; print(relay.__version__)")
    grep -qx "Version: $version" <<<"$show" || fail "pip show: no 'Version: $version'"
    grep -qx "License: BSD-3-Clause" <<<"$show" || fail "pip show: no 'License: BSD-3-Clause'"
    grep -qx "Requires: numpy" <<<"$show" || fail "pip show: no 'Requires: numpy'"
    grep -qx "Location: $venv/lib/python3.*/site-packages" <<<"$show" || fail "pip show: not installed in $venv"
}

system_python() { # PYTHON MPIEXEC...
    local venv=$work/venv-system py
    py=$venv/bin/python
    step "venv of $1 with its packages"
    new_venv "$1" "$venv" --system-site-packages
    shift
    step "pip install --no-build-isolation ."
    (cd "$src" && "$py" -m pip install --no-build-isolation .)
    check_core "$venv"
    pip_show "$venv"
    step "pip wheel ."
    rm -rf "$work/wheels"
    (cd "$src" && "$py" -m pip wheel --no-build-isolation --no-deps -w "$work/wheels" .)
    "$py" - "$work"/wheels/relay-*.whl <<'EOF'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
print(sys.argv[1], len(names), "files")
for want in ("relay/__init__.py", "relay/py.typed", "relay/_core."):
    if not any(n.startswith(want) for n in names):
        sys.exit(f"FAIL: the wheel has no {want}")
EOF
    step "offline suite from the venv"
    (cd "$work" && "$py" -m pytest -q -p no:cacheprovider -o addopts= "$tests/offline")
    step "MPI suite from the venv: $*"
    (cd "$work" && "$@" -m pytest -q -p no:cacheprovider -o addopts= -x "$tests/mpi")
}

# The interpreter a python command runs.
interpreter() { "$1" -c 'import os, sys; print(os.path.realpath(sys.executable))'; }

path_python() { # PYTHON
    local venv=$work/venv-path python py
    python=$(command -v python3) || skip "no python3 on PATH"
    if [ "$(interpreter "$python")" = "$(interpreter "$1")" ]; then
        skip "the python3 on PATH ($python) is $1: no second interpreter to install into"
    fi
    "$python" -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(sysconfig.get_path("include") + "/Python.h"))' ||
        skip "the python3 on PATH ($python) has no Python.h to build extensions with"
    step "venv of $python ($("$python" -V))"
    new_venv "$python" "$venv" || skip "$python cannot make a venv"
    py=$venv/bin/python
    "$py" -c "import setuptools" 2>/dev/null ||
        skip "the venv of $python has no setuptools (Python 3.12 and later make none) and no index to fetch it from"
    ! "$py" -c "import numpy" 2>/dev/null || fail "the venv of $python imports numpy: nothing to check"
    [ -e "$debian_wheels"/wheel-*.whl ] ||
        fail "no $debian_wheels/wheel-*.whl (python3-wheel-whl: scripts/install-deps.sh)"
    "$py" -m pip install "$debian_wheels"/wheel-*.whl
    step "pip install --no-build-isolation . without numpy: refused"
    if (cd "$src" && "$py" -m pip install --no-build-isolation . >"$work/refused.txt" 2>&1); then
        fail "pip installed relay without numpy"
    fi
    cat "$work/refused.txt"
    grep -q "for numpy" "$work/refused.txt" || fail "pip's refusal does not name numpy"
    step "pip install --no-build-isolation --no-deps ."
    (cd "$src" && "$py" -m pip install --no-build-isolation --no-deps .)
    check_core "$venv"
    step "import relay without numpy"
    if (cd "$work" && "$py" -c "import relay" 2>"$work/import.txt"); then fail "relay imported without numpy"; fi
    cat "$work/import.txt"
    grep -q "^ModuleNotFoundError: relay needs numpy" <(tail -1 "$work/import.txt") ||
        fail "import relay failed otherwise than with relay's message that numpy is missing"
}

case $mode in
    source) copy_source "$1" ;;
    system) system_python "$@" ;;
    path) path_python "$1" ;;
    *) fail "unknown mode $mode (source, system or path)" ;;
esac
echo "pip_install.sh $mode: passed"
