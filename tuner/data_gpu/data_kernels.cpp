#include "data_gpu/data_kernels.h"

#include <future>
#include <stdexcept>

#include "gpu/device.h"
#include "rtc/compile_pool.h"

namespace moetune::data {

std::vector<rtc::CompileRequest> DataKernels::requests(const std::string& arch) {
    using namespace kernel_names;
    std::vector<rtc::CompileRequest> r;
    // Sort, synthetic data and quantisation must equal the CPU bit for bit: no FMA contraction.
    r.push_back(rtc::template_request("moe_sort.hip", {kSortCount, kSortScatter, kSortOneChunk}, arch));
    r.push_back(rtc::template_request("synthetic_weights.hip", {kSynthFp4, kSynthE8m0, kSynthHidden}, arch));
    r.push_back(rtc::template_request(
        "mxfp8_quant.hip",
        {kQuantF32, kQuantF32Unit, kQuantF32Bf16, kQuantF32Bf16Unit, kQuantBf16, kQuantBf16Unit, kQuantBf16Interleaved, kQuantBf16Wide,
         kQuantBf16Rebased[0][0], kQuantBf16Rebased[0][1], kQuantBf16Rebased[1][0], kQuantBf16Rebased[1][1]},
        arch));
    r.push_back(rtc::template_request("mxfp8_widen.hip", {kWiden, kF16Rows}, arch));
    r.push_back(rtc::template_request("mxfp8_rebase.hip", {kRebase, kRebaseInterleaved}, arch));
    for (rtc::CompileRequest& exact : r) exact.exact_float = true;
    // The reference agrees with the CPU within FP32 rounding, which FMA contraction stays inside.
    r.push_back(rtc::template_request("reference_moe.hip", {kGroupedGemm, kSiluMul, kWeightedTopkSum}, arch));
    return r;
}

DataKernels::DataKernels(const rtc::KernelCache* cache) {
    const std::string arch = gpu::device_info(gpu::current_device()).arch;
    const std::vector<rtc::CompileRequest> reqs = requests(arch);
    rtc::CompilePool pool(cache, static_cast<unsigned>(reqs.size()));
    std::vector<std::future<rtc::CompiledCode>> compiled;
    for (const rtc::CompileRequest& r : reqs) compiled.push_back(pool.submit(r));
    for (std::size_t i = 0; i < reqs.size(); ++i) {
        const rtc::CompiledCode code = compiled[i].get();
        const gpu::Module& module = modules_.emplace_back(code.code);
        for (std::size_t k = 0; k < reqs[i].name_expressions.size(); ++k)
            kernels_.emplace(reqs[i].name_expressions[k], module.kernel(code.lowered_names[k]));
    }
}

const gpu::Kernel& DataKernels::kernel(const std::string& name_expression) const {
    const auto it = kernels_.find(name_expression);
    if (it == kernels_.end()) throw std::out_of_range("no data kernel '" + name_expression + "' is loaded");
    return it->second;
}

}  // namespace moetune::data
