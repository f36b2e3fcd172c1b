# RelayFortran.cmake — whether relay builds its Fortran module (fortran/).
#
# RELAY_BUILD_FORTRAN defaults to ON when a Fortran compiler is found, OFF
# otherwise: the C libraries never need one.  With it ON, Fortran is
# enabled and MPI's Fortran bindings are looked for.  The module itself
# needs only MPI's C library (communicators cross as integers and are
# converted in C); the Fortran test and example need the bindings
# (MPI_Fortran_FOUND).
include(CheckLanguage)
check_language(Fortran)
set(relay_fortran_compiler_found OFF)
if(CMAKE_Fortran_COMPILER)
  # check_language takes a compiler named on the command line on trust.
  find_program(relay_fortran_compiler NAMES "${CMAKE_Fortran_COMPILER}" NO_CACHE)
  if(relay_fortran_compiler)
    set(relay_fortran_compiler_found ON)
  else()
    message(STATUS "Fortran compiler ${CMAKE_Fortran_COMPILER} not found")
  endif()
endif()
option(RELAY_BUILD_FORTRAN "Build the Fortran module (use relay), its test and example" ${relay_fortran_compiler_found})
if(RELAY_BUILD_FORTRAN)
  enable_language(Fortran)
  find_package(MPI COMPONENTS C Fortran)
  if(NOT MPI_Fortran_FOUND)
    message(STATUS "MPI's Fortran bindings not found: the Fortran module is built, its test and example are not")
  endif()
elseif(relay_fortran_compiler_found)
  message(STATUS "RELAY_BUILD_FORTRAN=OFF: the Fortran module is not built")
else()
  message(STATUS "No Fortran compiler: the Fortran module is not built")
endif()
