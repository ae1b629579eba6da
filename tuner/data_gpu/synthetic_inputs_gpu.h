#pragma once
// Seeded synthetic MoE inputs generated on the GPU (kernel_templates/synthetic_weights.hip): the
// same bytes as data/synthetic_inputs.h computes on the CPU, in milliseconds instead of tens of
// seconds for DSv4.1-Flash's 1.7 GB of weights, and with no upload.
#include <cstdint>

#include "data/moe_problem.h"
#include "data_gpu/data_kernels.h"
#include "data_gpu/device_moe_data.h"
#include "formats/mx_quantize.h"
#include "gpu/stream.h"

namespace moetune::data {

// make_synthetic_weights on the device. Enqueued on `stream`.
DeviceMoeWeights generate_synthetic_weights_gpu(const DataKernels& kernels, const MoeShape& shape, uint64_t seed,
                                                const gpu::Stream& stream);
// make_synthetic_hidden on the device: [tokens, model_dim] floats, each exactly a bf16 value.
gpu::DeviceBuffer<float> generate_synthetic_hidden_gpu(const DataKernels& kernels, const MoeShape& shape, uint64_t seed,
                                                       const gpu::Stream& stream);
// make_synthetic_activations on the device: the hidden states quantised to MXFP8.
DeviceMxfpMatrix generate_synthetic_activations_gpu(const DataKernels& kernels, const MoeShape& shape, uint64_t seed,
                                                    formats::ActivationScales mode, const gpu::Stream& stream);

// Generates and downloads, for tests.
MoeWeights generate_synthetic_weights_gpu(const DataKernels& kernels, const MoeShape& shape, uint64_t seed);

}  // namespace moetune::data
