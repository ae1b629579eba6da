#pragma once
// Rebased activations: what the FP8 warpgroup-product kernels (_smem_wgmma without _mbf16,
// moe_fp8_wgmma_gemm.h) read instead of MXFP8 values and per-block scales. Each row keeps one
// e8m0 base, its largest block scale, and every element becomes e4m3 of value * 2^(scale - base),
// so a row is e4m3 values times 2^(base - 127) and the products over all of K need no per-block
// rescale. Exact for every element whose rebased value stays an e4m3 (blocks within ~8 octaves of
// the row's largest keep all their bits); below that the value is rounded to e4m3 (nearest even,
// subnormals kept), an error under 2^-10 of the row's largest value.
// Written once per row by mxfp8_rebase.hip (for stage 2 after stage 1), not in every workgroup.
#include "mx_e2m1_code.h"
#include "mx_types.h"

// e4m3fn byte `b` times 2^-k (k >= 0), rounded back to e4m3fn. NaN stays NaN.
MOETUNE_HD unsigned char mx_e4m3_rebase(unsigned char b, int k) {
    if (k == 0 || (b & 0x7Fu) == 0x7Fu) return b;
    const float x = mx_e4m3fn_to_float(b);
    const float down = k < 127 ? x * mx_float_of(moetune_u32(127 - k) << 23) : 0.f * x;
    return mx_float_to_e4m3fn(down);
}

// The four e4m3fn bytes of a word (byte 0 lowest), each rebased as mx_e4m3_rebase does. On sm_89
// and later through the conversion instructions (e4m3 pairs to f16 pairs, exact, and f32 pairs back
// to e4m3 with the rounding of mx_float_to_e4m3fn), NaN bytes put back as they came: ~10
// instructions a word where the software decode and rounding took ~100, which made the passes that
// rebase every activation row (mxfp8_quant_rebased, mxfp8_rebase) run at under 1 TB/s.
MOETUNE_HD moetune_u32 mx_e4m3_rebase_word(moetune_u32 word, int k) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    if (k == 0) return word;
    const float factor = k < 127 ? mx_float_of(moetune_u32(127 - k) << 23) : 0.f;
    moetune_u32 out = 0;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
        moetune_u32 halves;
        asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(halves) : "h"((unsigned short)(word >> (16 * half))));
        float lo, hi;
        asm("{\n.reg .b16 l, h;\nmov.b32 {l, h}, %2;\ncvt.f32.f16 %0, l;\ncvt.f32.f16 %1, h;\n}" : "=f"(lo), "=f"(hi)
            : "r"(halves));
        unsigned short pair;
        asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(pair) : "f"(hi * factor), "f"(lo * factor));
        out |= moetune_u32(pair) << (16 * half);
    }
    const moetune_u32 nan = __vcmpeq4(word & 0x7F7F7F7Fu, 0x7F7F7F7Fu);  // 0xFF in each NaN byte
    return (out & ~nan) | (word & nan);
#else
    moetune_u32 out = 0;
    for (int i = 0; i < 4; ++i) out |= moetune_u32(mx_e4m3_rebase((unsigned char)(word >> (8 * i)), k)) << (8 * i);
    return out;
#endif
}

// The interleaved order of a rebased row (the register-fed FP8 kernels, moe_fp8_register_gemm.h):
// stored word p (0..7) of each 32-byte block holds the block's word 0, 2, 4, 6, 1, 3, 5, 7 -- the
// k order of their products' fragments (mma_fp8.h).
MOETUNE_HD constexpr int mx_interleaved_source_word(int p) { return p < 4 ? 2 * p : 2 * (p - 4) + 1; }

// Rebased weights: what the FP8 warpgroup-product kernels read instead of the coded MXFP4 weights
// (mx_e2m1_code.h): per weight row one e8m0 base, its largest block scale, and the row's elements
// as e4m3 of value * 2^(scale - base) (in the blocks of rebased_weight_layout.h: 64 rows, chunk by
// chunk, each chunk as the kernels' buffers hold it), so that the kernels copy both operands and
// convert nothing. Exact for blocks within 8 octaves of the row's largest (e2m1 *
// 2^-8..2^0 is an e4m3), rounded to e4m3 below. Made once from the kernel layout, like it
// (weight_rebase.hip; twice the bytes of the FP4 weights).

// Element j (0..7) of a coded weight word (element order of mx_e2m1_code.h: pair q holds elements
// lo, lo + 2 with lo = 4 (q / 2) + q % 2) as its e2m1 code (sign at bit 3).
MOETUNE_HD unsigned mx_e2m1_coded_element(moetune_u32 coded, int j) {
    const int q = 2 * (j / 4) + j % 2, half = (j % 4) / 2;
    const moetune_u32 bits = (mx_e2m1_decode_pair(coded, q) >> (16 * half)) & 0xFFFFu;  // biased bf16
    return ((bits >> 12) & 8u) | ((bits >> 6) & 7u);
}

// An e2m1 code at e8m0 scale `scale` rebased to `base` (scale <= base) as e4m3fn.
MOETUNE_HD unsigned char mx_e2m1_rebase(unsigned code, unsigned scale, unsigned base) {
    const int shift = int(scale) - int(base);
    const float x = mx_e2m1_to_float(code);
    return mx_float_to_e4m3fn(shift >= -126 ? x * mx_float_of(moetune_u32(127 + shift) << 23) : 0.f * x);
}
