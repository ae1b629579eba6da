#include "data_gpu/synthetic_inputs_gpu.h"

#include <stdexcept>

#include "common/synthetic.h"
#include "data_gpu/launch_grid.h"
#include "data_gpu/mxfp8_quant_gpu.h"

namespace moetune::data {
namespace {

void check_shape(const MoeShape& s) {
    if (s.tokens < 0 || s.model_dim <= 0 || s.inter_dim <= 0 || s.experts <= 0 || s.topk <= 0)
        throw std::invalid_argument("synthetic inputs (GPU): shape dimensions must be positive");
    if (s.model_dim % formats::kMxBlock != 0 || s.inter_dim % formats::kMxBlock != 0)
        throw std::invalid_argument("synthetic inputs (GPU): model_dim and inter_dim must be multiples of 32");
}

// One stream of synthetic bytes (a weight or scale tensor) into a new buffer.
gpu::DeviceBuffer<uint8_t> generate_bytes(const DataKernels& kernels, const char* kernel, unsigned synth_stream,
                                          unsigned long long count, uint64_t seed, const gpu::Stream& stream) {
    gpu::DeviceBuffer<uint8_t> out(count);
    const unsigned long long seed_arg = seed;
    kernels.kernel(kernel).launch(
        {{grid_stride_blocks(count, kernel_names::kElementwiseThreads)}, {kernel_names::kElementwiseThreads}}, stream,
        out.data(), count, seed_arg, synth_stream);
    return out;
}

}  // namespace

DeviceMoeWeights generate_synthetic_weights_gpu(const DataKernels& kernels, const MoeShape& shape, uint64_t seed,
                                                const gpu::Stream& stream) {
    using namespace kernel_names;
    check_shape(shape);
    const unsigned long long e = shape.experts, model = shape.model_dim, inter = shape.inter_dim;
    DeviceMoeWeights w;
    w.w1 = generate_bytes(kernels, kSynthFp4, MX_SYNTH_W1, e * 2 * inter * model / 2, seed, stream);
    w.w1_scale = generate_bytes(kernels, kSynthE8m0, MX_SYNTH_W1_SCALE, e * 2 * inter * model / 32, seed, stream);
    w.w2 = generate_bytes(kernels, kSynthFp4, MX_SYNTH_W2, e * model * inter / 2, seed, stream);
    w.w2_scale = generate_bytes(kernels, kSynthE8m0, MX_SYNTH_W2_SCALE, e * model * inter / 32, seed, stream);
    return w;
}

gpu::DeviceBuffer<float> generate_synthetic_hidden_gpu(const DataKernels& kernels, const MoeShape& shape, uint64_t seed,
                                                       const gpu::Stream& stream) {
    check_shape(shape);
    const unsigned long long count = static_cast<unsigned long long>(shape.tokens) * shape.model_dim;
    gpu::DeviceBuffer<float> hidden(count);
    const unsigned long long seed_arg = seed;
    kernels.kernel(kernel_names::kSynthHidden)
        .launch({{grid_stride_blocks(count, kernel_names::kElementwiseThreads)}, {kernel_names::kElementwiseThreads}},
                stream, hidden.data(), count, seed_arg);
    return hidden;
}

DeviceMxfpMatrix generate_synthetic_activations_gpu(const DataKernels& kernels, const MoeShape& shape, uint64_t seed,
                                                    formats::ActivationScales mode, const gpu::Stream& stream) {
    const gpu::DeviceBuffer<float> hidden = generate_synthetic_hidden_gpu(kernels, shape, seed, stream);
    DeviceMxfpMatrix act =
        quantize_mxfp8_gpu(kernels, hidden, shape.tokens, shape.model_dim, mode, Bf16Rounding::none, stream);
    // `hidden` is freed on return; the quantisation reading it must have run by then.
    stream.synchronize();
    return act;
}

MoeWeights generate_synthetic_weights_gpu(const DataKernels& kernels, const MoeShape& shape, uint64_t seed) {
    const gpu::Stream stream;
    const DeviceMoeWeights w = generate_synthetic_weights_gpu(kernels, shape, seed, stream);
    stream.synchronize();
    return download(w);
}

}  // namespace moetune::data
