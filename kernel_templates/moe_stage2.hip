// MoE stage 2: the down projection. For each block of sorted rows (one expert): GEMM of the MXFP8
// stage-1 output rows (token*topk + slot) with the expert's MXFP4 W2, scaled by the routing weight.
//   ATOMIC: adds each row into out[token] (bf16, packed atomics; out must be zeroed first).
//   reduce: writes [M*topk, model_dim] bf16 partials; moe_reduce.hip sums the top-k of each token
//           (deterministic, and the only choice when M*model_dim*2 bytes exceed what atomics allow).
//
// Tile parameters (template arguments, set from a KernelConfig; see docs/kernel-names.md):
//   TILE_M   sorted rows per CTA (16, 32, 64, 128; 256 with WGMMA); SORT_BM the moe_sorting block size, a
//            multiple of TILE_M (AITER's _sbm: a stage-2 tile may be half the sort block)
//   TILE_N   model_dim columns per CTA
//   WARPS_M x WARPS_N, WARPS_K, PIPE, NON_TEMPORAL, MMA_PATH, SHARED_OPERANDS as in stage 1 (tile_k =
//            128 * PIPE along inter_dim)
//   WGMMA without SHARED_OPERANDS, FP8 path: the register-fed FP8 warpgroup products
//            (common/moe_fp8_register_gemm.h), PIPE chunks of weights in flight a warp
//   WS       as in stage 1 (common/moe_fp8_ws_gemm.h)
//   MX_ROWS  (_mxr) as in stage 1: stage 1's output as MXFP8 with interleaved words (what a register-fed
//            stage 1 with the fused MXFP8 epilogue writes), no rebase between the stages
//   EIGHT_ROWS  (_r8) as in stage 1: products over the tile's first 8 rows
#include "common/grid_dependency.h"
#include "common/host_device.h"
#include "common/lane_shuffle.h"
#include "common/moe_args.h"
#include "common/memory.h"
#include "common/moe_gemm.h"
#include "common/moe_fp8_register_gemm.h"
#include "common/moe_fp8_wgmma_gemm.h"
#include "common/moe_fp8_ws_gemm.h"
#include "common/moe_shared_gemm.h"
#include "common/mx_types.h"
#include "common/test_break.h"
#include "common/tile_walk.h"

template <int TILE_M, int TILE_N, int WARPS_M, int WARPS_N, int WARPS_K, int PIPE, bool NON_TEMPORAL, int MMA_PATH,
          bool ATOMIC, int SORT_BM, bool SHARED_OPERANDS, bool WGMMA, bool WS, bool FP4_WEIGHTS, bool READ_ONCE,
          bool MX_ROWS, bool EIGHT_ROWS>
__device__ __forceinline__ void moe_stage2(const MoeStage2Args& args, unsigned char* dynamic_shared) {
    constexpr int WARP_M = TILE_M / WARPS_M;
    constexpr int WARP_N = TILE_N / WARPS_N;
    // Swapped warpgroup tiles (moe_shared_gemm.h): a warp holds two tiles of 8 output columns.
    constexpr bool SWAPPED = mx_swapped_wgmma(WGMMA, TILE_M);
    static_assert(TILE_M % WARPS_M == 0 && WARP_M % 16 == 0, "a warp covers whole 16-row MMA tiles");
    static_assert(TILE_N % WARPS_N == 0 && WARP_N % 8 == 0, "a warp covers whole 8-column MMA tiles");
    static_assert(SORT_BM % TILE_M == 0, "the sort block must be a whole number of stage-2 tiles");

    constexpr bool N_FASTEST = mx_n_tiles_fastest(WGMMA, SHARED_OPERANDS);
    // The FP8 shared-operand kernels walk their tiles persistently over a 1-D grid (mx_persistent_tiles).
    constexpr bool PERSISTENT = mx_persistent_tiles(WGMMA, SHARED_OPERANDS, MMA_PATH == 0);

    mx_test_break_entry();
    // A persistent walk reads its counters only once the launch before has completed (tile_walk.h).
    if constexpr (PERSISTENT) mx_wait_for_previous_grid();
    const int n_tiles = args.model_dim / TILE_N;
    const int tile = int(blockIdx.x);  // PERSISTENT: the walk's first tile, N tiles fastest
    const int row0 = (PERSISTENT ? tile / n_tiles : mx_row_tile<N_FASTEST>()) * TILE_M;
    const int num_valid = args.num_valid_ids[0];
    if (row0 >= num_valid) {
        if constexpr (PERSISTENT) mx_end_tile_walk();
        return;
    }
    const int expert = args.sorted_expert_ids[row0 / SORT_BM];
    const int tile_n0 = (PERSISTENT ? tile % n_tiles : mx_n_tile<N_FASTEST>()) * TILE_N;

    // A tile's rows: stage-1 output row token*topk + slot (-1 for padding), token, routing weight. A
    // persistent walk keeps two sets, this tile's and the next one's, and the next tile's number.
    struct RowTables {
        int act_row[TILE_M];
        int token[TILE_M];
        float weight[TILE_M];
    };
    __shared__ __attribute__((aligned(16))) RowTables row_tables[PERSISTENT ? 2 : 1];  // (16: the _ws producers read vectors)
    __shared__ int walk_next;
    // Row r of a tile from its sorted entry and routing weight.
    auto store_row = [&](int id, float weight, int r, RowTables& t) {
        const int token = mx_sorted_token(id);
        t.token[r] = token < args.tokens ? token : -1;
        t.act_row[r] = token < args.tokens ? token * args.topk + mx_sorted_slot(id) : -1;
        t.weight[r] = weight;
    };
    int* act_row = row_tables[0].act_row;
    int* token_of_row = row_tables[0].token;
    float* weight_of_row = row_tables[0].weight;
    // (The warp-specialised loop's producers walk the tiles and load their rows themselves.)
    if constexpr (!WS) {
        if constexpr (PERSISTENT) {
            if (threadIdx.x == 0) walk_next = mx_take_tile();
        }
        for (int r = int(threadIdx.x); r < TILE_M; r += int(blockDim.x))
            store_row(args.sorted_token_ids[row0 + r], args.sorted_weights[row0 + r], r, row_tables[0]);
        __syncthreads();
    }

    const int K = args.inter_dim;
    const long long n_rows = args.model_dim;
    const unsigned char* w = args.w2 + (long long)expert * n_rows * (K / 2);
    const unsigned char* ws = args.w2_scale + (long long)expert * n_rows * (K / 32);
    const int warp = int(threadIdx.x) >> 5;
    // Without K-groups k_group is the constant 0: the code is that of a kernel without them.
    const int mn_warp = WARPS_K > 1 ? warp % (WARPS_M * WARPS_N) : warp;
    const int k_group = WARPS_K > 1 ? warp / (WARPS_M * WARPS_N) : 0;
    int m0 = 0, n0 = 0;
    if constexpr (!SWAPPED) mx_warp_origin<WARPS_M, WARPS_N, WARP_M, WARP_N, WGMMA>(mn_warp, m0, n0);
    n0 += tile_n0;

    // Epilogue, on either main loop's accumulators. In the FP8 warpgroup-product kernels (whose warps'
    // columns come in whole groups of 32, 4 n8 tiles) the lane quad of each row transposes its bf16
    // pairs (mx_quad_transpose) so that a lane adds or stores 16 contiguous bytes at once: a quarter
    // of the instructions, and a warp's access covers 64 bytes of each of its 8 rows instead of 16.
    // (Not in the register-fed bf16-path tiles: up to 52 registers more, NVRTC sm_90a.)
    auto epilogue = [&](const auto& gemm) {
        const int lane = int(threadIdx.x) & 31;
        const int g = lane >> 2, t = lane & 3;
        constexpr bool kVectors = WGMMA && MMA_PATH == 0 && WARP_N % 32 == 0;
#pragma unroll
        for (int i = 0; i < WARP_M / 16; ++i) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = m0 + 16 * i + g + 8 * h;
                const int token = token_of_row[r];
                if (!kVectors && token < 0) continue;  // (the quad's shuffles need every lane)
                const float weight = weight_of_row[r];
                // (formed only for a real token: a padding row's -1 would point before the output)
                auto out_row = [&] {
                    return args.out + (ATOMIC ? (long long)token : (long long)act_row[r]) * args.model_dim;
                };
                // Column 2t + c of n8 tile j, weighted; and both as a bf16 pair.
                auto value = [&](int j, int c) { return mx_test_break_value(weight * gemm.acc[i][j][2 * h + c], token); };
                auto pair = [&](int j) {
                    return moetune_u32(mx_float_to_bf16(value(j, 0))) | (moetune_u32(mx_float_to_bf16(value(j, 1))) << 16);
                };
                if constexpr (kVectors) {
#pragma unroll
                    for (int jb = 0; jb < WARP_N / 32; ++jb) {
                        moetune_u32 words[4];
#pragma unroll
                        for (int q = 0; q < 4; ++q) words[q] = pair(4 * jb + q);
                        mx_quad_transpose(words, t);  // now columns 8 (4 jb + t) .. + 7
                        if (token < 0) continue;
                        unsigned short* at = out_row() + n0 + 32 * jb + 8 * t;
                        if constexpr (ATOMIC) {
                            mx_atomic_add_bf16x8(at, words);
                        } else {
                            mx_store16(at, mx_u32x4{words[0], words[1], words[2], words[3]});
                        }
                    }
                } else {
                    unsigned short* out = out_row();
#pragma unroll
                    for (int j = 0; j < WARP_N / 8; ++j) {
                        const int col = n0 + 8 * j + 2 * t;
                        if constexpr (ATOMIC) {
                            mx_atomic_add_bf16x2(out + col, value(j, 0), value(j, 1));
                        } else {
                            *reinterpret_cast<moetune_u32*>(out + col) = pair(j);
                        }
                    }
                }
            }
        }
    };

    // The swapped tiles' epilogue: thread (g, t) holds columns c0 = tile_n0 + 8 lo + g (d[4j + c]) and
    // c0 + 8 (d[4j + 2 + c]) of tile rows 8j + 2t + c. Lanes g and g ^ 1 swap one value so that the even
    // lane holds columns (c0, c0 + 1) of row 8j + 2t and the odd lane (c0 - 1, c0) of row 8j + 2t + 1:
    // one bf16 pair each.
    auto swapped_epilogue = [&](const auto& gemm) {
        const int lane = int(threadIdx.x) & 31;
        const int g = lane >> 2, t = lane & 3;
        const int lo = mx_swapped_warp_tile<false>(warp);
        const float* d = &gemm.acc[0][0][0];
        const bool odd = (g & 1) != 0;
        const int col = tile_n0 + 8 * lo + g - (odd ? 1 : 0);
#pragma unroll
        for (int j = 0; j < TILE_M / 8; ++j) {
            const int r = 8 * j + 2 * t + (odd ? 1 : 0);
            const int token = token_of_row[r];
            const float weight = weight_of_row[r];
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const float mine0 = d[4 * j + 2 * half], mine1 = d[4 * j + 2 * half + 1];
                const float other = mx_shfl_xor(odd ? mine0 : mine1, 4);
                if (token < 0) continue;
                const float x = mx_test_break_value(weight * (odd ? other : mine0), token);
                const float y = mx_test_break_value(weight * (odd ? mine1 : other), token);
                const long long out_row = ATOMIC ? (long long)token : (long long)act_row[r];
                unsigned short* out = args.out + out_row * args.model_dim + col + 8 * half;
                if constexpr (ATOMIC) {
                    mx_atomic_add_bf16x2(out, x, y);
                } else {
                    *reinterpret_cast<moetune_u32*>(out) =
                        moetune_u32(mx_float_to_bf16(x)) | (moetune_u32(mx_float_to_bf16(y)) << 16);
                }
            }
        }
    };

    // Expert e's rebased weight rows [n_rows, K] and their bases (the FP8 shared-operand loops).
    // (FP4_WEIGHTS, the _ws loop: its FP4 blocks, common/fp4_weight_blocks.h.)
    auto rebased_weights = [&](int e) {
        return args.w2 + (long long)e * n_rows * (FP4_WEIGHTS ? mx_fp4_blocks_row_bytes(K) : (long long)K);
    };
    auto rebased_bases = [&](int e) { return args.w2_scale + (long long)e * n_rows; };
    static_assert(!FP4_WEIGHTS || WS, "FP4 weight blocks: the warp-specialised loop only");
    static_assert(!READ_ONCE || WS, "weights read once evict-first: the warp-specialised loop only");
    static_assert(!MX_ROWS || (WGMMA && !SHARED_OPERANDS && MMA_PATH == 0), "MXFP8 rows: the register-fed FP8 loop only");
    static_assert(!EIGHT_ROWS || (WGMMA && !SHARED_OPERANDS && MMA_PATH == 0 && TILE_M == 16),
                  "eight rows: the register-fed FP8 loop of 16-row tiles only");
    if constexpr (WS) {
        // The warp-specialised FP8 loop (common/moe_fp8_ws_gemm.h), as in stage 1.
        static_assert(WGMMA && SHARED_OPERANDS && MMA_PATH == 0 && PERSISTENT && !SWAPPED && WARP_M == 16,
                      "_ws: FP8 _smem_wgmma, the epilogue a 16-row block at a time");
        using Gemm = MxMoeFp8WsGemm<TILE_M, TILE_N, FP4_WEIGHTS>;
        __shared__ typename Gemm::Shared ws_shared;
        // The buffers (mx_ws_stages) fill the opt-in shared memory but kMxWsStaticShared: room for these.
        static_assert(sizeof(row_tables) + sizeof(walk_next) + sizeof(ws_shared) <= kMxWsStaticShared,
                      "_ws: the static shared memory fits beside the buffers");
        Gemm gemm;
        auto prepare = [&](int tile, int slot, int p) {
            const int tile_row0 = tile / n_tiles * TILE_M;
            typename Gemm::Tile next{tile_row0 < num_valid, row_tables[slot].act_row, nullptr, nullptr,
                                     tile % n_tiles * TILE_N, false};
            if (!next.valid) return next;
            const int e = args.sorted_expert_ids[tile_row0 / SORT_BM];
            next.weights_read_once =
                READ_ONCE && mx_expert_row_tiles_one<TILE_M, SORT_BM>(args.sorted_expert_ids, tile_row0, num_valid, e);
            next.w = rebased_weights(e);
            next.w_base = rebased_bases(e);
            for (int r = p; r < TILE_M; r += Gemm::kProducerThreads)
                store_row(args.sorted_token_ids[tile_row0 + r], args.sorted_weights[tile_row0 + r], r,
                          row_tables[slot]);
            return next;
        };
        gemm.walk(args.act, args.act_scale, K, dynamic_shared, ws_shared, prepare,
                  [&](int tile, int slot, const auto& block, int block_m0, int block_n0) {
                      act_row = row_tables[slot].act_row;
                      token_of_row = row_tables[slot].token;
                      weight_of_row = row_tables[slot].weight;
                      m0 = block_m0;
                      n0 = tile % n_tiles * TILE_N + block_n0;
                      epilogue(block);
                  });
    } else if constexpr (SHARED_OPERANDS && MMA_PATH == 0) {
        // FP8 warpgroup products (common/moe_fp8_wgmma_gemm.h): one warpgroup per 64 rows, full width,
        // on rebased rows: act / act_scale and w / w_scale hold e4m3 rows and their bases (mx_rebase.h).
        static_assert(WGMMA && WARPS_N == 1 && WARPS_K == 1 && PIPE == 1, "FP8 _smem: _wgmma, one K-group, one chunk a step");
        static_assert(PERSISTENT, "the FP8 shared-operand kernels walk their tiles");
        using Gemm = MxMoeFp8WgmmaGemm<TILE_M, TILE_N, NON_TEMPORAL>;
        Gemm gemm;
        auto tile_of = [&](int e, int first_n, const int* rows) {
            return typename Gemm::Tile{rows, rebased_weights(e), rebased_bases(e), first_n};
        };
        const int warp_n0 = n0 - tile_n0;
        const int tid = int(threadIdx.x);
        typename Gemm::Tile current = tile_of(expert, tile_n0, act_row);
        int next = walk_next;
        for (int b = 0;; b ^= 1) {
            const int next_row0 = next / n_tiles * TILE_M;
            const bool has_next = next_row0 < num_valid;
            // The next tile's sorted entries, weights and expert, loaded now and stored once this
            // tile's first chunk is under way; thread 0 takes the tile after it.
            const bool mine = has_next && tid < TILE_M;
            const int next_id = mine ? args.sorted_token_ids[next_row0 + tid] : 0;
            const float next_weight = mine ? args.sorted_weights[next_row0 + tid] : 0.f;
            const int next_expert = has_next ? args.sorted_expert_ids[next_row0 / SORT_BM] : 0;
            const int after = has_next && tid == 0 ? mx_take_tile() : 0;
            RowTables& next_rows = row_tables[b ^ 1];
            const typename Gemm::Tile following = tile_of(next_expert, next % n_tiles * TILE_N, next_rows.act_row);
            gemm.run(args.act, args.act_scale, current, following, has_next, K, dynamic_shared, [&] {
                if (mine) store_row(next_id, next_weight, tid, next_rows);
            });
            epilogue(gemm);
            if (tid == 0) walk_next = after;
            if (!has_next) break;
            __syncthreads();  // the epilogue has read this tile's rows: the tile after next's go there
            next = walk_next;
            current = following;
            act_row = next_rows.act_row;
            token_of_row = next_rows.token;
            weight_of_row = next_rows.weight;
            n0 = following.n0 + warp_n0;
        }
        mx_end_tile_walk();
    } else if constexpr (WGMMA && MMA_PATH == 0) {
        // Register-fed FP8 warpgroup products (common/moe_fp8_register_gemm.h): the weights in the e4m3
        // code as A from registers, 16 weight rows a warp; the rows rebased (MX_ROWS: MXFP8) with interleaved
        // words.
        static_assert(SWAPPED && WARPS_M == 1 && WARP_N == 16 && WARPS_K == 1,
                      "register-fed FP8 _wgmma: one warp per 16 weight rows, one K-group");
        MxMoeFp8RegisterGemm<TILE_M, TILE_N, PIPE, NON_TEMPORAL, false, MX_ROWS, EIGHT_ROWS ? 8 : TILE_M> gemm;
        // Launched to overlap stage 1's end: the weights do not depend on it.
        gemm.start(w, ws, tile_n0, K);
        mx_wait_for_previous_grid();
        gemm.run(args.act, args.act_scale, act_row, K, dynamic_shared);
        swapped_epilogue(gemm);
    } else if constexpr (SHARED_OPERANDS) {
        static_assert(MMA_PATH == 1 && WARPS_K == 1 && PIPE == 1, "_smem: bf16 path, one K-group, one chunk a step");
        MxMoeSharedGemm<TILE_M, TILE_N, WARPS_M, WARPS_N, NON_TEMPORAL, WGMMA, false> gemm;
        mx_wait_for_previous_grid();  // the activations are stage 1's output
        gemm.run(args.act, args.act_scale, args.act_wide, act_row, w, ws, tile_n0, K, m0, n0 - tile_n0,
                 dynamic_shared);
        if constexpr (SWAPPED) swapped_epilogue(gemm);
        else epilogue(gemm);
    } else {
        (void)dynamic_shared;
        MxMoeWarpGemm<WARP_M, WARP_N, PIPE, NON_TEMPORAL, MMA_PATH, WARPS_K> gemm;
        // Launched to overlap stage 1's end: the weights do not depend on it, so L2 fetches this
        // warp's first chunks while the activations (stage 1's output) are still being written.
        gemm.prefetch_first_weights(w, n0, K, k_group);
        mx_wait_for_previous_grid();
        gemm.run(args.act, args.act_scale, args.act_wide, act_row + m0, w, ws, n0, K, k_group);
        __shared__ float k_sum[WARPS_K > 1 ? TILE_M * TILE_N : 1];
        mx_sum_k_groups<WARPS_K, WARPS_M * WARPS_N>(gemm, k_sum, k_group, mn_warp);
        if (k_group == 0) epilogue(gemm);
    }
}

// The entry point of one candidate (see moe_stage1.hip).
#ifdef MOETUNE_KERNEL_NAME
// With _occ{n}, at least n workgroups per SM; without, the compiler sizes the registers for one.
#if MOETUNE_MIN_WORKGROUPS > 0
#define MX_ENTRY_BOUNDS MX_LAUNCH_BOUNDS_MIN(MOETUNE_WARPS * 32, MOETUNE_MIN_WORKGROUPS)
#else
#define MX_ENTRY_BOUNDS __launch_bounds__(MOETUNE_WARPS * 32)
#endif
extern "C" __global__ void MX_ENTRY_BOUNDS MOETUNE_KERNEL_NAME(const MoeStage2Args args) {
    extern __shared__ __attribute__((aligned(16))) unsigned char moetune_dynamic_shared[];
    moe_stage2<MOETUNE_TILE_M, MOETUNE_TILE_N, MOETUNE_WARPS_M, MOETUNE_WARPS_N, MOETUNE_WARPS_K, MOETUNE_TILE_K / 128,
               MOETUNE_NONTEMPORAL_WEIGHTS != 0, MOETUNE_MMA_PATH, MOETUNE_STAGE2_MODE == 0, MOETUNE_SORT_BLOCK_M,
               MOETUNE_SHARED_OPERANDS != 0, MOETUNE_WGMMA != 0, MOETUNE_WARP_SPECIALISED != 0,
               MOETUNE_FP4_WEIGHTS != 0, MOETUNE_WEIGHTS_READ_ONCE != 0, MOETUNE_MX_ROWS != 0,
               MOETUNE_EIGHT_ROWS != 0>(args, moetune_dynamic_shared);
}
#endif
