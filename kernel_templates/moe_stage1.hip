// MoE stage 1: for each block of sorted rows (one expert), gate/up GEMM of the MXFP8 activations
// with the expert's MXFP4 W1 (gate/up interleaved in 16-row groups), then SiLU(gate) * up.
// Output [M*topk, inter] (row token*topk + slot) as bf16, or -- FUSE_FP8 -- as MXFP8 values plus
// e8m0 scales [M*topk, inter/32], ready for stage 2 without a separate quantisation pass, or those
// MXFP8 values widened (args.out_wide) for a stage 2 that reads the wide layout.
//
// Tile parameters (template arguments, set from a KernelConfig; see docs/kernel-names.md):
//   TILE_M   sorted rows per CTA = moe_sorting block_m (16, 32, 64, 128; 256 with WGMMA)
//   TILE_N   W1 rows (gate+up, interleaved) per CTA
//   WARPS_M x WARPS_N  warps per K-group, each owning a (TILE_M/WARPS_M) x (TILE_N/WARPS_N) block of
//            the tile (which warp owns which: mx_warp_origin, common/moe_gemm.h)
//   WARPS_K  K-groups (_kw): each walks every WARPS_K-th prefetch group of K, and they sum through
//            shared memory before group 0 runs the epilogue (common/moe_gemm.h)
//   PIPE     128-wide K chunks per weight prefetch group (tile_k = 128 * PIPE); two groups are
//            in flight per warp (the one being multiplied and the next)
//   NON_TEMPORAL  stream the weights past L2 (evict-first)
//   MMA_PATH tensor-core path of each MX block: 0 FP8 products rescaled per block, 1 bf16 products
//            of operands with the scales folded in (common/mx_block_mma.h)
//   FUSE_FP8 quantise the output to MXFP8 in the epilogue
//   SHARED_OPERANDS  (_smem) the workgroup widens each K chunk once into shared memory and the
//            warps multiply from there (common/moe_shared_gemm.h; bf16 path, one K-group, PIPE 1)
//   WGMMA    (_wgmma, with _smem) Hopper warpgroup products from shared memory, 64-row warpgroups
//            over the whole tile width or (WARPS_N = 2) over half of it; without _smem, FP8 path:
//            the register-fed FP8 warpgroup products (common/moe_fp8_register_gemm.h), PIPE chunks
//            of weights in flight a warp
//   WS       (_ws, FP8 _smem_wgmma) the warp-specialised loop: a producer warpgroup copies, consumer
//            warpgroups of 128 rows (64 at 256 wide) multiply (common/moe_fp8_ws_gemm.h)
//   MX_ROWS  (_mxr, register-fed _wgmma) the activations as MXFP8 with interleaved words instead of
//            rebased rows (common/moe_fp8_register_gemm.h)
//   EIGHT_ROWS  (_r8, register-fed _wgmma of 16 rows) the products cover the tile's first 8 rows, all
//            that at most 8 tokens fill (common/moe_fp8_register_gemm.h, PRODUCT_N)
#include "common/grid_dependency.h"
#include "common/host_device.h"
#include "common/moe_args.h"
#include "common/moe_gemm.h"
#include "common/moe_fp8_register_gemm.h"
#include "common/moe_fp8_wgmma_gemm.h"
#include "common/moe_fp8_ws_gemm.h"
#include "common/moe_shared_gemm.h"
#include "common/mx_bf16_widen.h"
#include "common/mx_types.h"
#include "common/routed_rows.h"
#include "common/test_break.h"
#include "common/tile_walk.h"

template <int TILE_M, int TILE_N, int WARPS_M, int WARPS_N, int WARPS_K, int PIPE, bool NON_TEMPORAL, int MMA_PATH,
          bool FUSE_FP8, bool SHARED_OPERANDS, bool WGMMA, bool WS, bool FP4_WEIGHTS, bool READ_ONCE, bool MX_ROWS,
          bool EIGHT_ROWS>
__device__ __forceinline__ void moe_stage1(const MoeStage1Args& args, unsigned char* dynamic_shared) {
    constexpr int WARP_M = TILE_M / WARPS_M;
    constexpr int WARP_N = TILE_N / WARPS_N;
    // Swapped warpgroup tiles (moe_shared_gemm.h): a warp holds a gate and an up tile of 8 W1 rows.
    constexpr bool SWAPPED = mx_swapped_wgmma(WGMMA, TILE_M);
    static_assert(TILE_M % WARPS_M == 0 && WARP_M % 16 == 0, "a warp covers whole 16-row MMA tiles");
    static_assert(TILE_N % WARPS_N == 0 && (SWAPPED || WARP_N % 32 == 0),
                  "a warp covers whole gate/up groups (32 W1 rows)");
    static_assert(!FUSE_FP8 || (!SWAPPED && WARP_N % 64 == 0) || (WGMMA && !SHARED_OPERANDS),
                  "fused MXFP8 output needs 32 whole output columns per warp, or the register-fed swapped tiles");

    constexpr bool N_FASTEST = mx_n_tiles_fastest(WGMMA, SHARED_OPERANDS);
    // The FP8 shared-operand kernels walk their tiles persistently over a 1-D grid (mx_persistent_tiles).
    constexpr bool PERSISTENT = mx_persistent_tiles(WGMMA, SHARED_OPERANDS, MMA_PATH == 0);

    mx_test_break_entry();
    // Stage 2 may start on the SMs this grid's last wave leaves idle (it waits for this grid's output).
    mx_allow_next_grid();
    // The register-fed FP8 tiles given the routing (args.topk_ids: the library at a few tokens) find
    // their rows and expert in it (common/routed_rows.h) and start their weights' loads before they
    // wait for the previous kernel; the others wait first.
    constexpr bool kRegisterFed = WGMMA && MMA_PATH == 0 && !SHARED_OPERANDS;
    const bool routed = kRegisterFed && args.topk_ids != nullptr;
    // Launched to overlap the activation quantisation (library path): everything below reads it or the sort.
    if (!routed) mx_wait_for_previous_grid();
    const int n_tiles = int(2LL * args.inter_dim / TILE_N);
    const int tile = int(blockIdx.x);  // PERSISTENT: the walk's first tile, N tiles fastest
    const int row_tile = PERSISTENT ? tile / n_tiles : mx_row_tile<N_FASTEST>();
    const int row0 = row_tile * TILE_M;
    const int tile_n0 = (PERSISTENT ? tile % n_tiles : mx_n_tile<N_FASTEST>()) * TILE_N;

    // Stage 1 reads activation row `token`: the token table is the activation-row table. A
    // persistent walk keeps two pairs of tables, this tile's and the next one's, and the next
    // tile's number (common/tile_walk.h).
    __shared__ __attribute__((aligned(16))) int row_tables[PERSISTENT ? 2 : 1][2][TILE_M];  // (16: the _ws producers read vectors)
    __shared__ int walk_next;
    int* token_of_row = row_tables[0][0];
    int* slot_of_row = row_tables[0][1];
    int expert = -1;
    int num_valid = 0;  // (the persistent walks')
    if constexpr (kRegisterFed) {
        if (routed)
            expert = mx_routed_rows<TILE_M, TILE_M>(
                args.topk_ids, args.tokens * args.topk, args.experts, row0,
                [&](int r) { token_of_row[r] = -1, slot_of_row[r] = args.topk; },
                [&](int r, int i) { token_of_row[r] = i / args.topk, slot_of_row[r] = i % args.topk; });
    }
    if (routed) {
        if (expert < 0) return;  // past the sorted rows
    } else {
        num_valid = args.num_valid_ids[0];
        if (row0 >= num_valid) {
            if constexpr (PERSISTENT) mx_end_tile_walk();
            return;
        }
        expert = args.sorted_expert_ids[row_tile];
        // (The warp-specialised loop's producers walk the tiles and load their rows themselves.)
        if constexpr (!WS) {
            if constexpr (PERSISTENT) {
                if (threadIdx.x == 0) walk_next = mx_take_tile();
            }
            mx_load_sorted_rows<TILE_M>(args.sorted_token_ids, row0, args.tokens, token_of_row, slot_of_row);
            __syncthreads();
        }
    }

    const int K = args.model_dim;
    const long long n_rows = 2LL * args.inter_dim;
    const unsigned char* w = args.w1 + (long long)expert * n_rows * (K / 2);
    const unsigned char* ws = args.w1_scale + (long long)expert * n_rows * (K / 32);
    const int warp = int(threadIdx.x) >> 5;
    // Without K-groups k_group is the constant 0: the code is that of a kernel without them.
    const int mn_warp = WARPS_K > 1 ? warp % (WARPS_M * WARPS_N) : warp;
    const int k_group = WARPS_K > 1 ? warp / (WARPS_M * WARPS_N) : 0;
    int m0 = 0, n0 = 0;
    if constexpr (!SWAPPED) mx_warp_origin<WARPS_M, WARPS_N, WARP_M, WARP_N, WGMMA>(mn_warp, m0, n0);
    n0 += tile_n0;

    // Epilogue, on either main loop's accumulators. Interleaved W1 rows come in groups of 32: 16 gate
    // rows then the 16 up rows of the same output columns, i.e. n8 tiles (4p, 4p+1) are gate and
    // (4p+2, 4p+3) are up for columns col0 + 16p + 8q + 2t + c.
    auto epilogue = [&](const auto& gemm) {
        const int lane = int(threadIdx.x) & 31;
        const int g = lane >> 2, t = lane & 3;
        const int col0 = n0 / 2;
        const int inter = args.inter_dim;
        constexpr int GROUPS = SWAPPED ? 1 : WARP_N / 32;  // (the swapped tiles have their own epilogue)
        // The FP8 warpgroup-product kernels store whole 16-byte pieces of a row (mx_quad_transpose):
        // 64 columns at a time of the MXFP8 output, 32 of the bf16 one. (Not in the register-fed
        // bf16-path tiles, whose registers it raised.)
        constexpr bool kVectors = WGMMA && MMA_PATH == 0;
#pragma unroll
        for (int i = 0; i < WARP_M / 16; ++i) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = m0 + 16 * i + g + 8 * h;
                const int token = token_of_row[r];
                const long long out_row = (long long)token * args.topk + slot_of_row[r];
                float v[GROUPS][2][2];
#pragma unroll
                for (int p = 0; p < GROUPS; ++p)
#pragma unroll
                    for (int q = 0; q < 2; ++q)
#pragma unroll
                        for (int c = 0; c < 2; ++c)
                            // Rounded to bf16 as the unfused path stores it, so both paths quantise the same values.
                            v[p][q][c] = mx_round_to_bf16(
                                mx_test_break_value(moetune_silu(gemm.acc[i][4 * p + q][2 * h + c]) *
                                                        gemm.acc[i][4 * p + 2 + q][2 * h + c],
                                                    out_row));
                if constexpr (FUSE_FP8) {
                    // One MX block = 32 columns = two gate/up groups; its 32 values sit in the 4 lanes
                    // of this row (t = 0..3), 8 each.
                    auto block_scale = [&](int b) {
                        float amax = 0.f;
#pragma unroll
                        for (int p = 2 * b; p < 2 * b + 2; ++p)
#pragma unroll
                            for (int q = 0; q < 2; ++q)
#pragma unroll
                                for (int c = 0; c < 2; ++c) amax = fmaxf(amax, fabsf(v[p][q][c]));
                        amax = fmaxf(amax, mx_shfl_xor(amax, 1));
                        amax = fmaxf(amax, mx_shfl_xor(amax, 2));
                        return mx_mxfp8_scale_from_amax(amax);
                    };
                    if constexpr (kVectors && GROUPS % 4 == 0) {
                        if (!args.out_wide) {
                            // Two MX blocks (64 columns) at a time: word m of lane t holds the e4m3 pairs
                            // of group 4c + m at columns 16 m + 2t (low half) and 16 m + 8 + 2t (high
                            // half); transposed, lane t holds columns 16 t + 2 t' and 16 t + 8 + 2 t' of
                            // each lane t' of the quad, i.e. columns 16 t .. 16 t + 15: one 16-byte store.
                            unsigned char* out = static_cast<unsigned char*>(args.out) + out_row * inter;
#pragma unroll
                            for (int c = 0; c < GROUPS / 4; ++c) {
                                const unsigned char scales[2] = {block_scale(2 * c), block_scale(2 * c + 1)};
                                moetune_u32 w[4];
#pragma unroll
                                for (int m = 0; m < 4; ++m) {
                                    const int p = 4 * c + m;
                                    w[m] = moetune_u32(mx_quantize_mxfp8_pair(v[p][0][0], v[p][0][1], scales[m / 2])) |
                                           (moetune_u32(mx_quantize_mxfp8_pair(v[p][1][0], v[p][1][1], scales[m / 2]))
                                            << 16);
                                }
                                mx_quad_transpose(w, t);
                                if (token < 0) continue;
                                mx_store16(out + col0 + 64 * c + 16 * t,
                                           mx_u32x4{mx_byte_perm(w[0], w[1], 0x5410u), mx_byte_perm(w[2], w[3], 0x5410u),
                                                    mx_byte_perm(w[0], w[1], 0x7632u), mx_byte_perm(w[2], w[3], 0x7632u)});
                                if (t == 0) {
#pragma unroll
                                    for (int b = 0; b < 2; ++b)
                                        args.out_scale[out_row * (inter / 32) + (col0 + 64 * c + 32 * b) / 32] = scales[b];
                                }
                            }
                            continue;
                        }
                    }
#pragma unroll
                    for (int b = 0; b < GROUPS / 2; ++b) {
                        const unsigned char scale = block_scale(b);
                        if (token < 0) continue;
                        if (args.out_wide) {
                            // Columns 2t, 2t+1 of each 8-column group, at their wide positions.
                            unsigned short* out = args.out_wide + out_row * inter;
#pragma unroll
                            for (int p = 2 * b; p < 2 * b + 2; ++p)
#pragma unroll
                                for (int q = 0; q < 2; ++q) {
                                    const unsigned short pair = mx_quantize_mxfp8_pair(v[p][q][0], v[p][q][1], scale);
#pragma unroll
                                    for (int c = 0; c < 2; ++c)
                                        out[col0 + 16 * p + 8 * q + mx_wide_position(2 * t + c)] =
                                            mx_wide_element((unsigned char)(pair >> (8 * c)), scale);
                                }
                            continue;
                        }
                        unsigned char* out = static_cast<unsigned char*>(args.out) + out_row * inter;
#pragma unroll
                        for (int p = 2 * b; p < 2 * b + 2; ++p)
#pragma unroll
                            for (int q = 0; q < 2; ++q) {
                                const int col = col0 + 16 * p + 8 * q + 2 * t;
                                *reinterpret_cast<unsigned short*>(out + col) =
                                    mx_quantize_mxfp8_pair(v[p][q][0], v[p][q][1], scale);
                            }
                        if (t == 0) args.out_scale[out_row * (inter / 32) + (col0 + 32 * b) / 32] = scale;
                    }
                } else {
                    auto pair = [&](int p, int q) {
                        return moetune_u32(mx_float_to_bf16(v[p][q][0])) | (moetune_u32(mx_float_to_bf16(v[p][q][1])) << 16);
                    };
                    if constexpr (kVectors && GROUPS % 2 == 0) {
                        // Two groups (32 columns) at a time: word 2 (p - 2c) + q of lane t holds columns
                        // 8 (2 (p - 2c) + q) + 2t; transposed, lane t holds columns 8 t .. 8 t + 7.
                        unsigned short* out = static_cast<unsigned short*>(args.out) + out_row * inter;
#pragma unroll
                        for (int c = 0; c < GROUPS / 2; ++c) {
                            moetune_u32 w[4] = {pair(2 * c, 0), pair(2 * c, 1), pair(2 * c + 1, 0), pair(2 * c + 1, 1)};
                            mx_quad_transpose(w, t);
                            if (token < 0) continue;
                            mx_store16(out + col0 + 32 * c + 8 * t, mx_u32x4{w[0], w[1], w[2], w[3]});
                        }
                        continue;
                    }
                    if (token < 0) continue;
                    unsigned short* out = static_cast<unsigned short*>(args.out) + out_row * inter;
#pragma unroll
                    for (int p = 0; p < GROUPS; ++p)
#pragma unroll
                        for (int q = 0; q < 2; ++q) {
                            const int col = col0 + 16 * p + 8 * q + 2 * t;
                            *reinterpret_cast<moetune_u32*>(out + col) = pair(p, q);
                        }
                }
            }
        }
    };

    // The swapped tiles' epilogue: thread (g, t) holds gate (d[4j + c]) and up (d[4j + 2 + c]) of tile
    // row 8j + 2t + c for the output column of gate row g of tile lo = 4p + a (group p, half a).
    auto swapped_epilogue = [&](const auto& gemm) {
        const int lane = int(threadIdx.x) & 31;
        const int g = lane >> 2, t = lane & 3;
        const int lo = mx_swapped_warp_tile<true>(warp);
        const float* d = &gemm.acc[0][0][0];
        const int inter = args.inter_dim;
        const int col = tile_n0 / 2 + 16 * (lo / 4) + 8 * (lo % 4) + g;
#pragma unroll
        for (int j = 0; j < TILE_M / 8; ++j)
#pragma unroll
            for (int c = 0; c < 2; ++c) {
                const int r = 8 * j + 2 * t + c;
                const int token = token_of_row[r];
                if (token < 0) continue;
                const long long out_row = (long long)token * args.topk + slot_of_row[r];
                const float v = mx_test_break_value(moetune_silu(d[4 * j + c]) * d[4 * j + 2 + c], out_row);
                static_cast<unsigned short*>(args.out)[out_row * inter + col] = mx_float_to_bf16(v);
            }
    };

    // The swapped tiles' fused MXFP8 epilogue (register-fed FP8 products). Warp w holds output
    // columns 8w..8w+7 of the tile (lane g: column 8w + g), so an MX block's 32 columns are the 4 warps
    // 4b..4b+3: each row's maximum goes over the warp's 8 lanes of the row (3 swaps), then over the 4
    // warps through shared memory (one barrier); each thread stores its bytes. With
    // args.out_interleaved the block's words go in the register-fed kernels' order
    // (mx_interleaved_source_word): column 8a + g of the block (a = w % 4) is byte g % 4 of word
    // 2a + g / 4, stored as word a (g < 4) or 4 + a.
    // warp_max: [TILE_N / 16][TILE_M] floats of shared memory.
    auto swapped_fp8_epilogue = [&](const auto& gemm, float (*warp_max)[TILE_M]) {
        const int lane = int(threadIdx.x) & 31;
        const int g = lane >> 2, t = lane & 3;
        const float* d = &gemm.acc[0][0][0];
        const int inter = args.inter_dim;
        const int col = tile_n0 / 2 + 8 * warp + g;
        float v[TILE_M / 8][2];
#pragma unroll
        for (int j = 0; j < TILE_M / 8; ++j)
#pragma unroll
            for (int c = 0; c < 2; ++c) {
                const int r = 8 * j + 2 * t + c;
                const int token = token_of_row[r];
                const long long out_row = (long long)(token < 0 ? 0 : token) * args.topk + slot_of_row[r];
                // Rounded to bf16 as the unfused path stores it, so both paths quantise the same values.
                v[j][c] = mx_round_to_bf16(mx_test_break_value(moetune_silu(d[4 * j + c]) * d[4 * j + 2 + c], out_row));
                float amax = fabsf(v[j][c]);
                for (int m = 4; m < 32; m *= 2) amax = fmaxf(amax, mx_shfl_xor(amax, m));
                if (g == 0) warp_max[warp][r] = amax;
            }
        __syncthreads();
        const int first_warp = warp & ~3;
        const int a = warp & 3;
        const int byte_in_block = args.out_interleaved ? 4 * ((g < 4 ? 0 : 4) + a) + (g & 3) : 8 * a + g;
        unsigned char* out = static_cast<unsigned char*>(args.out);
#pragma unroll
        for (int j = 0; j < TILE_M / 8; ++j)
#pragma unroll
            for (int c = 0; c < 2; ++c) {
                const int r = 8 * j + 2 * t + c;
                const int token = token_of_row[r];
                if (token < 0) continue;
                float amax = warp_max[first_warp][r];
#pragma unroll
                for (int w = 1; w < 4; ++w) amax = fmaxf(amax, warp_max[first_warp + w][r]);
                const unsigned char scale = mx_mxfp8_scale_from_amax(amax);
                const long long out_row = (long long)token * args.topk + slot_of_row[r];
                out[out_row * inter + (col - g - 8 * a) + byte_in_block] = mx_quantize_mxfp8_element(v[j][c], scale);
                if (a == 0 && g == 0) args.out_scale[out_row * (inter / 32) + col / 32] = scale;
            }
    };

    // Expert e's rebased weight rows [n_rows, K] and their bases (the FP8 shared-operand loops).
    // (FP4_WEIGHTS, the _ws loop: its FP4 blocks, common/fp4_weight_blocks.h.)
    auto rebased_weights = [&](int e) {
        return args.w1 + (long long)e * n_rows * (FP4_WEIGHTS ? mx_fp4_blocks_row_bytes(K) : (long long)K);
    };
    auto rebased_bases = [&](int e) { return args.w1_scale + (long long)e * n_rows; };
    static_assert(!FP4_WEIGHTS || WS, "FP4 weight blocks: the warp-specialised loop only");
    static_assert(!READ_ONCE || WS, "weights read once evict-first: the warp-specialised loop only");
    static_assert(!MX_ROWS || (WGMMA && !SHARED_OPERANDS && MMA_PATH == 0), "MXFP8 rows: the register-fed FP8 loop only");
    static_assert(!EIGHT_ROWS || (WGMMA && !SHARED_OPERANDS && MMA_PATH == 0 && TILE_M == 16),
                  "eight rows: the register-fed FP8 loop of 16-row tiles only");
    if constexpr (WS) {
        // The warp-specialised FP8 loop (common/moe_fp8_ws_gemm.h) on the same rebased rows: the
        // producers store each tile's rows in one of two slots; the consumers' epilogue reads them.
        static_assert(WGMMA && SHARED_OPERANDS && MMA_PATH == 0 && PERSISTENT && !SWAPPED && WARP_M == 16,
                      "_ws: FP8 _smem_wgmma, the epilogue a 16-row block at a time");
        using Gemm = MxMoeFp8WsGemm<TILE_M, TILE_N, FP4_WEIGHTS>;
        __shared__ typename Gemm::Shared ws_shared;
        // The buffers (mx_ws_stages) fill the opt-in shared memory but kMxWsStaticShared: room for these.
        static_assert(sizeof(row_tables) + sizeof(walk_next) + sizeof(ws_shared) <= kMxWsStaticShared,
                      "_ws: the static shared memory fits beside the buffers");
        Gemm gemm;
        auto prepare = [&](int tile, int slot, int p) {
            const int tile_row_tile = tile / n_tiles;
            typename Gemm::Tile next{tile_row_tile * TILE_M < num_valid, row_tables[slot][0], nullptr, nullptr,
                                     tile % n_tiles * TILE_N, false};
            if (!next.valid) return next;
            const int e = args.sorted_expert_ids[tile_row_tile];
            next.weights_read_once = READ_ONCE && mx_expert_row_tiles_one<TILE_M, TILE_M>(
                                                      args.sorted_expert_ids, tile_row_tile * TILE_M, num_valid, e);
            next.w = rebased_weights(e);
            next.w_base = rebased_bases(e);
            for (int r = p; r < TILE_M; r += Gemm::kProducerThreads)
                mx_store_sorted_row(args.sorted_token_ids[tile_row_tile * TILE_M + r], args.tokens, r,
                                    row_tables[slot][0], row_tables[slot][1]);
            return next;
        };
        gemm.walk(args.act, args.act_scale, K, dynamic_shared, ws_shared, prepare,
                  [&](int tile, int slot, const auto& block, int block_m0, int block_n0) {
                      token_of_row = row_tables[slot][0];
                      slot_of_row = row_tables[slot][1];
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
        typename Gemm::Tile current = tile_of(expert, tile_n0, token_of_row);
        int next = walk_next;
        for (int b = 0;; b ^= 1) {
            const int next_row_tile = next / n_tiles;
            const bool has_next = next_row_tile * TILE_M < num_valid;
            // The next tile's sorted entries and expert, loaded now and stored once this tile's first
            // chunk is under way; thread 0 takes the tile after it.
            const int next_id = has_next && tid < TILE_M ? args.sorted_token_ids[next_row_tile * TILE_M + tid] : 0;
            const int next_expert = has_next ? args.sorted_expert_ids[next_row_tile] : 0;
            const int after = has_next && tid == 0 ? mx_take_tile() : 0;
            int* next_tokens = row_tables[b ^ 1][0];
            int* next_slots = row_tables[b ^ 1][1];
            const typename Gemm::Tile following = tile_of(next_expert, next % n_tiles * TILE_N, next_tokens);
            gemm.run(args.act, args.act_scale, current, following, has_next, K, dynamic_shared, [&] {
                if (has_next && tid < TILE_M) mx_store_sorted_row(next_id, args.tokens, tid, next_tokens, next_slots);
            });
            epilogue(gemm);
            if (tid == 0) walk_next = after;
            if (!has_next) break;
            __syncthreads();  // the epilogue has read this tile's rows: the tile after next's go there
            next = walk_next;
            current = following;
            token_of_row = next_tokens;
            slot_of_row = next_slots;
            n0 = following.n0 + warp_n0;
        }
        mx_end_tile_walk();
    } else if constexpr (WGMMA && MMA_PATH == 0) {
        // Register-fed FP8 warpgroup products (common/moe_fp8_register_gemm.h): W1 in the e4m3 code as
        // A from registers, a warp's 16 rows the gate and up rows of 8 output columns; the rows rebased
        // (MX_ROWS: MXFP8) with interleaved words; with FUSE_FP8 the fused epilogue above.
        static_assert(SWAPPED && WARPS_M == 1 && WARP_N == 16 && WARPS_K == 1,
                      "register-fed FP8 _wgmma: one warp per 16 weight rows, one K-group");
        MxMoeFp8RegisterGemm<TILE_M, TILE_N, PIPE, NON_TEMPORAL, true, MX_ROWS, EIGHT_ROWS ? 8 : TILE_M> gemm;
        gemm.start(w, ws, tile_n0, K);
        if (args.next_w && threadIdx.x < 2) {
            // After this tile's first weight loads: lane 0 the values' share, lane 1 the scales'.
            const long long bytes = threadIdx.x == 0 ? args.next_w_bytes : args.next_w_scale_bytes;
            const unsigned char* base = (threadIdx.x == 0 ? args.next_w : args.next_w_scale) + expert * bytes;
            const long long share = (bytes / n_tiles + 15) / 16 * 16, first = tile_n0 / TILE_N * share;
            if (first < bytes) mx_prefetch_l2_bulk(base + first, moetune_u32(first + share <= bytes ? share : bytes - first));
        }
        if (routed) mx_wait_for_previous_grid();  // the activations (the weights and the routing are inputs)
        gemm.run(args.act, args.act_scale, token_of_row, K, dynamic_shared);
        if constexpr (FUSE_FP8) {
            __shared__ float warp_max[TILE_N / 16][TILE_M];
            swapped_fp8_epilogue(gemm, warp_max);
        } else {
            swapped_epilogue(gemm);
        }
    } else if constexpr (SHARED_OPERANDS) {
        static_assert(MMA_PATH == 1 && WARPS_K == 1 && PIPE == 1, "_smem: bf16 path, one K-group, one chunk a step");
        MxMoeSharedGemm<TILE_M, TILE_N, WARPS_M, WARPS_N, NON_TEMPORAL, WGMMA, true> gemm;
        gemm.run(args.act, args.act_scale, args.act_wide, token_of_row, w, ws, tile_n0, K, m0, n0 - tile_n0,
                 dynamic_shared);
        if constexpr (SWAPPED) swapped_epilogue(gemm);
        else epilogue(gemm);
    } else {
        (void)dynamic_shared;
        MxMoeWarpGemm<WARP_M, WARP_N, PIPE, NON_TEMPORAL, MMA_PATH, WARPS_K> gemm;
        gemm.run(args.act, args.act_scale, args.act_wide, token_of_row + m0, w, ws, n0, K, k_group);
        __shared__ float k_sum[WARPS_K > 1 ? TILE_M * TILE_N : 1];
        mx_sum_k_groups<WARPS_K, WARPS_M * WARPS_N>(gemm, k_sum, k_group, mn_warp);
        if (k_group == 0) epilogue(gemm);
    }
}

// The entry point of one candidate: rtc compiles this file with the -D definitions of a
// KernelConfig (tuner/kernels/compile_definitions.h), so the symbol is the kernel's name.
#ifdef MOETUNE_KERNEL_NAME
// With _occ{n}, at least n workgroups per SM; without, the compiler sizes the registers for one.
#if MOETUNE_MIN_WORKGROUPS > 0
#define MX_ENTRY_BOUNDS MX_LAUNCH_BOUNDS_MIN(MOETUNE_WARPS * 32, MOETUNE_MIN_WORKGROUPS)
#else
#define MX_ENTRY_BOUNDS __launch_bounds__(MOETUNE_WARPS * 32)
#endif
extern "C" __global__ void MX_ENTRY_BOUNDS MOETUNE_KERNEL_NAME(const MoeStage1Args args) {
    extern __shared__ __attribute__((aligned(16))) unsigned char moetune_dynamic_shared[];
    moe_stage1<MOETUNE_TILE_M, MOETUNE_TILE_N, MOETUNE_WARPS_M, MOETUNE_WARPS_N, MOETUNE_WARPS_K, MOETUNE_TILE_K / 128,
               MOETUNE_NONTEMPORAL_WEIGHTS != 0, MOETUNE_MMA_PATH, MOETUNE_FUSED_MXFP8_OUT != 0,
               MOETUNE_SHARED_OPERANDS != 0, MOETUNE_WGMMA != 0, MOETUNE_WARP_SPECIALISED != 0,
               MOETUNE_FP4_WEIGHTS != 0, MOETUNE_WEIGHTS_READ_ONCE != 0, MOETUNE_MX_ROWS != 0,
               MOETUNE_EIGHT_ROWS != 0>(args, moetune_dynamic_shared);
}
#endif
