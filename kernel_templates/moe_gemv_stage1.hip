// MoE stage 1 at a few tokens as GEMVs on f16 products (_gemv; common/mx_f16_gemv.h says why and
// what the weights' copy and the rows look like). A workgroup owns one sort block (one expert, at most
// 8 rows: static_checks keeps _gemv to buckets of up to 8 tokens) and one 32-column MX block of the
// output: the four 16-row tiles of W1's copy that hold the block's 32 gate and 32 up rows, each split
// along K among S warps (4 S warps, tile-major). Each warp streams its share's weights with D pairs of
// 32-wide K blocks a lane in flight and multiplies them by the block's rows (B columns); the shares
// meet in shared memory, and the block's SiLU(gate) * up goes out as f16 in the row order under one
// e8m0 scale a row: what the _gemv stage 2 reads (args.out: f16 [M*topk, inter]; args.out_scale:
// [M*topk, inter/32]). args.act is the hidden states as f16 rows (with act_scale, MXFP8's scales).
//
// Parameters (a KernelConfig's -D definitions, tuner/kernels/compile_definitions.h):
//   MOETUNE_WARPS / 4 = S, MOETUNE_TILE_K / 64 = D, MOETUNE_SHARED_OPERANDS = the cp.async ring (_smem).
#include "common/grid_dependency.h"
#include "common/host_device.h"
#include "common/lane_shuffle.h"
#include "common/moe_args.h"
#include "common/moe_gemm.h"
#include "common/mx_f16_gemv.h"
#include "common/mx_types.h"

template <int S, int D, bool RING>
__device__ __forceinline__ void moe_gemv_stage1(const MoeStage1Args& args, unsigned char* dynamic_shared) {
    mx_allow_next_grid();
    mx_wait_for_previous_grid();  // the activations and the sort
    const int row0 = int(blockIdx.y) * 16, block = int(blockIdx.x);
    if (row0 >= args.num_valid_ids[0]) return;
    const long long expert = args.sorted_expert_ids[blockIdx.y];
    __shared__ int token_of_row[16], slot_of_row[16];
    mx_load_sorted_rows<16>(args.sorted_token_ids, row0, args.tokens, token_of_row, slot_of_row);
    __syncthreads();

    const int warp = int(threadIdx.x) >> 5, lane = int(threadIdx.x) & 31, g = lane >> 2, t = lane & 3;
    const int quarter = warp / S, share = warp % S;
    const int K = args.model_dim, all_pairs = K / 64, tiles = args.inter_dim / 8;
    int first, pairs;
    mx_f16_gemv_share(all_pairs, share, S, first, pairs);
    const long long tile = (expert * tiles + block * kMxF16GemvStage1Tiles + quarter) * all_pairs + first;
    // Columns past the block's rows repeat row 0 (a sort block starts with its valid rows).
    auto row_of = [&](int column) {
        const int token = token_of_row[column];
        return (long long)(token >= 0 ? token : token_of_row[0]);
    };
    const moetune_u16* act = reinterpret_cast<const moetune_u16*>(args.act);
    const MxF16GemvRows rows{act + row_of(g) * K, args.act_scale + row_of(2 * t) * (K / 32),
                             args.act_scale + row_of(2 * t + 1) * (K / 32)};
    float acc[4];
    const mx_u32x4* w = reinterpret_cast<const mx_u32x4*>(args.w1) + tile * 32;
    const moetune_u32* ws = reinterpret_cast<const moetune_u32*>(args.w1_scale) + tile * 8;
    mx_f16_tile_share_of_block<D, RING>(token_of_row[1] < 0, w, ws, first, pairs, rows,
                                        dynamic_shared + warp * D * kMxF16GemvSlotBytes, acc, [] {});

    __shared__ float part[kMxF16GemvStage1Tiles * S][kMxF16GemvColumns][16];  // [warp][column][tile row]
    mx_f16_gemv_store_sums(part, warp, acc);
    __syncthreads();
    // Warp c writes column (row of the block) c: lane l is output column 32 block + l, row l % 8 of tile
    // l / 8's gate (tile rows 0..7) and up (8..15) halves.
    for (int c = warp; c < kMxF16GemvColumns; c += kMxF16GemvStage1Tiles * S) {
        const int token = token_of_row[c];
        if (token < 0) continue;
        float gate = 0.f, up = 0.f;
#pragma unroll
        for (int s = 0; s < S; ++s) {
            gate += part[(lane >> 3) * S + s][c][lane & 7];
            up += part[(lane >> 3) * S + s][c][8 + (lane & 7)];
        }
        const float y = moetune_silu(gate * MOETUNE_E2M1_F16_UNBIAS) * (up * MOETUNE_E2M1_F16_UNBIAS);
        // The block's largest magnitude into [2^14, 2^15): exponent 14 - its own.
        float m = fabsf(y);
        for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, mx_shfl_xor(m, o));
        const int ex = min(max(int((mx_bits_of(m) >> 23) & 0xFFu) - 127 - 14, -127), 126);
        const long long out_row = (long long)token * args.topk + slot_of_row[c];
        moetune_u16* out = static_cast<moetune_u16*>(args.out) + out_row * args.inter_dim;
        out[mx_f16_row_position(block * 32 + lane)] = mx_float_to_f16(y * mx_float_of(moetune_u32(127 - ex) << 23));
        if (lane == 0) args.out_scale[out_row * (args.inter_dim / 32) + block] = (unsigned char)(ex + 127);
    }
}

#ifdef MOETUNE_KERNEL_NAME
extern "C" __global__ void MX_GEMV_BOUNDS MOETUNE_KERNEL_NAME(const MoeStage1Args args) {
    extern __shared__ __attribute__((aligned(16))) unsigned char moetune_dynamic_shared[];
    moe_gemv_stage1<MOETUNE_WARPS / kMxF16GemvStage1Tiles, MOETUNE_TILE_K / 64, MOETUNE_SHARED_OPERANDS != 0>(
        args, moetune_dynamic_shared);
}
#endif
