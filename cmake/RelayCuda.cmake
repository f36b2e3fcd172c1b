# RelayCuda.cmake — whether this build holds the CUDA backend
# (executor/cuda/: buffers in GPU memory, relay_exec_create_with).
#
#   RELAY_CUDA   ON by default where a CUDA toolkit is found (nvcc on PATH,
#                CUDACXX, or /usr/local/cuda); OFF elsewhere, which builds
#                and tests everything else exactly as without it.
#                CMAKE_CUDA_ARCHITECTURES defaults to 80;90 (A100, H100).
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
message(STATUS "relay: CUDA backend on (CUDA ${CUDAToolkit_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
