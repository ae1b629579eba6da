#include "formats/f16_gemv_layout.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "common/mx_f16_code.h"
#include "common/mx_types.h"
#include "formats/e2m1_code.h"

namespace moetune::formats {
namespace {

void require_tiles(WeightRole role, const ExpertWeightDims& d, std::size_t bytes, int cols_per_byte) {
    const bool gate_up = role == WeightRole::gate_up;
    if (d.experts <= 0 || d.rows <= 0 || d.cols <= 0 || d.cols % 64 != 0 || d.rows % (gate_up ? 32 : 16) != 0)
        throw std::invalid_argument("f16 tiles: cols must be a multiple of 64 and rows of " +
                                    std::string(gate_up ? "32 (gate_up)" : "16"));
    if (bytes != std::size_t(d.experts) * d.rows * (d.cols / cols_per_byte))
        throw std::invalid_argument("f16 tiles: " + std::to_string(bytes) + " bytes do not match the dims");
}

}  // namespace

std::vector<uint8_t> lay_out_f16_tile_values(WeightRole role, const ExpertWeightDims& d,
                                             std::span<const uint8_t> packed) {
    require_tiles(role, d, packed.size(), 2);
    const bool gate_up = role == WeightRole::gate_up;
    const int pairs = d.cols / 64, row_bytes = d.cols / 2;
    const std::size_t expert_bytes = std::size_t(d.rows) * row_bytes;
    const MxE2m1Code& code = e2m1_f16_code();
    std::vector<uint8_t> out(packed.size());
    for (int e = 0; e < d.experts; ++e) {
        const uint8_t* expert = packed.data() + e * expert_bytes;
        uint8_t* dst = out.data() + e * expert_bytes;
        std::size_t o = 0;  // output word: ((tile * pairs + p) * 32 + lane) * 4 + j
        for (int tile = 0; tile < d.rows / 16; ++tile)
            for (int p = 0; p < pairs; ++p)
                for (int lane = 0; lane < 32; ++lane)
                    for (int j = 0; j < 4; ++j, ++o) {
                        const int g = lane / 4, t = lane % 4;
                        uint32_t plain = 0;
                        for (int i = 0; i < 4; ++i) {
                            const std::size_t row = mx_f16_tile_logical_row(tile, mx_f16_tile_row_of(g, i), d.rows, gate_up);
                            plain |= uint32_t(expert[row * row_bytes + mx_f16_tile_k_of(p, j, t, i) / 2]) << (8 * i);
                        }
                        const uint32_t coded = mx_e2m1_encode(code, plain);
                        std::memcpy(dst + 4 * o, &coded, 4);
                    }
    }
    return out;
}

std::vector<uint8_t> lay_out_f16_tile_scales(WeightRole role, const ExpertWeightDims& d,
                                             std::span<const uint8_t> scales) {
    require_tiles(role, d, scales.size(), 32);
    const bool gate_up = role == WeightRole::gate_up;
    const int pairs = d.cols / 64, row_bytes = d.cols / 32;
    const std::size_t expert_bytes = std::size_t(d.rows) * row_bytes;
    std::vector<uint8_t> out(scales.size());
    for (int e = 0; e < d.experts; ++e) {
        const uint8_t* expert = scales.data() + e * expert_bytes;
        uint8_t* dst = out.data() + e * expert_bytes;
        std::size_t o = 0;  // output byte: ((tile * pairs + p) * 8 + g) * 4 + b
        for (int tile = 0; tile < d.rows / 16; ++tile)
            for (int p = 0; p < pairs; ++p)
                for (int g = 0; g < 8; ++g)
                    for (int b = 0; b < 4; ++b, ++o)
                        dst[o] = expert[std::size_t(mx_f16_tile_logical_row(tile, mx_f16_tile_row_of(g, b), d.rows, gate_up)) *
                                            row_bytes +
                                        mx_f16_tile_scale_block(p, b)];
    }
    return out;
}

std::vector<uint16_t> mxfp8_values_to_f16_rows(std::span<const uint8_t> values, int rows, int cols) {
    if (rows < 0 || cols <= 0 || cols % 64 != 0 || values.size() != std::size_t(rows) * cols)
        throw std::invalid_argument("f16 rows: cols must be a multiple of 64 and the values rows x cols");
    std::vector<uint16_t> out(values.size());
    for (int r = 0; r < rows; ++r)
        for (int k = 0; k < cols; ++k)
            out[std::size_t(r) * cols + mx_f16_row_position(k)] =
                mx_float_to_f16(mx_e4m3fn_to_float(values[std::size_t(r) * cols + k]));
    return out;
}

std::vector<float> dequantize_f16_rows(std::span<const uint16_t> halves, std::span<const uint8_t> scales, int rows,
                                       int cols) {
    if (rows < 0 || cols <= 0 || cols % 64 != 0 || halves.size() != std::size_t(rows) * cols ||
        scales.size() != std::size_t(rows) * (cols / 32))
        throw std::invalid_argument("f16 rows: cols must be a multiple of 64, the halves rows x cols, the scales rows x "
                                    "cols / 32");
    std::vector<float> out(halves.size());
    for (int r = 0; r < rows; ++r)
        for (int k = 0; k < cols; ++k)
            out[std::size_t(r) * cols + k] =
                mx_f16_to_float(halves[std::size_t(r) * cols + mx_f16_row_position(k)]) *
                mx_e8m0_to_float(scales[std::size_t(r) * (cols / 32) + k / 32]);
    return out;
}

}  // namespace moetune::formats
