# RelayCuda.cmake — whether this build holds the CUDA backend
# (executor/cuda/: buffers in GPU memory, relay_exec_create_with).
#
#   RELAY_CUDA   ON by default where a CUDA toolkit is found (nvcc on PATH,
#                CUDACXX, or /usr/local/cuda); OFF elsewhere, which builds
#                and tests everything else exactly as without it.
#                CMAKE_CUDA_ARCHITECTURES defaults to 80;90 (A100, H100).
#   RELAY_CUDA_RUNTIME   shared (default: the toolkit's libcudart.so, found at
#                run time) or static (libcudart_static.a linked in: pip's
#                build, setup.py, so that the wheel loads nothing from the
#                toolkit's folder and imports on machines without one).
#   RELAY_CUDART  the CUDA runtime target that choice names.
# One configure line says which.
include(CheckLanguage)
if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc CACHE FILEPATH "The CUDA compiler")
endif()
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
  set(relay_cuda_default ON)
else()
  set(relay_cuda_default OFF)
endif()
option(RELAY_CUDA "Build the CUDA backend (device buffers)" ${relay_cuda_default})
set(RELAY_CUDA_RUNTIME shared CACHE STRING "The CUDA runtime library relay links: shared or static")
set_property(CACHE RELAY_CUDA_RUNTIME PROPERTY STRINGS shared static)
if(NOT RELAY_CUDA_RUNTIME MATCHES "^(shared|static)$")
  message(FATAL_ERROR "RELAY_CUDA_RUNTIME is '${RELAY_CUDA_RUNTIME}': shared or static")
endif()
if(RELAY_CUDA AND RELAY_SANITIZE)
  message(STATUS "relay: CUDA backend off (not built under the sanitizers)")
  set(RELAY_CUDA OFF)
endif()
if(NOT RELAY_CUDA)
  message(STATUS "relay: CUDA backend off (no CUDA toolkit found, or RELAY_CUDA=OFF)")
  return()
endif()
if(NOT CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 80 90)
endif()
enable_language(CUDA)
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
set(CMAKE_CUDA_VISIBILITY_PRESET hidden)
find_package(CUDAToolkit REQUIRED)
if(RELAY_CUDA_RUNTIME STREQUAL "static")
  set(RELAY_CUDART CUDA::cudart_static)
else()
  set(RELAY_CUDART CUDA::cudart)
endif()
message(STATUS "relay: CUDA backend on (CUDA ${CUDAToolkit_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}, "
               "${RELAY_CUDA_RUNTIME} runtime)")
