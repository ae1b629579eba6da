# Resolves MOETUNE_GPU into MOETUNE_GPU_BACKEND (cuda|hip|none) and an interface target
# moetune_gpu_sdk carrying the vendor SDK. Only tuner/gpu and tuner/rtc link it: everything else
# in moetune is vendor-neutral (see tuner/gpu/hip_api.h).
#
# cuda: the CUDA runtime is linked statically (cudart_static loads libcuda.so.1 lazily, so the
#       binary starts on hosts without a driver) plus NVRTC for run-time compilation.
# hip:  real HIP runtime + hipRTC (both in libamdhip64), host code compiled by the C++ compiler.
set(_backend "${MOETUNE_GPU}")

if(_backend STREQUAL "auto" OR _backend STREQUAL "cuda")
  if(NOT DEFINED CUDAToolkit_ROOT AND NOT DEFINED ENV{CUDAToolkit_ROOT} AND EXISTS /usr/local/cuda)
    set(CUDAToolkit_ROOT /usr/local/cuda)
  endif()
  # The FindCUDAToolkit of Debian 12's CMake (3.25.1) marks CUDA::nvToolsExt deprecated without checking that
  # the target exists, and CUDA 13 ships no libnvToolsExt: on a stock host configuring fails there ("set_property
  # could not find TARGET CUDA::nvToolsExt"; later releases check). The module does that only for projects that
  # require 3.25, so it is shown 3.24 while it runs.
  set(_required_version "${CMAKE_MINIMUM_REQUIRED_VERSION}")
  if(CMAKE_VERSION VERSION_LESS 3.26)
    set(CMAKE_MINIMUM_REQUIRED_VERSION 3.24)
  endif()
  if(_backend STREQUAL "cuda")
    find_package(CUDAToolkit REQUIRED)
  else()
    find_package(CUDAToolkit QUIET)
  endif()
  set(CMAKE_MINIMUM_REQUIRED_VERSION "${_required_version}")
  if(CUDAToolkit_FOUND)
    set(_backend cuda)
  endif()
endif()

if(_backend STREQUAL "auto" OR _backend STREQUAL "hip")
  find_path(MOETUNE_HIP_INCLUDE_DIR hip/hip_runtime_api.h HINTS /opt/rocm/include)
  find_library(MOETUNE_AMDHIP64_LIBRARY amdhip64 HINTS /opt/rocm/lib)
  find_library(MOETUNE_HIPRTC_LIBRARY hiprtc HINTS /opt/rocm/lib)  # separate library since ROCm 6
  if(MOETUNE_HIP_INCLUDE_DIR AND MOETUNE_AMDHIP64_LIBRARY)
    set(_backend hip)
  elseif(_backend STREQUAL "hip")
    message(FATAL_ERROR "MOETUNE_GPU=hip but HIP headers/libamdhip64 were not found")
  endif()
endif()

if(_backend STREQUAL "auto")
  set(_backend none)
endif()
if(NOT _backend MATCHES "^(cuda|hip|none)$")
  message(FATAL_ERROR "MOETUNE_GPU must be auto, cuda, hip or none (got '${MOETUNE_GPU}')")
endif()
set(MOETUNE_GPU_BACKEND "${_backend}")

add_library(moetune_gpu_sdk INTERFACE)
if(MOETUNE_GPU_BACKEND STREQUAL "cuda")
  # CUDAToolkit_INCLUDE_DIRS may be a list (newer CMake adds include/cccl); NVRTC needs the main one.
  list(GET CUDAToolkit_INCLUDE_DIRS 0 _cuda_include_dir)
  target_link_libraries(moetune_gpu_sdk INTERFACE CUDA::cudart_static CUDA::nvrtc)
  target_compile_definitions(moetune_gpu_sdk INTERFACE MOETUNE_GPU_CUDA=1
    MOETUNE_CUDA_INCLUDE_DIR="${_cuda_include_dir}")
elseif(MOETUNE_GPU_BACKEND STREQUAL "hip")
  target_include_directories(moetune_gpu_sdk INTERFACE ${MOETUNE_HIP_INCLUDE_DIR})
  target_link_libraries(moetune_gpu_sdk INTERFACE ${MOETUNE_AMDHIP64_LIBRARY})
  if(MOETUNE_HIPRTC_LIBRARY)
    target_link_libraries(moetune_gpu_sdk INTERFACE ${MOETUNE_HIPRTC_LIBRARY})
  endif()
  target_compile_definitions(moetune_gpu_sdk INTERFACE MOETUNE_GPU_HIP=1 __HIP_PLATFORM_AMD__=1)
else()
  target_compile_definitions(moetune_gpu_sdk INTERFACE MOETUNE_GPU_NONE=1)
endif()
