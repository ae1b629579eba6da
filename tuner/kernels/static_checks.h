#pragma once
// Hard static checks, decided without compiling: is a shape something the kernels can run at all,
// and can a config run that shape on a device. Each failure comes back as a readable reason.
// (Heuristic, overridable prunes are in shape_heuristics.h; spills found by the compiler in
// instantiate/resource_usage.h.)
#include <optional>
#include <string>

#include "data/moe_problem.h"
#include "kernels/device_limits.h"
#include "kernels/kernel_config.h"

namespace moetune::kernels {

// Why no kernel can run this shape (K of either GEMM not a multiple of the 128-wide K chunk, top-k
// or tokens beyond what moe_sorting's packed ids hold); nullopt when it is fine. shape.tokens is
// the token count.
std::optional<std::string> shape_error(const data::MoeShape& shape);

// Why `c` cannot run `shape` on `limits`: tile_n dividing N, tile_k not beyond K, the warp grid,
// threads, then the resource model's shared memory and registers. nullopt when it can.
// Requires config_error(c) and shape_error(shape) to be nullopt.
std::optional<std::string> static_prune_reason(const KernelConfig& c, const data::MoeShape& shape,
                                               const DeviceLimits& limits);

// Registers a thread gets under the config's occupancy bound (_occ{n}: the register file over n
// workgroups, in the compiler's allocation unit of 8); without one, a single workgroup's share.
int occupancy_register_cap(const KernelConfig& c, const DeviceLimits& limits);
// How far the resource model's estimate may exceed that cap: the kernels measured faster with the
// bound estimated up to 30 registers over it (16-72 bytes of spill); far beyond, the spills cost
// more than the extra warps give.
inline constexpr int kOccupancySpillAllowance = 32;

// Threads of a workgroup: the templates use 32-lane warps on every vendor (a 64-wide AMD wave
// runs two of them).
int threads_per_block(const KernelConfig& c);

}  // namespace moetune::kernels
