#!/usr/bin/env bash
# install-deps.sh — installs everything relay needs to build, test and
# benchmark, from Debian's packages.  Run as root (or with sudo available);
# `install-deps.sh --bench` adds the benchmarks' baselines.
# Both MPI libraries are installed (relay is tested under each); Open MPI
# stays the system's default MPI (mpicc, mpiexec: Debian's alternatives rank
# it above MPICH, 50 to 40), MPICH is reached by its own names (mpicc.mpich,
# mpiexec.mpich).
set -euo pipefail
packages=(
  build-essential cmake pkg-config git
  libopenmpi-dev openmpi-bin          # MPI: Open MPI 4.1 (MPI 3.1), the default
  libmpich-dev mpich                  # MPI: MPICH 4 (MPI-4 persistent collectives)
  gfortran                            # the Fortran module (use relay), its tests and examples
  libmsgpack-dev                      # plan files (msgpack-c)
  libxxhash-dev                       # checksums and fingerprints
  libcmocka-dev                       # unit tests
  libsimgrid-dev                      # replay predictions (predict/, relay-dump --predict): SimGrid 3.32
  libopenblas-dev                     # CBLAS for SUMMA/HSUMMA local products
  libscalapack-openmpi-dev            # baseline in bench/, reference in the wrapper tests,
  libscalapack-mpich-dev              #   one build per MPI library
  libfftw3-dev libfftw3-mpi-dev       # baseline: FFTW-MPI's transposes (bench/nd_bench.c)
  clang libclang-rt-14-dev llvm       # libFuzzer, sanitizer runtimes; llvm-cov for fuzz.sh --coverage
  python3 python3-dev                 # the Python package relay (python/), helper scripts in tests and bench
  python3-numpy python3-mpi4py        #   its buffers and communicators
  python3-pytest python3-hypothesis   #   its tests
  python3-matplotlib                  #   Plan.heatmap (optional for users)
  python3-venv python3-pip            #   pip install . into a virtual environment (pyproject.toml)
  python3-setuptools python3-wheel    #   its build backend, offline: pip install --no-build-isolation .
  python3-wheel-whl                   #   wheel as a wheel, for venvs of other Pythons offline (tests)
  cp2k scalapack-mpi-test             # unchanged ScaLAPACK programs run with the drop-in (tests/apps)
)
# --bench: also what only benchmarks race relay against (CI runs without it).
bench_packages=(
  python3-mpi4py-fft                  # mpi4py-fft's PFFT and Transfer (bench/fft_python.sh)
)
if [ "${1:-}" = --bench ]; then packages+=("${bench_packages[@]}"); fi
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "install-deps: all dependencies present"
