// The _gemv kernels' formats on the host (formats/f16_gemv_layout.h, kernel_templates/common/
// mx_f16_gemv.h): the weights' copy read as the kernels read it (the f16 code, the m16n8k16 fragment
// of each register) gives every logical element once, at its tile row and k; the scale words hold
// each row's block scales; the f16 row order is a bijection, and rows of MXFP8 values come back as
// the same values; binary16 conversions are exact where they must be.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include "common/mx_f16_code.h"
#include "common/mx_types.h"
#include "formats/f16_gemv_layout.h"
#include "support/catch.hpp"

namespace {
using namespace moetune;
using formats::ExpertWeightDims;
using formats::WeightRole;

std::vector<uint8_t> random_bytes(std::size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<uint8_t> v(n);
    for (uint8_t& b : v) b = uint8_t(rng());
    return v;
}

// Logical element (expert, row, k) of fp4x2 bytes [E, rows, K/2].
float logical(const std::vector<uint8_t>& packed, const ExpertWeightDims& d, int e, int row, int k) {
    const uint8_t byte = packed[(std::size_t(e) * d.rows + row) * (d.cols / 2) + k / 2];
    return mx_e2m1_to_float(k % 2 ? byte >> 4 : byte & 0xFu);
}

// The logical row of tile row r of tile `tile` (mx_f16_gemv.h: gate_up tiles are 8 gate and 8 up rows).
int logical_row(WeightRole role, const ExpertWeightDims& d, int tile, int r) {
    if (role == WeightRole::down) return 16 * tile + r;
    return (r < 8 ? 0 : d.rows / 2) + 8 * tile + r % 8;
}

}  // namespace

TEST_CASE("the f16 tiles give every weight once, where the kernels' fragments read it", "[formats][gemv]") {
    for (const WeightRole role : {WeightRole::gate_up, WeightRole::down}) {
        const ExpertWeightDims d{2, 64, 192};
        const std::vector<uint8_t> packed = random_bytes(std::size_t(d.experts) * d.rows * d.cols / 2, 3);
        const std::vector<uint8_t> scales = random_bytes(std::size_t(d.experts) * d.rows * d.cols / 32, 4);
        const std::vector<uint8_t> values = formats::lay_out_f16_tile_values(role, d, packed);
        const std::vector<uint8_t> words = formats::lay_out_f16_tile_scales(role, d, scales);
        REQUIRE(values.size() == packed.size());
        REQUIRE(words.size() == scales.size());
        const int pairs = d.cols / 64, tiles = d.rows / 16;
        std::set<std::pair<int, int>> seen;  // (row, k) of expert 1
        for (int e = 0; e < d.experts; ++e)
            for (int tile = 0; tile < tiles; ++tile)
                for (int p = 0; p < pairs; ++p)
                    for (int lane = 0; lane < 32; ++lane) {
                        const int g = lane / 4, t = lane % 4;
                        const std::size_t unit = ((std::size_t(e) * tiles + tile) * pairs + p) * 32 + lane;
                        for (int j = 0; j < 4; ++j) {
                            uint32_t coded;
                            std::memcpy(&coded, values.data() + 4 * (unit * 4 + j), 4);
                            for (int i = 0; i < 4; ++i)
                                for (int h = 0; h < 2; ++h) {
                                    const int r = i & 1 ? g + 8 : g, k = 64 * p + 16 * j + 2 * t + h + (i & 2 ? 8 : 0);
                                    const int row = logical_row(role, d, tile, r);
                                    const uint16_t half = uint16_t(mx_e2m1_f16_decode(coded, i) >> (16 * h));
                                    INFO("expert " << e << " row " << row << " k " << k);
                                    CHECK(mx_f16_to_float(half) * MOETUNE_E2M1_F16_UNBIAS == logical(packed, d, e, row, k));
                                    if (e == 1) seen.insert({row, k});
                                }
                        }
                        // Lane (g, t)'s scale word: rows g, g+8 of blocks 2p, 2p+1.
                        const std::size_t word = ((std::size_t(e) * tiles + tile) * pairs + p) * 8 + g;
                        for (int b = 0; b < 4; ++b) {
                            const int row = logical_row(role, d, tile, b & 1 ? g + 8 : g);
                            CHECK(words[4 * word + b] == scales[(std::size_t(e) * d.rows + row) * (d.cols / 32) + 2 * p + b / 2]);
                        }
                    }
        CHECK(seen.size() == std::size_t(d.rows) * d.cols);
    }
}

TEST_CASE("the f16 tiles refuse dims they cannot take", "[formats][gemv]") {
    const std::vector<uint8_t> bytes(2 * 48 * 64 / 2);
    CHECK_THROWS_AS(formats::lay_out_f16_tile_values(WeightRole::gate_up, {2, 48, 64}, bytes), std::invalid_argument);
    CHECK_THROWS_AS(formats::lay_out_f16_tile_values(WeightRole::down, {2, 48, 64}, std::vector<uint8_t>(5)),
                    std::invalid_argument);
    CHECK_THROWS_AS(formats::lay_out_f16_tile_scales(WeightRole::down, {2, 16, 96}, std::vector<uint8_t>(2 * 16 * 3)),
                    std::invalid_argument);
}

TEST_CASE("the f16 row order is a bijection whose lanes read 32 consecutive bytes a pair", "[formats][gemv]") {
    std::set<int> positions;
    for (int k = 0; k < 256; ++k) positions.insert(mx_f16_row_position(k));
    CHECK(positions.size() == 256);
    CHECK(*positions.begin() == 0);
    CHECK(*positions.rbegin() == 255);
    // Lane t of pair p reads halves 64p + 16t .. +15: its B registers of steps j = 0..3, (k, k+1) and (k+8, k+9)
    // for k = 16j + 2t.
    for (int p = 0; p < 4; ++p)
        for (int t = 0; t < 4; ++t)
            for (int j = 0; j < 4; ++j)
                for (int q = 0; q < 2; ++q)
                    for (int h = 0; h < 2; ++h)
                        CHECK(mx_f16_row_position(64 * p + 16 * j + 2 * t + 8 * q + h) ==
                              64 * p + 16 * t + 4 * j + 2 * q + h);
}

TEST_CASE("MXFP8 values as f16 rows come back as the same values", "[formats][gemv]") {
    const int rows = 3, cols = 128;
    std::vector<uint8_t> values = random_bytes(std::size_t(rows) * cols, 9);
    for (uint8_t& b : values)
        if ((b & 0x7Fu) == 0x7Fu) b ^= 1u;  // no NaN
    const std::vector<uint8_t> scales = {120, 127, 130, 1, 254, 127, 100, 140, 127, 127, 127, 127};
    const std::vector<uint16_t> halves = formats::mxfp8_values_to_f16_rows(values, rows, cols);
    const std::vector<float> back = formats::dequantize_f16_rows(halves, scales, rows, cols);
    for (int r = 0; r < rows; ++r)
        for (int k = 0; k < cols; ++k) {
            const std::size_t i = std::size_t(r) * cols + k;
            CHECK(mx_f16_to_float(halves[std::size_t(r) * cols + mx_f16_row_position(k)]) == mx_e4m3fn_to_float(values[i]));
            CHECK(back[i] == mx_e4m3fn_to_float(values[i]) * mx_e8m0_to_float(scales[i / 32]));
        }
    CHECK_THROWS_AS(formats::mxfp8_values_to_f16_rows(values, rows, 96), std::invalid_argument);
}

TEST_CASE("binary16 conversions: exact both ways for f16 values, round to nearest even", "[formats][gemv]") {
    for (uint32_t h = 0; h < 0x10000u; ++h) {
        if (((h >> 10) & 0x1Fu) == 0x1Fu) continue;  // infinities and NaN: not written
        const float f = mx_f16_to_float(uint16_t(h));
        INFO("half " << std::hex << h);
        CHECK(mx_float_to_f16(f) == uint16_t(h));
    }
    CHECK(mx_f16_to_float(0x3C00u) == 1.0f);
    CHECK(mx_f16_to_float(0x0001u) == std::ldexp(1.0f, -24));
    CHECK(mx_float_to_f16(1.0f + std::ldexp(1.0f, -11)) == 0x3C00u);  // halfway: to even
    CHECK(mx_float_to_f16(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3C02u);
    CHECK(mx_float_to_f16(std::ldexp(1.5f, -25)) == 0x0001u);  // 1.5 units of 2^-24: up
    CHECK(mx_float_to_f16(std::ldexp(1.0f, -25)) == 0x0000u);  // half a unit: to even (0)
}
