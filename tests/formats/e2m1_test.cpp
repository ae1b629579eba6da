// FP4 e2m1: all 16 codes both ways, round-to-nearest-even ties, saturation, and the nibble order.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "common/mx_types.h"
#include "formats/e2m1_packing.h"
#include "support/catch.hpp"

namespace {

// OCP MX spec table for e2m1, written out independently of the decoder.
const float kE2m1[16] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f,
                         -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};

// Nearest of the 8 magnitudes to |x| with ties to the even code, saturating: a brute-force model.
unsigned nearest_e2m1(float x) {
    const double a = std::fabs(double(x));
    unsigned best = 0;
    for (unsigned c = 1; c < 8; ++c) {
        const double d = std::fabs(a - kE2m1[c]), best_d = std::fabs(a - kE2m1[best]);
        if (d < best_d || (d == best_d && c % 2 == 0)) best = c;
    }
    return (std::signbit(x) ? 8u : 0u) | best;
}

}  // namespace

TEST_CASE("e2m1 decodes all 16 codes bit-exactly", "[formats][e2m1]") {
    for (unsigned code = 0; code < 16; ++code) {
        INFO("code " << code);
        CHECK(mx_bits_of(mx_e2m1_to_float(code)) == mx_bits_of(kE2m1[code]));  // bits: -0 is not +0
    }
}

TEST_CASE("e2m1 encodes every representable value to its own code", "[formats][e2m1]") {
    for (unsigned code = 0; code < 16; ++code) {
        INFO("code " << code);
        CHECK(mx_float_to_e2m1(kE2m1[code]) == code);
    }
}

TEST_CASE("e2m1 rounds ties to the even code", "[formats][e2m1]") {
    // Midpoints between neighbouring magnitudes: the even code (0,2,4,6) wins.
    CHECK(mx_float_to_e2m1(0.25f) == 0);   // 0 | 0.5
    CHECK(mx_float_to_e2m1(0.75f) == 2);   // 0.5 | 1.0
    CHECK(mx_float_to_e2m1(1.25f) == 2);   // 1.0 | 1.5
    CHECK(mx_float_to_e2m1(1.75f) == 4);   // 1.5 | 2.0
    CHECK(mx_float_to_e2m1(2.5f) == 4);    // 2 | 3
    CHECK(mx_float_to_e2m1(3.5f) == 6);    // 3 | 4
    CHECK(mx_float_to_e2m1(5.0f) == 6);    // 4 | 6
    CHECK(mx_float_to_e2m1(-5.0f) == 14);
    CHECK(mx_float_to_e2m1(-0.25f) == 8);  // rounds to zero, keeps the sign
    // Just past a tie rounds away.
    CHECK(mx_float_to_e2m1(std::nextafter(0.25f, 1.0f)) == 1);
    CHECK(mx_float_to_e2m1(std::nextafter(5.0f, 6.0f)) == 7);
    CHECK(mx_float_to_e2m1(std::nextafter(5.0f, 0.0f)) == 6);
}

TEST_CASE("e2m1 saturates to +-6 and maps NaN to the largest magnitude", "[formats][e2m1]") {
    CHECK(mx_float_to_e2m1(6.5f) == 7);
    CHECK(mx_float_to_e2m1(1e30f) == 7);
    CHECK(mx_float_to_e2m1(INFINITY) == 7);
    CHECK(mx_float_to_e2m1(-INFINITY) == 15);
    CHECK(mx_float_to_e2m1(NAN) == 7);
    CHECK(mx_float_to_e2m1(-NAN) == 15);
    CHECK(mx_float_to_e2m1(1e-30f) == 0);
    CHECK(mx_float_to_e2m1(-1e-45f) == 8);  // f32 subnormal
}

TEST_CASE("e2m1 encoding matches a brute-force nearest-even search", "[formats][e2m1]") {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> value(-8.0f, 8.0f);
    for (int i = 0; i < 200000; ++i) {
        const float x = value(rng);
        INFO("x = " << x);
        REQUIRE(mx_float_to_e2m1(x) == nearest_e2m1(x));
    }
    // Every multiple of 1/8 in [-8, 8]: hits each tie exactly.
    for (int i = -64; i <= 64; ++i) {
        const float x = float(i) / 8.0f;
        INFO("x = " << x);
        REQUIRE(mx_float_to_e2m1(x) == nearest_e2m1(x));
    }
}

TEST_CASE("fp4x2 packing puts the even element in the low nibble", "[formats][e2m1]") {
    const std::vector<uint8_t> codes = {0x1, 0x2, 0xF, 0x8, 0x7, 0x0};
    const std::vector<uint8_t> packed = moetune::formats::pack_e2m1(codes);
    CHECK(packed == std::vector<uint8_t>{0x21, 0x8F, 0x07});
    CHECK(moetune::formats::unpack_e2m1(packed) == codes);
    CHECK(mx_e2m1_low(0x21) == 1);
    CHECK(mx_e2m1_high(0x21) == 2);
    CHECK(mx_pack_e2m1(0x3, 0xC) == 0xC3);
    CHECK_THROWS_AS(moetune::formats::pack_e2m1(std::vector<uint8_t>{1, 2, 3}), std::invalid_argument);
}
