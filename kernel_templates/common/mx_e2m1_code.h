#pragma once
// How the kernels store MXFP4 weights (formats::WeightLayout::mma_k128): every 32-bit word of 8 e2m1
// codes (element j in bits 4j..4j+3, AITER's packing) is replaced by a fixed GF(2)-linear code of
// itself, chosen so that each bf16 pair the BF16 path feeds its tensor cores comes out of the coded
// word with one shift and one LOP3. Widening FP4 through byte-permute lookups cost ~38 instructions
// per weight word and bounded every bucket up to ~512 tokens by issue rate (docs/kernel-design.md).
//
// Pair q of a coded word w is  (w ^ shift_q(w)) & 0x81C081C0  (mx_e2m1_decode_pair). It holds elements
// (lo, lo + 2), lo = 4 * (q / 2) + q % 2, as "biased" bf16 halves: an element's exponent and mantissa
// bits at bf16 bits 6..8, its sign at bit 15. That bf16 is the element's value times 2^-126, exactly,
// subnormals included (e2m1 exponent 0 lands on a bf16 subnormal), so one multiply by 2^(s - 1)
// applies the block scale 2^(s - 127) (mx_bf16_widen.h).
// Why a code: with plain bits no arrangement works, since the mask's 4-bit pattern per half does not
// tile a word under any set of shifts and rotations (an exhaustive search says so). With the XOR of
// a shifted copy, the 32 equations the four pairs pose in the 32 bits of w are independent for the
// shifts below (found by the same search), so every word has exactly one code. The host derives the
// encoder from mx_e2m1_decode_pair itself by solving that system (tuner/formats/e2m1_code.h) and
// passes it to the layout kernel as an MxE2m1Code table. The FP8 path reads the same code
// (mx_e2m1_coded_to_e4m3x4), at a few more operations per word.
#include "host_device.h"

// Bits of a pair that carry the two biased bf16 halves.
#define MOETUNE_E2M1_PAIR_MASK 0x81C081C0u

// Pair q (0..3) of coded word w; q is a compile-time constant wherever the kernels call it.
MOETUNE_HD moetune_u32 mx_e2m1_decode_pair(moetune_u32 w, int q) {
    moetune_u32 shifted;
    switch (q) {
    case 0: shifted = w << 2; break;
    case 1: shifted = w << 6; break;
    case 2: shifted = w >> 8; break;
    default: shifted = (w >> 4) | (w << 28); break;  // rotate right 4
    }
    return (w ^ shifted) & MOETUNE_E2M1_PAIR_MASK;
}

// The first element (lower half) of pair q; the upper half is this + 2.
MOETUNE_HD int mx_e2m1_pair_low_element(int q) { return 4 * (q / 2) + q % 2; }

// Elements 4h..4h+3 of a coded weight word (mx_e2m1_code.h) as four e4m3fn bytes (byte j = element
// 4h + j) of value * 2^-6: pairs 2h (elements 4h, 4h+2) and 2h+1 (4h+1, 4h+3) hold each element's
// exponent and mantissa at bits 6..8 (or 22..24) and its sign at 15 (or 31); at e4m3 bits 2..4 the
// same bits are an e4m3 of the value times 2^-6 (e2m1 exponent 0 on e4m3 subnormals), sign at bit 7.
MOETUNE_HD moetune_u32 mx_e2m1_coded_to_e4m3x4(moetune_u32 coded, int h) {
    const moetune_u32 even = mx_e2m1_decode_pair(coded, 2 * h), odd = mx_e2m1_decode_pair(coded, 2 * h + 1);
    return ((even >> 4) & 0x001C001Cu) | ((even >> 8) & 0x00800080u) | ((odd << 4) & 0x1C001C00u) |
           (odd & 0x80008000u);
}

// The FP8 register-fed kernels' code (moe_fp8_register_gemm.h; a copy of the weights of its own,
// tuner/formats/e2m1_code.h): word h (0, 1) of a coded word w is four e4m3fn bytes, byte j = element
// 4h + j times 2^-6 (sign at bit 7, the e2m1 exponent and mantissa bits at 4..2: an e4m3 exponent
// field 0..3 is the e2m1 one, subnormals included), out of one shift and one LOP3. Like the pair
// code, its 32 equations are independent, so every word has exactly one code. The bf16 pairs' code
// above takes ~11 operations for the same four bytes (mx_e2m1_coded_to_e4m3x4).
#define MOETUNE_E2M1_E4M3_MASK 0x9C9C9C9Cu
MOETUNE_HD moetune_u32 mx_e2m1_e4m3_decode(moetune_u32 w, int h) {
    return (h == 0 ? w ^ (w >> 4) : w ^ (w << 2)) & MOETUNE_E2M1_E4M3_MASK;
}

// The encoder: column[i] is the code of the word with only bit i set; a word's code is the XOR of
// the columns of its set bits.
struct MxE2m1Code {
    moetune_u32 column[32];
};

MOETUNE_HD moetune_u32 mx_e2m1_encode(const MxE2m1Code& code, moetune_u32 word) {
    moetune_u32 coded = 0;
    for (int i = 0; i < 32; ++i)
        if ((word >> i) & 1u) coded ^= code.column[i];
    return coded;
}
