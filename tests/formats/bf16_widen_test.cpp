// The operands of the bf16 tensor-core path (kernel_templates/common/mx_bf16_widen.h), on the host:
// every e4m3 and (coded, mx_e2m1_code.h) e2m1 code at every e8m0 scale widens to value x 2^s rounded once to bf16 -- the
// exact value across the range real blocks use -- in the documented element order; the fragments
// of a block multiply, by the PTX definition of the product, to its dot product; and the two
// byte-permute helpers behave as PTX prmt. (tests/gpu/bf16_widen_gpu_test.cpp checks that the
// device code, prmt and packed bf16 FMA, gives these bits.)
#include <cmath>
#include <cstdint>
#include <random>

#include "common/mx_bf16_widen.h"
#include "formats/e2m1_code.h"
#include "support/catch.hpp"
#include "support/e2m1_words.h"

namespace {

// value x 2^(scale - 127) rounded once to bf16, NaN for scale 0xFF. The product has at most 4
// significant bits, so the float is exact (or infinite beyond the float range) and the only
// rounding is the one to bf16.
uint16_t scaled_bf16(float value, int scale) {
    if (scale == 0xFF) return mx_float_to_bf16(mx_quiet_nan());
    return mx_float_to_bf16(float(std::ldexp(double(value), scale - 127)));
}

uint16_t half(uint32_t pair, int i) { return uint16_t(pair >> (16 * i)); }

bool same_bits(uint16_t a, uint16_t b) {
    const bool nan_a = mx_is_nan(mx_bf16_to_float(a)), nan_b = mx_is_nan(mx_bf16_to_float(b));
    return nan_a || nan_b ? nan_a == nan_b : a == b;
}

// A code format of the widenings: `count` codes of `bits` each, and their values.
struct Code {
    unsigned count, bits, step;  // step: see check_widening
    float (*value)(unsigned code);
};

// Words of four codes, element j = (c + step * j) mod count for every c, so every code sits in
// every position, widened at every scale byte: each element must be its value x 2^s rounded once to
// bf16, in the order (0, 2), (1, 3), and exactly that value for scale bytes exact_from..exact_to.
void check_widening(const Code& code, uint32_t high_bits,
                    void (*widen)(uint32_t word, uint32_t scale2, uint32_t& even, uint32_t& odd), int exact_from,
                    int exact_to) {
    for (unsigned c = 0; c < code.count; ++c) {
        unsigned codes[4];
        uint32_t word = high_bits;
        for (unsigned j = 0; j < 4; ++j) {
            codes[j] = (c + code.step * j) % code.count;
            word |= codes[j] << (code.bits * j);
        }
        for (int scale = 0; scale < 256; ++scale) {
            uint32_t even = 0, odd = 0;
            widen(word, mx_e8m0_to_bf16x2(unsigned(scale)), even, odd);
            const uint16_t got[4] = {half(even, 0), half(odd, 0), half(even, 1), half(odd, 1)};
            for (unsigned j = 0; j < 4; ++j) {
                INFO("code " << codes[j] << " at element " << j << ", scale byte " << scale);
                const float value = code.value(codes[j]);
                CHECK(same_bits(got[j], scaled_bf16(value, scale)));
                if (scale >= exact_from && scale <= exact_to)
                    CHECK(double(mx_bf16_to_float(got[j])) == std::ldexp(double(value), scale - 127));
            }
        }
    }
}

}  // namespace

TEST_CASE("the e8m0 scale as a bf16 pair: 2^(b-127) in both halves, NaN for 0xFF", "[formats][bf16_widen]") {
    for (int b = 0; b < 256; ++b) {
        INFO("scale byte " << b);
        const uint32_t pair = mx_e8m0_to_bf16x2(unsigned(b));
        CHECK(half(pair, 0) == half(pair, 1));
        if (b == 0xFF) CHECK(mx_is_nan(mx_bf16_to_float(half(pair, 0))));
        else CHECK(double(mx_bf16_to_float(half(pair, 0))) == std::ldexp(1.0, b - 127));
    }
}

TEST_CASE("e4m3 widens to bf16 with the scale folded in, elements (0, 2) and (1, 3)", "[formats][bf16_widen]") {
    const Code e4m3{256, 8, 67, [](unsigned code) {
                        // Not special-cased (see the header): the NaN code widens as +-480.
                        if ((code & 0x7F) == 0x7F) return (code & 0x80) ? -480.f : 480.f;
                        return mx_e4m3fn_to_float((unsigned char)code);
                    }};
    // Scale bytes 20..230 cover blocks with maxima from ~2^-99 to ~2^111: no rounding there.
    check_widening(e4m3, 0u, mx_e4m3x4_to_bf16x2_scaled, 20, 230);
}

TEST_CASE("e4m3 in one multiply equals the two multiplies for every scale byte up to 134", "[formats][bf16_widen]") {
    CHECK(mx_e4m3_one_multiply_fits(134));
    CHECK_FALSE(mx_e4m3_one_multiply_fits(135));
    for (uint32_t c = 0; c < 256; ++c) {
        // Every code in every position of the word, and every sign mix (step 67 is odd, so coprime to 256).
        const uint32_t word = c | ((c + 67) % 256) << 8 | ((c + 134) % 256) << 16 | ((c + 201) % 256) << 24;
        for (unsigned s = 0; s <= 134; ++s) {
            uint32_t even1, odd1, even2, odd2;
            mx_e4m3x4_to_bf16x2_one_multiply(word, mx_e4m3_one_multiplier_bf16x2(s), even1, odd1);
            mx_e4m3x4_to_bf16x2_scaled(word, mx_e8m0_to_bf16x2(s), even2, odd2);
            INFO("word " << word << " scale byte " << s);
            CHECK(even1 == even2);
            CHECK(odd1 == odd2);
        }
    }
}

TEST_CASE("coded e2m1 words widen to bf16 with the scale folded in, pairs (0, 2) (1, 3) (4, 6) (5, 7)",
          "[formats][bf16_widen]") {
    // Every code in every position (support/e2m1_words.h), at every scale byte; scales above
    // 128 only with wide_scales, which adds the second multiply (mx_bf16_widen.h).
    const int order[8] = {0, 2, 1, 3, 4, 6, 5, 7};  // the element of b[i / 4][(i / 2) % 2], half i % 2
    for (uint32_t c = 0; c < moetune::test::kE2m1CoveringWords; ++c) {
        const uint32_t word = moetune::test::e2m1_covering_word(c);
        const uint32_t coded = mx_e2m1_encode(moetune::formats::e2m1_code(), word);
        for (int scale = 0; scale < 256; ++scale)
            for (const bool wide : {false, true}) {
                if (scale > 128 && !wide) continue;
                uint32_t b[2][2];
                mx_bf16_b_fragments(coded, (unsigned char)scale, wide, b);
                for (int i = 0; i < 8; ++i) {
                    const int j = order[i];
                    const uint16_t got = half(b[i / 4][(i / 2) % 2], i % 2);
                    const float value = mx_e2m1_to_float(((word >> (4 * j)) & 0xFu));
                    INFO("element " << j << " code " << ((word >> (4 * j)) & 0xFu) << ", scale byte " << scale
                                    << (wide ? " (wide)" : ""));
                    CHECK(same_bits(got, scaled_bf16(value, scale)));
                    if (scale <= 250) CHECK(double(mx_bf16_to_float(got)) == std::ldexp(double(value), scale - 127));
                }
            }
    }
}

TEST_CASE("the narrow-scale multiplier from a word of scale bytes equals the one from the byte", "[formats][bf16_widen]") {
    for (uint32_t b = 0; b <= 128; ++b)
        for (int kb = 0; kb < 4; ++kb) {
            INFO("byte " << b << " in block " << kb);
            const uint32_t word = (0x80u * 0x01010101u & ~(0xFFu << (8 * kb))) | (b << (8 * kb));
            CHECK(mx_e2m1_narrow_scale_bf16x2(word, kb) == mx_e2m1_scale_bf16x2(b));
        }
}

TEST_CASE("wide scale words: some byte above 128", "[formats][bf16_widen]") {
    for (uint32_t b = 0; b < 256; ++b)
        for (const uint32_t filler : {0u, 0x80u, 0x7Fu}) {
            INFO("byte " << b << " filler " << filler);
            const uint32_t word = filler | filler << 8 | b << 16 | filler << 24;
            CHECK(mx_e2m1_scales_wide(word) == (b > 128));
        }
}

TEST_CASE("byte permutes: prmt's 3-bit select and its sign mode", "[formats][bf16_widen]") {
    // Bytes 0..3 of a then 4..7 of b; selector nibble n picks result byte n.
    CHECK(mx_byte_perm(0x33221100u, 0x77665544u, 0x7531u) == 0x77553311u);
    CHECK(mx_byte_perm(0x33221100u, 0x77665544u, 0x0246u) == 0x00224466u);
    CHECK(mx_byte_perm(0x33221100u, 0x77665544u, 0xF8E9u) == 0x77006611u);  // bit 3 ignored
    // Sign mode: 0xFF where the picked byte's bit 7 is set.
    CHECK(mx_byte_signs(0x80017F80u, 0x00FF0000u, 0x0123u) == 0xFF0000FFu);
    CHECK(mx_byte_signs(0x80017F80u, 0x00FF0000u, 0x6654u) == 0xFFFF0000u);
}

TEST_CASE("a wide group holds each element's scaled value at its position, pairs (0, 2) (1, 3) (4, 6) (5, 7)",
          "[formats][bf16_widen]") {
    std::mt19937 rng(5);
    const int positions[8] = {0, 2, 1, 3, 4, 6, 5, 7};
    for (int trial = 0; trial < 2000; ++trial) {
        unsigned char bytes[8];
        uint32_t lo = 0, hi = 0;
        for (int j = 0; j < 8; ++j) {
            do bytes[j] = (unsigned char)(rng() & 0xFF);
            while ((bytes[j] & 0x7F) == 0x7F);  // no NaN code (mx_bf16_widen.h: not special-cased)
            (j < 4 ? lo : hi) |= uint32_t(bytes[j]) << (8 * (j % 4));
        }
        const unsigned char scale = (unsigned char)(rng() % 256);
        uint32_t wide[4];
        mx_wide_group(lo, hi, scale, wide);
        for (int j = 0; j < 8; ++j) {
            INFO("element " << j << " byte " << int(bytes[j]) << " scale " << int(scale));
            CHECK(mx_wide_position(j) == positions[j]);
            const uint16_t got = half(wide[positions[j] / 2], positions[j] % 2);
            CHECK(same_bits(got, mx_wide_element(bytes[j], scale)));
            CHECK(same_bits(got, scaled_bf16(mx_e4m3fn_to_float(bytes[j]), scale)));
        }
    }
}

TEST_CASE("the bf16 fragments of one MX block give its scaled dot product through two PTX m16n8k16 products",
          "[formats][bf16_widen]") {
    // One block: 16 activation rows x 32 k (e4m3, no NaN code) and 8 weight rows x 32 k (e2m1),
    // each row with its e8m0 scale.
    std::mt19937 rng(11);
    unsigned char act[16][32], act_scale[16], w[8][32], w_scale[8];
    for (int m = 0; m < 16; ++m) {
        for (int k = 0; k < 32; ++k) {
            do act[m][k] = (unsigned char)(rng() & 0xFF);
            while ((act[m][k] & 0x7F) == 0x7F);
        }
        act_scale[m] = (unsigned char)(100 + rng() % 50);
    }
    for (int n = 0; n < 8; ++n) {
        for (int k = 0; k < 32; ++k) w[n][k] = (unsigned char)(rng() & 0xF);
        w_scale[n] = (unsigned char)(100 + rng() % 50);
    }

    // Each lane's fragments, from what the kernel loads: the wide groups (k 8t..8t+7) of activation
    // rows g and g+8, the 8 nibbles k 8t..8t+7 of weight row g.
    uint32_t a[32][2][4], b[32][2][2];
    for (int lane = 0; lane < 32; ++lane) {
        const int g = lane / 4, t = lane % 4;
        for (int r = 0; r < 2; ++r) {
            uint32_t lo = 0, hi = 0;
            for (int j = 0; j < 4; ++j) {
                lo |= uint32_t(act[g + 8 * r][8 * t + j]) << (8 * j);
                hi |= uint32_t(act[g + 8 * r][8 * t + 4 + j]) << (8 * j);
            }
            uint32_t wide[4];
            mx_wide_group(lo, hi, act_scale[g + 8 * r], wide);
            mx_bf16_a_fragments_of_wide_row(r, wide, a[lane]);
        }
        uint32_t packed = 0;
        for (int j = 0; j < 8; ++j) packed |= uint32_t(w[g][8 * t + j]) << (4 * j);
        mx_bf16_b_fragments(mx_e2m1_encode(moetune::formats::e2m1_code(), packed), w_scale[g], true, b[lane]);
    }

    // The PTX ISA's m16n8k16 .bf16 fragments (row.col), written out: A element (row, k) sits in lane
    // 4 * (row % 8) + (k % 8) / 2, register (row / 8) + 2 * (k / 8), half k % 2; B element (k, col)
    // in lane 4 * col + (k % 8) / 2, register k / 8, half k % 2.
    auto value = [](uint32_t reg, int half_index) { return double(mx_bf16_to_float(half(reg, half_index))); };
    for (int m = 0; m < 16; ++m)
        for (int n = 0; n < 8; ++n) {
            double product = 0, reference = 0;
            for (int h = 0; h < 2; ++h)
                for (int k = 0; k < 16; ++k) {
                    const double x = value(a[4 * (m % 8) + (k % 8) / 2][h][m / 8 + 2 * (k / 8)], k % 2);
                    const double y = value(b[4 * n + (k % 8) / 2][h][k / 8], k % 2);
                    product += x * y;
                }
            for (int k = 0; k < 32; ++k)
                reference += double(mx_e4m3fn_to_float(act[m][k])) * mx_e8m0_to_float(act_scale[m]) *
                             double(mx_e2m1_to_float(w[n][k])) * mx_e8m0_to_float(w_scale[n]);
            INFO("row " << m << " col " << n);
            CHECK(product == reference);  // every term exact in double
        }
}
