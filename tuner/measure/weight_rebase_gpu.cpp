#include "measure/weight_rebase_gpu.h"

#include <algorithm>
#include <stdexcept>

namespace moetune::measure {

void rebase_weights_gpu(const HarnessKernels& kernels, const uint8_t* coded, const uint8_t* scales, long long rows,
                        int K, uint8_t* rebased, uint8_t* bases, const gpu::Stream& stream) {
    if (rows % 8 != 0 || K % 128 != 0) throw std::invalid_argument("rebase_weights_gpu: rows % 8 or K % 128 is not 0");
    constexpr unsigned kThreads = 256;
    const auto blocks = [](long long work) { return unsigned(std::clamp<long long>((work + kThreads - 1) / kThreads, 1, 8192)); };
    kernels.kernel(harness_kernel_names::kRebaseBases)
        .launch({{blocks(rows * 32)}, {kThreads}}, stream, scales, rows, K / 32, bases);
    kernels.kernel(harness_kernel_names::kRebaseValues)
        .launch({{blocks(rows * K / 32)}, {kThreads}}, stream, coded, scales, static_cast<const uint8_t*>(bases), rows,
                K, rebased);
}

}  // namespace moetune::measure
