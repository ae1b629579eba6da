#include "measure/shape_weights.h"

#include "data_gpu/synthetic_inputs_gpu.h"
#include "measure/weight_layout_gpu.h"

namespace moetune::measure {

ShapeWeights::ShapeWeights(const data::DataKernels& data_kernels, const HarnessKernels& harness_kernels,
                           const data::MoeShape& shape, uint64_t seed, const gpu::Stream& stream)
    : shape_(shape),
      seed_(seed),
      logical_(data::generate_synthetic_weights_gpu(data_kernels, shape, seed, stream)),
      kernel_layout_(lay_out_mma_k128_gpu(harness_kernels, shape, logical_, stream)) {
    stream.synchronize();
}

bool ShapeWeights::serves(const data::MoeShape& shape, uint64_t seed) const {
    // The weights do not depend on the token count or top-k.
    return seed == seed_ && shape.model_dim == shape_.model_dim && shape.inter_dim == shape_.inter_dim &&
           shape.experts == shape_.experts;
}

const DeviceRebasedWeights& ShapeWeights::rebased(const HarnessKernels& harness_kernels,
                                                  const gpu::Stream& stream) const {
    if (rebased_) return *rebased_;
    const long long w1_rows = 2LL * shape_.inter_dim * shape_.experts, w2_rows = 1LL * shape_.model_dim * shape_.experts;
    DeviceRebasedWeights r{gpu::DeviceBuffer<uint8_t>(std::size_t(w1_rows) * shape_.model_dim),
                           gpu::DeviceBuffer<uint8_t>(std::size_t(w1_rows)),
                           gpu::DeviceBuffer<uint8_t>(std::size_t(w2_rows) * shape_.inter_dim),
                           gpu::DeviceBuffer<uint8_t>(std::size_t(w2_rows))};
    rebase_weights_gpu(harness_kernels, kernel_layout_.w1.data(), kernel_layout_.w1_scale.data(), w1_rows,
                       shape_.model_dim, r.w1.data(), r.w1_base.data(), stream);
    rebase_weights_gpu(harness_kernels, kernel_layout_.w2.data(), kernel_layout_.w2_scale.data(), w2_rows,
                       shape_.inter_dim, r.w2.data(), r.w2_base.data(), stream);
    stream.synchronize();
    return rebased_.emplace(std::move(r));
}

}  // namespace moetune::measure
