#!/usr/bin/env bash
# gpu.sh — build relay with its CUDA backend and run the GPU tests and
# bench/gpu_bench on a GPU machine that has a CUDA toolkit, CMake and a C
# compiler but no network, no MPI and none of relay's other dependencies.
# They travel with the working tree as Debian 12 packages in .gpu/debs/
# (ignored by git: name it in the machine's carry list), unpacked there into
# .gpu/root/ and used in place (Open MPI relocated by OPAL_PREFIX).
#
#   bash bench/gpu.sh fetch   here, on Debian 12 with apt: download the
#                             packages (Open MPI with its runtime closure,
#                             msgpack-c, xxHash, cmocka, OpenBLAS, pkgconf)
#                             into .gpu/debs/ and check that they are complete
#   bash bench/gpu.sh [run]   there: unpack, configure build-gpu/ (Release,
#                             RELAY_CUDA=ON, sm_90; no Fortran, no Python),
#                             build, ctest -L gpu, build-gpu/bench/gpu_bench,
#                             and print a summary
#   bash bench/gpu.sh exec CMD...  CMD in run's environment (mpiexec, mpicc,
#                             pkg-config of .gpu/root), to look into a failure
#
# run writes its logs to $OUT when set (else build-gpu/logs): gpu.log (all of
# it), summary.txt, env.txt, configure.log, build.log, ctest.log, bench.log,
# memcheck.log, and gpu_bench's rows in results/gpu.csv (bench/record.py).
# It stays within GPU_TIME_BUDGET seconds (450); JOBS (all cores) builds,
# GPU_BUILD_DIR (build-gpu) is the build directory, GPU_CMAKE_ARGS is added
# to the configure line, GPU_TESTS the ctest -R regex (the GPU tests, the
# device tables' host test, mpi_exec), GPU_BENCH_NPS the rank counts of
# gpu_bench (1 2 4), GPU_BENCH_SIZES its matrix sizes (8000 16000).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
gpu=$repo/.gpu
debs=$gpu/debs
root=$gpu/root
arch=x86_64-linux-gnu

# ---- fetch (Debian 12, with apt) -------------------------------------------

# Packages whose dependencies are followed (the runtime closure) ...
runtime_pkgs="libopenmpi3 openmpi-bin openmpi-common libmsgpackc2 libxxhash0
  libcmocka0 libopenblas0-pthread pkgconf pkgconf-bin libpkgconf3"
# ... and the development packages, taken alone (libopenmpi-dev would pull
# gfortran and every -dev of Open MPI's own dependencies, libmsgpack-dev
# Boost: mpicc links -lmpi only, and relay uses msgpack's C half only).
dev_pkgs="libopenmpi-dev libmsgpack-dev libxxhash-dev libcmocka-dev
  libopenblas-pthread-dev"
# Dependencies never taken: what every Linux image with a C compiler has
# (libc, libgcc, libstdc++, zlib, libatomic), package-manager glue, ssh
# (mpiexec runs one node without it) and hwloc's optional plugins (X11,
# OpenCL, libxml2).
skip_pkgs="libc6 libgcc-s1 gcc-12-base libstdc++6 zlib1g libatomic1 adduser
  debconf debconf-2.0 dpkg perl-base passwd openssh-client ssh-client
  libhwloc-plugins"
# Libraries an ELF file in .gpu/root may need from the machine itself.
base_sonames="linux-vdso.so.1 ld-linux-x86-64.so.2 libc.so.6 libm.so.6
  libdl.so.2 libpthread.so.0 librt.so.1 libresolv.so.2 libutil.so.1
  libgcc_s.so.1 libstdc++.so.6 libz.so.1 libatomic.so.1"

# in_words WORD LIST: whether WORD is one of the words of LIST.
in_words() {
  local w
  for w in $2; do [[ $w == "$1" ]] && return 0; done
  return 1
}

# dep_closure PKG...: PKG and what they depend on, first of each list of
# alternatives, less skip_pkgs; virtual packages are reported and left out.
dep_closure() {
  local -A seen=()
  local queue=("$@") p
  while ((${#queue[@]})); do
    p=${queue[0]}; queue=("${queue[@]:1}")
    [[ -n ${seen[$p]:-} ]] && continue
    in_words "$p" "$skip_pkgs" && continue
    seen[$p]=1
    echo "$p"
    # "|Depends: a" then "Depends: b": a or b; take a.
    while read -r d; do
      if [[ $d == \<*\> ]]; then echo "fetch: $p needs virtual $d, left out" >&2; continue; fi
      queue+=("$d")
    done < <(apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks \
               --no-replaces --no-enhances "$p" |
             awk '/^ *\|?(Pre)?Depends:/ { if (!alt) print $2; alt = ($1 ~ /^\|/) }')
  done
}

# unpack DIR: every .deb of .gpu/debs unpacked into DIR.
unpack() {
  local deb
  mkdir -p "$1"
  for deb in "$debs"/*.deb; do
    if command -v dpkg-deb >/dev/null; then
      dpkg-deb -x "$deb" "$1"
    else
      unpack_python "$deb" "$1"
    fi
  done
  # Debian makes these names with update-alternatives, which dpkg -x skips.
  local t
  for t in mpicc mpiexec mpirun; do ln -sfn "$t.openmpi" "$1/usr/bin/$t"; done
  ln -sfn ../libpsm1/libpsm_infinipath.so.1.16 "$1/usr/lib/$arch/libpsm_infinipath.so.1"
  # Debian's msgpack.pc says libdir /usr/lib, where the linker's default
  # path covers for it; inside .gpu/root it must be right.
  # shellcheck disable=SC2016
  sed -i 's|^libdir=${exec_prefix}/lib$|&/'$arch'|' "$1/usr/lib/$arch/pkgconfig/msgpack.pc"
}

# unpack_python DEB DIR: dpkg-deb -x without dpkg (ar archive, data.tar.*).
unpack_python() {
  "$(python_exe)" - "$1" "$2" <<'EOF'
import io, sys, tarfile
data = open(sys.argv[1], "rb").read()
pos = 8
while pos < len(data):
    name = data[pos:pos + 16].decode().strip().rstrip("/")
    size = int(data[pos + 48:pos + 58].decode())
    body = data[pos + 60:pos + 60 + size]
    if name.startswith("data.tar"):
        if name.endswith(".zst"):
            sys.exit("gpu.sh: %s is zstd-compressed; install dpkg" % sys.argv[1])
        kw = {"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}
        tarfile.open(fileobj=io.BytesIO(body)).extractall(sys.argv[2], **kw)
    pos += 60 + size + (size & 1)
EOF
}

python_exe() {
  local p
  for p in python3 /opt/torch/.venv/bin/python3; do
    command -v "$p" >/dev/null && { command -v "$p"; return; }
  done
  echo "gpu.sh: neither dpkg-deb nor python3 found to unpack .deb files" >&2
  return 1
}

# check_needed DIR: every library an ELF file in DIR needs is in DIR or
# among base_sonames.
check_needed() {
  local have missing=0 f so
  have=$(find "$1" \( -type f -o -type l \) -name '*.so*' -printf '%f\n' | sort -u)
  while IFS= read -r f; do
    while read -r so; do
      if ! grep -qxF "$so" <<<"$have" && ! in_words "$so" "$base_sonames"; then
        echo "fetch: ${f#"$1"/} needs $so, in no package fetched" >&2
        missing=1
      fi
    done < <(readelf -d "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  done < <(find "$1" -type f \( -perm -u+x -o -name '*.so*' \) -exec sh -c \
             'head -c4 "$1" | grep -q ELF' _ {} \; -print)
  return $missing
}

fetch() {
  command -v apt-get >/dev/null || { echo "gpu.sh fetch: needs apt (Debian 12)" >&2; exit 1; }
  grep -q '^12' /etc/debian_version 2>/dev/null ||
    { echo "gpu.sh fetch: needs Debian 12 (bookworm): the package names are its" >&2; exit 1; }
  local pkgs
  # shellcheck disable=SC2086
  pkgs=$( (dep_closure $runtime_pkgs; echo $dev_pkgs | tr ' ' '\n') | sort -u)
  rm -rf "$debs"; mkdir -p "$debs"
  # shellcheck disable=SC2086
  (cd "$debs" && apt-get download -q $pkgs)
  echo "fetch: $(ls "$debs" | wc -l) packages in $debs:"
  ls "$debs" | sed 's/_.*//' | paste -sd' ' | fold -s -w 100
  local tmp; tmp=$(mktemp -d)
  unpack "$tmp"
  if check_needed "$tmp"; then echo "fetch: every library needed is there"; else
    echo "fetch: libraries missing (above)" >&2; rm -rf "$tmp"; exit 1; fi
  echo "fetch: $(du -sb "$debs" | cut -f1) bytes of .deb ($(du -sh "$debs" | cut -f1)), $(du -sh "$tmp" | cut -f1) unpacked"
  rm -rf "$tmp"
}

# ---- run (the GPU machine) --------------------------------------------------

t0=$SECONDS
budget=${GPU_TIME_BUDGET:-450}
build=${GPU_BUILD_DIR:-$repo/build-gpu}
logs=${OUT:-$build/logs}

say() { echo "gpu.sh [$((SECONDS - t0))s]: $*"; }

# left [CAP]: seconds the next step may take: what is left of the budget
# less 20 for the summary, at most CAP, at least 10.
left() {
  local s=$((budget - (SECONDS - t0) - 20))
  (($# && $1 < s)) && s=$1
  ((s < 10)) && s=10
  echo "$s"
}

need_tools() {
  local t bad=0 v
  [ -d /usr/local/cuda/bin ] && PATH=$PATH:/usr/local/cuda/bin
  for t in cmake gcc g++ nvcc timeout; do
    command -v "$t" >/dev/null || { echo "gpu.sh: $t not found on PATH ($PATH)" >&2; bad=1; }
  done
  ((bad == 0)) || exit 1
  v=$(cmake --version | sed -n 's/^cmake version \([0-9]*\.[0-9]*\).*/\1/p')
  printf '3.25\n%s\n' "$v" | sort -V -C ||
    { echo "gpu.sh: relay needs CMake 3.25 or later, $(command -v cmake) is $v" >&2; exit 1; }
  [ -n "$(ls "$debs"/*.deb 2>/dev/null)" ] ||
    { echo "gpu.sh: no packages in $debs: run 'bash bench/gpu.sh fetch' where apt works and carry .gpu/debs" >&2; exit 1; }
}

# Relocated Open MPI (and PMIx, hwloc, UCX beside it), pkgconf and libraries
# in .gpu/root, found before anything of the machine's.
use_root() {
  local u=$root/usr l=$root/usr/lib/$arch
  export PATH=$u/bin:/usr/local/cuda/bin:$PATH
  # Some Debian 12 packages still install into /lib (libnl, libudev).
  export LD_LIBRARY_PATH=$l:$root/lib/$arch:$l/openmpi/lib:$l/openblas-pthread${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export LIBRARY_PATH=$l:$root/lib/$arch${LIBRARY_PATH:+:$LIBRARY_PATH}
  # The toolkit's libcudart.so, which programs linking librelay.so need
  # found at link and run time, where ld.so.conf may not name its folder.
  local c
  for c in /usr/local/cuda/lib64 /usr/local/cuda/lib; do
    [ -d "$c" ] && { LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$c; break; }
  done
  # Open MPI's install directories follow OPAL_PREFIX, except Debian's
  # sysconfdir (/etc/openmpi).  PMIx's plugins and help texts are named
  # one by one: its pmix-mca-params.conf names the plugins' folder in /usr.
  export OPAL_PREFIX=$u OPAL_SYSCONFDIR=$root/etc/openmpi
  export PMIX_PREFIX=$l/pmix2 PMIX_PKGLIBDIR=$l/pmix2/lib/pmix PMIX_PKGDATADIR=$l/pmix2/share/pmix
  export HWLOC_PLUGINS_PATH=$l/hwloc
  # pkg-config: only .gpu/root's modules, their paths inside .gpu/root.
  export PKG_CONFIG=$u/bin/pkgconf
  export PKG_CONFIG_LIBDIR=$l/pkgconfig:$l/openblas-pthread/pkgconfig:$u/share/pkgconfig
  export PKG_CONFIG_SYSROOT_DIR=$root
  export PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1
  unset PKG_CONFIG_PATH
  # As scripts/env.sh: root, more ranks than cores, one OpenMP thread.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_rmaps_base_oversubscribe=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
  # One node, no ssh: start ranks (and a singleton's orted) without the rsh
  # launcher, which gives up where it finds no ssh.  Shared memory only
  # (ob1 over vader): Debian's InfiniBand, UCX, libfabric and PSM paths stay
  # closed, whatever NICs and drivers the machine has.  Messages copied
  # through a buffer, not by process_vm_readv, which containers often forbid
  # (vader then fails mid-job).  Each can be overridden from outside.
  export OMPI_MCA_plm=${OMPI_MCA_plm:-isolated}
  export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1} OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
  export OMPI_MCA_osc=${OMPI_MCA_osc:-^ucx}
  export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
  # vader's segments go to /dev/shm, which containers often hold to 64 MB.
  local shm; shm=$(df -Pm /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
  ((${shm:-0} >= 1024)) ||
    export OMPI_MCA_btl_vader_backing_directory=${OMPI_MCA_btl_vader_backing_directory:-/tmp}
}

run() {
  mkdir -p "$logs"
  exec 3>&1 4>&2 > >(tee "$logs/gpu.log") 2>&1
  local tee_pid=$! ok=0
  say "repo $repo, logs in $logs, budget ${budget}s"
  need_tools
  rm -rf "$root"
  unpack "$root"
  use_root
  say "unpacked $(ls "$debs" | wc -l) packages into $root"
  diagnostics > "$logs/env.txt" 2>&1 || true
  local configured=failed built=skipped tested=skipped benched=skipped
  if configure; then
    configured=ok
    compile && built=ok || built=failed
    tested=$(run_tests)
    benched=$(run_bench)
  fi
  summary "$configured" "$built" "$tested" "$benched" | tee "$logs/summary.txt"
  [[ $configured/$built == ok/ok && $tested != failed && $benched != failed ]] || ok=1
  exec >&3 2>&4 3>&- 4>&-
  wait "$tee_pid" || true
  return $ok
}

# What the machine and the relocated MPI are (env.txt).
diagnostics() {
  set +e
  echo "== uname, os"; uname -a; grep PRETTY /etc/os-release
  echo "== tools"; for t in cmake ninja gcc g++ nvcc pkgconf mpicc mpiexec; do echo "$t: $(command -v $t)"; done
  cmake --version | head -1; gcc --version | head -1; nvcc --version | tail -2
  echo "== nvidia-smi"; timeout 60 nvidia-smi
  echo "== env"; env | grep -E '^(PATH|LD_LIBRARY_PATH|LIBRARY_PATH|OPAL|PMIX|OMPI|PKG_CONFIG|HWLOC|CUDA)' | sort
  echo "== mpicc --showme"; mpicc --showme
  echo "== mpiexec --version"; mpiexec --version
  echo "== ompi_info --path all"; ompi_info --path all
  echo "== pkg-config"; for m in msgpack libxxhash openblas cmocka; do echo "$m: $(pkgconf --cflags --libs $m)"; done
  echo "== ldd mpiexec, libmpi"; ldd "$(command -v mpiexec)" "$root/usr/lib/$arch/libmpi.so.40"
  echo "== mpiexec -n 2 hostname"; timeout 60 mpiexec -n 2 hostname
}

configure() {
  local gen=() t
  command -v ninja >/dev/null && gen=(-G Ninja)
  say "configure $build"
  rm -rf "$build/CMakeCache.txt" "$build/CMakeFiles"
  t=$(left 180)
  # shellcheck disable=SC2086
  if timeout -k 5 "$t" cmake -S "$repo" -B "$build" "${gen[@]}" \
       -DCMAKE_BUILD_TYPE=Release -DRELAY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
       -DRELAY_BUILD_FORTRAN=OFF -DRELAY_BUILD_PYTHON=OFF \
       -DMPI_C_COMPILER="$root/usr/bin/mpicc.openmpi" \
       -DMPIEXEC_EXECUTABLE="$root/usr/bin/mpiexec.openmpi" \
       -DPKG_CONFIG_EXECUTABLE="$root/usr/bin/pkgconf" \
       ${GPU_CMAKE_ARGS:-} > "$logs/configure.log" 2>&1; then
    say "configured"; grep -E 'MPI:|CUDA|ScaLAPACK|Python|Fortran' "$logs/configure.log" | sed 's/^/  /'
  else
    say "configure failed (or took over ${t}s):"; tail -40 "$logs/configure.log"; return 1
  fi
}

compile() {
  local t keep=-k
  t=$(left 300)
  [ -f "$build/build.ninja" ] && keep="-k 0"
  say "build with ${JOBS:-$(nproc --all)} jobs (at most ${t}s)"
  # Keep going past a failing target: the GPU tests may still build.
  # shellcheck disable=SC2086
  if timeout -k 5 "$t" cmake --build "$build" -j "${JOBS:-$(nproc --all)}" -- $keep \
       > "$logs/build.log" 2>&1; then
    say "built"
  else
    say "build failed (or took over ${t}s):"
    grep -E -A8 '^FAILED:' "$logs/build.log" | cut -c1-300 | head -60
    return 1
  fi
}

# run_tests, run_bench: their output on stderr (the log), a word on stdout:
# passed, failed or none; ran, failed or absent.  ctest -V: the log keeps
# what passing and skipped tests said too.
run_tests() {
  local t rc=0; t=$(left 200)
  say "ctest -L gpu, and the device tables' host test and mpi_exec (at most ${t}s)" >&2
  timeout -k 10 "$t" ctest --test-dir "$build" -R "${GPU_TESTS:-gpu_replays|test_device_walks|mpi_exec[.]np[24]$}" -V --timeout "$t" \
    > "$logs/ctest.log" 2>&1 || rc=$?
  cat "$logs/ctest.log" >&2
  if ((rc)); then echo failed
  elif grep -q 'No tests were found' "$logs/ctest.log"; then echo none
  else echo passed; fi
}

# gpu_bench at each rank count of GPU_BENCH_NPS (1 2 4), the machine's
# cores shared among the ranks (the host replay's OpenMP threads), then a
# small case under compute-sanitizer's memcheck.
run_bench() {
  local exe=$build/bench/gpu_bench t rc=0 np cores
  if [ ! -x "$exe" ]; then say "no $exe: bench not run" >&2; echo absent; return; fi
  cores=$(nproc --all)
  : > "$logs/bench.log"
  for np in ${GPU_BENCH_NPS:-1 2 4}; do
    t=$(left 150)
    say "mpiexec -n $np $exe ${GPU_BENCH_SIZES:-} (at most ${t}s)" >&2
    (cd "$build" && OMP_NUM_THREADS=$((cores >= np ? cores / np : 1)) timeout -k 10 "$t" mpiexec -n "$np" "$exe" ${GPU_BENCH_SIZES:-}) \
      >> "$logs/bench.log" 2>&1 || rc=$?
  done
  if command -v compute-sanitizer >/dev/null; then
    t=$(left 90)
    say "compute-sanitizer memcheck on gpu_bench 300 (at most ${t}s)" >&2
    (cd "$build" && GPU_BENCH_REPS=1 timeout -k 10 "$t" compute-sanitizer --tool memcheck --error-exitcode 3 "$exe" 300) \
      > "$logs/memcheck.log" 2>&1 || rc=$?
    tail -5 "$logs/memcheck.log" >> "$logs/bench.log"
  fi
  cat "$logs/bench.log" >&2
  if ((rc == 0)); then record_bench; echo ran; else say "gpu_bench exited with $rc" >&2; echo failed; fi
}

# gpu_bench's tables into $logs/results/gpu.csv (bench/record.py), the
# machine named by its GPU: append the rows to bench/results/gpu.csv here.
record_bench() {
  command -v python3 >/dev/null || { say "no python3: bench/record.py not run" >&2; return; }
  local gpu_name
  gpu_name=$(timeout 60 nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
  RELAY_BENCH_RESULTS=$logs/results RELAY_BENCH_MACHINE=${RELAY_BENCH_MACHINE:-"${gpu_name:-a GPU}, $(nproc --all) cores"} \
    python3 "$repo/bench/record.py" gpu < "$logs/bench.log" > /dev/null
}

summary() {
  echo "==== gpu.sh summary ($((SECONDS - t0))s)"
  echo "gpu:      $(timeout 60 nvidia-smi -L 2>&1 | paste -sd';')"
  echo "nvcc:     $(nvcc --version 2>&1 | grep -i release)"
  echo "cmake:    $(cmake --version | head -1); $(gcc --version | head -1)"
  echo "mpi:      $(mpiexec --version 2>&1 | head -1) from $root"
  local counts=""
  if [ -f "$logs/ctest.log" ]; then
    counts=$(grep -E 'Test +#' "$logs/ctest.log" | awk '
      / Passed / { p++ } /Skipped/ { s++ } /\*\*\*(Failed|Not Run|Timeout|Exception)/ { f++ }
      END { printf " (%d passed, %d skipped, %d failed)", p, s, f }')
  fi
  echo "configure: $1   build: $2   ctest -L gpu: $3$counts   gpu_bench: $4"
  if [ -f "$logs/ctest.log" ]; then
    grep -E 'Test +#|tests passed|No tests' "$logs/ctest.log" | sed 's/^/  /'
  fi
  if [ -s "$logs/bench.log" ]; then echo "-- gpu_bench:"; cat "$logs/bench.log"; fi
}

# exec CMD...: CMD in run's environment (unpacking .gpu/root if absent).
exec_in_root() {
  [ -x "$root/usr/bin/mpiexec" ] || unpack "$root"
  use_root
  exec "$@"
}

case "${1:-run}" in
  fetch) fetch ;;
  run) run ;;
  exec) shift; exec_in_root "$@" ;;
  *) echo "usage: bash bench/gpu.sh [fetch | run | exec CMD...]" >&2; exit 2 ;;
esac
