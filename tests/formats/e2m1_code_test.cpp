// The kernels' e2m1 code (kernel_templates/common/mx_e2m1_code.h, encoder tuner/formats/e2m1_code.h):
// every word decodes to its elements, as biased bf16 halves for the bf16 path and as e4m3 bytes for
// the FP8 path, each element with its exact value; the encoder is a bijection. Likewise the e4m3
// code of the FP8 register-fed kernels' weight copy and the f16 code of the _gemv kernels' copy.
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "common/mx_f16_code.h"
#include "common/mx_types.h"
#include "formats/e2m1_code.h"
#include "support/catch.hpp"
#include "support/e2m1_words.h"

namespace {
using namespace moetune;

// Words holding every code in every element position, plus random words.
std::vector<uint32_t> test_words() {
    std::vector<uint32_t> words;
    for (uint32_t c = 0; c < test::kE2m1CoveringWords; ++c) words.push_back(test::e2m1_covering_word(c));
    std::mt19937 rng(5);
    for (int i = 0; i < 4096; ++i) words.push_back(uint32_t(rng()));
    words.push_back(0u);
    words.push_back(0xFFFFFFFFu);
    return words;
}

float element(uint32_t word, int j) { return mx_e2m1_to_float((word >> (4 * j)) & 0xFu); }

// The value of a biased bf16 half (exponent and mantissa at bits 6..8, sign at 15) times 2^126.
double biased_value(uint16_t half) { return std::ldexp(double(mx_bf16_to_float(half)), 126); }

// The rank over GF(2) of an encoder's 32 columns (elimination by leading bit): linear and bijective
// <=> 32.
int rank(const MxE2m1Code& code) {
    uint32_t pivot[32] = {};
    int r = 0;
    for (const uint32_t c : code.column) {
        uint32_t v = c;
        for (int bit = 31; bit >= 0 && v; --bit) {
            if (!((v >> bit) & 1u)) continue;
            if (!pivot[bit]) {
                pivot[bit] = v;
                ++r;
                break;
            }
            v ^= pivot[bit];
        }
    }
    return r;
}

// Word h of an e4m3 decoding holds elements 4h..4h+3 as e4m3fn bytes of value x 2^-6.
void check_e4m3_bytes(uint32_t word, uint32_t bytes, int h) {
    for (int j = 0; j < 4; ++j) {
        const unsigned char b = (unsigned char)(bytes >> (8 * j));
        INFO("word " << std::hex << word << " element " << 4 * h + j);
        CHECK(std::ldexp(double(mx_e4m3fn_to_float(b)), 6) == double(element(word, 4 * h + j)));
        CHECK(bool(b & 0x80u) == bool((word >> (4 * (4 * h + j) + 3)) & 1u));
    }
}

}  // namespace

TEST_CASE("coded e2m1 words decode to their elements as biased bf16 pairs", "[formats][e2m1_code]") {
    const MxE2m1Code& code = formats::e2m1_code();
    for (const uint32_t word : test_words()) {
        const uint32_t coded = mx_e2m1_encode(code, word);
        for (int q = 0; q < 4; ++q) {
            const uint32_t pair = mx_e2m1_decode_pair(coded, q);
            CHECK((pair & ~MOETUNE_E2M1_PAIR_MASK) == 0u);
            const int lo = mx_e2m1_pair_low_element(q);
            INFO("word " << std::hex << word << " pair " << q);
            CHECK(biased_value(uint16_t(pair)) == double(element(word, lo)));
            CHECK(biased_value(uint16_t(pair >> 16)) == double(element(word, lo + 2)));
            CHECK(std::signbit(mx_bf16_to_float(uint16_t(pair))) == bool((word >> (4 * lo + 3)) & 1u));
        }
    }
}

TEST_CASE("the pairs cover the eight elements once each", "[formats][e2m1_code]") {
    std::set<int> elements;
    for (int q = 0; q < 4; ++q) {
        elements.insert(mx_e2m1_pair_low_element(q));
        elements.insert(mx_e2m1_pair_low_element(q) + 2);
    }
    CHECK(elements == std::set<int>{0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("coded e2m1 words decode to e4m3 bytes of value x 2^-6 for the FP8 path", "[formats][e2m1_code]") {
    const MxE2m1Code& code = formats::e2m1_code();
    for (const uint32_t word : test_words()) {
        const uint32_t coded = mx_e2m1_encode(code, word);
        for (int h = 0; h < 2; ++h) check_e4m3_bytes(word, mx_e2m1_coded_to_e4m3x4(coded, h), h);
    }
}

TEST_CASE("the e4m3 code decodes each word in two operations a half to e4m3 bytes of value x 2^-6",
          "[formats][e2m1_code]") {
    const MxE2m1Code& code = formats::e2m1_e4m3_code();
    CHECK(rank(code) == 32);
    for (const uint32_t word : test_words()) {
        const uint32_t coded = mx_e2m1_encode(code, word);
        for (int h = 0; h < 2; ++h) {
            const uint32_t bytes = mx_e2m1_e4m3_decode(coded, h);
            CHECK((bytes & ~MOETUNE_E2M1_E4M3_MASK) == 0u);
            check_e4m3_bytes(word, bytes, h);
        }
    }
}

TEST_CASE("the e2m1 code is a bijection and encode_e2m1_words codes every word in place", "[formats][e2m1_code]") {
    const MxE2m1Code& code = formats::e2m1_code();
    CHECK(rank(code) == 32);
    std::vector<uint8_t> bytes{0x10, 0x32, 0x54, 0x76, 0xFF, 0xFF, 0xFF, 0xFF};
    formats::encode_e2m1_words(bytes);
    const uint32_t first = uint32_t(bytes[0]) | uint32_t(bytes[1]) << 8 | uint32_t(bytes[2]) << 16 | uint32_t(bytes[3]) << 24;
    const uint32_t second = uint32_t(bytes[4]) | uint32_t(bytes[5]) << 8 | uint32_t(bytes[6]) << 16 | uint32_t(bytes[7]) << 24;
    CHECK(first == mx_e2m1_encode(code, 0x76543210u));
    CHECK(second == mx_e2m1_encode(code, 0xFFFFFFFFu));
    std::vector<uint8_t> odd(6);
    CHECK_THROWS_AS(formats::encode_e2m1_words(odd), std::invalid_argument);
}

TEST_CASE("the f16 code decodes each word in two operations a register to f16 halves of value x 2^-14",
          "[formats][e2m1_code]") {
    const MxE2m1Code& code = formats::e2m1_f16_code();
    CHECK(rank(code) == 32);
    for (const uint32_t word : test_words()) {
        const uint32_t coded = mx_e2m1_encode(code, word);
        for (int i = 0; i < 4; ++i) {
            const uint32_t pair = mx_e2m1_f16_decode(coded, i);
            CHECK((pair & ~MOETUNE_E2M1_F16_MASK) == 0u);
            for (int h = 0; h < 2; ++h) {  // element 2i + h
                const uint16_t half = uint16_t(pair >> (16 * h));
                INFO("word " << std::hex << word << " element " << 2 * i + h);
                CHECK(double(mx_f16_to_float(half)) * MOETUNE_E2M1_F16_UNBIAS == double(element(word, 2 * i + h)));
                CHECK(bool(half & 0x8000u) == bool((word >> (4 * (2 * i + h) + 3)) & 1u));
            }
        }
    }
}
