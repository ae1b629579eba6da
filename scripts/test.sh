#!/usr/bin/env bash
# Builds and runs the whole test suite: the default build (CUDA where the toolkit is present; GPU
# tests skip without a GPU) and a second build of the GPU layer against the HIP headers, so the
# AMD host path keeps compiling.
#   scripts/test.sh            everything
#   scripts/test.sh -L gpu     extra arguments go to ctest (here: only GPU tests)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

[[ -d /usr/local/cuda/bin ]] && export PATH="/usr/local/cuda/bin:$PATH"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMOETUNE_GPU="${MOETUNE_GPU:-auto}"
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs" "$@"

if [[ -f /usr/include/hip/hip_runtime_api.h || -f /opt/rocm/include/hip/hip_runtime_api.h ]] && [[ $# -eq 0 ]]; then
  cmake -S . -B build-hip -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMOETUNE_GPU=hip -DMOETUNE_BUILD_TESTS=ON
  cmake --build build-hip -j "$jobs" --target moetune_gpu moetune_rtc moetune_data_gpu rtc_test kernels_instantiate_test
  # hipRTC 5.2 compiles every kernel template for gfx90a without a GPU, and representative candidate
  # kernels (the portable path of the stage templates) through the instantiate glue.
  ctest --test-dir build-hip --output-on-failure -R '^(rtc_test|kernels_instantiate_test)$'
  echo "HIP build OK"
fi
