#pragma once
// MXFP8 quantisation on the GPU (kernel_templates/mxfp8_quant.hip), bit for bit the CPU's
// formats::quantize_mxfp8 / data::quantize_stage1_output.
#include <cstdint>
#include <iterator>
#include <span>

#include "data/moe_problem.h"
#include "data_gpu/data_kernels.h"
#include "data_gpu/device_moe_data.h"
#include "formats/mx_quantize.h"
#include "gpu/stream.h"

namespace moetune::data {

// to_bf16_first: round each float to bf16 before quantising, as quantize_stage1_output does with
// the stage-1 output (AITER's non-fused path writes it as bf16).
enum class Bf16Rounding { none, to_bf16_first };

// x: [rows, cols] floats (cols a multiple of 32). Enqueued on `stream`.
DeviceMxfpMatrix quantize_mxfp8_gpu(const DataKernels& kernels, const gpu::DeviceBuffer<float>& x, int rows, int cols,
                                    formats::ActivationScales mode, Bf16Rounding rounding, const gpu::Stream& stream);
// x: [rows, cols] bf16 bit patterns.
DeviceMxfpMatrix quantize_mxfp8_gpu(const DataKernels& kernels, const gpu::DeviceBuffer<uint16_t>& x, int rows,
                                    int cols, formats::ActivationScales mode, const gpu::Stream& stream);

// Enqueues the dynamic-scale quantisation of `blocks` 32-element blocks of bf16 bit patterns into
// buffers the caller owns (values: 32 bytes per block, scales: 1): allocates nothing, capturable.
// The activations of libmoetune and the separate quantisation of a bf16 stage-1 output run this.
// interleave_words: each 32-byte block's words in the order of mx_interleaved_source_word
// (common/mx_rebase.h), for the register-fed FP8 kernels that read MXFP8 rows (kernels::reads_mx_rows).
void enqueue_quantize_mxfp8_bf16(const DataKernels& kernels, const uint16_t* x, unsigned long long blocks,
                                 uint8_t* values, uint8_t* scales, const gpu::Stream& stream,
                                 bool interleave_words = false);

// The same quantisation written straight in the wide layout (common/mx_bf16_widen.h: 32 bf16 per
// block), for a consumer that reads only that: what enqueue_quantize_mxfp8_bf16 and then
// enqueue_widen_mxfp8 write, bit for bit, in one pass and without the MXFP8 buffers.
void enqueue_quantize_mxfp8_bf16_wide(const DataKernels& kernels, const uint16_t* x, unsigned long long blocks,
                                      uint16_t* wide, const gpu::Stream& stream);

// The most columns enqueue_quantize_mxfp8_bf16_rebased takes (16384): a workgroup a row of groups of 8
// elements, at most as many groups a lane as kernel_names::kQuantBf16Rebased has kernels for.
inline constexpr int kQuantizeRebasedMaxCols =
    8 * kernel_names::kQuantRebasedThreads * static_cast<int>(std::size(kernel_names::kQuantBf16Rebased));

// The same quantisation written straight as rebased rows (common/mx_rebase.h) of [rows, cols] bf16
// (cols a multiple of 32, at most kQuantizeRebasedMaxCols), for a consumer that reads only those
// (kernels::reads_rebased_rows): what enqueue_quantize_mxfp8_bf16 and then enqueue_rebase_mxfp8 write,
// bit for bit, in one pass and without the MXFP8 buffers. Throws std::invalid_argument for other cols.
void enqueue_quantize_mxfp8_bf16_rebased(const DataKernels& kernels, const uint16_t* x, int rows, int cols,
                                         uint8_t* rebased, uint8_t* bases, const gpu::Stream& stream,
                                         bool interleave_words);

// Uploads, quantises and downloads, for tests.
MxfpMatrix quantize_mxfp8_gpu(const DataKernels& kernels, std::span<const float> x, int rows, int cols,
                              formats::ActivationScales mode, Bf16Rounding rounding);
MxfpMatrix quantize_mxfp8_gpu(const DataKernels& kernels, std::span<const uint16_t> x, int rows, int cols,
                              formats::ActivationScales mode);

}  // namespace moetune::data
