// e8m0 scales: the byte edge cases, the FP4 scale ceil_pow2(amax/6), and AITER's MXFP8 scale rule.
#include <cmath>
#include <cstdint>
#include <random>

#include "common/mx_types.h"
#include "support/catch.hpp"

TEST_CASE("e8m0 decodes 0, 127, 254 and 255 as specified", "[formats][e8m0]") {
    CHECK(mx_e8m0_to_float(0) == std::ldexp(1.0f, -127));
    CHECK(mx_bits_of(mx_e8m0_to_float(0)) == 0x00400000u);
    CHECK(mx_e8m0_to_float(1) == std::ldexp(1.0f, -126));
    CHECK(mx_e8m0_to_float(127) == 1.0f);
    CHECK(mx_e8m0_to_float(128) == 2.0f);
    CHECK(mx_e8m0_to_float(254) == std::ldexp(1.0f, 127));
    CHECK(std::isnan(mx_e8m0_to_float(255)));
    for (int b = 1; b < 255; ++b) REQUIRE(mx_e8m0_to_float(uint8_t(b)) == std::ldexp(1.0f, b - 127));
}

TEST_CASE("e8m0 reciprocal is exact for every finite scale", "[formats][e8m0]") {
    for (int b = 0; b < 255; ++b) {
        INFO("byte " << b);
        REQUIRE(mx_e8m0_to_float(uint8_t(b)) * mx_e8m0_reciprocal(uint8_t(b)) == 1.0f);
    }
    CHECK(std::isnan(mx_e8m0_reciprocal(255)));
}

TEST_CASE("e8m0 ceil_pow2 picks the smallest power of two not below x", "[formats][e8m0]") {
    CHECK(mx_e8m0_ceil_pow2(1.0f) == 127);
    CHECK(mx_e8m0_ceil_pow2(std::nextafter(1.0f, 2.0f)) == 128);
    CHECK(mx_e8m0_ceil_pow2(0.75f) == 127);
    CHECK(mx_e8m0_ceil_pow2(0.5f) == 126);
    CHECK(mx_e8m0_ceil_pow2(3.0f) == 129);
    // The ends of the range clamp.
    CHECK(mx_e8m0_ceil_pow2(0.0f) == 0);
    CHECK(mx_e8m0_ceil_pow2(-3.0f) == 0);
    CHECK(mx_e8m0_ceil_pow2(1e-45f) == 0);
    CHECK(mx_e8m0_ceil_pow2(std::ldexp(1.0f, -127)) == 0);
    CHECK(mx_e8m0_ceil_pow2(std::ldexp(1.5f, -127)) == 1);
    CHECK(mx_e8m0_ceil_pow2(std::ldexp(1.0f, -126)) == 1);
    CHECK(mx_e8m0_ceil_pow2(std::ldexp(1.0f, 127)) == 254);
    CHECK(mx_e8m0_ceil_pow2(3e38f) == 254);
    // Non-finite input makes the whole block NaN.
    CHECK(mx_e8m0_ceil_pow2(NAN) == 255);
    CHECK(mx_e8m0_ceil_pow2(INFINITY) == 255);
    // Against log2 on random values spanning the range.
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
    std::uniform_int_distribution<int> exponent(-120, 120);
    for (int i = 0; i < 100000; ++i) {
        const float x = std::ldexp(mantissa(rng), exponent(rng));
        REQUIRE(mx_e8m0_ceil_pow2(x) == int(std::ceil(std::log2(double(x)))) + 127);
    }
}

TEST_CASE("the FP4 block scale equals ceil_pow2(amax / 6)", "[formats][e8m0]") {
    CHECK(mx_fp4_scale_from_amax(6.0f) == 127);  // amax maps to 6 exactly
    CHECK(mx_fp4_scale_from_amax(std::nextafter(6.0f, 7.0f)) == 128);
    CHECK(mx_fp4_scale_from_amax(3.0f) == 126);
    CHECK(mx_fp4_scale_from_amax(12.0f) == 128);
    CHECK(mx_fp4_scale_from_amax(0.0f) == 0);
    CHECK(mx_fp4_scale_from_amax(NAN) == 255);
    CHECK(mx_fp4_scale_from_amax(INFINITY) == 255);
    std::mt19937 rng(5);
    std::uniform_int_distribution<uint32_t> bits(0x00000001u, 0x7F7FFFFFu);  // every positive finite float
    for (int i = 0; i < 200000; ++i) {
        const float amax = mx_float_of(bits(rng));
        INFO("amax bits " << mx_bits_of(amax));
        REQUIRE(mx_fp4_scale_from_amax(amax) == mx_e8m0_ceil_pow2(amax / 6.0f));
    }
}

TEST_CASE("the MXFP8 scale follows AITER's torch_dynamic_mxfp8_quant", "[formats][e8m0][mxfp8]") {
    // e8m0 = exponent_field(round(amax bits + 0x200000)) - 8, clamped at 0; hand-computed:
    CHECK(mx_mxfp8_scale_from_amax(1.0f) == 127 - 8);                        // 0x3F800000 -> exp 127
    CHECK(mx_mxfp8_scale_from_amax(1.7f) == 127 - 8);                        // mantissa .7 < .75: stays
    CHECK(mx_mxfp8_scale_from_amax(1.75f) == 128 - 8);                       // mantissa .75 rounds the exponent up
    CHECK(mx_mxfp8_scale_from_amax(std::nextafter(1.75f, 0.0f)) == 127 - 8);
    CHECK(mx_mxfp8_scale_from_amax(448.0f) == 136 - 8);                      // 1.75 * 2^8
    CHECK(mx_mxfp8_scale_from_amax(0.1f) == 123 - 8);                        // 1.6 * 2^-4
    CHECK(mx_mxfp8_scale_from_amax(0.0f) == 0);
    CHECK(mx_mxfp8_scale_from_amax(std::ldexp(1.0f, -120)) == 0);           // exponent 7 - 8 clamps
    CHECK(mx_mxfp8_scale_from_amax(std::ldexp(1.0f, -119)) == 0);           // exponent 8 - 8
    CHECK(mx_mxfp8_scale_from_amax(std::ldexp(1.0f, -118)) == 1);
    CHECK(mx_mxfp8_scale_from_amax(NAN) == 255 - 8);                         // as torch's int arithmetic gives
    // The multiplier is 2^(127 - e8m0) and the scaled block maximum stays below 448.
    CHECK(mx_mxfp8_quant_multiplier(119) == 256.0f);
    CHECK(mx_mxfp8_quant_multiplier(0) == std::ldexp(1.0f, 127));
    CHECK(mx_mxfp8_quant_multiplier(127) == 1.0f);
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
    std::uniform_int_distribution<int> exponent(-100, 100);
    for (int i = 0; i < 100000; ++i) {
        const float amax = std::ldexp(mantissa(rng), exponent(rng));
        const float scaled = amax * mx_mxfp8_quant_multiplier(mx_mxfp8_scale_from_amax(amax));
        REQUIRE(scaled >= 224.0f);
        REQUIRE(scaled < 448.0f);
    }
    // 1.0 in a block of amax 1.0 is stored as 256 = e4m3fn 0x78 (exponent 15, mantissa 0).
    CHECK(mx_quantize_mxfp8_element(1.0f, 119) == 0x78);
}
