#pragma once
// MXFP8 -> rebased rows (kernel_templates/mxfp8_rebase.hip, common/mx_rebase.h), what the FP8
// warpgroup-product kernels read (kernels::reads_rebased_rows, reads_interleaved_rows): per row one e8m0 base and
// e4m3 values relative to it.
#include <cstdint>

#include "data_gpu/data_kernels.h"
#include "data_gpu/device_moe_data.h"
#include "gpu/device_buffer.h"
#include "gpu/stream.h"

namespace moetune::data {

struct DeviceRebasedMatrix {
    int rows = 0;
    int cols = 0;
    gpu::DeviceBuffer<uint8_t> values;  // rows*cols e4m3fn
    gpu::DeviceBuffer<uint8_t> bases;   // rows e8m0
};

// Enqueues the rebasing of [rows, cols] MXFP8 (cols a multiple of 32) into buffers the caller owns:
// allocates nothing, capturable. interleave_words: each 32-byte block's words in the order 0, 2, 4,
// 6, 1, 3, 5, 7 (what the FP8 register-fed kernels read, kernels::reads_interleaved_rows).
void enqueue_rebase_mxfp8(const DataKernels& kernels, const uint8_t* values, const uint8_t* scales, int rows, int cols,
                          uint8_t* rebased, uint8_t* bases, const gpu::Stream& stream, bool interleave_words = false);

// m rebased. Enqueued on `stream`.
DeviceRebasedMatrix rebase_mxfp8_gpu(const DataKernels& kernels, const DeviceMxfpMatrix& m, const gpu::Stream& stream,
                                     bool interleave_words = false);

}  // namespace moetune::data
