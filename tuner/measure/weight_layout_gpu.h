#pragma once
// Logical expert weights (data::DeviceMoeWeights, as generated and as the reference reads them) into
// formats::WeightLayout::mma_k128, the layout the candidate kernels read: w1 with role gate_up
// (GU16-interleaved rows, tensor-core fragments), w2 with role down. Byte for byte the host's
// formats::lay_out_values / lay_out_scales(mma_k128, ...).
#include <cstddef>
#include <cstdint>

#include "data/moe_problem.h"
#include "data_gpu/device_moe_data.h"
#include "formats/e2m1_code.h"
#include "formats/weight_layout.h"
#include "gpu/device_buffer.h"
#include "gpu/stream.h"
#include "measure/harness_kernels.h"

namespace moetune::measure {

// The dims of a shape's w1 (role gate_up: 2*inter rows of model_dim) or w2 (down: model_dim rows of inter).
formats::ExpertWeightDims expert_weight_dims(const data::MoeShape& shape, formats::WeightRole role);

// The bytes of one tensor: packed FP4 values (scales == false, experts*rows*cols/2) or e8m0 scales
// (experts*rows*cols/32).
std::size_t weight_tensor_bytes(const formats::ExpertWeightDims& dims, bool scales);

// One tensor, between device buffers of weight_tensor_bytes each that the caller owns (a libmoetune
// caller's weights). Enqueued on `stream`, allocates nothing. Throws std::invalid_argument when the
// dims do not suit the layout (the same conditions as the host's) or one expert exceeds 4 GiB.
// `code`: the encoder of the values' code (formats/e2m1_code.h); the kernel layout's by default.
void lay_out_mma_k128_gpu(const HarnessKernels& kernels, formats::WeightRole role,
                          const formats::ExpertWeightDims& dims, bool scales, const uint8_t* logical,
                          uint8_t* kernel_layout, const gpu::Stream& stream, const MxE2m1Code& code = formats::e2m1_code());

// One tensor into a new buffer; also throws when `logical` does not hold weight_tensor_bytes.
gpu::DeviceBuffer<uint8_t> lay_out_mma_k128_gpu(const HarnessKernels& kernels, formats::WeightRole role,
                                                const formats::ExpertWeightDims& dims, bool scales,
                                                const gpu::DeviceBuffer<uint8_t>& logical, const gpu::Stream& stream,
                                                const MxE2m1Code& code = formats::e2m1_code());

// All four tensors of a shape's weights. Enqueued on `stream`.
data::DeviceMoeWeights lay_out_mma_k128_gpu(const HarnessKernels& kernels, const data::MoeShape& shape,
                                            const data::DeviceMoeWeights& logical, const gpu::Stream& stream);

// All four tensors of a shape's weights as the _gemv kernels' copy (kernels::WeightCopy::f16_tiles,
// common/mx_f16_gemv.h), byte for byte formats::lay_out_f16_tile_values / lay_out_f16_tile_scales.
// Enqueued on `stream`. Throws std::invalid_argument when K is not a multiple of 64.
data::DeviceMoeWeights lay_out_f16_tiles_gpu(const HarnessKernels& kernels, const data::MoeShape& shape,
                                             const data::DeviceMoeWeights& logical, const gpu::Stream& stream);

}  // namespace moetune::measure
