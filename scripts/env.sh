# env.sh — sourced by the scripts: the environment for running MPI programs
# here, for Open MPI and MPICH alike (each ignores the other's variables).
# Open MPI refuses root without the first two and more ranks than cores
# without the third; MPICH's hydra allows both as it is.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
JOBS="${JOBS:-$(nproc --all)}"  # --all: GNU nproc honours OMP_NUM_THREADS, set above

# relay_mpiexec BUILD_DIR: the launcher of the MPI that build was configured
# with (FindMPI's MPIEXEC_EXECUTABLE), so programs start under their own MPI.
relay_mpiexec() {
  local found
  found=$(sed -n 's/^MPIEXEC_EXECUTABLE:FILEPATH=//p' "$1/CMakeCache.txt" 2>/dev/null)
  echo "${found:-mpiexec}"
}
