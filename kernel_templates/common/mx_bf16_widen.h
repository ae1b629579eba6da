#pragma once
// The operands of the BF16 tensor-core path (mma_bf16.h, KernelConfig::mma = bf16, name token
// _mbf16): MXFP8 activations and MXFP4 weights widened to bf16 with their e8m0 block scale folded
// in, so the products accumulate in FP32 without a per-block rescale.
//
// Exact within range: an e4m3 value has 4 significant bits and an e2m1 value 2, bf16 has 8 and the
// exponent range of FP32, so v * 2^s is a bf16 whenever it is neither above the bf16 maximum nor
// below its subnormals (|v * 2^s| < 2^-133), i.e. for every block of real data. Each function
// rounds like bf16 arithmetic and so gives exactly that value. A NaN scale (0xFF) gives NaN.
// Unlike the FP8 path, an e4m3 NaN element (0x7F, which AITER's quantiser writes for a NaN
// input, with a finite scale) is not special-cased: it widens to 480 * 2^s, which at such a
// block's scale (2^120) overflows to infinity -- non-finite either way.
//
// Host and device code (host_device.h), so tests/formats checks them on the CPU for every code,
// and the fragments they make against the PTX definition of the product.
// Element order: each widening returns elements (0, 2) in one bf16 pair and (1, 3) in the other
// (low half = the first); A and B go through the same order, which gives the k map of mma_bf16.h.
#include "host_device.h"
#include "mx_types.h"

// Both halves 2^(b - 127): the e8m0 scale as a bf16 multiplier. Exact for every byte (b = 0 gives
// the bf16 subnormal 2^-127); 0xFF gives NaN.
MOETUNE_HD moetune_u32 mx_e8m0_to_bf16x2(unsigned b) {
    const moetune_u32 half = mx_float_to_bf16(mx_e8m0_to_float((unsigned char)b));
    return half | (half << 16);
}

// Per half: a * b rounded to bf16 (round to nearest even, subnormals kept). Tensor-core targets
// (sm_80+) use one packed bf16 FMA with -0 as the addend (x * y + -0 is x * y, signed zeros
// included); elsewhere the same through FP32, where a bf16 product is exact before its rounding.
MOETUNE_HD moetune_u32 mx_bf16x2_mul(moetune_u32 a, moetune_u32 b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    moetune_u32 d;
    asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(0x80008000u));
    return d;
#else
    const float lo = mx_bf16_to_float((unsigned short)(a & 0xFFFFu)) * mx_bf16_to_float((unsigned short)(b & 0xFFFFu));
    const float hi = mx_bf16_to_float((unsigned short)(a >> 16)) * mx_bf16_to_float((unsigned short)(b >> 16));
    return moetune_u32(mx_float_to_bf16(lo)) | (moetune_u32(mx_float_to_bf16(hi)) << 16);
#endif
}

// Four e4m3fn bytes (byte j = element j) times 2^s (scale2 = mx_e8m0_to_bf16x2 of the block's
// byte) -> bf16 pairs even = (element 0, element 2), odd = (1, 3).
// The 7 magnitude bits of an e4m3 byte moved to bf16 bits 4..10 (exponent field = the e4m3
// exponent, top 3 mantissa bits = the e4m3 mantissa) are a bf16 of 2^-120 times the e4m3 value,
// for normals and subnormals alike (an e4m3 subnormal m * 2^-9 lands on the bf16 subnormal
// m * 2^-129). Multiplying by 2^120 first restores the value exactly (|v| <= 448), then by the
// scale; one multiply by 2^(s+120) would overflow its multiplier for s > 7.
MOETUNE_HD void mx_e4m3x4_to_bf16x2_scaled(moetune_u32 word, moetune_u32 scale2, moetune_u32& even,
                                           moetune_u32& odd) {
    // Elements 1 and 3 already sit in the high byte of each half; << 8 moves 0 and 2 there.
    // The sign stays at bit 15/31, the magnitude shifts down 4.
    constexpr moetune_u32 kPow2To120 = 0x7B807B80u;  // bf16 pair
    const moetune_u32 high13 = word, high02 = word << 8;
    const moetune_u32 biased_even = (high02 & 0x80008000u) | ((high02 >> 4) & 0x07F007F0u);
    const moetune_u32 biased_odd = (high13 & 0x80008000u) | ((high13 >> 4) & 0x07F007F0u);
    even = mx_bf16x2_mul(mx_bf16x2_mul(biased_even, kPow2To120), scale2);
    odd = mx_bf16x2_mul(mx_bf16x2_mul(biased_odd, kPow2To120), scale2);
}

// Four e2m1 codes (bits 4j..4j+3 of the low 16 bits = element j; higher bits are ignored) times 2^s -> bf16 pairs
// even = (element 0, element 2), odd = (1, 3). The value of each e2m1 magnitude is a table of
// bf16 bytes looked up with one mx_byte_perm per byte position; the products with the scale are
// exact in range.
MOETUNE_HD void mx_e2m1x4_to_bf16x2_scaled(moetune_u32 nibbles, moetune_u32 scale2, moetune_u32& even,
                                           moetune_u32& odd) {
    // bf16 of the magnitudes 0, 0.5, 1, 1.5 | 2, 3, 4, 6: 0000 3F00 3F80 3FC0 | 4000 4040 4080 40C0.
    constexpr moetune_u32 kLow0 = 0xC0800000u, kLow1 = 0xC0804000u;    // low bytes, magnitudes 0..3 | 4..7
    constexpr moetune_u32 kHigh0 = 0x3F3F3F00u, kHigh1 = 0x40404040u;  // high bytes
    const moetune_u32 magnitudes = nibbles & 0x7777u;
    const moetune_u32 low = mx_byte_perm(kLow0, kLow1, magnitudes);
    // Signs: element j's sign (bit 4j+3) is bit 7 of byte j/2 of (nibbles << 4) for even j and of
    // nibbles for odd j; mx_byte_signs spreads it over byte j.
    const moetune_u32 signs = mx_byte_signs(nibbles << 4, nibbles, 0x5140u);
    const moetune_u32 high = mx_byte_perm(kHigh0, kHigh1, magnitudes) | (signs & 0x80808080u);
    // Byte j of `low` and `high` are the two bytes of element j.
    even = mx_bf16x2_mul(mx_byte_perm(low, high, 0x6240u), scale2);
    odd = mx_bf16x2_mul(mx_byte_perm(low, high, 0x7351u), scale2);
}

// The fragments of one 32-wide MX block for the two 16x8x16 products h = 0, 1 (mma_bf16.h), from
// what lane (g, t) loads (mx_block_mma.h). A, one row at a time: lo / hi = the activation bytes at
// k 8t..8t+3 / 8t+4..8t+7 of row g + 8r, scale its scale byte. a[h] is product h's A fragment: the
// "even" pair is fragment k 2t, 2t+1 (register r), the "odd" pair 2t+8, 2t+9 (register 2 + r).
MOETUNE_HD void mx_bf16_a_fragments_of_row(int r, moetune_u32 lo, moetune_u32 hi, unsigned char scale,
                                           moetune_u32 a[2][4]) {
    const moetune_u32 s = mx_e8m0_to_bf16x2(scale);
    mx_e4m3x4_to_bf16x2_scaled(lo, s, a[0][r], a[0][2 + r]);
    mx_e4m3x4_to_bf16x2_scaled(hi, s, a[1][r], a[1][2 + r]);
}

// The same for B: packed = the 4 weight bytes (8 e2m1, element j = k 8t+j) of weight row g, scale
// its scale byte. b[h][0] is fragment k 2t, 2t+1 of product h, b[h][1] 2t+8, 2t+9.
MOETUNE_HD void mx_bf16_b_fragments(moetune_u32 packed, unsigned char scale, moetune_u32 b[2][2]) {
    const moetune_u32 s = mx_e8m0_to_bf16x2(scale);
    mx_e2m1x4_to_bf16x2_scaled(packed, s, b[0][0], b[0][1]);
    mx_e2m1x4_to_bf16x2_scaled(packed >> 16, s, b[1][0], b[1][1]);
}
