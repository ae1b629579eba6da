#pragma once
// Expert weights in the kernel layout -> rebased rows (kernel_templates/weight_rebase.hip,
// common/mx_rebase.h), what the shared-operand FP8 warpgroup kernels read (kernels::weight_copy):
// e4m3 [experts * rows, cols] in the blocks of common/rebased_weight_layout.h and one e8m0 base per
// row, in the kernel layout's row order.
// Byte for byte formats::rebase_coded_weights.
#include <cstddef>
#include <cstdint>

#include "data/moe_problem.h"
#include "data_gpu/device_moe_data.h"
#include "formats/weight_layout.h"
#include "gpu/device_buffer.h"
#include "gpu/stream.h"
#include "measure/harness_kernels.h"

namespace moetune::measure {

// w1 and w2 rebased (or as FP4 blocks) and their bases.
struct DeviceRebasedWeights {
    gpu::DeviceBuffer<uint8_t> w1, w1_base, w2, w2_base;
};

// The bytes of one rebased tensor: its e4m3 values (bases == false, experts*rows*cols) or its bases
// (experts*rows), twice and 1/16 of weight_tensor_bytes' (weight_layout_gpu.h).
std::size_t rebased_tensor_bytes(const formats::ExpertWeightDims& dims, bool bases);

// One tensor between buffers the caller owns: coded and scales in the kernel layout
// (weight_tensor_bytes each), rebased and bases out (rebased_tensor_bytes each). Enqueued on
// `stream`, allocates nothing.
void rebase_weights_gpu(const HarnessKernels& kernels, const formats::ExpertWeightDims& dims, const uint8_t* coded,
                        const uint8_t* scales, uint8_t* rebased, uint8_t* bases, const gpu::Stream& stream);

// Both tensors of a shape's weights in the kernel layout. Enqueued on `stream`.
DeviceRebasedWeights rebase_weights_gpu(const HarnessKernels& kernels, const data::MoeShape& shape,
                                        const data::DeviceMoeWeights& kernel_layout, const gpu::Stream& stream);

// The same weights as FP4 blocks (kernel_templates/common/fp4_weight_blocks.h:
// experts*rows * mx_fp4_blocks_row_bytes(cols) bytes of codes and table rows) and the same bases:
// what the _ws kernels with FP4 weights read (kernels::WeightCopy::fp4_blocks). Byte for byte
// formats::fp4_weight_blocks.
std::size_t fp4_blocks_bytes(const formats::ExpertWeightDims& dims);
void fp4_weight_blocks_gpu(const HarnessKernels& kernels, const formats::ExpertWeightDims& dims, const uint8_t* coded,
                           const uint8_t* scales, uint8_t* blocks, uint8_t* bases, const gpu::Stream& stream);
DeviceRebasedWeights fp4_weight_blocks_gpu(const HarnessKernels& kernels, const data::MoeShape& shape,
                                           const data::DeviceMoeWeights& kernel_layout, const gpu::Stream& stream);

}  // namespace moetune::measure
