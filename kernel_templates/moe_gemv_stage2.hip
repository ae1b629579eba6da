// MoE stage 2 at a few tokens as GEMVs on f16 products (_gemv; common/mx_f16_gemv.h says why and
// what the weights' copy and the rows look like). A workgroup owns one sort block (one expert, at most
// 8 rows) and T 16-row tiles of W2's copy (16 T output columns), each split along K among S warps
// (T S warps, tile-major). It reads stage 1's rows as the _gemv stage 1 writes them (args.act: f16
// [M*topk, inter] in the row order; act_scale: [M*topk, inter/32] e8m0) and adds each row's sums,
// times its routing weight, into out[token] with packed bf16 atomics (ATOMIC mode only: out zeroed
// first). It asks for its first weights before it waits for stage 1, whose output alone it needs.
//
// Parameters: MOETUNE_TILE_N / 16 = T, MOETUNE_WARPS / T = S, MOETUNE_TILE_K / 64 = D,
// MOETUNE_SHARED_OPERANDS = the cp.async ring (_smem).
#include "common/grid_dependency.h"
#include "common/host_device.h"
#include "common/memory.h"
#include "common/moe_args.h"
#include "common/moe_gemm.h"
#include "common/mx_f16_gemv.h"
#include "common/mx_types.h"

template <int T, int S, int D, bool RING>
__device__ __forceinline__ void moe_gemv_stage2(const MoeStage2Args& args, unsigned char* dynamic_shared) {
    mx_allow_next_grid();
    // The sort and the weights were complete before stage 1 started.
    const int row0 = int(blockIdx.y) * 16;
    if (row0 >= args.num_valid_ids[0]) {
        mx_wait_for_previous_grid();
        return;
    }
    const long long expert = args.sorted_expert_ids[blockIdx.y];
    __shared__ int token_of_row[16], slot_of_row[16];
    __shared__ float weight_of_row[16];
    mx_load_sorted_rows<16>(args.sorted_token_ids, row0, args.tokens, token_of_row, slot_of_row);
    if (threadIdx.x < 16) weight_of_row[threadIdx.x] = args.sorted_weights[row0 + threadIdx.x];
    __syncthreads();

    const int warp = int(threadIdx.x) >> 5, lane = int(threadIdx.x) & 31, g = lane >> 2, t = lane & 3;
    const int quarter = warp / S, share = warp % S;
    const int K = args.inter_dim, all_pairs = K / 64, tiles = args.model_dim / 16;
    int first, pairs;
    mx_f16_gemv_share(all_pairs, share, S, first, pairs);
    const long long tile = (expert * tiles + int(blockIdx.x) * T + quarter) * all_pairs + first;
    // Stage 1's row of a column (token * topk + slot); columns past the block's rows repeat row 0.
    auto row_of = [&](int column) {
        const int c = token_of_row[column] >= 0 ? column : 0;
        return (long long)token_of_row[c] * args.topk + slot_of_row[c];
    };
    const moetune_u16* act = reinterpret_cast<const moetune_u16*>(args.act);
    const MxF16GemvRows rows{act + row_of(g) * K, args.act_scale + row_of(2 * t) * (K / 32),
                             args.act_scale + row_of(2 * t + 1) * (K / 32)};
    float acc[4];
    const mx_u32x4* w = reinterpret_cast<const mx_u32x4*>(args.w2) + tile * 32;
    const moetune_u32* ws = reinterpret_cast<const moetune_u32*>(args.w2_scale) + tile * 8;
    mx_f16_tile_share_of_block<D, RING>(token_of_row[1] < 0, w, ws, first, pairs, rows,
                                        dynamic_shared + warp * D * kMxF16GemvSlotBytes, acc,
                                        [] { mx_wait_for_previous_grid(); });

    __shared__ float part[T * S][kMxF16GemvColumns][16];  // [warp][column][tile row]
    mx_f16_gemv_store_sums(part, warp, acc);
    __syncthreads();
    // One thread a (tile, column, pair of tile rows): the shares' sum times the routing weight, added
    // into the token's output row two columns at a time.
    for (int i = int(threadIdx.x); i < T * kMxF16GemvColumns * 8; i += int(blockDim.x)) {
        const int q = i / (kMxF16GemvColumns * 8), c = (i / 8) % kMxF16GemvColumns, r = 2 * (i % 8);
        const int token = token_of_row[c];
        if (token < 0) continue;
        float x = 0.f, y = 0.f;
#pragma unroll
        for (int s = 0; s < S; ++s) x += part[q * S + s][c][r], y += part[q * S + s][c][r + 1];
        const float scale = weight_of_row[c] * MOETUNE_E2M1_F16_UNBIAS;
        mx_atomic_add_bf16x2(args.out + (long long)token * args.model_dim + (int(blockIdx.x) * T + q) * 16 + r,
                             x * scale, y * scale);
    }
}

#ifdef MOETUNE_KERNEL_NAME
extern "C" __global__ void MX_GEMV_BOUNDS MOETUNE_KERNEL_NAME(const MoeStage2Args args) {
    extern __shared__ __attribute__((aligned(16))) unsigned char moetune_dynamic_shared[];
    constexpr int kTiles = MOETUNE_TILE_N / 16;
    static_assert(MOETUNE_STAGE2_MODE == 0, "_gemv stage 2 adds atomically");
    moe_gemv_stage2<kTiles, MOETUNE_WARPS / kTiles, MOETUNE_TILE_K / 64, MOETUNE_SHARED_OPERANDS != 0>(
        args, moetune_dynamic_shared);
}
#endif
