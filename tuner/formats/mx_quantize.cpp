#include "formats/mx_quantize.h"

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include "common/input_error.h"
#include "common/mx_bf16_widen.h"
#include "common/mx_types.h"
#include "common/parallel_for.h"

namespace moetune::formats {
namespace {

// Throws when the buffers do not have the sizes the header promises: a size bug here would
// silently shift every later block.
void check_sizes(const char* what, int rows, int cols, size_t in_elems, size_t values, size_t values_per_row,
                 size_t scales) {
    if (rows < 0 || cols < 0 || cols % kMxBlock != 0)
        throw std::invalid_argument(std::string(what) + ": cols must be a non-negative multiple of 32, got " +
                                    std::to_string(cols));
    const size_t r = size_t(rows);
    if (in_elems != r * size_t(cols) || values != r * values_per_row || scales != r * size_t(cols / kMxBlock))
        throw std::invalid_argument(std::string(what) + ": buffer sizes do not match [" + std::to_string(rows) +
                                    ", " + std::to_string(cols) + "]");
}

// NaN-propagating absolute maximum: a NaN anywhere in the block makes the block's scale NaN.
float block_amax(const float* x) {
    float amax = 0.0f;
    for (int i = 0; i < kMxBlock; ++i) {
        const float a = std::fabs(x[i]);
        if (std::isnan(a)) return a;
        if (a > amax) amax = a;
    }
    return amax;
}

// Both nibbles of every fp4x2 byte, decoded: dequantising weights is the CPU reference's hot loop.
struct E2m1Pair {
    float low, high;
};
const std::array<E2m1Pair, 256>& e2m1_pairs() {
    static const std::array<E2m1Pair, 256> table = [] {
        std::array<E2m1Pair, 256> t{};
        for (unsigned b = 0; b < 256; ++b) t[b] = {mx_e2m1_to_float(b & 0xFu), mx_e2m1_to_float(b >> 4)};
        return t;
    }();
    return table;
}

}  // namespace

ActivationScales parse_activation_scales(std::string_view text) {
    if (text == "mxfp8") return ActivationScales::mxfp8;
    if (text == "unit") return ActivationScales::unit;
    throw InputError("", 0, "unknown activation scale mode '" + std::string(text) + "' (expected mxfp8 or unit)");
}

std::string_view to_string(ActivationScales scales) { return scales == ActivationScales::mxfp8 ? "mxfp8" : "unit"; }

void quantize_mxfp4(std::span<const float> x, int rows, int cols, std::span<uint8_t> packed, std::span<uint8_t> scales) {
    check_sizes("quantize_mxfp4", rows, cols, x.size(), packed.size(), size_t(cols / 2), scales.size());
    const size_t blocks = x.size() / kMxBlock;
    for (size_t b = 0; b < blocks; ++b) {
        const float* in = x.data() + b * kMxBlock;
        const uint8_t scale = mx_fp4_scale_from_amax(block_amax(in));
        scales[b] = scale;
        uint8_t* out = packed.data() + b * (kMxBlock / 2);
        for (int i = 0; i < kMxBlock; i += 2)
            out[i / 2] = mx_pack_e2m1(mx_quantize_mxfp4_element(in[i], scale), mx_quantize_mxfp4_element(in[i + 1], scale));
    }
}

void dequantize_mxfp4_row(const uint8_t* packed, const uint8_t* scales, int cols, float* out) {
    const std::array<E2m1Pair, 256>& pairs = e2m1_pairs();
    for (int b = 0; b < cols / kMxBlock; ++b) {
        const float scale = mx_e8m0_to_float(scales[b]);
        for (int i = 0; i < kMxBlock / 2; ++i) {
            const E2m1Pair& pair = pairs[packed[b * (kMxBlock / 2) + i]];
            out[b * kMxBlock + 2 * i] = pair.low * scale;
            out[b * kMxBlock + 2 * i + 1] = pair.high * scale;
        }
    }
}

void dequantize_mxfp4(std::span<const uint8_t> packed, std::span<const uint8_t> scales, int rows, int cols,
                      std::span<float> out) {
    check_sizes("dequantize_mxfp4", rows, cols, out.size(), packed.size(), size_t(cols / 2), scales.size());
    for (int r = 0; r < rows; ++r)
        dequantize_mxfp4_row(packed.data() + size_t(r) * (cols / 2), scales.data() + size_t(r) * (cols / kMxBlock),
                             cols, out.data() + size_t(r) * cols);
}

void quantize_mxfp8(std::span<const float> x, int rows, int cols, ActivationScales mode, std::span<uint8_t> values,
                    std::span<uint8_t> scales) {
    check_sizes("quantize_mxfp8", rows, cols, x.size(), values.size(), size_t(cols), scales.size());
    const size_t blocks = x.size() / kMxBlock;
    for (size_t b = 0; b < blocks; ++b) {
        const float* in = x.data() + b * kMxBlock;
        const uint8_t scale = mode == ActivationScales::mxfp8 ? mx_mxfp8_scale_from_amax(block_amax(in)) : 127;
        scales[b] = scale;
        for (int i = 0; i < kMxBlock; ++i) values[b * kMxBlock + i] = mx_quantize_mxfp8_element(in[i], scale);
    }
}

void dequantize_mxfp8_row(const uint8_t* values, const uint8_t* scales, int cols, float* out) {
    for (int b = 0; b < cols / kMxBlock; ++b) {
        const float scale = mx_e8m0_to_float(scales[b]);
        for (int i = 0; i < kMxBlock; ++i) out[b * kMxBlock + i] = mx_e4m3fn_to_float(values[b * kMxBlock + i]) * scale;
    }
}

void dequantize_mxfp8(std::span<const uint8_t> values, std::span<const uint8_t> scales, int rows, int cols,
                      std::span<float> out) {
    check_sizes("dequantize_mxfp8", rows, cols, out.size(), values.size(), size_t(cols), scales.size());
    parallel_slices(rows, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r)
            dequantize_mxfp8_row(values.data() + size_t(r) * cols, scales.data() + size_t(r) * (cols / kMxBlock), cols,
                                 out.data() + size_t(r) * cols);
    }, std::max<int64_t>(1, kParallelSlice / cols));
}

void widen_mxfp8(std::span<const uint8_t> values, std::span<const uint8_t> scales, int rows, int cols,
                 std::span<uint16_t> wide) {
    check_sizes("widen_mxfp8", rows, cols, wide.size(), values.size(), size_t(cols), scales.size());
    for (size_t b = 0; b < scales.size(); ++b) {
        moetune_u32 words[8], widened[16];
        for (int i = 0; i < 8; ++i) words[i] = mx_e4m3_word(values.data() + b * kMxBlock + 4 * i);
        mx_wide_block(words, scales[b], widened);
        uint16_t* out = wide.data() + b * kMxBlock;
        for (int w = 0; w < 16; ++w) {
            out[2 * w] = uint16_t(widened[w] & 0xFFFFu);
            out[2 * w + 1] = uint16_t(widened[w] >> 16);
        }
    }
}

}  // namespace moetune::formats
