#include "measure/weight_rebase_gpu.h"

#include <stdexcept>

#include "common/fp4_weight_blocks.h"
#include "data_gpu/launch_grid.h"
#include "kernels/kernel_config.h"
#include "measure/weight_layout_gpu.h"

namespace moetune::measure {

std::size_t rebased_tensor_bytes(const formats::ExpertWeightDims& d, bool bases) {
    const kernels::WeightCopyBytes e = kernels::expert_bytes(kernels::WeightCopy::rebased_e4m3, d.rows, d.cols);
    return std::size_t(d.experts) * std::size_t(bases ? e.scales : e.values);
}

namespace {

constexpr unsigned kThreads = 256;  // the kernels' template argument (harness_kernels.h)

// Every row's base, then `values` (kRebaseValues or kFp4Blocks) from the coded vectors.
void run_rebasing(const HarnessKernels& kernels, const char* values, const formats::ExpertWeightDims& d,
                  const uint8_t* coded, const uint8_t* scales, uint8_t* out, uint8_t* bases, const gpu::Stream& stream) {
    const long long rows = 1LL * d.experts * d.rows;
    const int K = d.cols;
    if (rows % 8 != 0 || K % 128 != 0)
        throw std::invalid_argument(std::string(values) + ": rows % 8 or K % 128 is not 0");
    kernels.kernel(harness_kernel_names::kRebaseBases)
        .launch({{data::grid_stride_blocks(std::uint64_t(rows) * 32, kThreads) /* a warp a row */}, {kThreads}}, stream,
                scales, rows, K / 32, bases);
    kernels.kernel(values).launch({{data::grid_stride_blocks(std::uint64_t(rows) * K / 32, kThreads)}, {kThreads}},
                                  stream, coded, scales, static_cast<const uint8_t*>(bases), rows, K, out);
}

// Both tensors of a shape through `tensor` (rebase_weights_gpu or fp4_weight_blocks_gpu), `bytes`
// each (rebased_tensor_bytes or fp4_blocks_bytes).
template <class Bytes, class Tensor>
DeviceRebasedWeights both_tensors(const HarnessKernels& kernels, Bytes bytes, Tensor tensor, const data::MoeShape& shape,
                                  const data::DeviceMoeWeights& kernel_layout, const gpu::Stream& stream) {
    const formats::ExpertWeightDims w1 = expert_weight_dims(shape, formats::WeightRole::gate_up);
    const formats::ExpertWeightDims w2 = expert_weight_dims(shape, formats::WeightRole::down);
    DeviceRebasedWeights r{gpu::DeviceBuffer<uint8_t>(bytes(w1)), gpu::DeviceBuffer<uint8_t>(rebased_tensor_bytes(w1, true)),
                           gpu::DeviceBuffer<uint8_t>(bytes(w2)), gpu::DeviceBuffer<uint8_t>(rebased_tensor_bytes(w2, true))};
    tensor(kernels, w1, kernel_layout.w1.data(), kernel_layout.w1_scale.data(), r.w1.data(), r.w1_base.data(), stream);
    tensor(kernels, w2, kernel_layout.w2.data(), kernel_layout.w2_scale.data(), r.w2.data(), r.w2_base.data(), stream);
    return r;
}

}  // namespace

void rebase_weights_gpu(const HarnessKernels& kernels, const formats::ExpertWeightDims& d, const uint8_t* coded,
                        const uint8_t* scales, uint8_t* rebased, uint8_t* bases, const gpu::Stream& stream) {
    run_rebasing(kernels, harness_kernel_names::kRebaseValues, d, coded, scales, rebased, bases, stream);
}

DeviceRebasedWeights rebase_weights_gpu(const HarnessKernels& kernels, const data::MoeShape& shape,
                                        const data::DeviceMoeWeights& kernel_layout, const gpu::Stream& stream) {
    const auto bytes = [](const formats::ExpertWeightDims& d) { return rebased_tensor_bytes(d, false); };
    const auto tensor = [](auto&&... args) { rebase_weights_gpu(args...); };
    return both_tensors(kernels, bytes, tensor, shape, kernel_layout, stream);
}

std::size_t fp4_blocks_bytes(const formats::ExpertWeightDims& d) {
    return std::size_t(d.experts) *
           std::size_t(kernels::expert_bytes(kernels::WeightCopy::fp4_blocks, d.rows, d.cols).values);
}

void fp4_weight_blocks_gpu(const HarnessKernels& kernels, const formats::ExpertWeightDims& d, const uint8_t* coded,
                           const uint8_t* scales, uint8_t* blocks, uint8_t* bases, const gpu::Stream& stream) {
    // The kernels find expert e's blocks at e * rows * row bytes: each expert's rows are whole blocks.
    if (d.rows % kMxFp4BlockRows != 0)
        throw std::invalid_argument("fp4_weight_blocks_gpu: an expert's rows are not whole 64-row blocks");
    run_rebasing(kernels, harness_kernel_names::kFp4Blocks, d, coded, scales, blocks, bases, stream);
}

DeviceRebasedWeights fp4_weight_blocks_gpu(const HarnessKernels& kernels, const data::MoeShape& shape,
                                           const data::DeviceMoeWeights& kernel_layout, const gpu::Stream& stream) {
    const auto tensor = [](auto&&... args) { fp4_weight_blocks_gpu(args...); };
    return both_tensors(kernels, fp4_blocks_bytes, tensor, shape, kernel_layout, stream);
}

}  // namespace moetune::measure
