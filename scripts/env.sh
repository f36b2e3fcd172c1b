# env.sh — sourced by the scripts: the environment for running MPI programs
# here (Open MPI refuses root without these; oversubscription on 2 cores).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
JOBS="${JOBS:-$(nproc)}"
