#!/usr/bin/env bash
# install.sh — relay as an installed package, used the way people use it:
# installs the build to a fresh prefix and, without LD_LIBRARY_PATH,
#   - runs the installed relay-plan, relay-dump and mpiexec relay-run --verify;
#   - checks that a plan file honours the umask like any file a tool writes;
#   - checks that the installed shared libraries export relay_* symbols only
#     (the ScaLAPACK drop-in: ScaLAPACK's names only; librelay_fortran also
#     the procedures of relay's Fortran modules, which gfortran names
#     __relay_<part>_mod_MOD_<name>) and find each other (ldd: nothing
#     "not found");
#   - checks the pkg-config files: an rpath to a prefix the dynamic loader
#     does not search, none where it does (a /usr/local install staged in
#     DESTDIR, where Debian's loader searches /usr/local/lib);
#   - builds programs against the prefix with find_package(relay) and with
#     pkg-config (no rpath of the test's own: the .pc files' must do), and
#     with a bare `-lrelay`, and runs them under mpiexec;
#   - checks that the LICENSE is installed and every .pc file names it;
#   - where the build has the Fortran module (the environment names its
#     compilers: RELAY_TEST_FC, and RELAY_TEST_MPIFC for MPI's), builds a
#     planning program with the plain compiler and pkg-config relay-fortran,
#     and an MPI program with find_package(relay COMPONENTS fortran) and with
#     pkg-config, and runs them; with ScaLAPACK (RELAY_TEST_SCALAPACK_LIBS,
#     its libraries), builds examples/scf_redistribute.f90 against it alone
#     and with pkg-config relay-scalapack-dropin ahead, and checks that both
#     agree and the drop-in served the calls (tests/example_scf.sh);
#   - where the build has the Python package (RELAY_TEST_PYTHON), imports it
#     from the prefix, plans offline and replays under mpiexec.
#   usage: bash install.sh SOURCE_DIR BUILD_DIR LIBDIR MPIEXEC MPICC
set -u
[ $# -eq 5 ] || { echo "usage: $0 SOURCE_DIR BUILD_DIR LIBDIR MPIEXEC MPICC" >&2; exit 2; }
SRC=$1 BUILD=$2 LIBDIR=$3 MPIEXEC=$4 MPICC=$5
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
unset LD_LIBRARY_PATH
P=$WORK/prefix
FAILURES=0
fail() { echo "FAIL: $*" >&2; FAILURES=$((FAILURES + 1)); }
ok() { echo "ok: $*"; }
run() { # DESCRIPTION COMMAND...: the command must succeed
    local what=$1
    shift
    if "$@" >"$WORK/out.txt" 2>&1; then ok "$what"; else fail "$what: $(tail -5 "$WORK/out.txt")"; fi
}

run "cmake --install to $P" cmake --install "$BUILD" --prefix "$P"
cd "$WORK" || exit 1

# The installed tools, from the prefix alone.
umask 027
run "relay-plan" "$P/bin/relay-plan" transform --ranks 4 --from bc:300x200:16x16:1x4 \
    --to bc:300x200:64x32:2x2:grid=col --op N -o "$WORK/t.plan"
mode=$(stat -c %a "$WORK/t.plan" 2>/dev/null)
[ "$mode" = 640 ] && ok "plan file mode $mode under umask 027" || fail "plan file mode $mode under umask 027, expected 640"
umask 022
run "relay-dump" "$P/bin/relay-dump" "$WORK/t.plan"
# relay-dump --predict finds the machines relay installed beside its bin/
# (in a build with SimGrid; without, it says so).
if [ -d "$P/share/relay/machines" ]; then
    run "relay-dump --predict laptop" "$P/bin/relay-dump" "$WORK/t.plan" --predict laptop
fi
run "mpiexec relay-run --verify" "$MPIEXEC" -n 4 "$P/bin/relay-run" "$WORK/t.plan" --iters 2 --verify

# Exported symbols and library lookup.
libs=$(find "$P/$LIBDIR" -maxdepth 1 -type f -name 'librelay*.so.*')
[ -n "$libs" ] || fail "no shared library installed in $P/$LIBDIR"
for lib in $libs; do
    allowed='^(relay_|__relay_[a-z_]*_MOD_)'
    case $lib in *librelay_scalapack_dropin.so.*) allowed='^(p[sdcz]gemr2d_|Cp[sdcz]gemr2d|p[sd]tran_|p[cz]tran[uc]_)$' ;; esac
    others=$(nm -D --defined-only "$lib" | awk 'NF == 3 { print $3 }' | grep -Ev "$allowed")
    [ -z "$others" ] && ok "$(basename "$lib") exports $allowed only" ||
        fail "$(basename "$lib") exports other symbols: $(echo $others | head -c 300)"
done
for f in $libs "$P"/bin/relay-*; do
    missing=$(ldd "$f" | grep 'not found')
    [ -z "$missing" ] && ok "ldd $(basename "$f")" || fail "ldd $(basename "$f"): $missing"
done

# A system prefix, staged (DESTDIR) as a package's build installs it: where
# the dynamic loader searches the prefix's libdir (/usr/local/lib, from
# Debian's ld.so.conf), the .pc files carry no rpath (on a real install,
# ldconfig refreshes the loader's cache); elsewhere they carry one.
stage=$WORK/stage
run "cmake --install to /usr/local staged in DESTDIR" env DESTDIR="$stage" cmake --install "$BUILD" --prefix /usr/local
staged_pc=$stage/usr/local/$LIBDIR/pkgconfig/relay.pc
ldconfig_bin=$(PATH=$PATH:/sbin:/usr/sbin command -v ldconfig)
if [ -n "$ldconfig_bin" ] && "$ldconfig_bin" -v -N -X 2>/dev/null | grep -q "^/usr/local/$LIBDIR:"; then
    ! grep -q -- -rpath "$staged_pc" && ok "a libdir the loader searches: no rpath in relay.pc" ||
        fail "a libdir the loader searches: relay.pc has an rpath: $(grep Libs "$staged_pc")"
else
    grep -q -- "-Wl,-rpath" "$staged_pc" && ok "a libdir the loader does not search: relay.pc has an rpath" ||
        fail "a libdir the loader does not search: relay.pc has no rpath: $(grep Libs "$staged_pc")"
fi
grep -q -- "-Wl,-rpath,\${libdir}" "$P/$LIBDIR/pkgconfig/relay.pc" && ok "$P: relay.pc has the rpath to its libdir" ||
    fail "$P: relay.pc has no rpath: $(grep Libs "$P/$LIBDIR/pkgconfig/relay.pc")"
rm -rf "$stage"

# A CMake project outside the tree: find_package(relay).
# It is built with the MPI relay was built with (compiler and launcher).
run "configure a find_package(relay) project" cmake -S "$SRC/tests/install/consumer" -B "$WORK/consumer" \
    -DCMAKE_PREFIX_PATH="$P" -DRELAY_SOURCE_DIR="$SRC" -DCMAKE_BUILD_TYPE=Release \
    -DMPI_C_COMPILER="$MPICC" -DMPIEXEC_EXECUTABLE="$MPIEXEC"
run "build it" cmake --build "$WORK/consumer"
run "relay::relay program under mpiexec" "$MPIEXEC" -n 4 "$WORK/consumer/consumer_demo" 300 2
run "relay::exec program under mpiexec" "$MPIEXEC" -n 4 "$WORK/consumer/consumer_replay" "$WORK/t.plan"

# pkg-config (whose files carry the rpath to a prefix the loader does not
# search, so that the programs start without LD_LIBRARY_PATH), and -lrelay
# alone (with the rpath the README gives).
export PKG_CONFIG_PATH="$P/$LIBDIR/pkgconfig"
# The license beside the documentation, and named by every .pc file.
cmp -s "$SRC/LICENSE" "$P/share/doc/relay/LICENSE" && ok "LICENSE in share/doc/relay" ||
    fail "share/doc/relay/LICENSE missing or not the source's LICENSE"
for pc in "$P/$LIBDIR"/pkgconfig/*.pc; do
    grep -q '^License: BSD-3-Clause$' "$pc" && ok "$(basename "$pc") names its license" ||
        fail "$(basename "$pc") has no License: BSD-3-Clause"
done
rpath="-Wl,-rpath,$P/$LIBDIR"
run "pkg-config relay-exec build" sh -c "$MPICC -o replay_pc '$SRC/tests/install/replay_only.c' \
    \$(pkg-config --cflags --libs relay-exec)"
run "pkg-config relay-exec program under mpiexec" "$MPIEXEC" -n 4 ./replay_pc "$WORK/t.plan"
run "pkg-config relay build" sh -c "$MPICC -o demo_pc -I'$SRC/examples' '$SRC/examples/demo.c' \
    \$(pkg-config --cflags --libs relay) -lm"
run "pkg-config relay program under mpiexec" "$MPIEXEC" -n 2 ./demo_pc 200 1
run "-lrelay alone build" "$MPICC" -o demo_l -I"$SRC/examples" -I"$P/include" "$SRC/examples/demo.c" \
    -L"$P/$LIBDIR" -lrelay -lm "$rpath"
run "-lrelay alone program under mpiexec" "$MPIEXEC" -n 2 ./demo_l 200 1

# The Fortran module: planning with the plain compiler, replaying under MPI.
if [ -n "${RELAY_TEST_FC:-}" ]; then
    FSRC=$SRC/tests/install
    run "pkg-config relay-fortran build with $RELAY_TEST_FC" sh -c "'$RELAY_TEST_FC' -o plan_f '$FSRC/fortran_plan.f90' \
        \$(pkg-config --cflags --libs relay-fortran)"
    run "relay-fortran planning program" ./plan_f "$WORK/f.plan"
    run "pkg-config relay-fortran build with $RELAY_TEST_MPIFC" sh -c "'$RELAY_TEST_MPIFC' -o replay_f \
        '$FSRC/fortran_replay.f90' \$(pkg-config --cflags --libs relay-fortran)"
    run "pkg-config relay-fortran program under mpiexec" "$MPIEXEC" -n 4 ./replay_f "$WORK/f.plan"
    run "configure a find_package(relay COMPONENTS fortran) project" cmake -S "$FSRC/fortran" \
        -B "$WORK/fortran_consumer" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_Fortran_COMPILER="$RELAY_TEST_FC" \
        -DMPI_Fortran_COMPILER="$RELAY_TEST_MPIFC" -DCMAKE_BUILD_TYPE=Release
    run "build it" cmake --build "$WORK/fortran_consumer"
    run "relay::fortran program under mpiexec" "$MPIEXEC" -n 4 "$WORK/fortran_consumer/fortran_replay" "$WORK/f.plan"
    if [ -n "${RELAY_TEST_SCALAPACK_LIBS:-}" ]; then
        run "ScaLAPACK program build" sh -c "'$RELAY_TEST_MPIFC' -o scf_plain '$SRC/examples/scf_redistribute.f90' \
            $RELAY_TEST_SCALAPACK_LIBS"
        run "pkg-config relay-scalapack-dropin build" sh -c "'$RELAY_TEST_MPIFC' -o scf_dropin \
            '$SRC/examples/scf_redistribute.f90' \$(pkg-config --libs relay-scalapack-dropin) $RELAY_TEST_SCALAPACK_LIBS"
        run "the drop-in serves the ScaLAPACK program's calls" bash "$SRC/tests/example_scf.sh" ./scf_plain ./scf_dropin \
            "$MPIEXEC" -n 4
    fi
fi

# The Python package (the environment names the interpreter, RELAY_TEST_PYTHON,
# and the package's folder under the prefix, RELAY_TEST_PYDIR): imported from
# the prefix alone, outside the source and build trees; its extension module
# exports Python's entry point only; it plans and inspects offline, and a job
# replays the file with mpi4py.
if [ -n "${RELAY_TEST_PYTHON:-}" ]; then
    pyexports=$(nm -D --defined-only "$P/$RELAY_TEST_PYDIR"/relay/_core*.so | awk 'NF == 3 { print $3 }')
    [ "$pyexports" = PyInit__core ] && ok "relay._core exports PyInit__core only" ||
        fail "relay._core exports: $(echo $pyexports | head -c 300)"
    export PYTHONPATH="$P/$RELAY_TEST_PYDIR"
    run "import relay from the prefix" "$RELAY_TEST_PYTHON" -c \
        "import relay, sys; sys.exit(0 if relay.__file__.startswith('$P/') else 1)"
    run "plan and inspect from Python" "$RELAY_TEST_PYTHON" "$SRC/examples/python/plan_offline.py" "$WORK/py.plan"
    if [ "${RELAY_TEST_PYTHON_MPI:-}" = TRUE ]; then
        run "mpiexec python3 replays it" "$MPIEXEC" -n 4 "$RELAY_TEST_PYTHON" "$SRC/examples/python/replay_job.py" \
            "$WORK/py.plan"
    fi
    unset PYTHONPATH
fi

if [ "$FAILURES" -ne 0 ]; then
    echo "$FAILURES check(s) failed" >&2
    exit 1
fi
echo "all checks passed"
