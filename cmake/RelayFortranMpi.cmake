# RelayFortranMpi.cmake — Fortran, where a Fortran compiler is found, and
# MPI's Fortran bindings (MPI_Fortran_FOUND, MPI::MPI_Fortran): included by
# each directory that compiles Fortran programs (the drop-in's Fortran test,
# the SCF example), as CMake enables a language per directory scope.
include(CheckLanguage)
check_language(Fortran)
if(CMAKE_Fortran_COMPILER)
  enable_language(Fortran)
  find_package(MPI COMPONENTS Fortran)
endif()
