#pragma once
// Launch-grid limits that CUDA and HIP share, for the host code that sizes grids (kernels/
// launch_geometry.h for the stage kernels, data_gpu/ for the reference GEMM) without a GPU SDK.

namespace moetune {

// The grid's y (and z) limit; x reaches 2^31 - 1.
inline constexpr long long kMaxGridY = 65535;

}  // namespace moetune
