#pragma once
// Per-element encode/decode of the OCP MX formats AITER's a8w4 path uses (aiter-fmoe-format.md §4):
// FP4 e2m1 weights, e8m0 block scales, FP8 e4m3fn activations, plus bf16. Shared by the CPU code
// (tuner/formats) and the GPU kernels, which must agree bit for bit, so every function here is
// integer bit manipulation or exact float arithmetic (products with powers of two, small-integer
// conversions): no division, no transcendental function, nothing fast-math could change.
// docs/number-formats.md explains the choices made for the cases AITER leaves undefined.
#include "host_device.h"

// ---- helpers ---------------------------------------------------------------------------------

MOETUNE_HD float mx_quiet_nan() { return mx_float_of(0x7FC00000u); }

MOETUNE_HD bool mx_is_nan(float x) { return (mx_bits_of(x) & 0x7FFFFFFFu) > 0x7F800000u; }

// v / 2^shift rounded to nearest, ties to even; 1 <= shift <= 31.
MOETUNE_HD moetune_u32 mx_shift_right_rne(moetune_u32 v, int shift) {
    const moetune_u32 q = v >> shift;
    const moetune_u32 rest = v & ((1u << shift) - 1u);
    const moetune_u32 half = 1u << (shift - 1);
    return (rest > half || (rest == half && (q & 1u))) ? q + 1u : q;
}

// Rounds a non-negative, non-NaN f32 (given as bits) to a small float format with `mbits` mantissa
// bits and exponent bias `bias` (subnormals, no infinities), round-to-nearest-even, and saturates
// at max_code. Returns the code without its sign bit. Same result as torchao's
// _f32_to_floatx_unpacked, which AITER uses for FP4.
MOETUNE_HD moetune_u32 mx_round_to_small_float(moetune_u32 abs_bits, int mbits, int bias, moetune_u32 max_code) {
    const int f32_exp = int(abs_bits >> 23);
    const int unbiased = f32_exp - 127;
    const int min_normal_exp = 1 - bias;
    moetune_u32 code;
    if (unbiased >= min_normal_exp) {
        // Re-bias the exponent in place; rounding the mantissa may carry into the exponent,
        // which is exactly the next representable value.
        const moetune_u32 rebased = (moetune_u32(unbiased + bias) << 23) | (abs_bits & 0x7FFFFFu);
        code = mx_shift_right_rne(rebased, 23 - mbits);
    } else if (f32_exp == 0) {
        code = 0;  // f32 zero or subnormal: far below half the target's smallest step
    } else {
        // Target subnormal: count steps of 2^(min_normal_exp - mbits). A round-up to 2^mbits steps
        // is the smallest normal code, so no special case is needed.
        const moetune_u32 mantissa = (abs_bits & 0x7FFFFFu) | 0x800000u;
        const int shift = (23 - mbits) + (min_normal_exp - unbiased);
        code = shift > 31 ? 0u : mx_shift_right_rne(mantissa, shift);
    }
    return code > max_code ? max_code : code;
}

// ---- FP4 e2m1: bit3 sign, bits2..1 exponent (bias 1), bit0 mantissa; magnitudes 0 .5 1 1.5 2 3 4 6 --

MOETUNE_HD float mx_e2m1_to_float(unsigned code) {
    const moetune_u32 exponent = (code >> 1) & 3u;
    const moetune_u32 mantissa = code & 1u;
    // Subnormal (exponent 0): mantissa * 0.5 -> bits of 0.5 when set. Normal: 2^(e-1) * 1.m.
    const moetune_u32 magnitude_bits =
        exponent == 0 ? (mantissa ? 0x3F000000u : 0u) : ((exponent - 1u + 127u) << 23) | (mantissa << 22);
    return mx_float_of(magnitude_bits | ((code & 8u) ? 0x80000000u : 0u));
}

// Round to nearest even, saturate to +-6 (Inf included). The sign is kept, so a negative value
// that rounds to zero gives code 8 (-0), as torchao does. FP4 has no NaN: NaN gives +-6 (code 7 or
// 15); MX quantisation still propagates a NaN through its block's scale (0xFF, see below).
MOETUNE_HD unsigned mx_float_to_e2m1(float x) {
    const moetune_u32 bits = mx_bits_of(x);
    const moetune_u32 sign = (bits >> 31) << 3;
    if (mx_is_nan(x)) return sign | 7u;
    return sign | mx_round_to_small_float(bits & 0x7FFFFFFFu, 1, 1, 7u);
}

// Two e2m1 codes per byte: even element in the low nibble, odd element in the high nibble.
MOETUNE_HD moetune_u8 mx_pack_e2m1(unsigned even_code, unsigned odd_code) {
    return moetune_u8((even_code & 0xFu) | ((odd_code & 0xFu) << 4));
}
MOETUNE_HD unsigned mx_e2m1_low(moetune_u8 byte) { return byte & 0xFu; }
MOETUNE_HD unsigned mx_e2m1_high(moetune_u8 byte) { return byte >> 4; }

// ---- e8m0 scales: value 2^(b - 127), 0xFF = NaN --------------------------------------------------

MOETUNE_HD float mx_e8m0_to_float(unsigned char b) {
    if (b == 0xFF) return mx_quiet_nan();
    // Byte 0 is 2^-127, an f32 subnormal (AITER maps it to bits 0x00400000 the same way).
    return mx_float_of(b == 0 ? 0x00400000u : moetune_u32(b) << 23);
}

// 1 / 2^(b - 127) = 2^(127 - b), exact for every finite scale (byte 254 gives the subnormal 2^-127).
// Quantisers multiply by this instead of dividing by the scale, so no division is ever needed.
MOETUNE_HD float mx_e8m0_reciprocal(unsigned char b) {
    if (b == 0xFF) return mx_quiet_nan();
    return mx_e8m0_to_float((unsigned char)(254 - b));
}

// Smallest 2^e >= x, clamped to [2^-127, 2^127]; x <= 0 gives byte 0; NaN and +Inf give 0xFF, so
// a block holding a non-finite value decodes to NaN, as the OCP MX spec prescribes.
MOETUNE_HD unsigned char mx_e8m0_ceil_pow2(float x) {
    const moetune_u32 bits = mx_bits_of(x);
    if (mx_is_nan(x) || bits == 0x7F800000u) return 0xFF;
    if ((bits >> 31) || bits == 0) return 0;
    const moetune_u32 exponent = bits >> 23;
    const moetune_u32 mantissa = bits & 0x7FFFFFu;
    if (exponent == 0) return mantissa > 0x400000u ? 1 : 0;  // f32 subnormal: above 2^-127 -> 2^-126
    const moetune_u32 byte = exponent + (mantissa != 0 ? 1u : 0u);
    return (unsigned char)(byte > 254u ? 254u : byte);
}

// The FP4 block scale ceil_pow2(amax / 6) (AITER's default RoundUp mode), computed from the bits of
// amax without a division: amax = 1.m * 2^E, amax/6 = (1.m / 1.5) * 2^(E-2) with 1.m/1.5 in
// [2/3, 4/3), so the exponent is E-2, plus one when 1.m > 1.5.
MOETUNE_HD unsigned char mx_fp4_scale_from_amax(float amax) {
    const moetune_u32 bits = mx_bits_of(amax);
    if (mx_is_nan(amax) || bits == 0x7F800000u) return 0xFF;
    if ((bits >> 31) || bits == 0) return 0;
    const int exponent = int(bits >> 23);  // biased; f32 subnormal amax (exponent 0) ends up clamped to 0
    const int byte = exponent - 2 + ((bits & 0x7FFFFFu) > 0x400000u ? 1 : 0);
    return (unsigned char)(byte < 0 ? 0 : byte);
}

// ---- FP8 e4m3fn: bias 7, 3 mantissa bits, max 448, 0x7F/0xFF = NaN, no infinities ---------------

MOETUNE_HD float mx_e4m3fn_to_float(unsigned char b) {
    if ((b & 0x7Fu) == 0x7Fu) return mx_quiet_nan();
    const moetune_u32 sign = (b & 0x80u) ? 0x80000000u : 0u;
    const moetune_u32 exponent = (b >> 3) & 0xFu;
    const moetune_u32 mantissa = b & 7u;
    if (exponent == 0) {
        // Subnormal: mantissa * 2^-9, exact in f32.
        return mx_float_of(mx_bits_of(float(mantissa) * mx_float_of(0x3B000000u)) | sign);
    }
    return mx_float_of(sign | ((exponent - 7u + 127u) << 23) | (mantissa << 20));
}

// Round to nearest even, saturate to +-448 (Inf included), NaN -> 0x7F.
MOETUNE_HD unsigned char mx_float_to_e4m3fn(float x) {
    if (mx_is_nan(x)) return 0x7F;
    const moetune_u32 bits = mx_bits_of(x);
    return (unsigned char)(((bits >> 31) << 7) | mx_round_to_small_float(bits & 0x7FFFFFFFu, 3, 7, 0x7Eu));
}

// ---- MXFP8 activations (AITER's torch_dynamic_mxfp8_quant, §4.4) ----------------------------------

// The e8m0 byte for a 32-element block with absolute maximum amax: round amax's f32 bits at
// mantissa bit 21 (+0x200000, i.e. mantissas >= 1.75 go to the next power of two), keep the
// exponent field, subtract 8 (e4m3fn's largest binade starts at 2^8), clamp at 0. The scaled
// block max is then < 448, so the e4m3fn cast never saturates.
MOETUNE_HD unsigned char mx_mxfp8_scale_from_amax(float amax) {
    const moetune_u32 rounded = (mx_bits_of(amax) + 0x200000u) & 0xFF800000u;
    const int exponent_field = int((rounded >> 23) & 0xFFu);
    const int biased = exponent_field - 8;
    return (unsigned char)(biased < 0 ? 0 : biased);
}

// AITER multiplies the block by 2^(127 - e8m0) (the float with exponent field 254 - e8m0).
MOETUNE_HD float mx_mxfp8_quant_multiplier(unsigned char e8m0) { return mx_float_of(moetune_u32(254 - e8m0) << 23); }

MOETUNE_HD unsigned char mx_quantize_mxfp8_element(float x, unsigned char e8m0) {
    return mx_float_to_e4m3fn(x * mx_mxfp8_quant_multiplier(e8m0));
}

// Two elements of one block as the bytes of a little-endian pair (lo first). On sm_89 and later one
// conversion instruction does both (cvt.rn.satfinite: round to nearest even, saturate to +-448, NaN
// to NaN 0x7F: the same bytes as mx_float_to_e4m3fn); the software rounding above costs ~20
// instructions an element, which made stage 1's fused epilogue latency-bound (docs/kernel-design.md).
MOETUNE_HD unsigned short mx_quantize_mxfp8_pair(float lo, float hi, unsigned char e8m0) {
    const float multiplier = mx_mxfp8_quant_multiplier(e8m0);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    unsigned short pair;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(pair) : "f"(hi * multiplier), "f"(lo * multiplier));
    return pair;
#else
    return (unsigned short)(mx_float_to_e4m3fn(lo * multiplier) | (mx_float_to_e4m3fn(hi * multiplier) << 8));
#endif
}

// Four consecutive elements e[0..3] of one block as a little-endian word of e4m3 bytes (e[0] lowest).
MOETUNE_HD moetune_u32 mx_quantize_mxfp8_word(const float* e, unsigned char e8m0) {
    return moetune_u32(mx_quantize_mxfp8_pair(e[0], e[1], e8m0)) |
           (moetune_u32(mx_quantize_mxfp8_pair(e[2], e[3], e8m0)) << 16);
}

// MXFP4: q = e2m1(x / scale), done as x * 2^(127 - b) (exact).
MOETUNE_HD unsigned mx_quantize_mxfp4_element(float x, unsigned char e8m0) {
    return mx_float_to_e2m1(x * mx_e8m0_reciprocal(e8m0));
}

// ---- bf16 -------------------------------------------------------------------------------------

// Round to nearest even; NaN stays a (quiet) NaN with its sign.
MOETUNE_HD unsigned short mx_float_to_bf16(float x) {
    const moetune_u32 bits = mx_bits_of(x);
    if (mx_is_nan(x)) return (unsigned short)((bits >> 16) | 0x40u);
    return (unsigned short)((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

MOETUNE_HD float mx_bf16_to_float(unsigned short b) { return mx_float_of(moetune_u32(b) << 16); }

// The float value of x rounded to bf16.
MOETUNE_HD float mx_round_to_bf16(float x) { return mx_bf16_to_float(mx_float_to_bf16(x)); }
