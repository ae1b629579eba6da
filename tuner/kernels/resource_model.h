#pragma once
// The resource model: how much shared memory and how many registers per thread a config needs,
// estimated before compiling so pruning can drop what cannot launch. It lives in this one place so
// the kernel author can match it to the real templates; the formulas are in resource_model.cpp and
// docs/kernel-names.md.
#include <optional>

#include "kernels/kernel_config.h"

namespace moetune::kernels {

// How the warps of a workgroup split its tile: warps_m x warps_n warps, each owning a
// (tile_m/warps_m) x (tile_n/warps_n) block. Passed to the templates as MOETUNE_WARPS_M/N.
struct WarpGrid {
    int warps_m = 1;
    int warps_n = 1;
};

// Smallest warp block: 16 rows (the MMA M) by 16 columns, or 32 W1 rows in stage 1 (a 16-row gate
// block with its up block, so SiLU(gate)*up stays in one warp's registers).
int min_warp_tile_n(Stage s);

// The grid with the squarest warp blocks (smallest per-warp operand fragments, warp_m + warp_n);
// nullopt when the warps cannot each get at least a 16 x min_warp_tile_n block.
std::optional<WarpGrid> warp_grid(const KernelConfig& c);

struct ResourceEstimate {
    int shared_memory_bytes = 0;
    int registers_per_thread = 0;
};

// Requires warp_grid(c) to exist (throws std::invalid_argument otherwise). warp_size: 32 or 64.
ResourceEstimate estimate_resources(const KernelConfig& c, int warp_size);

}  // namespace moetune::kernels
