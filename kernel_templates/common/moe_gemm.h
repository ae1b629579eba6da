#pragma once
// The main loop shared by both MoE stages: one warp computes a TILE_M x WARP_N block of
//   C[m, n] = sum over 32-blocks kb of  sa[m, kb] * sw[n, kb] * (A[m, kb-block] . W[n, kb-block])
// for MXFP8 activations A (rows gathered through the sorted routing) and MXFP4 weights W of one
// expert, with FP32 accumulation. Each 32-wide MX block is one step of the tensor-core path
// (mx_block_mma.h): FP8 products rescaled by the block's scales, or bf16 products of operands
// with the scales folded in. The bf16 path reads the activations pre-widened (mx_bf16_widen.h,
// "wide" layout) instead of MXFP8 values and scales.
//
// Weight layout "mma_k128" (made on the host by tuner/formats/mma_layout.h): per expert, for each
// group of 8 rows (n8) and each 128-wide K chunk (k128), 32 lanes x 16 bytes, lane (g, t) holding
// row n8*8+g, and for each of the 4 MX blocks of the chunk the 4 bytes (8 FP4 values) at k 8t..8t+7.
// One coalesced 512-byte warp load thus fills the B fragments of 4 blocks.
// Weight scales stay row-major [N, K/32] (rows in the same order as the weight rows).
#include "host_device.h"
#include "memory.h"
#include "mx_block_mma.h"
#include "mx_types.h"
#include "shared_operand_layout.h"

// MMA_PATH: KernelConfig::mma (0 = fp8, 1 = bf16), the path of mx_block_mma.h.
// WARPS_K: KernelConfig::k_warps. K-group q of the workgroup walks prefetch groups q, q + WARPS_K,
// ... (together the groups sweep each weight row's contiguous K range front to back); their partial
// sums meet in mx_sum_k_groups.
template <int WARP_M, int WARP_N, int PIPE, bool NON_TEMPORAL, int MMA_PATH, int WARPS_K>
struct MxMoeWarpGemm {
    typedef typename MxBlockMmaOf<MMA_PATH>::type Mma;
    static constexpr int MT = WARP_M / 16;   // 16-row tensor-core tiles
    static constexpr int NJ = WARP_N / 8;    // 8-column tensor-core tiles
    static_assert(WARP_M % 16 == 0 && WARP_N % 8 == 0, "warp tile must be a whole number of 16x8 MMA tiles");
    static constexpr int kAccumulators = MT * NJ * 4;  // per lane

    float acc[MT][NJ][4];

    // act: [rows, K] e4m3fn; act_scale: [rows, K/32] e8m0 (the FP8 path); act_wide: [rows, K] bf16 in
    // the wide layout (the bf16 path); act_row: the activation row of each of the warp's WARP_M rows
    // (-1 = padding; in shared memory); w: this expert's mma_k128 tiles;
    // w_scale: this expert's [N, K/32]; n0: first weight row of this warp (a multiple of 8);
    // k_group: this warp's K-group, 0..WARPS_K-1.
    __device__ void run(const unsigned char* __restrict__ act, const unsigned char* __restrict__ act_scale,
                        const unsigned short* __restrict__ act_wide, const int* act_row,
                        const unsigned char* __restrict__ w,
                        const unsigned char* __restrict__ w_scale, int n0, int K, int k_group) {
        const int lane = int(threadIdx.x) & 31;
        const int g = lane >> 2, t = lane & 3;
        const int k128_count = K / 128;
        const int k32_count = K / 32;

        for (int i = 0; i < MT; ++i)
            for (int j = 0; j < NJ; ++j)
                for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;

        // The weight vectors of PIPE consecutive K chunks (PIPE * NJ independent 16-byte loads per
        // lane) are issued together, then multiplied. Latency is hidden by those loads in flight
        // plus the other resident warps; a second in-register buffer cost more registers (and so
        // occupancy) than it gave.
        for (int chunk0 = k_group * PIPE; chunk0 < k128_count; chunk0 += PIPE * WARPS_K) {
            mx_u32x4 wv[PIPE][NJ];
            load_weights(wv, w, n0, chunk0, k128_count, lane);
#pragma unroll
            for (int p = 0; p < PIPE; ++p) {
                const int k128 = chunk0 + p;
                if (k128 < k128_count)
                    compute_chunk(wv[p], act, act_scale, act_wide, act_row, w_scale, n0, K, k32_count, k128, g, t);
            }
        }
    }

    // Asks L2 for the weight chunks run() loads first (a hint; no registers): for a kernel that
    // starts before the previous one has finished (grid_dependency.h).
    __device__ void prefetch_first_weights(const unsigned char* __restrict__ w, int n0, int K, int k_group) const {
        const int lane = int(threadIdx.x) & 31;
        const int k128_count = K / 128;
#pragma unroll
        for (int p = 0; p < PIPE; ++p) {
            const int k128 = k_group * PIPE + p;
#pragma unroll
            for (int j = 0; j < NJ; ++j)
                if (k128 < k128_count && lane % 8 == 0)  // one lane per 128-byte line
                    mx_prefetch_l2(weight_vector(w, n0, j, k128, k128_count, lane));
        }
    }

private:
    // Lane `lane`'s 16 bytes of the warp's 8-row group j in K chunk k128 (the mma_k128 layout above).
    __device__ static const unsigned char* weight_vector(const unsigned char* __restrict__ w, int n0, int j, int k128,
                                                         int k128_count, int lane) {
        const long long n8 = n0 / 8 + j;
        return w + ((n8 * k128_count + k128) * 32 + lane) * 16;
    }

    __device__ static void load_weights(mx_u32x4 (&dst)[PIPE][NJ], const unsigned char* __restrict__ w, int n0,
                                        int chunk0, int k128_count, int lane) {
#pragma unroll
        for (int p = 0; p < PIPE; ++p) {
            const int k128 = chunk0 + p;
#pragma unroll
            for (int j = 0; j < NJ; ++j) {
                if (k128 < k128_count) {
                    dst[p][j] = mx_load16<NON_TEMPORAL>(weight_vector(w, n0, j, k128, k128_count, lane));
                } else {
                    dst[p][j] = mx_u32x4{0, 0, 0, 0};
                }
            }
        }
    }

    __device__ inline void compute_chunk(const mx_u32x4 (&wv)[NJ], const unsigned char* __restrict__ act,
                                         const unsigned char* __restrict__ act_scale,
                                         const unsigned short* __restrict__ act_wide, const int* act_row,
                                         const unsigned char* __restrict__ w_scale, int n0, int K, int k32_count,
                                         int k128, int g, int t) {
        // Scales of the 4 MX blocks of this chunk: one 32-bit word per row (byte kb = block kb).
        moetune_u32 sw_word[NJ][Mma::kWeightScaleRows];
#pragma unroll
        for (int j = 0; j < NJ; ++j)
#pragma unroll
            for (int c = 0; c < Mma::kWeightScaleRows; ++c) {
                const long long n = n0 + 8 * j + Mma::weight_scale_row(g, t, c);
                sw_word[j][c] = *reinterpret_cast<const moetune_u32*>(w_scale + n * k32_count + k128 * 4);
            }
        int act_rows[MT][2];
        moetune_u32 sa_word[MT][2];
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                act_rows[i][h] = act_row[16 * i + g + 8 * h];
                if constexpr (Mma::kWideActivations) sa_word[i][h] = 0u;  // folded into act_wide
                else sa_word[i][h] = act_rows[i][h] < 0 ? 0u
                                : *reinterpret_cast<const moetune_u32*>(act_scale + (long long)act_rows[i][h] * k32_count + k128 * 4);
            }

        // Scales above 128 need a second multiply on the bf16 path; trained weights never have them,
        // so the common loop carries no test (one branch per chunk, not per word; none on the FP8 path).
        moetune_u32 wide = 0;
#pragma unroll
        for (int j = 0; j < NJ; ++j)
#pragma unroll
            for (int c = 0; c < Mma::kWeightScaleRows; ++c) wide |= Mma::wide_scales(sw_word[j][c]) ? 1u : 0u;
        if (wide)
            multiply_blocks<true>(wv, act, act_wide, K, k128, t, sw_word, act_rows, sa_word);
        else
            multiply_blocks<false>(wv, act, act_wide, K, k128, t, sw_word, act_rows, sa_word);
    }

    template <bool WIDE_SCALES>
    __device__ inline void multiply_blocks(const mx_u32x4 (&wv)[NJ], const unsigned char* __restrict__ act,
                                           const unsigned short* __restrict__ act_wide, int K, int k128, int t,
                                           const moetune_u32 (&sw_word)[NJ][Mma::kWeightScaleRows],
                                           const int (&act_rows)[MT][2], const moetune_u32 (&sa_word)[MT][2]) {
        // Warps of one or two 16-row tiles unroll the 4 blocks (no run-time word or scale selection:
        // their widening is most of the work); larger ones keep one block at a time, where unrolling
        // makes ptxas spill (t128x128 stage 2: 100 bytes). So do the portable paths (Mma::kTensorCores
        // false: lane-shuffle emulation of the products): unrolled, the bf16 path's emulated products
        // over pre-widened rows took ptxas ~60 s per sm_75 kernel against ~10 s one block at a time.
        // Either way the opaque word pick keeps each block's widening after the previous block's
        // products instead of hoisting all four.
        if constexpr (MT <= 2 && Mma::kTensorCores) {
#pragma unroll
            for (int kb = 0; kb < 4; ++kb)
                multiply_block<WIDE_SCALES>(wv, act, act_wide, K, k128, t, sw_word, act_rows, sa_word, kb);
        } else {
#pragma unroll 1
            for (int kb = 0; kb < 4; ++kb)
                multiply_block<WIDE_SCALES>(wv, act, act_wide, K, k128, t, sw_word, act_rows, sa_word, kb);
        }
    }

    template <bool WIDE_SCALES>
    __device__ inline void multiply_block(const mx_u32x4 (&wv)[NJ], const unsigned char* __restrict__ act,
                                          const unsigned short* __restrict__ act_wide, int K, int k128, int t,
                                          const moetune_u32 (&sw_word)[NJ][Mma::kWeightScaleRows],
                                          const int (&act_rows)[MT][2], const moetune_u32 (&sa_word)[MT][2], int kb) {
        if constexpr (Mma::kWideActivations) {
            // The widened rows are only loads: issue them first, so they are in flight while the
            // weight tiles are widened, two at a time right before their products. Four 4-byte loads
            // per row, each into its fragment register (a 16-byte load fills 4 consecutive
            // registers, which interleaved rows do not make). At 16-row warp tiles this needs 158-162
            // registers, so 3 workgroups of 4 warps fit an SM: widening all tiles first took 178-182
            // (2 per SM), one tile at a time 137-156 but ran 5-10 % slower (docs/kernel-design.md).
            typename Mma::A a[MT];
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int r = act_rows[i][h];
                    const moetune_u32* p = reinterpret_cast<const moetune_u32*>(
                        act_wide + (long long)(r < 0 ? 0 : r) * K + k128 * 128 + kb * 32 + 8 * t);
                    moetune_u32 wide[4];
#pragma unroll
                    for (int e = 0; e < 4; ++e) wide[e] = r < 0 ? 0u : mx_load4(p + e);
                    Mma::wide_a_row(a[i], h, wide);
                }
            constexpr int JG = NJ < 2 ? NJ : 2;  // weight tiles widened together
            static_assert(NJ % JG == 0, "warp tiles are 8 or a multiple of 16 columns wide");
#pragma unroll
            for (int j0 = 0; j0 < NJ; j0 += JG) {
                typename Mma::B b[JG];
#pragma unroll
                for (int j = 0; j < JG; ++j)
                    b[j] = Mma::template widen_b<WIDE_SCALES>(mx_u32x4_get_opaque(wv[j0 + j], kb), sw_word[j0 + j], kb);
#pragma unroll
                for (int i = 0; i < MT; ++i)
#pragma unroll
                    for (int j = 0; j < JG; ++j) Mma::accumulate(acc[i][j0 + j], a[i], b[j]);
            }
        } else {
            typename Mma::B b[NJ];
#pragma unroll
            for (int j = 0; j < NJ; ++j)
                b[j] = Mma::template widen_b<WIDE_SCALES>(mx_u32x4_get_opaque(wv[j], kb), sw_word[j], kb);
#pragma unroll
            for (int i = 0; i < MT; ++i) {
                // Row by row: widening both rows after both loads costs the FP8 path up to 34
                // registers at 4 chunks in flight (ptxas keeps more of them live).
                typename Mma::A a;
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int r = act_rows[i][h];
                    moetune_u32 lo = 0u, hi = 0u;
                    if (r >= 0) mx_load8(act + (long long)r * K + k128 * 128 + kb * 32 + 8 * t, lo, hi);
                    Mma::widen_a_row(a, h, lo, hi, (sa_word[i][h] >> (8 * kb)) & 0xFFu);
                }
#pragma unroll
                for (int j = 0; j < NJ; ++j) Mma::accumulate(acc[i][j], a, b[j]);
            }
        }
    }
};

// With K-groups (WARPS_K > 1, KernelConfig::k_warps): adds the partial sums of groups 1..WARPS_K-1
// into group 0's accumulators, one group at a time through `scratch`, one fp32 tile of the
// workgroup (TILE_M x TILE_N floats: MN_WARPS warps x kAccumulators x 32 lanes, lane-minor so a
// warp's stores and loads hit 32 banks). The order is fixed, so results do not vary run to run.
// Every thread of the workgroup must call it; afterwards only group 0 holds the tile's sums.
template <int WARPS_K, int MN_WARPS, class Gemm>
__device__ inline void mx_sum_k_groups(Gemm& gemm, float* scratch, int k_group, int mn_warp) {
    if constexpr (WARPS_K > 1) {
        float* mine = scratch + mn_warp * Gemm::kAccumulators * 32 + (int(threadIdx.x) & 31);
        for (int q = 1; q < WARPS_K; ++q) {
            if (k_group == q) {
#pragma unroll
                for (int i = 0; i < Gemm::MT; ++i)
#pragma unroll
                    for (int j = 0; j < Gemm::NJ; ++j)
#pragma unroll
                        for (int e = 0; e < 4; ++e) mine[((i * Gemm::NJ + j) * 4 + e) * 32] = gemm.acc[i][j][e];
            }
            __syncthreads();
            if (k_group == 0) {
#pragma unroll
                for (int i = 0; i < Gemm::MT; ++i)
#pragma unroll
                    for (int j = 0; j < Gemm::NJ; ++j)
#pragma unroll
                        for (int e = 0; e < 4; ++e) gemm.acc[i][j][e] += mine[((i * Gemm::NJ + j) * 4 + e) * 32];
            }
            __syncthreads();
        }
    }
}

// This CTA's sorted-row tile and N tile. N_FASTEST (mx_n_tiles_fastest; kernels::n_tiles_fastest
// on the host, which launches the grid to match): grid x walks the N tiles, so the CTAs in flight
// share their activation rows through L2 instead of each N tile reading every row again from
// memory (stage 2 at 4096 tokens: 94 MB of wide rows, more than L2 holds, 40 N tiles). Otherwise x
// walks the row tiles, so the few row tiles of one expert share its weight slice through L2.
template <bool N_FASTEST>
__device__ inline int mx_row_tile() {
    return int(N_FASTEST ? blockIdx.y : blockIdx.x);
}
template <bool N_FASTEST>
__device__ inline int mx_n_tile() {
    return int(N_FASTEST ? blockIdx.x : blockIdx.y);
}

// Where warp `mn_warp` (of one K-group) starts inside the tile: m0 rows and n0 columns down and
// right of its corner. Warp products: N fastest over the WARPS_M x WARPS_N grid. Warpgroup products
// (WGMMA): the hardware gives warp i of a warpgroup rows 16i.. of the warpgroup's 64, so the warps
// follow their warpgroup's block (mx_warpgroup_block; with one column block both orders are the
// same).
template <int WARPS_M, int WARPS_N, int WARP_M, int WARP_N, bool WGMMA>
__device__ inline void mx_warp_origin(int mn_warp, int& m0, int& n0) {
    if constexpr (WGMMA && WARPS_N > 1) {
        static_assert(WARP_M == 16, "warpgroups of four 16-row warps");
        int rows_group, columns_group;
        mx_warpgroup_block<WARPS_M>(mn_warp / 4, rows_group, columns_group);
        m0 = rows_group * 64 + (mn_warp % 4) * 16;
        n0 = columns_group * WARP_N;
    } else {
        m0 = (mn_warp / WARPS_N) * WARP_M;
        n0 = (mn_warp % WARPS_N) * WARP_N;
    }
}

// SiLU with the fast division (MUFU reciprocal and a multiply; IEEE division's checks and slow path
// were a third of the fused epilogue's instructions): 2 ulp, against bf16 rounding after it. Both
// stage-1 templates' epilogues (moe_stage1.hip, moe_gemv_stage1.hip).
__device__ inline float moetune_silu(float x) { return __fdividef(x, 1.f + __expf(-x)); }

// The fields of a sorted entry (slot << 24 | token, moe_sort.hip): the token (M for padding) and the
// top-k slot.
__device__ inline int mx_sorted_token(int id) { return id & 0xFFFFFF; }
__device__ inline int mx_sorted_slot(int id) { return id >> 24; }

// A sorted entry as row r's token (-1 for padding) and top-k slot.
__device__ inline void mx_store_sorted_row(int id, int tokens, int r, int* token_of_row, int* slot_of_row) {
    const int token = mx_sorted_token(id);
    token_of_row[r] = token < tokens ? token : -1;
    slot_of_row[r] = mx_sorted_slot(id);
}

// Reads the CTA's TILE_M sorted entries (starting at `first`) into shared memory (mx_store_sorted_row).
template <int TILE_M>
__device__ inline void mx_load_sorted_rows(const int* __restrict__ sorted_token_ids, int first, int tokens,
                                           int* token_of_row, int* slot_of_row) {
    for (int r = int(threadIdx.x); r < TILE_M; r += int(blockDim.x))
        mx_store_sorted_row(sorted_token_ids[first + r], tokens, r, token_of_row, slot_of_row);
}
