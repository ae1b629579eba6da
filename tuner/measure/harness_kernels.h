#pragma once
// The kernels the harness itself runs around the candidates, compiled and loaded once per process
// and device: the weight-layout permutation (kernel_templates/weight_layout.hip) and stage 2's
// reduce (moe_reduce.hip), which every reduce-mode candidate is timed with.
#include <map>
#include <string>
#include <vector>

#include "gpu/module.h"
#include "rtc/compile_request.h"
#include "rtc/kernel_cache.h"

namespace moetune::measure {

namespace harness_kernel_names {
inline constexpr int kLayoutThreads = 256;
inline constexpr const char* kFragmentsGateUp = "weight_layout_fragments<256, true>";
inline constexpr const char* kFragments = "weight_layout_fragments<256, false>";
inline constexpr const char* kRowsGateUp = "weight_layout_rows<256, true>";
inline constexpr const char* kRows = "weight_layout_rows<256, false>";
// ... and the _gemv kernels' copy (common/mx_f16_gemv.h): values in the f16 code, and their scales.
inline constexpr const char* kF16TilesGateUp = "weight_layout_f16_tiles<256, true>";
inline constexpr const char* kF16Tiles = "weight_layout_f16_tiles<256, false>";
inline constexpr const char* kF16TileScalesGateUp = "weight_layout_f16_tile_scales<256, true>";
inline constexpr const char* kF16TileScales = "weight_layout_f16_tile_scales<256, false>";
// weight_rebase.hip: the kernel layout -> rebased weight rows of the FP8 warpgroup-product kernels.
inline constexpr const char* kRebaseBases = "weight_rebase_bases<256>";
inline constexpr const char* kRebaseValues = "weight_rebase_values<256>";
// ... and -> FP4 blocks (common/fp4_weight_blocks.h) of the _ws kernels that rebase them themselves.
inline constexpr const char* kFp4Blocks = "weight_fp4_blocks<256>";
// kernels::kReduceThreads threads (reduce_launch_geometry).
inline constexpr const char* kReduce = "moe_reduce_kernel<256>";
}  // namespace harness_kernel_names

class HarnessKernels {
public:
    // What gets compiled for `arch`; needs no GPU (tests compile it on the CPU-only host).
    static std::vector<rtc::CompileRequest> requests(const std::string& arch);

    // Compiles (through `cache` when not null) for the current device and loads.
    explicit HarnessKernels(const rtc::KernelCache* cache);

    // Throws std::out_of_range for a name not in harness_kernel_names.
    const gpu::Kernel& kernel(const std::string& name_expression) const;

private:
    std::vector<gpu::Module> modules_;
    std::map<std::string, gpu::Kernel> kernels_;
};

// Everything a worker compiles besides the candidates: the data kernels (data::DataKernels), the
// harness kernels and the SM clock probe. A parent compiles these into the shared cache too, so a
// fresh worker (the first, or one replacing a crashed one) starts without compiling, well within its
// task timeout.
std::vector<rtc::CompileRequest> worker_support_requests(const std::string& arch);

}  // namespace moetune::measure
