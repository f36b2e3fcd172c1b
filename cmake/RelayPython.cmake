# RelayPython.cmake — whether this build makes the Python package relay
# (python/) and whether its tests can run.
#
#   RELAY_BUILD_PYTHON    ON by default where Python 3 with its headers is
#                         found; OFF under the sanitizers (an extension
#                         module under ASan needs the runtime preloaded into
#                         python3 itself).
#   RELAY_PYTHON_NUMPY    TRUE when that Python imports numpy, which the
#                         package needs at run time (not to build): its
#                         tests run only then.
#   RELAY_MPI4PY_VENDOR   the MPI library that Python's mpi4py is built
#                         for: openmpi, mpich, unknown, or none (no mpi4py).
#   RELAY_PYTHON_MPI      TRUE when mpi4py is importable and built against
#                         the MPI library this build uses (Debian's mpi4py
#                         is built for Open MPI, the default MPI): the
#                         package's MPI tests run only then.
#
# Debian's python3 is preferred over one earlier on PATH (a pyenv shim,
# say), because Debian's numpy and mpi4py are installed for it; name
# another with -DPython3_EXECUTABLE=...  The tests' shell checks run it
# too, in every build (tests/CMakeLists.txt, relay_tools_test).
if(NOT Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python 3 the package is built for")
endif()
if(RELAY_SANITIZE)
  set(relay_python_default OFF)
else()
  set(relay_python_default ON)
endif()
option(RELAY_BUILD_PYTHON "Build the Python package relay" ${relay_python_default})
set(RELAY_PYTHON_NUMPY FALSE)
set(RELAY_MPI4PY_VENDOR none)
set(RELAY_PYTHON_MPI FALSE)
if(NOT RELAY_BUILD_PYTHON)
  return()
endif()

find_package(Python3 3.9 COMPONENTS Interpreter Development.Module)
if(NOT Python3_FOUND)
  message(WARNING "Python 3 with its headers not found: the Python package relay is not built")
  set(RELAY_BUILD_PYTHON OFF)
  return()
endif()
execute_process(COMMAND ${Python3_EXECUTABLE} -c "import numpy" RESULT_VARIABLE relay_no_numpy OUTPUT_QUIET ERROR_QUIET)
if(relay_no_numpy)
  message(STATUS "Python package: ${Python3_EXECUTABLE} ${Python3_VERSION} has no numpy: the package is built, "
                 "its tests are not (it needs numpy to run)")
  return()
endif()
set(RELAY_PYTHON_NUMPY TRUE)

# Which MPI library mpi4py was built for, asked without initialising MPI.
execute_process(COMMAND ${Python3_EXECUTABLE} -c
  "import mpi4py; mpi4py.rc.initialize = False; from mpi4py import MPI; print(MPI.Get_library_version())"
  OUTPUT_VARIABLE relay_mpi4py_library RESULT_VARIABLE relay_no_mpi4py ERROR_QUIET TIMEOUT 60)
if(relay_no_mpi4py)
  set(RELAY_MPI4PY_VENDOR none)
elseif(relay_mpi4py_library MATCHES "MPICH")
  set(RELAY_MPI4PY_VENDOR mpich)
elseif(relay_mpi4py_library MATCHES "Open MPI")
  set(RELAY_MPI4PY_VENDOR openmpi)
else()
  set(RELAY_MPI4PY_VENDOR unknown)
endif()
if(RELAY_MPI4PY_VENDOR STREQUAL RELAY_MPI_VENDOR)
  set(RELAY_PYTHON_MPI TRUE)
endif()
message(STATUS "Python package: ${Python3_EXECUTABLE} ${Python3_VERSION}; mpi4py for ${RELAY_MPI4PY_VENDOR}, "
               "this build's MPI ${RELAY_MPI_VENDOR}: MPI tests of the package ${RELAY_PYTHON_MPI}")
