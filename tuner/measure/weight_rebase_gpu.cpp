#include "measure/weight_rebase_gpu.h"

#include <stdexcept>

#include "data_gpu/launch_grid.h"
#include "measure/weight_layout_gpu.h"

namespace moetune::measure {

std::size_t rebased_tensor_bytes(const formats::ExpertWeightDims& d, bool bases) {
    const std::size_t rows = std::size_t(d.experts) * d.rows;
    return bases ? rows : rows * d.cols;
}

void rebase_weights_gpu(const HarnessKernels& kernels, const formats::ExpertWeightDims& d, const uint8_t* coded,
                        const uint8_t* scales, uint8_t* rebased, uint8_t* bases, const gpu::Stream& stream) {
    const long long rows = 1LL * d.experts * d.rows;
    const int K = d.cols;
    if (rows % 8 != 0 || K % 128 != 0) throw std::invalid_argument("rebase_weights_gpu: rows % 8 or K % 128 is not 0");
    constexpr unsigned kThreads = 256;  // the kernels' template argument (harness_kernels.h)
    kernels.kernel(harness_kernel_names::kRebaseBases)
        .launch({{data::grid_stride_blocks(std::uint64_t(rows) * 32, kThreads) /* a warp a row */}, {kThreads}}, stream,
                scales, rows, K / 32, bases);
    kernels.kernel(harness_kernel_names::kRebaseValues)
        .launch({{data::grid_stride_blocks(std::uint64_t(rows) * K / 32, kThreads)}, {kThreads}}, stream, coded, scales,
                static_cast<const uint8_t*>(bases), rows, K, rebased);
}

DeviceRebasedWeights rebase_weights_gpu(const HarnessKernels& kernels, const data::MoeShape& shape,
                                        const data::DeviceMoeWeights& kernel_layout, const gpu::Stream& stream) {
    const formats::ExpertWeightDims w1 = expert_weight_dims(shape, formats::WeightRole::gate_up);
    const formats::ExpertWeightDims w2 = expert_weight_dims(shape, formats::WeightRole::down);
    DeviceRebasedWeights r{gpu::DeviceBuffer<uint8_t>(rebased_tensor_bytes(w1, false)),
                           gpu::DeviceBuffer<uint8_t>(rebased_tensor_bytes(w1, true)),
                           gpu::DeviceBuffer<uint8_t>(rebased_tensor_bytes(w2, false)),
                           gpu::DeviceBuffer<uint8_t>(rebased_tensor_bytes(w2, true))};
    rebase_weights_gpu(kernels, w1, kernel_layout.w1.data(), kernel_layout.w1_scale.data(), r.w1.data(),
                       r.w1_base.data(), stream);
    rebase_weights_gpu(kernels, w2, kernel_layout.w2.data(), kernel_layout.w2_scale.data(), r.w2.data(),
                       r.w2_base.data(), stream);
    return r;
}

}  // namespace moetune::measure
