// Whole-row MXFP4 / MXFP8 quantisation: scale choice, nibble placement, per-block error bounds.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "common/input_error.h"
#include "common/mx_types.h"
#include "formats/mx_quantize.h"
#include "support/catch.hpp"

using namespace moetune::formats;

namespace {

// Rows of blocks whose magnitudes span many binades, so scales differ from block to block.
std::vector<float> random_rows(int rows, int cols, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> binade(-20, 20);
    std::vector<float> x(size_t(rows) * size_t(cols));
    for (size_t b = 0; b < x.size() / kMxBlock; ++b) {
        const int e = binade(rng);
        for (int i = 0; i < kMxBlock; ++i) x[b * kMxBlock + size_t(i)] = std::ldexp(normal(rng), e);
    }
    return x;
}

// random_rows quantised to MXFP8 with AITER's scales, and dequantised back.
struct Mxfp8Rows {
    std::vector<float> x;
    std::vector<uint8_t> values, scales;
    std::vector<float> y;
};
Mxfp8Rows mxfp8_rows(int rows, int cols, unsigned seed) {
    Mxfp8Rows m{random_rows(rows, cols, seed), {}, {}, {}};
    m.values.resize(m.x.size());
    m.scales.resize(m.x.size() / kMxBlock);
    m.y.resize(m.x.size());
    quantize_mxfp8(m.x, rows, cols, ActivationScales::mxfp8, m.values, m.scales);
    dequantize_mxfp8(m.values, m.scales, rows, cols, m.y);
    return m;
}

float block_amax(const float* x) {
    float a = 0;
    for (int i = 0; i < kMxBlock; ++i) a = std::max(a, std::fabs(x[i]));
    return a;
}

}  // namespace

TEST_CASE("MXFP4 places element 2i in the low nibble and picks scale ceil_pow2(amax/6)", "[formats][mxfp4]") {
    std::vector<float> row(32, 0.0f);
    row[0] = 6.0f;   // amax 6 -> scale 1.0 (byte 127), code 7
    row[1] = -1.0f;  // code 0xA
    row[2] = 0.5f;   // code 1
    std::vector<uint8_t> packed(16), scales(1);
    quantize_mxfp4(row, 1, 32, packed, scales);
    CHECK(scales[0] == 127);
    CHECK(packed[0] == 0xA7);
    CHECK(packed[1] == 0x01);
    CHECK(std::all_of(packed.begin() + 2, packed.end(), [](uint8_t b) { return b == 0; }));

    std::vector<float> back(32);
    dequantize_mxfp4(packed, scales, 1, 32, back);
    CHECK(back == row);
}

TEST_CASE("MXFP4 error stays within half an e2m1 step of each element", "[formats][mxfp4]") {
    const int rows = 64, cols = 256;
    const std::vector<float> x = random_rows(rows, cols, 1);
    std::vector<uint8_t> packed(size_t(rows) * cols / 2), scales(size_t(rows) * cols / 32);
    quantize_mxfp4(x, rows, cols, packed, scales);
    std::vector<float> y(x.size());
    dequantize_mxfp4(packed, scales, rows, cols, y);
    for (size_t b = 0; b < x.size() / kMxBlock; ++b) {
        const float amax = block_amax(&x[b * kMxBlock]);
        const float scale = mx_e8m0_to_float(scales[b]);
        // The scale is the smallest power of two that fits amax into [-6, 6] ...
        REQUIRE(amax / scale <= 6.0f);
        REQUIRE(amax / scale > 3.0f);
        for (int i = 0; i < kMxBlock; ++i) {
            const size_t k = b * kMxBlock + size_t(i);
            const float scaled = std::fabs(x[k]) / scale;
            // ... so nothing saturates, and the error is at most half the local e2m1 spacing.
            const float half_step = scaled < 2.0f ? 0.25f : scaled < 4.0f ? 0.5f : 1.0f;
            REQUIRE(std::fabs(x[k] - y[k]) <= half_step * scale);
        }
        // Per block, relative to amax: |error| <= scale <= amax/3.
        float worst = 0;
        for (int i = 0; i < kMxBlock; ++i) worst = std::max(worst, std::fabs(x[b * kMxBlock + i] - y[b * kMxBlock + i]));
        REQUIRE(worst <= amax / 3.0f);
    }
}

TEST_CASE("MXFP4 of an all-zero block and of a block holding NaN", "[formats][mxfp4]") {
    std::vector<float> x(64, 0.0f);
    x[40] = NAN;
    x[33] = 1.0f;
    std::vector<uint8_t> packed(32), scales(2);
    quantize_mxfp4(x, 1, 64, packed, scales);
    CHECK(scales[0] == 0);
    CHECK(scales[1] == 0xFF);
    std::vector<float> y(64);
    dequantize_mxfp4(packed, scales, 1, 64, y);
    CHECK(std::all_of(y.begin(), y.begin() + 32, [](float v) { return v == 0.0f; }));
    CHECK(std::all_of(y.begin() + 32, y.end(), [](float v) { return std::isnan(v); }));
}

TEST_CASE("MXFP8 with AITER scales: relative error within half an e4m3 ulp", "[formats][mxfp8]") {
    const Mxfp8Rows m = mxfp8_rows(64, 256, 2);
    const std::vector<float>& x = m.x;
    const std::vector<uint8_t>& scales = m.scales;
    const std::vector<float>& y = m.y;
    for (size_t b = 0; b < scales.size(); ++b) {
        const float amax = block_amax(&x[b * kMxBlock]);
        REQUIRE(scales[b] == mx_mxfp8_scale_from_amax(amax));
        const float scale = mx_e8m0_to_float(scales[b]);
        for (int i = 0; i < kMxBlock; ++i) {
            const size_t k = b * kMxBlock + size_t(i);
            const float scaled = std::fabs(x[k]) / scale;
            // Normal e4m3 range: 3 mantissa bits -> relative error <= 2^-4; below it, an absolute
            // error of half the subnormal step 2^-9.
            const float bound = scaled >= std::ldexp(1.0f, -6) ? std::fabs(x[k]) * 0.0625f : std::ldexp(1.0f, -10) * scale;
            REQUIRE(std::fabs(x[k] - y[k]) <= bound);
        }
        // Per block: the largest element keeps 3 significant bits.
        float worst = 0;
        for (int i = 0; i < kMxBlock; ++i) worst = std::max(worst, std::fabs(x[b * kMxBlock + i] - y[b * kMxBlock + i]));
        REQUIRE(worst <= amax * 0.0625f);
    }
}

TEST_CASE("MXFP8 unit scales cast values directly with scale byte 127", "[formats][mxfp8]") {
    std::vector<float> x(64);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i) - 32) * 0.37f;
    std::vector<uint8_t> values(64), scales(2);
    quantize_mxfp8(x, 1, 64, ActivationScales::unit, values, scales);
    CHECK(scales == std::vector<uint8_t>{127, 127});
    for (size_t i = 0; i < x.size(); ++i) REQUIRE(values[i] == mx_float_to_e4m3fn(x[i]));
}

TEST_CASE("MXFP8 widened: each element's dequantised value as bf16, at its wide position", "[formats][mxfp8]") {
    const int rows = 8, cols = 256;
    const Mxfp8Rows m = mxfp8_rows(rows, cols, 3);
    const std::vector<float>& y = m.y;
    std::vector<uint16_t> wide(y.size());
    widen_mxfp8(m.values, m.scales, rows, cols, wide);
    // Within a group of 8, pairs (0, 2) (1, 3) (4, 6) (5, 7): element j at position 0 2 1 3 4 6 5 7.
    const int position[8] = {0, 2, 1, 3, 4, 6, 5, 7};
    for (size_t k = 0; k < y.size(); ++k) {
        INFO("element " << k);
        // An e4m3 value times a power of two within range is a bf16: the widening is exact.
        REQUIRE(mx_bf16_to_float(wide[k / 8 * 8 + size_t(position[k % 8])]) == y[k]);
    }
    std::vector<uint16_t> short_wide(y.size() - 1);
    CHECK_THROWS_AS(widen_mxfp8(m.values, m.scales, rows, cols, short_wide), std::invalid_argument);
}

TEST_CASE("MX quantisation rejects mis-sized buffers and bad flag values", "[formats]") {
    std::vector<float> x(48);
    std::vector<uint8_t> v(48), s(2);
    CHECK_THROWS_AS(quantize_mxfp8(x, 1, 48, ActivationScales::mxfp8, v, s), std::invalid_argument);
    std::vector<float> x64(64);
    std::vector<uint8_t> v64(64), s1(1);
    CHECK_THROWS_AS(quantize_mxfp8(x64, 1, 64, ActivationScales::mxfp8, v64, s1), std::invalid_argument);
    CHECK(parse_activation_scales("mxfp8") == ActivationScales::mxfp8);
    CHECK(parse_activation_scales("unit") == ActivationScales::unit);
    CHECK(parse_activation_scales(to_string(ActivationScales::unit)) == ActivationScales::unit);
    CHECK_THROWS_AS(parse_activation_scales("ones"), moetune::InputError);
}
