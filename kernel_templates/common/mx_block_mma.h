#pragma once
// One 32-wide MX block of the warp GEMM (moe_gemm.h) in each tensor-core path, from the operands
// as the loop loads them: per lane (g = lane / 4, t = lane % 4) the activations at k 8t..8t+7 of
// rows g and g+8 (r = 0, 1) -- on the FP8 path 8 MXFP8 bytes (two words: lo = k 8t..8t+3, hi =
// k 8t+4..8t+7) and the row's scale byte, on the bf16 path (kWideActivations) the row's 16-byte
// wide group (mx_bf16_widen.h), already widened and scaled by the caller -- the 4 weight
// bytes (8 FP4, element j = k 8t+j, in the code of mx_e2m1_code.h) of weight row g of each 8-row
// tile, and the e8m0 scale bytes (a word of the chunk's 4 blocks per row; kb picks the block).
// WIDE_SCALES: whether the path's wide_scales said so for a scale word of the chunk (the bf16 path:
// a byte above 128, which takes a second multiply; the FP8 path never needs it).
// The loop, the loads and the accumulator layout (that of C in both products) are shared; a path
// says which weight rows' scales a lane needs, how it widens A and B, and how it accumulates.
//   MxFp8Mma  (name without _m token): FP4 widened to e4m3, one 16x8x32 e4m3 product per block,
//             rescaled in FP32 by the two scales of each accumulator's row and column.
//   MxBf16Mma (_mbf16): both widened to bf16 with their scale folded in, two 16x8x16 bf16 products
//             per block accumulated directly, no per-block FP32 rescale.
#include "host_device.h"
#include "mma_bf16.h"
#include "mma_fp8.h"
#include "mx_bf16_widen.h"
#include "mx_e2m1_code.h"
#include "mx_types.h"

struct MxFp8Mma {
    // The scales multiply C: a lane needs those of its accumulators' columns 2t, 2t+1.
    static constexpr int kWeightScaleRows = 2;
    __device__ static int weight_scale_row(int g, int t, int c) {
        (void)g;
        return 2 * t + c;
    }

    struct A {
        moetune_u32 a[4];
        float scale[2];  // rows g, g+8
    };
    struct B {
        moetune_u32 b[2];
        float scale[2];  // columns 2t, 2t+1
    };
    static constexpr bool kWideActivations = false;
    static constexpr bool kTensorCores = MOETUNE_MMA_FP8_TENSOR_CORES;  // else the portable emulation

    // Row g + 8r of A. The fragment k map of mma_fp8.h: the lo word is fragment k 4t.., the hi
    // word 16+4t...
    __device__ static void widen_a_row(A& x, int r, moetune_u32 lo, moetune_u32 hi, unsigned char scale) {
        x.a[r] = lo;
        x.a[2 + r] = hi;
        x.scale[r] = mx_e8m0_to_float(scale);
    }

    // Every scale fits the FP32 rescale.
    __device__ static bool wide_scales(moetune_u32 scale_word) {
        (void)scale_word;
        return false;
    }

    // The coded word's elements come out as e4m3 of value * 2^-6 (mx_e2m1_coded_to_e4m3x4); the scale
    // takes the 2^6 back (so a weight scale above 2^121 overflows here, far beyond trained weights).
    template <bool WIDE_SCALES>
    __device__ static B widen_b(moetune_u32 coded, const moetune_u32 (&scale_words)[kWeightScaleRows], int kb) {
        B y;
        y.b[0] = mx_e2m1_coded_to_e4m3x4(coded, 0);
        y.b[1] = mx_e2m1_coded_to_e4m3x4(coded, 1);
        for (int c = 0; c < 2; ++c) y.scale[c] = mx_e8m0_to_float((scale_words[c] >> (8 * kb)) & 0xFFu) * 64.f;
        return y;
    }

    __device__ static void accumulate(float acc[4], const A& x, const B& y) {
        float part[4] = {0.f, 0.f, 0.f, 0.f};
        mx_mma_e4m3_16x8x32(part, x.a, y.b);
        acc[0] += part[0] * (x.scale[0] * y.scale[0]);
        acc[1] += part[1] * (x.scale[0] * y.scale[1]);
        acc[2] += part[2] * (x.scale[1] * y.scale[0]);
        acc[3] += part[3] * (x.scale[1] * y.scale[1]);
    }
};

struct MxBf16Mma {
    // The scales are folded into B: a lane needs the one of its B column g.
    static constexpr int kWeightScaleRows = 1;
    __device__ static int weight_scale_row(int g, int t, int c) {
        (void)t;
        (void)c;
        return g;
    }

    // Fragments of products h = 0 (actual k 8t..8t+3: the lo words and nibbles 0..3) and h = 1
    // (8t+4..8t+7: hi words, nibbles 4..7), in the k map of mma_bf16.h (mx_bf16_widen.h).
    struct A {
        moetune_u32 a[2][4];
    };
    struct B {
        moetune_u32 b[2][2];
    };

    // The activations arrive widened (mx_bf16_widen.h): the loop's ~190 instructions per 128-wide chunk
    // that widened them, repeated by every warp sharing the rows, were ~20 % of it (docs/kernel-design.md).
    static constexpr bool kWideActivations = true;
    static constexpr bool kTensorCores = MOETUNE_MMA_BF16_TENSOR_CORES;  // else the portable emulation
    __device__ static void wide_a_row(A& x, int r, const moetune_u32 (&w)[4]) { mx_bf16_a_fragments_of_wide_row(r, w, x.a); }

    // A scale byte above 128 needs a second multiply (mx_e2m1_scales_wide).
    __device__ static bool wide_scales(moetune_u32 scale_word) { return mx_e2m1_scales_wide(scale_word); }

    template <bool WIDE_SCALES>
    __device__ static B widen_b(moetune_u32 coded, const moetune_u32 (&scale_words)[kWeightScaleRows], int kb) {
        B y;
        if (WIDE_SCALES) mx_bf16_b_fragments(coded, (scale_words[0] >> (8 * kb)) & 0xFFu, true, y.b);
        else mx_bf16_b_fragments_scaled(coded, mx_e2m1_narrow_scale_bf16x2(scale_words[0], kb), y.b);
        return y;
    }

    __device__ static void accumulate(float acc[4], const A& x, const B& y) {
        mx_mma_bf16_16x8x16(acc, x.a[0], y.b[0]);
        mx_mma_bf16_16x8x16(acc, x.a[1], y.b[1]);
    }
};

// The path of KernelConfig::mma (MOETUNE_MMA_PATH: 0 = fp8, 1 = bf16).
template <int MMA_PATH>
struct MxBlockMmaOf;
template <>
struct MxBlockMmaOf<0> {
    typedef MxFp8Mma type;
};
template <>
struct MxBlockMmaOf<1> {
    typedef MxBf16Mma type;
};
