#pragma once
// The resource model: the shared memory and registers per thread a config needs, estimated before
// compiling so pruning can drop what cannot run well. It mirrors the templates as they are
// (kernel_templates/common/moe_gemm.h): each warp streams its weights from global memory straight
// into registers and multiplies them on the tensor cores (FP8 16x8x32, or bf16 16x8x16 on the
// _mbf16 path) -- or, with _smem (moe_shared_gemm.h), the workgroup stages both operands as bf16
// in two shared-memory buffers. The register formula of each is calibrated against ptxas
// (docs/kernel-names.md, "Resource model").
#include <optional>

#include "kernels/kernel_config.h"

namespace moetune::kernels {

// How the warps of a workgroup split its tile: warps_m x warps_n warps, each owning a
// (tile_m/warps_m) x (tile_n/warps_n) block. Passed to the templates as MOETUNE_WARPS_M/N.
struct WarpGrid {
    int warps_m = 1;
    int warps_n = 1;
};

// Among the grids that give every warp a whole block (rows a multiple of 16, columns a multiple of
// warp_n_granule), the one with the squarest blocks (smallest warp_m + warp_n: the fewest operand
// loads per tensor-core step); on a tie the one with more warps along N (warps then stream
// disjoint weights). nullopt when no grid fits.
std::optional<WarpGrid> warp_grid(const KernelConfig& c);

struct ResourceEstimate {
    int shared_memory_bytes = 0;
    int registers_per_thread = 0;
};

// Requires warp_grid(c) to exist (throws std::invalid_argument otherwise).
ResourceEstimate estimate_resources(const KernelConfig& c);

// Dynamic shared memory a launch of `c` needs: the bf16 operand buffers of _smem (256 bytes per
// activation and per weight row each; two, or three for _wgmma with 128-row tiles where they fit
// 227 KB; and 1024 to align them for _wgmma; MxMoeSharedGemm::kSharedBytes), the activation windows
// of the register-fed FP8 _wgmma kernels (MxMoeFp8RegisterGemm::kSharedBytes), the cp.async rings of
// _gemv with _smem (common/mx_f16_gemv.h), else 0.
int dynamic_shared_bytes(const KernelConfig& c);

}  // namespace moetune::kernels
