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
// B comes from weight words in the kernels' code (mx_e2m1_code.h), which is built for that order.
#include "host_device.h"
#include "mx_e2m1_code.h"
#include "mx_types.h"

// Both halves 2^(b - 127): the e8m0 scale as a bf16 multiplier. Exact for every byte (b = 0 gives
// the bf16 subnormal 2^-127); 0xFF gives NaN. Integer operations only: the byte is the bf16
// exponent field.
MOETUNE_HD moetune_u32 mx_e8m0_to_bf16x2(unsigned b) {
    const moetune_u32 half = b == 0u ? 0x0040u : b == 0xFFu ? 0x7FC0u : moetune_u32(b) << 7;
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
MOETUNE_HD void mx_e4m3x4_to_bf16x2_biased(moetune_u32 word, moetune_u32& even, moetune_u32& odd) {
    // Elements 1 and 3 already sit in the high byte of each half; << 8 moves 0 and 2 there.
    // The sign stays at bit 15/31, the magnitude shifts down 4.
    const moetune_u32 high13 = word, high02 = word << 8;
    even = (high02 & 0x80008000u) | ((high02 >> 4) & 0x07F007F0u);
    odd = (high13 & 0x80008000u) | ((high13 >> 4) & 0x07F007F0u);
}

MOETUNE_HD void mx_e4m3x4_to_bf16x2_scaled(moetune_u32 word, moetune_u32 scale2, moetune_u32& even,
                                           moetune_u32& odd) {
    constexpr moetune_u32 kPow2To120 = 0x7B807B80u;  // bf16 pair
    mx_e4m3x4_to_bf16x2_biased(word, even, odd);
    even = mx_bf16x2_mul(mx_bf16x2_mul(even, kPow2To120), scale2);
    odd = mx_bf16x2_mul(mx_bf16x2_mul(odd, kPow2To120), scale2);
}

// The same in one multiply, by 2^(s - 7) = 2^120 * 2^(s - 127), where that multiplier is a finite
// bf16: scale bytes s <= 134 (mx_e4m3_one_multiply_fits), i.e. blocks with maxima below ~2^16,
// which covers activations. Bit-identical to the two multiplies there: both round the same exact
// product (a power of two times an exact bf16) once.
MOETUNE_HD bool mx_e4m3_one_multiply_fits(unsigned s) { return s <= 134u; }
MOETUNE_HD moetune_u32 mx_e4m3_one_multiplier_bf16x2(unsigned s) {
    const moetune_u32 half = moetune_u32(s + 120u) << 7;  // bf16 exponent field of 2^(s - 7)
    return half | (half << 16);
}
MOETUNE_HD void mx_e4m3x4_to_bf16x2_one_multiply(moetune_u32 word, moetune_u32 multiplier, moetune_u32& even,
                                                 moetune_u32& odd) {
    mx_e4m3x4_to_bf16x2_biased(word, even, odd);
    even = mx_bf16x2_mul(even, multiplier);
    odd = mx_bf16x2_mul(odd, multiplier);
}

// The bf16 pair multiplier that turns biased e2m1 halves (value * 2^-126, mx_e2m1_code.h) into
// value * 2^(s - 127): 2^(s - 1), for s <= 128. A larger scale (a block maximum above 12, which
// trained FP4 weights do not reach) gets 2^127 here and a second multiply by
// mx_e2m1_wide_scale_bf16x2; splitting keeps every multiplier a finite bf16.
MOETUNE_HD moetune_u32 mx_e2m1_scale_bf16x2(unsigned s) {
    const moetune_u32 exponent = (s < 128u ? s : 128u) + 126u;  // bf16 exponent field of 2^(min(s, 128) - 1)
    return (exponent << 7) | (exponent << 23);
}

// The second multiplier for s > 128: 2^(s - 128); NaN for the NaN scale 0xFF.
MOETUNE_HD moetune_u32 mx_e2m1_wide_scale_bf16x2(unsigned s) {
    const moetune_u32 half = s == 0xFFu ? 0x7FC0u : (s - 1u) << 7;
    return half | (half << 16);
}

// Whether any of four scale bytes is above 128 (bit 7 set and some lower bit set; the lower bits'
// sum stays within its byte).
MOETUNE_HD bool mx_e2m1_scales_wide(moetune_u32 scale_bytes) {
    return ((scale_bytes & 0x80808080u) & ((scale_bytes & 0x7F7F7F7Fu) + 0x7F7F7F7Fu)) != 0u;
}

// Pre-widened activations ("wide" layout), what the register-fed and _wgmma kernels of the bf16 path
// read instead of MXFP8 values and scales (common/moe_gemm.h, common/moe_shared_gemm.h, which copies
// these 16-byte groups into shared memory unchanged): bf16 [rows, cols], each element its MXFP8
// value times its block scale (exact for every real block, see the top of this file), and within
// each group of 8 elements the pairs (0, 2), (1, 3), (4, 6), (5, 7): a lane's 16 bytes at elements
// 8t..8t+7 of a row are its four A-fragment registers for that row (mx_bf16_a_fragments_of_wide_row),
// with nothing left to widen in the loop.
// The 16 bytes of one 8-element group: the group's e4m3 bytes (lo = elements 0..3, hi = 4..7) at
// e8m0 scale `scale`.
MOETUNE_HD void mx_wide_group(moetune_u32 lo, moetune_u32 hi, unsigned char scale, moetune_u32 (&out)[4]) {
    const moetune_u32 s = mx_e8m0_to_bf16x2(scale);
    mx_e4m3x4_to_bf16x2_scaled(lo, s, out[0], out[1]);
    mx_e4m3x4_to_bf16x2_scaled(hi, s, out[2], out[3]);
}

// One 32-element MXFP8 block in the wide layout: its e4m3 bytes as 8 little-endian words (word i =
// elements 4i..4i+3) at e8m0 scale `scale` -> 16 words, its 4 wide groups in order. What
// mxfp8_widen.hip stores and formats::widen_mxfp8 computes (mxfp8_quant_wide, in mxfp8_quant.hip,
// the same group by group).
MOETUNE_HD void mx_wide_block(const moetune_u32 (&values)[8], unsigned char scale, moetune_u32 (&out)[16]) {
    for (int group = 0; group < 4; ++group) {
        moetune_u32 words[4];
        mx_wide_group(values[2 * group], values[2 * group + 1], scale, words);
        for (int w = 0; w < 4; ++w) out[4 * group + w] = words[w];
    }
}

// Stores mx_wide_block's 16 words at `block` (the block's 32 wide elements, 16-byte aligned) as four
// 16-byte vectors: mxfp8_widen.hip's store (mxfp8_quant_wide stores each group's 4 words itself, one
// lane a group, as one mx_wide_vector).
struct alignas(16) mx_wide_vector {
    moetune_u32 w[4];
};
MOETUNE_HD void mx_store_wide_block(unsigned short* block, const moetune_u32 (&widened)[16]) {
    mx_wide_vector* out = reinterpret_cast<mx_wide_vector*>(block);
    for (int q = 0; q < 4; ++q)
        out[q] = mx_wide_vector{{widened[4 * q], widened[4 * q + 1], widened[4 * q + 2], widened[4 * q + 3]}};
}

// Four e4m3 bytes in element order as one word of mx_wide_block's `values` (byte i = element i),
// for the writers that hold the block as bytes (mxfp8_quant_wide, formats::widen_mxfp8).
MOETUNE_HD moetune_u32 mx_e4m3_word(const unsigned char* bytes) {
    return moetune_u32(bytes[0]) | moetune_u32(bytes[1]) << 8 | moetune_u32(bytes[2]) << 16 |
           moetune_u32(bytes[3]) << 24;
}

// Where element j (0..7) of an 8-element group sits in its wide group.
MOETUNE_HD int mx_wide_position(int j) { return (j & 4) | ((j & 1) << 1) | ((j >> 1) & 1); }

// The fragments of one 32-wide MX block for the two 16x8x16 products h = 0, 1 (mma_bf16.h), from
// what lane (g, t) loads (mx_block_mma.h). A, one row at a time: w = the wide group (elements
// 8t..8t+7) of row g + 8r. a[h] is product h's A fragment: the "even" pair of its half is fragment
// k 2t, 2t+1 (register r), the "odd" pair 2t+8, 2t+9 (register 2 + r).
MOETUNE_HD void mx_bf16_a_fragments_of_wide_row(int r, const moetune_u32 (&w)[4], moetune_u32 a[2][4]) {
    a[0][r] = w[0];
    a[0][2 + r] = w[1];
    a[1][r] = w[2];
    a[1][2 + r] = w[3];
}

// One element's wide bf16: e4m3 byte `value` at e8m0 scale `scale`.
MOETUNE_HD unsigned short mx_wide_element(unsigned char value, unsigned char scale) {
    moetune_u32 even, odd;
    mx_e4m3x4_to_bf16x2_scaled(value, mx_e8m0_to_bf16x2(scale), even, odd);
    return (unsigned short)(even & 0xFFFFu);
}

// mx_e2m1_scale_bf16x2 of byte kb of a word of four scale bytes, when that byte is at most 128 (no
// min needed): a byte permute puts it in bytes 1 and 3, + 126 and >> 1 make it the bf16 exponent
// field. Three operations instead of seven where the kernels know no scale of the chunk is wide.
MOETUNE_HD moetune_u32 mx_e2m1_narrow_scale_bf16x2(moetune_u32 scale_bytes, int kb) {
    const moetune_u32 selector = 0x0404u + 0x1010u * moetune_u32(kb);  // bytes 0, 2 from the zero word
    return (mx_byte_perm(scale_bytes, 0u, selector) + 0x7E007E00u) >> 1;
}

// The B fragments of a coded weight word (mx_e2m1_code.h: 8 e2m1, element j = k 8t+j) of weight
// row g with the multiplier mx_e2m1_scale_bf16x2 of its scale. b[h][0] is fragment k 2t, 2t+1 of
// product h, b[h][1] 2t+8, 2t+9: pair q = 2h + e of the code holds elements (4h + e, 4h + e + 2),
// the k map above. Per pair one shift, one LOP3 and one packed multiply.
MOETUNE_HD void mx_bf16_b_fragments_scaled(moetune_u32 coded, moetune_u32 multiplier, moetune_u32 b[2][2]) {
    for (int q = 0; q < 4; ++q) b[q / 2][q % 2] = mx_bf16x2_mul(mx_e2m1_decode_pair(coded, q), multiplier);
}

// The same from the scale byte. wide_scales: whether the byte may be above 128, which takes a
// second multiply (mx_e2m1_wide_scale_bf16x2).
MOETUNE_HD void mx_bf16_b_fragments(moetune_u32 coded, unsigned char scale, bool wide_scales, moetune_u32 b[2][2]) {
    mx_bf16_b_fragments_scaled(coded, mx_e2m1_scale_bf16x2(scale), b);
    if (wide_scales && scale > 128u)
        for (int q = 0; q < 4; ++q) b[q / 2][q % 2] = mx_bf16x2_mul(b[q / 2][q % 2], mx_e2m1_wide_scale_bf16x2(scale));
}
