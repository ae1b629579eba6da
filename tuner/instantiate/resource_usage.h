#pragma once
// What the compiler says a kernel uses: registers per thread and bytes spilled to local memory.
// A kernel that spills is pruned after compiling ("spills N bytes"): the resource model
// (kernels/resource_model.h) estimates registers before compiling, the compiler has the last word.
//   NVIDIA: ptxas -v lines in the program log (kernel_compile_request asks for them).
//   AMD: the code object's metadata (.vgpr_count, .vgpr_spill_count; one spilled VGPR = 4 bytes
//        per lane).
#include <optional>
#include <string>
#include <string_view>

#include "kernels/kernel_config.h"
#include "rtc/compiled_code.h"

namespace moetune::instantiate {

struct ResourceUsage {
    int registers = 0;    // per thread (AMD: VGPRs per lane); the largest over the code's kernels
    int spill_bytes = 0;  // per thread, summed over the code's kernels
};

// nullopt when the code carries no report (compiled without kernel_compile_request's options, or
// an arch that is neither sm_* nor gfx*).
std::optional<ResourceUsage> resource_usage(const rtc::CompiledCode& code, std::string_view arch);

// The pruning reason of a kernel that spills ("spills 52 bytes at 255 registers"); nullopt when it
// does not, or when its config bounds the occupancy (_occ{n}): that kernel asked the compiler to
// trade spills for resident warps, and only its measurement says whether the trade pays.
std::optional<std::string> spill_reason(const ResourceUsage& usage, const kernels::KernelConfig& config);

}  // namespace moetune::instantiate
