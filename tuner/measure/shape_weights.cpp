#include "measure/shape_weights.h"

#include "data_gpu/synthetic_inputs_gpu.h"
#include "formats/e2m1_code.h"
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

namespace {

// The copy in `slot`, made on `stream` by `make` at the first call, which returns when it is complete.
template <class T, class Make>
const T& made_once(std::optional<T>& slot, const gpu::Stream& stream, Make make) {
    if (!slot) {
        slot.emplace(make());
        stream.synchronize();
    }
    return *slot;
}

}  // namespace

const DeviceRebasedWeights& ShapeWeights::rebased(const HarnessKernels& harness_kernels,
                                                  const gpu::Stream& stream) const {
    return made_once(rebased_, stream, [&] { return rebase_weights_gpu(harness_kernels, shape_, kernel_layout_, stream); });
}

const DeviceRebasedWeights& ShapeWeights::fp4_blocks(const HarnessKernels& harness_kernels,
                                                     const gpu::Stream& stream) const {
    return made_once(fp4_blocks_, stream,
                     [&] { return fp4_weight_blocks_gpu(harness_kernels, shape_, kernel_layout_, stream); });
}

const gpu::DeviceBuffer<uint8_t>& ShapeWeights::e4m3_coded(kernels::Stage stage, const HarnessKernels& harness_kernels,
                                                           const gpu::Stream& stream) const {
    const bool gate_up = stage == kernels::Stage::gate_up;
    const formats::WeightRole role = gate_up ? formats::WeightRole::gate_up : formats::WeightRole::down;
    return made_once(e4m3_coded_[gate_up ? 0 : 1], stream, [&] {
        return lay_out_mma_k128_gpu(harness_kernels, role, expert_weight_dims(shape_, role), false,
                                    gate_up ? logical_.w1 : logical_.w2, stream, formats::e2m1_e4m3_code());
    });
}

const data::DeviceMoeWeights& ShapeWeights::f16_tiles(const HarnessKernels& harness_kernels,
                                                      const gpu::Stream& stream) const {
    return made_once(f16_tiles_, stream, [&] { return lay_out_f16_tiles_gpu(harness_kernels, shape_, logical_, stream); });
}

}  // namespace moetune::measure
