#pragma once
// MX quantisation of row-major float matrices [rows, cols] (cols a multiple of 32): one e8m0 scale
// per 32 consecutive elements of a row, values as packed e2m1 (MXFP4) or e4m3fn (MXFP8). The
// per-element math is kernel_templates/common/mx_types.h, shared with the GPU kernels; this file
// only walks the blocks. Outputs are written into caller-provided buffers of the exact sizes
//   MXFP4: values rows*cols/2, scales rows*cols/32;  MXFP8: values rows*cols, scales rows*cols/32.
#include <cstdint>
#include <span>
#include <string_view>

namespace moetune::formats {

inline constexpr int kMxBlock = 32;

// How MXFP8 activation scales are chosen. `mxfp8`: AITER's production rule
// (torch_dynamic_mxfp8_quant, per-block amax); `unit`: every scale byte 127 (= 1.0) and the values
// cast directly, which is what AITER's tuner feeds its a8w4 candidates (a_scale_one=True).
enum class ActivationScales { mxfp8, unit };

// Parses a flag value: "mxfp8" or "unit". Throws InputError naming the bad value.
ActivationScales parse_activation_scales(std::string_view text);
std::string_view to_string(ActivationScales scales);

// MXFP4 with AITER's default scale ceil_pow2(amax/6) and RNE to e2m1.
void quantize_mxfp4(std::span<const float> x, int rows, int cols, std::span<uint8_t> packed, std::span<uint8_t> scales);
// One row: cols/2 packed bytes and cols/32 scales -> cols floats.
void dequantize_mxfp4_row(const uint8_t* packed, const uint8_t* scales, int cols, float* out);
void dequantize_mxfp4(std::span<const uint8_t> packed, std::span<const uint8_t> scales, int rows, int cols,
                      std::span<float> out);

void quantize_mxfp8(std::span<const float> x, int rows, int cols, ActivationScales mode, std::span<uint8_t> values,
                    std::span<uint8_t> scales);
void dequantize_mxfp8_row(const uint8_t* values, const uint8_t* scales, int cols, float* out);
void dequantize_mxfp8(std::span<const uint8_t> values, std::span<const uint8_t> scales, int rows, int cols,
                      std::span<float> out);

// MXFP8 -> the wide layout that the bf16 path's register-fed and _wgmma kernels read (bf16 [rows, cols]; per
// element and order: kernel_templates/common/mx_bf16_widen.h, mx_wide_block).
void widen_mxfp8(std::span<const uint8_t> values, std::span<const uint8_t> scales, int rows, int cols,
                 std::span<uint16_t> wide);

}  // namespace moetune::formats
