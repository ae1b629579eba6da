#pragma once
// The stage kernels FusedMoe runs, compiled from their configs (instantiate::kernel_compile_request,
// the request every compile of a candidate uses, so kernels a sweep or `moetune compile` built are
// cache hits) and loaded on the current device.
#include <map>
#include <string>
#include <vector>

#include "gpu/module.h"
#include "kernels/kernel_config.h"
#include "rtc/kernel_cache.h"

namespace moetune::runtime {

class StageKernels {
public:
    // Compiles for `arch` (or loads from `cache`) every config not loaded yet, the misses in
    // parallel, and loads them. Throws rtc::CompileError when the compiler rejects one.
    void load(const std::vector<kernels::KernelConfig>& configs, const std::string& arch,
              const rtc::KernelCache& cache);

    // Throws std::out_of_range for a config load() was not given.
    const gpu::Kernel& kernel(const kernels::KernelConfig& config) const;

private:
    std::vector<gpu::Module> modules_;
    std::map<std::string, gpu::Kernel> kernels_;  // by kernel name
};

}  // namespace moetune::runtime
