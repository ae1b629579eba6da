// MXFP8 quantisation of row-major rows [rows, cols] (cols a multiple of 32) on the GPU, bit for bit
// the CPU's formats::quantize_mxfp8: per 32-element block a NaN-propagating absolute maximum, the
// e8m0 scale from common/mx_types.h (AITER's rule, or 127 = 1.0 for unit scales), then each element
// through the same rounding (mx_quantize_mxfp8_pair, whose hardware conversion on sm_89+ gives the
// bytes of mx_quantize_mxfp8_element: tests/gpu/mxfp8_quant_gpu_test.cpp compares them with the CPU's).
// Used for the activations (bf16 or float hidden states) and for the stage-1 output between the
// reference stages. One thread per 32-element block: the
// block's bytes are written as two 16-byte stores (INTERLEAVE: each block's words in the order of
// mx_interleaved_source_word, what the register-fed FP8 kernels reading MXFP8 rows, _mxr, read). mxfp8_quant_wide writes the same values widened
// instead (the wide layout of common/mx_bf16_widen.h), in one pass where quantising and then widening
// (mxfp8_widen.hip) took two, and with four threads per block (below).
#include "common/grid_dependency.h"
#include "common/lane_shuffle.h"
#include "common/memory.h"
#include "common/mx_bf16_widen.h"
#include "common/mx_rebase.h"
#include "common/mx_types.h"

__device__ inline float mxfp8_to_float(float v) { return v; }
__device__ inline float mxfp8_to_float(unsigned short v) { return mx_bf16_to_float(v); }

// N consecutive inputs from element `first`. A 32-element block is 64 (bf16) or 128 (float)
// contiguous bytes and a wide group 16, so from a 16-byte aligned x (every buffer of ours; a
// caller's may not be) they are read as 16-byte vectors (with 32 two-byte loads per thread the
// one-token activation quantisation took ~6 us on the H200).
template <int N, typename IN>
__device__ inline void mxfp8_load_elements(const IN* x, unsigned long long first, bool aligned, float (&v)[N]) {
    constexpr int kPerVector = 16 / int(sizeof(IN));
    static_assert(N % kPerVector == 0, "whole 16-byte vectors");
    struct alignas(16) Vector {
        IN e[kPerVector];
    };
    if (aligned) {
        const Vector* p = reinterpret_cast<const Vector*>(x + first);
        for (int q = 0; q < N / kPerVector; ++q) {
            const Vector w = p[q];
            for (int i = 0; i < kPerVector; ++i) v[q * kPerVector + i] = mxfp8_to_float(w.e[i]);
        }
    } else {
        for (int i = 0; i < N; ++i) v[i] = mxfp8_to_float(x[first + i]);
    }
}

// Folds element v into a block's running absolute maximum, in element order. |v| by clearing the
// sign bit, like x86's fabs: PTX leaves the NaN payload of abs.f32 unspecified, and the payload of
// a NaN amax decides the scale byte. As on the CPU, the block's first NaN is its amax (and a NaN
// amax is that first NaN: nothing replaces it).
__device__ inline void mxfp8_amax_step(float v, float& amax) {
    const float a = mx_float_of(mx_bits_of(v) & 0x7FFFFFFFu);
    if (!mx_is_nan(amax) && (mx_is_nan(a) || a > amax)) amax = a;
}

// Block b of x quantised: its e4m3 bytes into `words` (two 16-byte vectors of little-endian words),
// its scale returned.
// IN: float or unsigned short (bf16 bits). ROUND_TO_BF16: round float input to bf16 first (the
// stage-1 output, which AITER's non-fused path writes as bf16; quantize_stage1_output on the CPU).
// UNIT_SCALES: every scale 127 and the values cast as they are (AITER's tuner feeds a8w4 candidates
// that way), else AITER's dynamic MXFP8 scales.
template <typename IN, bool ROUND_TO_BF16, bool UNIT_SCALES>
__device__ inline unsigned char mxfp8_quantize_block(const IN* __restrict__ x, unsigned long long b, bool aligned,
                                                     mx_aligned_u32x4 (&words)[2]) {
    float v[32];
    mxfp8_load_elements(x, b * 32, aligned, v);
    float amax = 0.0f;
    for (int i = 0; i < 32; ++i) {
        if (ROUND_TO_BF16) v[i] = mx_round_to_bf16(v[i]);
        mxfp8_amax_step(v[i], amax);
    }
    const unsigned char scale = UNIT_SCALES ? (unsigned char)127 : mx_mxfp8_scale_from_amax(amax);
    for (int q = 0; q < 2; ++q)
        words[q] = mx_aligned_u32x4{mx_quantize_mxfp8_word(v + 16 * q, scale), mx_quantize_mxfp8_word(v + 16 * q + 4, scale),
                                    mx_quantize_mxfp8_word(v + 16 * q + 8, scale),
                                    mx_quantize_mxfp8_word(v + 16 * q + 12, scale)};
    return scale;
}

template <int THREADS, typename IN, bool ROUND_TO_BF16, bool UNIT_SCALES, bool INTERLEAVE>
__global__ void __launch_bounds__(THREADS)
    mxfp8_quant(const IN* __restrict__ x, unsigned long long blocks, unsigned char* __restrict__ values,
                unsigned char* __restrict__ scales) {
    mx_allow_next_grid();  // a stage launched to overlap this grid may start, then waits for it (grid_dependency.h)
    const unsigned long long stride = (unsigned long long)gridDim.x * THREADS;
    const bool aligned = (reinterpret_cast<unsigned long long>(x) & 15u) == 0;
    for (unsigned long long b = (unsigned long long)blockIdx.x * THREADS + threadIdx.x; b < blocks; b += stride) {
        mx_aligned_u32x4 words[2];
        scales[b] = mxfp8_quantize_block<IN, ROUND_TO_BF16, UNIT_SCALES>(x, b, aligned, words);
        mx_aligned_u32x4* out = reinterpret_cast<mx_aligned_u32x4*>(values + b * 32);
        if constexpr (INTERLEAVE) {
            out[0] = mx_aligned_u32x4{words[0].x, words[0].z, words[1].x, words[1].z};
            out[1] = mx_aligned_u32x4{words[0].y, words[0].w, words[1].y, words[1].w};
        } else {
            out[0] = words[0];
            out[1] = words[1];
        }
    }
}

// The dynamic scale of the block whose four 8-element groups lanes 4b..4b+3 hold (v: this lane's
// group, in element order), every lane of the warp taking part: each group's amax, then pairs, then
// pairs of pairs, the lower group's NaN first, else the larger maximum (no -0: the sign bits are
// cleared) -- the block's amax in element order, as one thread finds it.
__device__ inline unsigned char mxfp8_group_scale(const float (&v)[8], int lane) {
    float amax = 0.0f;
    for (int i = 0; i < 8; ++i) mxfp8_amax_step(v[i], amax);
    for (int m = 1; m <= 2; m <<= 1) {
        const float other = mx_shfl_xor(amax, m);
        const bool lower = (lane & m) == 0;
        const float lo = lower ? amax : other, hi = lower ? other : amax;
        amax = mx_is_nan(lo) ? lo : mx_is_nan(hi) ? hi : (hi > lo ? hi : lo);
    }
    return mx_mxfp8_scale_from_amax(amax);
}

// bf16 rows with dynamic scales straight to the wide layout: what mxfp8_quant and then mxfp8_widen
// write, bit for bit (the same amax rule, scale and element quantisation, the same mx_wide_group).
// Four consecutive lanes share a block, one 8-element wide group each: one 16-byte load, the
// block's amax through two lane swaps, one 16-byte store. (One thread per block made each thread a
// chain of 32 elements; at one token, 160 blocks, the kernel sat beside the sort on the MoE's
// critical path.)
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
    mxfp8_quant_wide(const unsigned short* __restrict__ x, unsigned long long blocks,
                     unsigned short* __restrict__ wide) {
    static_assert(THREADS % 32 == 0, "whole warps: every lane takes part in the swaps");
    mx_allow_next_grid();
    const unsigned long long groups = blocks * 4;
    const unsigned long long stride = (unsigned long long)gridDim.x * THREADS;
    const bool aligned = (reinterpret_cast<unsigned long long>(x) & 15u) == 0;
    const int lane = int(threadIdx.x) & 31;
    // Uniform per warp: a block's four groups are all in range or all out of it.
    for (unsigned long long first = (unsigned long long)blockIdx.x * THREADS + threadIdx.x - lane; first < groups;
         first += stride) {
        const unsigned long long g = first + lane;
        const bool active = g < groups;
        float v[8] = {};
        if (active) mxfp8_load_elements(x, g * 8, aligned, v);
        const unsigned char scale = mxfp8_group_scale(v, lane);
        moetune_u32 out[4];
        mx_wide_group(mx_quantize_mxfp8_word(v, scale), mx_quantize_mxfp8_word(v + 4, scale), scale, out);
        if (active) *reinterpret_cast<mx_wide_vector*>(wide + g * 8) = mx_wide_vector{{out[0], out[1], out[2], out[3]}};
    }
}

// bf16 rows [rows, cols] with dynamic scales straight to rebased rows (common/mx_rebase.h): what
// mxfp8_quant and then mxfp8_rebase<_, INTERLEAVE> write, bit for bit (the same scales, elements,
// base and rebase), in one pass and without the MXFP8 buffers -- for a stage whose kernel reads
// only rebased rows (the activations before stage 1, stage 1's bf16 output before stage 2). A
// workgroup a row: four lanes a block, GROUPS groups of 8 elements a lane in registers while the
// row's base (its largest block scale) is found over the workgroup, so the row is read once. Each
// lane then stores a group's two words, at 2q and 2q + 1 of the block, or interleaved at q and
// 4 + q (mx_interleaved_source_word). blockDim.x: a multiple of 32 with blockDim.x * GROUPS >=
// cols / 8 (the launcher's choice, data_gpu/mxfp8_quant_gpu.cpp: two groups a lane on wide rows,
// so that each lane has two loads in flight).
template <int THREADS, int GROUPS, bool INTERLEAVE>
__global__ void __launch_bounds__(THREADS)
    mxfp8_quant_rebased(const unsigned short* __restrict__ x, int rows, int cols, unsigned char* __restrict__ rebased,
                        unsigned char* __restrict__ bases) {
    static_assert(THREADS % 32 == 0 && THREADS <= 1024, "whole warps: every lane takes part in the swaps");
    mx_allow_next_grid();
    __shared__ unsigned warp_top[THREADS / 32];
    const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) / 32, warps = int(blockDim.x) / 32;
    const int groups = cols / 8;
    const bool aligned = (reinterpret_cast<unsigned long long>(x) & 15u) == 0;
    for (int row = int(blockIdx.x); row < rows; row += int(gridDim.x)) {
        const unsigned short* in = x + (long long)row * cols;
        float v[GROUPS][8];
        unsigned char scale[GROUPS];
        unsigned top = 0;
#pragma unroll
        for (int i = 0; i < GROUPS; ++i) {
            const int g = int(threadIdx.x) + i * int(blockDim.x);
            // Uniform per four lanes (groups is a multiple of 4), so a block's lanes agree.
            const bool active = g < groups;
            for (int e = 0; e < 8; ++e) v[i][e] = 0.0f;
            if (active) mxfp8_load_elements(in, (unsigned long long)g * 8, aligned, v[i]);
            scale[i] = mxfp8_group_scale(v[i], lane);
            if (active) top = max(top, unsigned(scale[i]));
        }
        for (int d = 16; d > 0; d /= 2) top = max(top, mx_shfl(top, lane ^ d));
        if (lane == 0) warp_top[warp] = top;
        __syncthreads();
        for (int w = 0; w < warps; ++w) top = max(top, warp_top[w]);
        __syncthreads();  // warp_top is rewritten by the next row
#pragma unroll
        for (int i = 0; i < GROUPS; ++i) {
            const int g = int(threadIdx.x) + i * int(blockDim.x);
            if (g >= groups) continue;
            const int k = int(top) - int(scale[i]);
            moetune_u32 words[2];
#pragma unroll
            for (int w = 0; w < 2; ++w) words[w] = mx_e4m3_rebase_word(mx_quantize_mxfp8_word(v[i] + 4 * w, scale[i]), k);
            const int q = g % 4;
            moetune_u32* block = reinterpret_cast<moetune_u32*>(rebased + (long long)row * cols) + (g / 4) * 8;
            block[INTERLEAVE ? q : 2 * q] = words[0];
            block[INTERLEAVE ? 4 + q : 2 * q + 1] = words[1];
        }
        if (threadIdx.x == 0) bases[row] = (unsigned char)top;
    }
}
