#include "runtime/stage_kernels.h"

#include <algorithm>
#include <future>
#include <stdexcept>
#include <thread>

#include "instantiate/kernel_request.h"
#include "kernels/kernel_name.h"
#include "rtc/compile_pool.h"

namespace moetune::runtime {

void StageKernels::load(const std::vector<kernels::KernelConfig>& configs, const std::string& arch,
                        const rtc::KernelCache& cache) {
    std::map<std::string, kernels::KernelConfig> missing;
    for (const kernels::KernelConfig& c : configs) {
        std::string name = kernels::kernel_name(c);
        if (!kernels_.count(name)) missing.emplace(std::move(name), c);
    }
    if (missing.empty()) return;
    const unsigned threads = std::clamp<unsigned>(std::thread::hardware_concurrency(), 1, unsigned(missing.size()));
    rtc::CompilePool pool(&cache, threads);
    std::vector<std::pair<std::string, std::future<rtc::CompiledCode>>> compiled;
    for (const auto& [name, config] : missing)
        compiled.emplace_back(name, pool.submit(instantiate::kernel_compile_request(config, arch)));
    for (auto& [name, future] : compiled) {
        const rtc::CompiledCode code = future.get();
        const gpu::Module& module = modules_.emplace_back(code.code);
        kernels_.emplace(name, module.kernel(code.lowered_names.at(0)));
    }
}

const gpu::Kernel& StageKernels::kernel(const kernels::KernelConfig& config) const {
    const std::string name = kernels::kernel_name(config);
    const auto it = kernels_.find(name);
    if (it == kernels_.end()) throw std::out_of_range("kernel " + name + " is not loaded");
    return it->second;
}

}  // namespace moetune::runtime
