#pragma once
// The main loop of the _smem kernels (KernelConfig::shared_operands): the workgroup widens each
// 128-wide K chunk of its TILE_M activation rows and TILE_N weight rows once, to bf16 with the MX
// scales folded in (the arithmetic of the bf16 path, mx_bf16_widen.h), into shared memory, and
// every warp multiplies its WARP_M x WARP_N block from there with bf16 16x8x16 products.
//
// Why: in the register-fed loop (moe_gemm.h) each warp widens its own operands, so a weight value is
// widened once per warp row of every workgroup and an activation value once per warp column, and
// with many rows per expert the widening and the per-warp activation gathers, not the tensor
// cores, set the pace. Here each value is widened once per workgroup, and large tiles (64-128 x
// 128-256) reuse it over many products.
//
// Pipeline: two operand buffers and one barrier per chunk. While chunk k is multiplied from one
// buffer, the raw bytes of a later chunk are loaded into registers (16-byte loads) and chunk k + 1
// is widened into the other buffer, side by side with the products: with warp products (mma.sync)
// the loop body is one basic block that the compiler interleaves, with warpgroup products (WGMMA)
// the products run asynchronously while the warps widen. WGMMA tiles of 128 rows keep a third
// buffer where it fits (kBuffers), so a chunk's products may still run through the next barrier.
//
// With warpgroup products the activations arrive pre-widened (act_wide, the wide layout of
// mx_bf16_widen.h, whose 16-byte units are exactly those of the wgmma layout): they are copied into
// shared memory with asynchronous copies and only the weights are widened. The warp-product layout
// interleaves two rows in each unit, so that loop widens both operands from MXFP8.
//
// The shared-memory layouts, and which thread stores what: shared_operand_layout.h.
// The accumulators are those of MxMoeWarpGemm (the C fragment per 16x8 tile), so the stages share
// their epilogues.
#include "host_device.h"
#include "memory.h"
#include "mma_bf16.h"
#include "mx_bf16_widen.h"
#include "mx_types.h"
#include "shared_operand_layout.h"
#include "wgmma_bf16.h"

// WGMMA (_wgmma, sm_90a): the products are Hopper warpgroup products straight from shared memory,
// issued asynchronously before the widening of the next chunk, so the tensor cores and the widening
// run side by side; operands then lie in the 128-byte-swizzled K-major layout the descriptors read
// (below). Each warpgroup (4 warps, warp blocks of 16 rows) owns 64 rows x TILE_N / WARPS_N columns:
// WARPS_N = 1 (one warpgroup per 64 rows) or 2 (two, each over half the width: twice the warps on
// the same tile, each widening half as many weights; mx_warp_origin says which warp is where).
// Elsewhere the warps multiply with warp products (mma.sync).
//
// Swapped WGMMA tiles (TILE_M 16 or 32, kSwapped): the weights are the A operand, 64 weight rows per
// warpgroup, and the tile's few activation rows the B operand (N = TILE_M): with 17-32 rows per
// expert a 64-row tile spends most of its products on padding rows, and its 64-256 accumulators
// and 160 KB of buffers leave one workgroup of 8 warps per SM to hide the widening
// (docs/kernel-design.md, "The 64-row warpgroup tiles at 512 tokens"). Both operands are K-major in
// the same layout, so only the descriptors and the product's shape change. One warp per 16 weight
// rows (WARPS_M 1, WARPS_N = TILE_N / 16): warp w holds weight rows 16w + g (d[4j + c]) and 16w + 8 +
// g (d[4j + 2 + c]) of the buffer for tile row 8j + 2t + c (which weight tiles those are:
// mx_swapped_warp_tile). GATE_UP (stage 1): the weight rows are stored so that lo is a gate tile
// and hi the up tile of the same output columns.
template <int TILE_M, int TILE_N, int WARPS_M, int WARPS_N, bool NON_TEMPORAL, bool WGMMA, bool GATE_UP>
struct MxMoeSharedGemm {
    static constexpr int kThreads = WARPS_M * WARPS_N * 32;
    static constexpr int WARP_M = TILE_M / WARPS_M;
    static constexpr int WARP_N = TILE_N / WARPS_N;
    static constexpr int MT = WARP_M / 16;
    static constexpr int NJ = WARP_N / 8;
    static_assert(WARP_M % 16 == 0 && WARP_N % 8 == 0, "warp block must be a whole number of 16x8 MMA tiles");
    static constexpr int kAccumulators = MT * NJ * 4;
    static constexpr int kRowBytes = kMxSharedRowBytes;
    static constexpr int kBufferBytes = (TILE_M + TILE_N) * kRowBytes;
    // The wgmma layout repeats every 1024 bytes and must start on such a boundary; the dynamic
    // shared memory starts after the kernel's static tables, so WGMMA takes 1024 bytes to align.
    static constexpr int kAlignSlack = WGMMA ? 1024 : 0;
    // Two, or three for WGMMA tiles of 128 rows where they fit (mx_shared_operand_buffers); with
    // three the loop waits for the chunk before's products only.
    static constexpr int kBuffers = mx_shared_operand_buffers(WGMMA, TILE_M, TILE_N);
    // Dynamic shared memory the kernel must be launched with (tuner/kernels/resource_model.cpp
    // computes the same).
    static constexpr int kSharedBytes = kBuffers * kBufferBytes + kAlignSlack;
    static constexpr bool kSwapped = mx_swapped_wgmma(WGMMA, TILE_M);
    static_assert(!WGMMA || kSwapped ||
                      (WARP_M == 16 && TILE_M % 64 == 0 && (WARPS_N == 1 || WARPS_N == 2) && WARP_N % 64 == 0),
                  "_wgmma: warpgroups of 64 rows over the whole tile width or half of it (64-256 columns)");
    static_assert(!kSwapped || ((TILE_M == 16 || TILE_M == 32) && WARPS_M == 1 && WARP_N == 16 && TILE_N % 64 == 0),
                  "swapped _wgmma: 16 or 32 rows, one warp per 16 weight rows, warpgroups of 64 weight rows");
    // Whether the activations come pre-widened (act_wide) and are copied, not widened; the host
    // side is kernels::reads_wide_activations.
    static constexpr bool kWideActivations = WGMMA;

    // Raw 16-byte vectors per chunk: 8 per activation row (128 e4m3), staged in pairs of rows g and
    // g + 8 of a 16-row group (one pair row of the A layout), and 4 per weight row (one lane of an
    // mma_k128 tile: 8 FP4 of each of the 4 blocks); spread over the workgroup's threads.
    static constexpr int kActPairs = TILE_M * 4;
    static constexpr int kWeightVectors = TILE_N * 4;
    static constexpr int kActPairsPerThread = kWideActivations ? 0 : (kActPairs + kThreads - 1) / kThreads;
    static constexpr int kWeightPerThread = (kWeightVectors + kThreads - 1) / kThreads;
    // Pre-widened: 16 units of 16 bytes per activation row and chunk; unit u of the chunk goes to
    // thread u % kThreads, so a quarter warp copies 8 units of one row (8 different bank groups in
    // the swizzle) and 16 threads one row's 256 contiguous bytes.
    static constexpr int kWideUnits = TILE_M * 16;
    static constexpr int kWideUnitsPerThread = kWideActivations ? kWideUnits / kThreads : 0;
    static_assert(!kWideActivations || kWideUnits % kThreads == 0, "whole wide units per thread");
    // WGMMA loop passes (mx_wgmma_chunks_per_pass).
    static constexpr int kChunksPerPass = mx_wgmma_chunks_per_pass(kWeightPerThread, kThreads);

    float acc[MT][NJ][4];

    // act: [rows, K] e4m3fn; act_scale: [rows, K/32] e8m0; act_wide: the same rows pre-widened
    // ([rows, K] bf16, wide layout), read instead where kWideActivations; tile_rows: the activation
    // row of each of the tile's TILE_M rows (-1 = padding; in shared memory); w: this expert's
    // mma_k128 tiles; w_scale: this expert's [N, K/32]; tile_n0: the tile's first weight row; m0, n0:
    // this warp's block inside the tile; shared: kSharedBytes of 16-byte aligned shared memory.
    // Every thread of the workgroup must call it.
    __device__ void run(const unsigned char* __restrict__ act, const unsigned char* __restrict__ act_scale,
                        const unsigned short* __restrict__ act_wide, const int* tile_rows,
                        const unsigned char* __restrict__ w, const unsigned char* __restrict__ w_scale, int tile_n0,
                        int K, int m0, int n0, unsigned char* shared) {
        for (int i = 0; i < MT; ++i)
            for (int j = 0; j < NJ; ++j)
                for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;
        if constexpr (WGMMA) {
            (void)act, (void)act_scale;
            run_warpgroups(act_wide, tile_rows, w, w_scale, tile_n0, K, shared);
        } else {
            (void)act_wide;
            run_warps(act, act_scale, tile_rows, w, w_scale, tile_n0, K, m0, n0, shared);
        }
    }

private:
    // The warp-product main loop (mma.sync).
    __device__ void run_warps(const unsigned char* __restrict__ act, const unsigned char* __restrict__ act_scale,
                              const int* tile_rows, const unsigned char* __restrict__ w,
                              const unsigned char* __restrict__ w_scale, int tile_n0, int K, int m0, int n0,
                              unsigned char* shared) {
        const int k128_count = K / 128;
        const int lane = int(threadIdx.x) & 31;
        const int g = lane >> 2, t = lane & 3;
        // A: offsets of lane (g, t)'s segments (kb, h) in its first pair row, less kb * 128: index
        // h ^ kb (mod 4) picks the swizzle (the pair rows a lane reads all have the parity of g).
        int a_lane[4];
        for (int c = 0; c < 4; ++c) a_lane[c] = ((m0 / 16) * 8 + g) * 512 + (((2 * t + (g & 1)) ^ c) << 4);
        // B: the offsets of unit t of lane row n0 + g, for even blocks and for odd ones (less kb * 64).
        int b_lane[2];
        b_lane[0] = TILE_M * kRowBytes + mx_shared_b_unit_offset(n0 + g, t);
        b_lane[1] = b_lane[0] - (g & 1) * 128;
        // The sources are derived again at each load (from the rows in shared memory): kept in
        // registers through this loop (up to 16 pointers), the 64x128 tile of 4 warps spilled.
        const auto src = [&] { return sources(act, act_scale, nullptr, tile_rows, w, w_scale, tile_n0, K); };
        Staged staged;
        stage_load(staged, src(), 0);
        store_acts<true>(staged, shared);
        store_weights<true>(staged, shared);
        __syncthreads();
        // The loop body is one basic block, so the compiler interleaves the widening of chunk k + 1
        // with the products of chunk k (ALU and tensor pipes side by side): no branch on the last
        // chunk (it reloads itself into the idle buffer), padding rows load row 0 (their products
        // land only in their own rows, which the epilogues skip), and the rare scales that need
        // the exact path are loaded and widened again after the products.
        for (int k128 = 0; k128 < k128_count; ++k128) {
            const int next = k128 + 1 < k128_count ? k128 + 1 : k128;
            stage_load(staged, src(), next);
            const unsigned char* current = shared + (k128 & 1) * kBufferBytes;
            unsigned char* other = shared + ((k128 + 1) & 1) * kBufferBytes;
            multiply_block(current, a_lane, b_lane, 0);
            multiply_block(current, a_lane, b_lane, 1);
            const bool exact_acts = store_acts<false>(staged, other);
            multiply_block(current, a_lane, b_lane, 2);
            const bool exact_weights = store_weights<false>(staged, other);
            multiply_block(current, a_lane, b_lane, 3);
            if (exact_acts || exact_weights) {
                // Reloaded rather than kept: holding the staged words through the products costs
                // ~60 registers and spills.
                Staged again;
                stage_load(again, src(), next);
                store_acts<true>(again, other);
                store_weights<true>(again, other);
            }
            __syncthreads();
        }
    }

    // The WGMMA main loop: chunk k + 1's activations copied and the products of chunk k issued, then
    // chunk k + 1's weights widened while both run.
    __device__ void run_warpgroups(const unsigned short* __restrict__ act_wide, const int* tile_rows,
                                   const unsigned char* __restrict__ w, const unsigned char* __restrict__ w_scale,
                                   int tile_n0, int K, unsigned char* shared) {
#if MOETUNE_WGMMA_AVAILABLE
        shared += (1024 - int(__cvta_generic_to_shared(shared) & 1023u)) & 1023;
        const int k128_count = K / 128;
        // Read through a shuffle so that the compiler knows it is the same in the whole warp: the
        // descriptors then live in uniform registers (each product took ~10 instructions of 64-bit
        // arithmetic and register moves for them otherwise).
        const int warpgroup = __shfl_sync(0xFFFFFFFFu, int(threadIdx.x) / 128, 0);
        // This warpgroup's activation rows and weight rows: a 64-row block and WARP_N columns, or
        // (swapped) all TILE_M rows and a 64-row block of the weights.
        int rows_group = 0, columns_group = warpgroup;
        if constexpr (!kSwapped) mx_warpgroup_block<WARPS_M>(warpgroup, rows_group, columns_group);
        constexpr int kWeightRows = kSwapped ? 64 : WARP_N;
        float(&d)[kAccumulators] = reinterpret_cast<float(&)[kAccumulators]>(acc[0]);
        // The descriptors of this warpgroup's first activation slice and first weight slice (128
        // bytes a row inside an atom column) in buffer 0; every other slice is a constant number of
        // 16-byte units further (the address field).
        const moetune_u64 act_descriptor = mx_wgmma_descriptor(shared + rows_group * 64 * 128);
        const moetune_u64 weight_descriptor =
            mx_wgmma_descriptor(shared + TILE_M * kRowBytes + columns_group * kWeightRows * 128);
        // Raw weight chunks are loaded two ahead of the products: chunk k + 2 is in flight while chunk k + 1,
        // loaded during the previous products, is widened beside the products of chunk k, so the
        // widening never waits for memory (one ahead left most of a load's latency exposed).
        const Sources src = sources(nullptr, nullptr, act_wide, tile_rows, w, w_scale, tile_n0, K);
        copy_wide_acts(src, K, shared, 0);
        Staged staged;
        stage_load(staged, src, 0);
        store_weights<true>(staged, shared);
        stage_load(staged, src, k128_count > 1 ? 1 : 0);
        mx_cp_async_wait_all();
        mx_fence_shared_for_async();
        __syncthreads();
        // Two chunks per pass (kChunksPerPass): the staged words alternate between two register
        // sets instead of being copied (`staged = ahead`, ~30 moves a chunk), and the compiler
        // overlaps the widening of one chunk with the loads and descriptors of the next (4096 tokens,
        // 128x128 tiles: stage 1 3706 -> 2814 us on the H200).
#pragma unroll(kChunksPerPass)
        for (int k128 = 0; k128 < k128_count; ++k128) {
            // The last chunks reload the last one into the idle buffer (no branch, see run_warps).
            const int next = k128 + 1 < k128_count ? k128 + 1 : k128_count - 1;
            const int after = k128 + 2 < k128_count ? k128 + 2 : k128_count - 1;
            Staged ahead;
            stage_load(ahead, src, after);
            const int current_units = (k128 % kBuffers) * (kBufferBytes / 16);
            unsigned char* other = shared + ((k128 + 1) % kBuffers) * kBufferBytes;
            // The other buffer's last readers, the products of chunk k + 1 - kBuffers, finished
            // before the barrier.
            copy_wide_acts(src, K, other, next);
            for (int e = 0; e < kAccumulators; ++e) mx_wgmma_pin(d[e]);
            mx_wgmma_fence();
#pragma unroll
            for (int ks = 0; ks < 8; ++ks) {
                // K slice ks: atom column ks / 4, 32 bytes per slice inside the swizzled rows.
                const moetune_u64 acts =
                    act_descriptor + current_units + ((ks / 4) * TILE_M * 128 + (ks % 4) * 32) / 16;
                const moetune_u64 weights =
                    weight_descriptor + current_units + ((ks / 4) * TILE_N * 128 + (ks % 4) * 32) / 16;
                if constexpr (kSwapped) mx_wgmma_bf16_m64k16<TILE_M>(d, weights, acts);
                else mx_wgmma_bf16_m64k16<WARP_N>(d, acts, weights);
            }
            mx_wgmma_commit();
            for (int e = 0; e < kAccumulators; ++e) mx_wgmma_pin(d[e]);
            if (store_weights<false>(staged, other)) {
                Staged again;
                stage_load(again, src, next);
                store_weights<true>(again, other);
            }
            staged = ahead;
            mx_cp_async_wait_all();
            mx_fence_shared_for_async();
            // Three buffers: this chunk's products may run on through the barrier, as long as the
            // chunk before's are done (their buffer is the next one filled).
            if constexpr (kBuffers == 3) mx_wgmma_wait_one();
            else mx_wgmma_wait_all();
            for (int e = 0; e < kAccumulators; ++e) mx_wgmma_pin(d[e]);
            __syncthreads();
        }
        mx_wgmma_wait_all();
        for (int e = 0; e < kAccumulators; ++e) mx_wgmma_pin(d[e]);
#else
        (void)act_wide, (void)tile_rows, (void)w, (void)w_scale, (void)tile_n0, (void)K, (void)shared;
        mx_wgmma_unavailable();
#endif
    }

    // One chunk's raw operands of this thread, between their loads and their widening.
    struct Staged {
        // (Arrays of at least one element; pre-widened, the loops over them are empty.)
        mx_u32x4 act[kActPairsPerThread + kWideActivations][2];       // rows g, g + 8 of a pair row, the same 16 k
        unsigned act_scale[kActPairsPerThread + kWideActivations][2];  // their e8m0 bytes (the vectors' MX block)
        mx_u32x4 weight[kWeightPerThread];
        moetune_u32 weight_scale[kWeightPerThread];  // the row's 4 scale bytes of the chunk
    };

    // Where this thread's raw vectors of chunk 0 lie; chunk k128 is k128 * 128 activation bytes
    // (pre-widened: 128 elements), k128 * 4 scale bytes and k128 * 512 weight bytes further (one
    // mma_k128 tile per 8 rows and chunk). The wgmma loop computes them once before the loop (the
    // gathered rows' 64-bit offsets took ~100 instructions per chunk when each load computed them);
    // the warp-product loop derives them at each load (see run_warps).
    struct Sources {
        const unsigned char* act[kActPairsPerThread + kWideActivations][2];
        const unsigned char* act_scale[kActPairsPerThread + kWideActivations][2];
        // Pre-widened: unit tid % 16 of rows act_wide_row[i] (K elements each) from act_wide_column.
        // Row indices, not pointers: 256-row tiles copy 8 units per thread, and 8 pointers made
        // them spill at the 128 registers of 512 threads.
        const unsigned short* act_wide_column;
        unsigned act_wide_row[kWideUnitsPerThread + !kWideActivations];
        unsigned act_wide_real;  // bit i: act_wide_row[i] is a real row, not padding
        // This thread's first weight vector and its scale word; vector i lies i * kThreads / 32
        // mma_k128 tiles of 8 rows further (the same lane), which the loads add (a pointer pair per
        // vector made the 128x256 tile of 512 threads spill).
        const unsigned char* weight;
        const unsigned char* weight_scale;
        int k128_count;
    };

    __device__ static Sources sources(const unsigned char* __restrict__ act, const unsigned char* __restrict__ act_scale,
                                      const unsigned short* __restrict__ act_wide, const int* tile_rows,
                                      const unsigned char* __restrict__ w, const unsigned char* __restrict__ w_scale,
                                      int tile_n0, int K) {
        Sources src;
        const int tid = int(threadIdx.x);
        const int k32_count = K / 32;
        src.act_wide_column = act_wide + (tid % 16) * 8;
        src.act_wide_real = 0u;
#pragma unroll
        for (int i = 0; i < kWideUnitsPerThread; ++i) {
            const int tile_row = tile_rows[(tid + i * kThreads) / 16];
            src.act_wide_row[i] = unsigned(tile_row >= 0 ? tile_row : 0);
            src.act_wide_real |= unsigned(tile_row >= 0) << i;
        }
#pragma unroll
        for (int i = 0; i < kActPairsPerThread; ++i) {
            const int p = tid + i * kThreads;
            int pair_row, piece;
            mx_shared_act_pair_position(p, pair_row, piece);
            const int m = (pair_row / 8) * 16 + pair_row % 8;
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const int tile_row = p < kActPairs ? tile_rows[m + 8 * r] : -1;
                const long long row = tile_row >= 0 ? tile_row : 0;  // padding: any real row (see run)
                src.act[i][r] = act + row * K + piece * 16;
                src.act_scale[i][r] = act_scale + row * k32_count + piece / 2;
            }
        }
        src.k128_count = K / 128;
        const long long n8 = tile_n0 / 8 + tid / 32;
        const int lane = mx_shared_weight_lane<WGMMA>(tid);
        src.weight = w + (n8 * src.k128_count * 32 + lane) * 16;
        src.weight_scale = w_scale + (n8 * 8 + lane / 4) * k32_count;
        return src;
    }

    // Starts the copies of this thread's pre-widened activation units of chunk k128 into `buffer`.
    // Padding rows are zero-filled without a read: with few rows per expert most of a 128-row tile is
    // padding, and copying a real row for each of them from L2 (the MXFP8 loads read one through L1)
    // cost the 128-row stage 2 at 1024 tokens 15 % on the H200 (879 instead of 764 us).
    __device__ static void copy_wide_acts(const Sources& src, int K, unsigned char* buffer, int k128) {
        // Unit tid + i kThreads lies i kThreads / 16 rows (a multiple of 8: the same swizzle phase)
        // below unit tid, i.e. i kThreads * 8 bytes further: constant offsets from one address.
        static_assert(kThreads % 128 == 0, "whole swizzle periods of rows between a thread's units");
        unsigned char* first = buffer + mx_wgmma_wide_act_offset(TILE_M, int(threadIdx.x));
        const unsigned short* chunk = src.act_wide_column + k128 * 128;
#pragma unroll
        for (int i = 0; i < kWideUnitsPerThread; ++i)
            mx_cp_async16(first + i * kThreads * 8, chunk + (unsigned long long)src.act_wide_row[i] * unsigned(K),
                          (src.act_wide_real >> i) & 1u);
    }

    __device__ static void stage_load(Staged& s, const Sources& src, int k128) {
        const int tid = int(threadIdx.x);
#pragma unroll
        for (int i = 0; i < kActPairsPerThread; ++i)
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                s.act[i][r] = mx_load16<false>(src.act[i][r] + k128 * 128);
                s.act_scale[i][r] = src.act_scale[i][r][k128 * 4];
            }
#pragma unroll
        for (int i = 0; i < kWeightPerThread; ++i) {
            if (kWeightVectors % kThreads != 0 && tid + i * kThreads >= kWeightVectors) continue;
            // One vector: as from a pointer of its own (that loop compiles as before). Several: all
            // in 64-bit arithmetic (32-bit chunk offsets made the 128x256 tiles spill, and a 32-bit
            // one for vector 0 only made the MoE 6-11 % slower on the H200 where 64-row tiles stage 4).
            const long long tiles = (long long)(i * kThreads / 32) * src.k128_count;
            const bool alone = kWeightPerThread == 1;
            s.weight[i] = mx_load16<NON_TEMPORAL>(src.weight + (alone ? k128 * 512 : (tiles + k128) * 512));
            s.weight_scale[i] = *reinterpret_cast<const moetune_u32*>(
                src.weight_scale + (alone ? k128 * 4 : (tiles * 8 + k128) * 4));
        }
    }

    // Widens the staged activations into one buffer (warp products). EXACT: each word by the exact path of its scale
    // (mx_bf16_widen.h); else all by the one-multiply path, which is exact for scale bytes <= 134, and
    // the return says whether any was above (then the caller stores them again with EXACT).
    template <bool EXACT>
    __device__ static bool store_acts(const Staged& s, unsigned char* buffer) {
        const int tid = int(threadIdx.x);
        bool redo = false;
#pragma unroll
        for (int i = 0; i < kActPairsPerThread; ++i) {
            const int p = tid + i * kThreads;
            if (kActPairs % kThreads != 0 && p >= kActPairs) continue;
            int pair_row, piece;
            mx_shared_act_pair_position(p, pair_row, piece);
            moetune_u32 multiplier[2];
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                redo |= !mx_e4m3_one_multiply_fits(s.act_scale[i][r]);
                multiplier[r] = EXACT ? mx_e8m0_to_bf16x2(s.act_scale[i][r])
                                      : mx_e4m3_one_multiplier_bf16x2(s.act_scale[i][r]);
            }
            // Word q of the two vectors (k 16 piece + 4q ..): pairs (0, 2), (1, 3) of its 4 values.
            moetune_u32 even[4][2], odd[4][2];
#pragma unroll
            for (int q = 0; q < 4; ++q)
#pragma unroll
                for (int r = 0; r < 2; ++r) {
                    const moetune_u32 word = mx_u32x4_get(s.act[i][r], q);
                    if (EXACT) mx_e4m3x4_to_bf16x2_scaled(word, multiplier[r], even[q][r], odd[q][r]);
                    else mx_e4m3x4_to_bf16x2_one_multiply(word, multiplier[r], even[q][r], odd[q][r]);
                }
            // Word q is segment (unit 2 piece + q / 2, h = q % 2) of the pair row.
#pragma unroll
            for (int q = 0; q < 4; ++q)
                mx_store16(buffer + mx_shared_a_segment_offset(pair_row, 4 * piece + q),
                                  mx_u32x4{even[q][0], even[q][1], odd[q][0], odd[q][1]});
        }
        return redo;
    }

    // The same for the staged weights: the narrow path unless EXACT; true when a scale byte of
    // this thread's vectors is above 128 (mx_e2m1_scales_wide), which takes the exact path.
    template <bool EXACT>
    __device__ static bool store_weights(const Staged& s, unsigned char* buffer) {
        const int tid = int(threadIdx.x);
        unsigned char* b_rows = buffer + TILE_M * kRowBytes;
        bool redo = false;
#pragma unroll
        for (int i = 0; i < kWeightPerThread; ++i) {
            const int v = tid + i * kThreads;
            if (kWeightVectors % kThreads != 0 && v >= kWeightVectors) continue;
            const int lane = mx_shared_weight_lane<WGMMA>(v);
            const int row = mx_swapped_weight_tile<kSwapped && GATE_UP>(v / 32) * 8 + lane / 4, t = lane % 4;
            redo |= mx_e2m1_scales_wide(s.weight_scale[i]);
#pragma unroll
            for (int kb = 0; kb < 4; ++kb) {
                const moetune_u32 word = mx_u32x4_get(s.weight[i], kb);
                moetune_u32 b[2][2];
                if (EXACT) mx_bf16_b_fragments(word, (s.weight_scale[i] >> (8 * kb)) & 0xFFu, true, b);
                else mx_bf16_b_fragments_scaled(word, mx_e2m1_narrow_scale_bf16x2(s.weight_scale[i], kb), b);
                const int offset = WGMMA ? mx_wgmma_unit_offset(TILE_N, row, kb * 4 + t)
                                         : mx_shared_b_unit_offset(row, kb * 4 + t);
                mx_store16(b_rows + offset, mx_u32x4{b[0][0], b[0][1], b[1][0], b[1][1]});
            }
        }
        return redo;
    }

    // The products of MX block kb of the chunk in `buffer`; a_lane / b_lane: this lane's offsets (see run).
    __device__ void multiply_block(const unsigned char* buffer, const int (&a_lane)[4], const int (&b_lane)[2],
                                   int kb) {
        {
            // a[i][h]: product h's A fragment of row tile i, one 16-byte segment.
            mx_u32x4 a[MT][2];
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int h = 0; h < 2; ++h)
                    a[i][h] = mx_load_shared16(buffer + a_lane[(h ^ kb) & 3] + i * 4096 + kb * 128);
            // One weight unit at a time (4 registers instead of 4 NJ: they go to the widening
            // interleaved here); its two products per row tile sit MT products apart.
#pragma unroll
            for (int j = 0; j < NJ; ++j) {
                const mx_u32x4 b = mx_load_shared16(buffer + b_lane[kb & 1] + 8 * j * kRowBytes + kb * 64);
#pragma unroll
                for (int h = 0; h < 2; ++h)
#pragma unroll
                    for (int i = 0; i < MT; ++i) {
                        const moetune_u32 af[4] = {a[i][h].x, a[i][h].y, a[i][h].z, a[i][h].w};
                        const moetune_u32 bf[2] = {h ? b.z : b.x, h ? b.w : b.y};
                        mx_mma_bf16_16x8x16(acc[i][j], af, bf);
                    }
            }
        }
    }
};
