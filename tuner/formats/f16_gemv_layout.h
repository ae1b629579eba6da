#pragma once
// The _gemv kernels' formats on the host (kernel_templates/common/mx_f16_gemv.h describes them): the
// weights' copy in 16-row tiles (kernels::WeightCopy::f16_tiles), the same permutation as
// weight_layout.hip's weight_layout_f16_tiles and weight_layout_f16_tile_scales (tests compare the
// bytes); and the rows as f16 in the row order under MXFP8's block scales.
#include <cstdint>
#include <span>
#include <vector>

#include "formats/weight_layout.h"

namespace moetune::formats {

// The logical values (experts*rows*cols/2 fp4x2 bytes, w1 gate rows then up rows) as the copy's words
// in the f16 code. Throws std::invalid_argument unless cols % 64 == 0 and rows % 16 == 0 (32 for gate_up).
std::vector<uint8_t> lay_out_f16_tile_values(WeightRole role, const ExpertWeightDims& dims,
                                             std::span<const uint8_t> packed);
// The logical e8m0 scales (experts*rows*cols/32) as the copy's scale words.
std::vector<uint8_t> lay_out_f16_tile_scales(WeightRole role, const ExpertWeightDims& dims,
                                             std::span<const uint8_t> scales);

// MXFP8 values ([rows, cols] e4m3fn) as f16 rows: each value exactly, at its place in the row order;
// the block scales stay as they are. cols a multiple of 64.
std::vector<uint16_t> mxfp8_values_to_f16_rows(std::span<const uint8_t> values, int rows, int cols);
// f16 rows and their e8m0 block scales ([rows, cols/32]) as floats [rows, cols] in the natural order.
std::vector<float> dequantize_f16_rows(std::span<const uint16_t> halves, std::span<const uint8_t> scales, int rows,
                                       int cols);

}  // namespace moetune::formats
