# RelayMpi.cmake — the MPI library this build uses and what follows from it:
# which library it is (RELAY_MPI_VENDOR: mpich, openmpi or unknown), that
# the launcher belongs to the same library, the ScaLAPACK built against it,
# and the environment MPI programs run in on this machine (RELAY_MPI_RUN_ENV).
#
# The MPI is chosen the CMake way, through FindMPI.  Where several are
# installed side by side (Debian: mpicc.openmpi, mpicc.mpich, ...),
#   -DMPI_EXECUTABLE_SUFFIX=.mpich
# picks MPICH's compiler wrappers and its mpiexec together; or name them:
#   -DMPI_C_COMPILER=mpicc.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich
# Included after find_package(MPI) and find_package(PkgConfig).

# relay_mpi_header_defines(MACRO OUT): whether the mpi.h this build compiles
# against defines MACRO.  Compiled anew at every configure, so the answer
# follows the MPI found, not the name of its wrapper.
function(relay_mpi_header_defines macro out)
  try_compile(defined SOURCE_FROM_CONTENT relay_mpi_${macro}.c
              "#include <mpi.h>\n#ifndef ${macro}\n#error no ${macro}\n#endif\nint main(void) { return 0; }\n"
              LINK_LIBRARIES MPI::MPI_C NO_CACHE)
  set(${out} ${defined} PARENT_SCOPE)
endfunction()

# relay_mpi_launcher_vendor(OUT): which library MPIEXEC_EXECUTABLE starts
# programs for, from its --version (mpich, openmpi or unknown).
function(relay_mpi_launcher_vendor out)
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE said ERROR_QUIET TIMEOUT 30)
  if(said MATCHES "HYDRA")
    set(${out} mpich PARENT_SCOPE)
  elseif(said MATCHES "Open MPI|OpenRTE")
    set(${out} openmpi PARENT_SCOPE)
  else()
    set(${out} unknown PARENT_SCOPE)
  endif()
endfunction()

relay_mpi_header_defines(MPICH_VERSION relay_is_mpich)
relay_mpi_header_defines(OMPI_MAJOR_VERSION relay_is_openmpi)
if(relay_is_mpich)
  set(RELAY_MPI_VENDOR mpich)
elseif(relay_is_openmpi)
  set(RELAY_MPI_VENDOR openmpi)
else()
  set(RELAY_MPI_VENDOR unknown)
endif()
message(STATUS "MPI: ${RELAY_MPI_VENDOR}, MPI ${MPI_C_VERSION} (${MPI_C_COMPILER}), launcher ${MPIEXEC_EXECUTABLE}")

# FindMPI looks for the launcher by its plain name unless told a suffix, so
# naming only MPICH's compiler finds the system's default mpiexec, which may
# be Open MPI's: programs would then start as separate singletons.
relay_mpi_launcher_vendor(relay_launcher_vendor)
if(NOT RELAY_MPI_VENDOR STREQUAL "unknown" AND NOT relay_launcher_vendor STREQUAL "unknown"
   AND NOT relay_launcher_vendor STREQUAL RELAY_MPI_VENDOR)
  message(FATAL_ERROR "MPI: the compiler wrapper ${MPI_C_COMPILER} is ${RELAY_MPI_VENDOR}'s but the launcher "
          "${MPIEXEC_EXECUTABLE} is ${relay_launcher_vendor}'s. Choose both with -DMPI_EXECUTABLE_SUFFIX=.${RELAY_MPI_VENDOR} "
          "or name the launcher with -DMPIEXEC_EXECUTABLE=... (in a fresh build directory).")
endif()

# MPICH's MPI_STATUSES_IGNORE is the address 1, which GCC (11 and later)
# takes for an empty array passed where MPI_Waitall declares one, warning
# of an overflow that cannot happen
# (https://github.com/pmodels/mpich/issues/5687).  The Open MPI build
# keeps the warning for relay's own arrays.
if(RELAY_MPI_VENDOR STREQUAL "mpich" AND CMAKE_C_COMPILER_ID STREQUAL "GNU")
  add_compile_options($<$<COMPILE_LANGUAGE:C>:-Wno-stringop-overflow>)
endif()

# ScaLAPACK: Debian names the module after the MPI it was built with.
set(RELAY_SCALAPACK_MODULE "" CACHE STRING
    "pkg-config module of ScaLAPACK (empty: scalapack-<MPI>, Debian's name for the MPI found)")
set(relay_scalapack_module ${RELAY_SCALAPACK_MODULE})
if(NOT relay_scalapack_module)
  set(relay_scalapack_module scalapack-${RELAY_MPI_VENDOR})
endif()
# Debian's scalapack-*.pc all require the module `mpi`, which the system's
# alternatives point at Open MPI whichever ScaLAPACK it is: an MPICH build
# would get Open MPI's mpi.h and libmpi with it.  A stand-in `mpi` module
# with nothing in it, found first, leaves MPI to MPI::MPI_C, the MPI found.
file(WRITE ${CMAKE_BINARY_DIR}/mpi-standin/mpi.pc
     "Name: mpi\nDescription: the MPI found by CMake (linked through MPI::MPI_C)\nVersion: ${MPI_C_VERSION}\n")
set(relay_pkg_config_path "$ENV{PKG_CONFIG_PATH}")
set(ENV{PKG_CONFIG_PATH} "${CMAKE_BINARY_DIR}/mpi-standin:${relay_pkg_config_path}")
pkg_check_modules(SCALAPACK IMPORTED_TARGET ${relay_scalapack_module})
set(ENV{PKG_CONFIG_PATH} "${relay_pkg_config_path}")
if(NOT SCALAPACK_FOUND)
  message(STATUS "ScaLAPACK (${relay_scalapack_module}) not found: relay_scalapack, its tests and bench/redist_bench are not built")
endif()

# The environment of MPI programs run here (tests, scripts/env.sh says the
# same for the scripts).  Each library ignores the other's variables.
# Open MPI refuses to run as root without the first two and more ranks than
# cores without the third; MPICH's hydra oversubscribes as it is.
set(RELAY_MPI_RUN_ENV OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    OMPI_MCA_rmaps_base_oversubscribe=1 OMP_NUM_THREADS=1)
