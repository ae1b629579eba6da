#include "measure/harness_kernels.h"

#include <stdexcept>

#include "data_gpu/data_kernels.h"
#include "gpu/device.h"
#include "kernels/launch_geometry.h"
#include "measure/sm_clock_probe.h"
#include "rtc/compiler.h"

namespace moetune::measure {

static_assert(kernels::kReduceThreads == 256, "harness_kernel_names::kReduce instantiates 256 threads");
static_assert(harness_kernel_names::kLayoutThreads == 256, "the layout name expressions instantiate 256 threads");

std::vector<rtc::CompileRequest> HarnessKernels::requests(const std::string& arch) {
    using namespace harness_kernel_names;
    return {rtc::template_request("weight_layout.hip",
                                  {kFragmentsGateUp, kFragments, kRowsGateUp, kRows, kF16TilesGateUp, kF16Tiles,
                                   kF16TileScalesGateUp, kF16TileScales},
                                  arch),
            rtc::template_request("weight_rebase.hip", {kRebaseBases, kRebaseValues, kFp4Blocks}, arch),
            rtc::template_request("moe_reduce.hip", {kReduce}, arch)};
}

HarnessKernels::HarnessKernels(const rtc::KernelCache* cache) {
    const std::string arch = gpu::device_info(gpu::current_device()).arch;
    for (const rtc::CompileRequest& request : requests(arch)) {
        const rtc::CompiledCode code = rtc::compile(request, cache);
        const gpu::Module& module = modules_.emplace_back(code.code);
        for (std::size_t k = 0; k < request.name_expressions.size(); ++k)
            kernels_.emplace(request.name_expressions[k], module.kernel(code.lowered_names[k]));
    }
}

std::vector<rtc::CompileRequest> worker_support_requests(const std::string& arch) {
    std::vector<rtc::CompileRequest> all = data::DataKernels::requests(arch);
    for (rtc::CompileRequest& r : HarnessKernels::requests(arch)) all.push_back(std::move(r));
    all.push_back(SmClockProbe::request(arch));
    return all;
}

const gpu::Kernel& HarnessKernels::kernel(const std::string& name_expression) const {
    const auto it = kernels_.find(name_expression);
    if (it == kernels_.end()) throw std::out_of_range("no harness kernel '" + name_expression + "' is loaded");
    return it->second;
}

}  // namespace moetune::measure
