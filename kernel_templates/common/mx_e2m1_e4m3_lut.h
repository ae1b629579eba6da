#pragma once
// MXFP4 weights rebased to e4m3 in the SM, by table: what an FP8 warpgroup-product loop would run to
// read FP4 weights (half the bytes of the rebased e4m3 weights it copies now, weight_rebase.hip)
// and give its tensor cores the same e4m3 bytes. The rebased weight of an e2m1 code c in a block of
// scale s of a row of base b (mx_rebase.h) is mx_e2m1_rebase(c, s, b): e4m3 of value(c) * 2^(s - b),
// s <= b. It depends on the code's magnitude (3 bits), its sign and the block's shift b - s only,
// and on the shift only up to 13: at 2^-13 the largest magnitude, 6, is 0.375 of the smallest e4m3
// subnormal (2^-9) and rounds to 0. So a block's 8 magnitudes rebased are 8 bytes, two words, one
// table row per shift 0..13, and 8 codes widen to 8 bytes with two byte-permutes through that row
// (their selectors masked, the upper four shifted down) and one LOP3 a word that merges the signs,
// which the FP4 blocks keep where the e4m3 bytes want them (mx_e2m1x8_split_signs; the upper four a
// shift away): 8 operations per 8 elements (10 with AITER's sign bits, which two more byte-permutes
// gathered). Bit for bit what weight_rebase.hip writes (CPU test: tests/formats/e2m1_e4m3_lut_test.cpp,
// every code at every position and shift).
// Why not the conversion instructions (e4m3 -> f16 -> scaled -> e4m3, as mx_e4m3_rebase_word): the
// rebased value's rounding below e4m3's normal range is the table's; the cvt path needs e2m1 as
// e4m3 first and twice the operations.
#include "host_device.h"
#include "mx_rebase.h"

// Table rows: shift 0 .. kMxE2m1E4m3Shifts - 1; larger shifts use the last row (all zeros).
constexpr int kMxE2m1E4m3Shifts = 14;

// The row of a block of scale `scale` in a row of base `base` (scale <= base).
MOETUNE_HD int mx_e2m1_e4m3_shift_row(unsigned scale, unsigned base) {
    const int shift = int(base) - int(scale);
    return shift < kMxE2m1E4m3Shifts ? shift : kMxE2m1E4m3Shifts - 1;
}

// Word `half` (0: magnitudes 0..3, 1: 4..7) of table row `row`: byte j is the e4m3 of magnitude
// 4 half + j (e2m1 codes 0..7: 0, 0.5, 1, 1.5, 2, 3, 4, 6) times 2^-row, rounded as
// mx_e2m1_rebase does (the kernels fill their copy of the table once, from this).
MOETUNE_HD moetune_u32 mx_e2m1_e4m3_table_word(int row, int half) {
    moetune_u32 word = 0;
    for (int j = 0; j < 4; ++j)
        word |= moetune_u32(mx_e2m1_rebase(unsigned(4 * half + j), 127u - unsigned(row), 127u)) << (8 * j);
    return word;
}

// How the FP4 blocks keep a word of eight e2m1 codes (fp4_weight_blocks.h): AITER's packing
// (element j in bits 4j..4j+3, sign at bit 3 of each) with the eight sign bits moved among the
// nibbles' bit 3s, the magnitudes left in place: elements 0..3's signs at bits 7, 15, 23, 31 (bit 7 of
// byte j, where their e4m3 bytes want them) and elements 4..7's at bits 3, 11, 19, 27 (the same, four
// places lower). mx_e2m1x8_to_e4m3 then takes one operation fewer per four elements than with the
// signs at bit 3 of each nibble: they need no byte-permutes to gather them.
MOETUNE_HD moetune_u32 mx_e2m1x8_split_signs(moetune_u32 codes) {
    moetune_u32 split = codes & 0x77777777u;
    for (int j = 0; j < 8; ++j) {
        const int to = j < 4 ? 8 * j + 7 : 8 * (j - 4) + 3;
        split |= ((codes >> (4 * j + 3)) & 1u) << to;
    }
    return split;
}

// Eight e2m1 codes as the FP4 blocks keep them (mx_e2m1x8_split_signs) rebased through table row
// {row_lo, row_hi}: lo = elements 0..3, hi = elements 4..7 as e4m3 bytes (byte j of lo = element j).
// 8 operations: a mask, a byte-permute and a merge for lo; a shift, a mask, a byte-permute, a shift and
// a merge for hi.
MOETUNE_HD void mx_e2m1x8_to_e4m3(moetune_u32 split, moetune_u32 row_lo, moetune_u32 row_hi, moetune_u32& lo,
                                  moetune_u32& hi) {
    // Magnitudes: byte j picks table byte (nibble j & 7); the selector's bit 3 (a sign mode) cleared.
    lo = mx_byte_perm(row_lo, row_hi, split & 0x7777u) | (split & 0x80808080u);
    hi = mx_byte_perm(row_lo, row_hi, (split >> 16) & 0x7777u) | ((split << 4) & 0x80808080u);
}
