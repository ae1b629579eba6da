// FP8 e4m3fn and bf16 conversions: every code, round-to-nearest-even, saturation, NaN.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "common/mx_types.h"
#include "support/catch.hpp"

namespace {

// e4m3fn decoded from its definition (bias 7, subnormals, 0x7F/0xFF NaN), not from the header.
double e4m3fn_value(int code) {
    const int e = (code >> 3) & 0xF, m = code & 7;
    const double magnitude = e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, e - 7);
    return (code & 0x80) ? -magnitude : magnitude;
}

// Brute force: the nearest finite e4m3fn code, ties to the even code, saturating at 448.
uint8_t nearest_e4m3fn(float x) {
    const double a = std::fabs(double(x));
    int best = 0;
    for (int c = 1; c <= 0x7E; ++c) {
        const double d = std::fabs(a - e4m3fn_value(c)), best_d = std::fabs(a - e4m3fn_value(best));
        if (d < best_d || (d == best_d && c % 2 == 0)) best = c;
    }
    return uint8_t((std::signbit(x) ? 0x80 : 0) | best);
}

}  // namespace

TEST_CASE("e4m3fn decodes all 256 codes", "[formats][e4m3fn]") {
    for (int code = 0; code < 256; ++code) {
        INFO("code " << code);
        if ((code & 0x7F) == 0x7F) {
            CHECK(std::isnan(mx_e4m3fn_to_float(uint8_t(code))));
        } else {
            CHECK(double(mx_e4m3fn_to_float(uint8_t(code))) == e4m3fn_value(code));
            CHECK(std::signbit(mx_e4m3fn_to_float(uint8_t(code))) == bool(code & 0x80));
            CHECK(mx_float_to_e4m3fn(mx_e4m3fn_to_float(uint8_t(code))) == code);  // round trip
        }
    }
}

TEST_CASE("e4m3fn rounds ties to even, saturates to 448 and keeps NaN", "[formats][e4m3fn]") {
    CHECK(mx_float_to_e4m3fn(1.0625f) == 0x38);  // 1.0 | 1.125 -> 1.0 (mantissa 000)
    CHECK(mx_float_to_e4m3fn(1.1875f) == 0x3A);  // 1.125 | 1.25 -> 1.25 (mantissa 010)
    CHECK(mx_float_to_e4m3fn(std::ldexp(1.0f, -10)) == 0x00);  // half the smallest subnormal -> 0
    CHECK(mx_float_to_e4m3fn(std::ldexp(3.0f, -10)) == 0x02);  // 1.5 subnormal steps -> 2
    CHECK(mx_float_to_e4m3fn(std::ldexp(15.0f, -10)) == 0x08);  // 7.5 steps -> min normal 2^-6
    CHECK(mx_float_to_e4m3fn(448.0f) == 0x7E);
    CHECK(mx_float_to_e4m3fn(464.0f) == 0x7E);  // tie with the NaN code's value: saturates
    CHECK(mx_float_to_e4m3fn(1e9f) == 0x7E);
    CHECK(mx_float_to_e4m3fn(INFINITY) == 0x7E);
    CHECK(mx_float_to_e4m3fn(-INFINITY) == 0xFE);
    CHECK(mx_float_to_e4m3fn(NAN) == 0x7F);
    CHECK(mx_float_to_e4m3fn(-NAN) == 0x7F);
    CHECK(mx_float_to_e4m3fn(-0.0f) == 0x80);
}

TEST_CASE("e4m3fn encoding matches a brute-force nearest-even search", "[formats][e4m3fn]") {
    std::mt19937 rng(13);
    std::uniform_real_distribution<float> mantissa(-2.0f, 2.0f);
    std::uniform_int_distribution<int> exponent(-12, 9);
    for (int i = 0; i < 50000; ++i) {
        const float x = std::ldexp(mantissa(rng), exponent(rng));
        INFO("x = " << x);
        REQUIRE(mx_float_to_e4m3fn(x) == nearest_e4m3fn(x));
    }
    // Every midpoint between neighbouring positive codes is a tie.
    for (int c = 0; c < 0x7E; ++c) {
        const float mid = float((e4m3fn_value(c) + e4m3fn_value(c + 1)) / 2);
        INFO("midpoint after code " << c);
        REQUIRE(mx_float_to_e4m3fn(mid) == (c % 2 == 0 ? c : c + 1));
    }
}

TEST_CASE("bf16 rounds to nearest even", "[formats][bf16]") {
    CHECK(mx_float_to_bf16(1.0f) == 0x3F80);
    CHECK(mx_float_to_bf16(mx_float_of(0x3F808000u)) == 0x3F80);  // tie, even stays
    CHECK(mx_float_to_bf16(mx_float_of(0x3F818000u)) == 0x3F82);  // tie, odd rounds up
    CHECK(mx_float_to_bf16(mx_float_of(0x3F808001u)) == 0x3F81);
    CHECK(mx_float_to_bf16(mx_float_of(0x3F807FFFu)) == 0x3F80);
    CHECK(mx_float_to_bf16(-2.0f) == 0xC000);
    CHECK(mx_float_to_bf16(INFINITY) == 0x7F80);
    CHECK(mx_float_to_bf16(mx_float_of(0x7F7FFFFFu)) == 0x7F80);  // overflows to Inf, as RNE must
    CHECK(std::isnan(mx_bf16_to_float(mx_float_to_bf16(NAN))));
    CHECK(mx_bf16_to_float(0x3F80) == 1.0f);
    CHECK(mx_round_to_bf16(1.00390625f) == 1.0f);  // 1 + 2^-8, a tie
}
