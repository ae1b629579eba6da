#pragma once
// MXFP8 -> the wide layout that the bf16 path's register-fed and _wgmma kernels read (kernel_templates/
// mxfp8_widen.hip, common/mx_bf16_widen.h) on the GPU, bit for bit formats::widen_mxfp8; and MXFP8
// values -> the f16 rows of the _gemv kernels, bit for bit formats::mxfp8_values_to_f16_rows.
#include <cstdint>

#include "data_gpu/data_kernels.h"
#include "data_gpu/device_moe_data.h"
#include "gpu/device_buffer.h"
#include "gpu/stream.h"

namespace moetune::data {

// Enqueues the widening of `blocks` 32-element blocks (values: 32 bytes per block, scales: 1) into
// `wide` (32 bf16 per block), buffers the caller owns: allocates nothing, capturable.
void enqueue_widen_mxfp8(const DataKernels& kernels, const uint8_t* values, const uint8_t* scales,
                         unsigned long long blocks, uint16_t* wide, const gpu::Stream& stream);

// [rows, cols] bf16 of m. Enqueued on `stream`.
gpu::DeviceBuffer<uint16_t> widen_mxfp8_gpu(const DataKernels& kernels, const DeviceMxfpMatrix& m,
                                            const gpu::Stream& stream);

// [rows, cols] f16 of m's values in the row order (common/mx_f16_gemv.h; m's scales go with them).
// Enqueued on `stream`.
gpu::DeviceBuffer<uint16_t> mxfp8_to_f16_rows_gpu(const DataKernels& kernels, const DeviceMxfpMatrix& m,
                                                  const gpu::Stream& stream);

}  // namespace moetune::data
