// MXFP4 codes rebased to e4m3 by table (common/mx_e2m1_e4m3_lut.h) against mx_e2m1_rebase, the
// rounding weight_rebase.hip stores: every code at every element position and every shift.
#include <cmath>
#include <cstdint>
#include <random>

#include "common/mx_e2m1_e4m3_lut.h"
#include "support/catch.hpp"

namespace {

// The eight e4m3 bytes the table gives for `codes` (AITER's packing) in a block of scale `scale`,
// row base `base`: the codes as the FP4 blocks keep them, rebased.
void table_rebase(uint32_t codes, unsigned scale, unsigned base, uint8_t (&out)[8]) {
    const int row = mx_e2m1_e4m3_shift_row(scale, base);
    uint32_t lo = 0, hi = 0;
    mx_e2m1x8_to_e4m3(mx_e2m1x8_split_signs(codes), mx_e2m1_e4m3_table_word(row, 0), mx_e2m1_e4m3_table_word(row, 1),
                      lo, hi);
    for (int j = 0; j < 4; ++j) {
        out[j] = uint8_t(lo >> (8 * j));
        out[4 + j] = uint8_t(hi >> (8 * j));
    }
}

}  // namespace

TEST_CASE("the table's last row is zero: from 2^-13 on, every e2m1 magnitude rounds to 0 in e4m3",
          "[formats][rebase]") {
    CHECK(mx_e2m1_e4m3_table_word(kMxE2m1E4m3Shifts - 1, 0) == 0u);
    CHECK(mx_e2m1_e4m3_table_word(kMxE2m1E4m3Shifts - 1, 1) == 0u);
    CHECK(mx_e2m1_e4m3_table_word(kMxE2m1E4m3Shifts - 2, 1) != 0u);  // 6 * 2^-12 rounds to 2^-9
    for (unsigned code = 0; code < 8; ++code)
        for (int shift = kMxE2m1E4m3Shifts - 1; shift <= 140; ++shift)
            CHECK((mx_e2m1_rebase(code, 200u - unsigned(shift), 200u) & 0x7Fu) == 0u);
}

// The split moves each sign bit to a place of its own and leaves the magnitudes: a permutation of the
// word's bits, so every word of 8 codes has one split and the makers may split code by code.
TEST_CASE("splitting a word's signs moves its eight sign bits and nothing else", "[formats][rebase]") {
    uint32_t moved = 0;
    for (int bit = 0; bit < 32; ++bit) {
        const uint32_t split = mx_e2m1x8_split_signs(1u << bit);
        INFO("bit " << bit);
        REQUIRE(split != 0u);
        REQUIRE((split & (split - 1)) == 0u);  // one bit
        CHECK((moved & split) == 0u);
        moved |= split;
        if (bit % 4 != 3) CHECK(split == 1u << bit);
    }
    CHECK(moved == 0xFFFFFFFFu);
    CHECK(mx_e2m1x8_split_signs(0x88888888u) == 0x88888888u);
    CHECK(mx_e2m1x8_split_signs(0x00000008u) == 0x00000080u);  // element 0's sign: bit 7 of byte 0
    CHECK(mx_e2m1x8_split_signs(0x00080000u) == 0x00000008u);  // element 4's: bit 3, shifted by 4 into hi's byte 0
}

TEST_CASE("eight e2m1 codes rebased by table are mx_e2m1_rebase's bytes at every position and shift",
          "[formats][rebase]") {
    const unsigned base = 140;
    for (int shift = 0; shift <= 30; ++shift) {
        const unsigned scale = base - unsigned(shift);
        for (int position = 0; position < 8; ++position)
            for (uint32_t code = 0; code < 16; ++code) {
                // The code at `position`, a different code (its own complement) everywhere else.
                uint32_t codes = 0;
                for (int j = 0; j < 8; ++j)
                    codes |= (j == position ? code : (15u - code + uint32_t(j)) & 15u) << (4 * j);
                uint8_t got[8];
                table_rebase(codes, scale, base, got);
                for (int j = 0; j < 8; ++j) {
                    INFO("shift " << shift << ", codes " << std::hex << codes << ", element " << j);
                    CHECK(got[j] == mx_e2m1_rebase((codes >> (4 * j)) & 15u, scale, base));
                }
            }
    }
}

TEST_CASE("random code words rebased by table match element by element", "[formats][rebase]") {
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> shift_of(0, 20);
    for (int n = 0; n < 20000; ++n) {
        const uint32_t codes = rng();
        const unsigned base = 150, scale = base - unsigned(shift_of(rng));
        uint8_t got[8];
        table_rebase(codes, scale, base, got);
        for (int j = 0; j < 8; ++j) {
            INFO("codes " << std::hex << codes << std::dec << ", scale " << scale << ", element " << j);
            REQUIRE(got[j] == mx_e2m1_rebase((codes >> (4 * j)) & 15u, scale, base));
        }
    }
}
