#pragma once
// The main loop of the register-fed FP8 warpgroup kernels (_wgmma without _smem or _mbf16):
// the FP4 weights stream into registers and are decoded there to e4m3 (one shift and one LOP3 per
// four weights, mx_e2m1_e4m3_decode: the weights' copy in that code) as the A operand of e4m3
// warpgroup products, 64 weight rows a warpgroup and 16 a warp; the tile's few activation rows
// (TILE_M: 16 or 32 tokens) are the B operand, from shared memory.
//
// Why: below a few hundred tokens an expert has few rows, and the work is decoding its weights. The
// register-fed bf16 loop (moe_gemm.h) spends a shift, a LOP3 and a packed multiply (the block's
// scale) per pair, which bounds 8-256 tokens by its instruction mix; the FP8 loop on rebased
// weights (moe_fp8_wgmma_gemm.h) decodes nothing but reads twice the bytes. Here the decode is half
// an operation a weight, and the MX block scale goes onto the block's partial sums instead: each
// block's products go to a fresh partial-sum set (accumulate 0), which is added into FP32 sums
// times 2^(scale - 127) once done -- TILE_M / 2 FFMA a thread a block, one scale for each of the
// thread's two weight rows (no products of two scales: the activations arrive rebased, one base per
// row, applied at the end, mx_rebase.h).
//
// Which weights feed which A registers: lane (g, t) of warp w loads, per 128-wide K chunk, the
// 16-byte mma_k128 vectors of row g of two 8-row weight tiles, lo = mx_swapped_warp_tile<GATE_UP>(w)
// and hi: the tile after it (stage 2) or, GATE_UP (stage 1, W1 in GU16 groups), its up tile two
// further, so that a thread holds the gate and the up sums of one output column; word kb of
// each holds block kb's elements k 8t..8t+7, whose two e4m3 halves are A's fragment k 4t.. and
// 16 + 4t.. (mma_fp8.h's map). The activations carry the same map: each 32-byte block's words
// stored 0, 2, 4, 6, 1, 3, 5, 7 (mxfp8_rebase.hip, interleave_words), then copied as they are.
//
// Pipeline: each warp keeps AHEAD chunks (2, 4 or 8) of weight vectors and scale words in flight in
// registers (a chunk's slot is loaded again once it is decoded); one block's products run while the
// block before is added into the sums (two sets of partial sums and A registers alternate,
// wgmma.wait_group 1 over a pipeline of chunks, all retired at its end -- see run() for why the
// pipeline stops there; four blocks a wait measured slower: their registers cost more warps than the
// deeper pipeline gave). The activations come in windows of kWindowChunks chunks, two buffers, each window copied (cp.async)
// while the one before is multiplied; two barriers a window.
//
// MX_ROWS (_mxr): the rows are MXFP8 as quantised (e4m3 values with each 32-wide block's e8m0 scale,
// the words interleaved the same way) instead of rebased: each block's partial sums are multiplied by
// the token's block scale as well as the weight row's (TILE_M / 2 more multiplies a thread a block, made
// while the block's products run).
// Then no pass has to find a row's base over all of K: a register-fed stage 1 with the fused MXFP8
// epilogue (moe_stage1.hip) writes what this stage 2 reads. The scales of a window are loaded into
// registers with its copies and turned into floats in shared memory when the window is entered.
//
// PRODUCT_N (_r8: 8, else TILE_M): the products' width, i.e. the tile's rows they multiply. A 16-row
// tile at most 8 tokens ever fill (an expert takes a token once, and the sort puts its rows first)
// multiplies its first 8 alone: m64n8k32 products, TILE_M / 4 sums a thread to add a block instead of
// TILE_M / 2, the same weights; the sums of the other 8 stay 0. A compile-time choice, not a branch
// on the tile: both loops in one kernel made its machine code 1.7-1.9x as large and the MoE at 1-2 tokens
// 4-9 % slower in the library's sequence, though each kernel replayed alone was faster
// (docs/kernel-design.md, "Eight rows"). The static checks keep _r8 to at most 8 tokens.
#include "host_device.h"
#include "memory.h"
#include "mx_e2m1_code.h"
#include "mx_types.h"
#include "shared_operand_layout.h"
#include "wgmma_fp8.h"

template <int TILE_M, int TILE_N, int AHEAD, bool NON_TEMPORAL, bool GATE_UP, bool MX_ROWS, int PRODUCT_N>
struct MxMoeFp8RegisterGemm {
    static constexpr int kThreads = TILE_N / 16 * 32;
    static constexpr int NJ = TILE_M / 8;  // 8-token column groups of the tile (the epilogues' acc)
    static constexpr int kAccumulators = TILE_M / 2;
    static constexpr int kParts = PRODUCT_N / 2;  // a thread's partial sums of one block's products
    static_assert(TILE_N % 64 == 0 && (TILE_M == 16 || TILE_M == 32), "warpgroups of 64 weight rows, 16 or 32 tokens");
    static_assert(PRODUCT_N == TILE_M || (PRODUCT_N == 8 && TILE_M == 16), "products over the whole tile, or _r8");
    static constexpr int kRowBytes = 128;  // a token row's 128-wide K chunk, one row of the 128-byte swizzle
    static constexpr int kWindowChunks = 8;
    static constexpr int kWindowBytes = kWindowChunks * TILE_M * kRowBytes;
    // Dynamic shared memory the kernel needs (kernels::dynamic_shared_bytes computes the same): two
    // windows, and 1024 bytes to align them to the swizzle's period.
    static constexpr int kSharedBytes = 2 * kWindowBytes + 1024;
    static constexpr int kCopyUnits = kWindowBytes / 16 / kThreads;  // 16-byte copies a thread a window
    // MX_ROWS: a window's scales, one 4-byte word (a chunk's 4 blocks) a row and chunk; the words a thread loads.
    static constexpr int kScaleWords = MX_ROWS ? (TILE_M * kWindowChunks + kThreads - 1) / kThreads : 0;
    static constexpr int kWindowBlocks = kWindowChunks * 4;
    static constexpr int kFactors = MX_ROWS ? kParts : 2;  // a block's factors (run())
    // MX_ROWS: 2^(scale - 127) of each block of the two windows' rows, [window % 2][block][row] (byte 0
    // gives 0 instead of 2^-127, as scale_of does: such a block's values are below 2^-118); one float
    // without MX_ROWS.
    using BlockFactors = float[MX_ROWS ? 2 : 1][MX_ROWS ? kWindowBlocks : 1][MX_ROWS ? TILE_M : 1];

    // The sums as mma.m16n8 C fragments (the swapped tiles' epilogues read them, moe_stage1.hip and
    // moe_stage2.hip): d[4j + c] row g of weight tile lo, token 8j + 2t + c; d[4j + 2 + c] row g of hi.
    float acc[1][NJ][4];

    // Starts the loads of the first AHEAD chunks' weights. w: this expert's weights in the e4m3 code,
    // mma_k128 layout; w_scale: its [N, K/32] block scales; tile_n0: the tile's first weight row.
    // Reads nothing a previous kernel writes, so a kernel may call it before waiting for one.
    __device__ void start(const unsigned char* __restrict__ w, const unsigned char* __restrict__ w_scale, int tile_n0,
                          int K) {
        const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) >> 5;
        k128_count_ = K / 128;
        constexpr int kHiTile = GATE_UP ? 2 : 1;  // tiles from lo to hi
        const long long n8 = tile_n0 / 8 + mx_swapped_warp_tile<GATE_UP>(warp);  // tile lo
        weights_ = w + ((n8 * k128_count_) * 32 + lane) * 16;
        weights_hi_ = kHiTile * k128_count_ * 512;
        scales_ = w_scale + (8 * n8 + (lane >> 2)) * (K / 32);
        scales_hi_ = 8 * kHiTile * (K / 32);
#pragma unroll
        for (int s = 0; s < AHEAD; ++s) load_chunk(ring_[s], s);
    }

    // act: [rows, K] rebased e4m3 with interleaved words; act_base: [rows] e8m0 (MX_ROWS: act the
    // MXFP8 values with interleaved words, act_base their scales [rows, K/32]); tile_rows: the
    // activation row of each of the tile's rows (-1 = padding; in shared memory); shared: the
    // dynamic shared memory (kSharedBytes). Every thread of the workgroup calls it, after start.
    __device__ void run(const unsigned char* __restrict__ act, const unsigned char* __restrict__ act_base,
                        const int* tile_rows, int K, unsigned char* shared) {
        float(&sums)[kAccumulators] = reinterpret_cast<float(&)[kAccumulators]>(acc[0]);
        for (int e = 0; e < kAccumulators; ++e) sums[e] = 0.f;
#if MOETUNE_WGMMA_AVAILABLE
        shared += (1024 - int(__cvta_generic_to_shared(shared) & 1023u)) & 1023;
        __shared__ float column_factor[MX_ROWS ? 1 : TILE_M];
        __shared__ __attribute__((aligned(8))) BlockFactors block_factor;
        if constexpr (!MX_ROWS) {
            for (int r = int(threadIdx.x); r < TILE_M; r += kThreads)
                column_factor[r] = tile_rows[r] >= 0 ? ldexpf(1.f, int(act_base[tile_rows[r]]) - 121) : 0.f;
        }
        // The second window's descriptor is the first's plus an offset: an array of the two, indexed by
        // the window's parity at run time, went to local memory (one load a chunk on the products' path).
        const moetune_u64 descriptor = mx_wgmma_descriptor(shared);
        copy_window(act, act_base, tile_rows, K, shared, 0);

        float part[2][kParts];
        moetune_u32 a[2][4];
        // A block's factors: its two weight rows' scales (d[4j + c]: tile lo, d[4j + 2 + c]: tile hi),
        // MX_ROWS times the scale of each of the thread's tokens (factor e for accumulator e).
        float factor[2][kFactors];
        const int t = int(threadIdx.x) & 3;
        // The 4 blocks' products of chunk k128 (ring slot s). Each goes out before the block before
        // it is added into the sums (behind_block: a block's products are still in flight), so the
        // tensor cores run while the sums are updated; the caller waits for the last one.
        auto multiply_chunk = [&](int s, int k128, bool behind_block) {
            const int window = k128 / kWindowChunks, in_window = k128 % kWindowChunks;
            if (in_window == 0) enter_window(act, act_base, tile_rows, K, shared, window, block_factor);
            const moetune_u64 b = descriptor + ((window & 1) * kWindowBytes + in_window * TILE_M * kRowBytes) / 16;
#pragma unroll
            for (int kb = 0; kb < 4; ++kb) {
                const int p = kb & 1;
                const moetune_u32 lo = mx_u32x4_get(ring_[s].lo, kb), hi = mx_u32x4_get(ring_[s].hi, kb);
                a[p][0] = mx_e2m1_e4m3_decode(lo, 0);
                a[p][1] = mx_e2m1_e4m3_decode(hi, 0);
                a[p][2] = mx_e2m1_e4m3_decode(lo, 1);
                a[p][3] = mx_e2m1_e4m3_decode(hi, 1);
                const float row_scale[2] = {scale_of(ring_[s].scale_lo, kb), scale_of(ring_[s].scale_hi, kb)};
                if constexpr (!MX_ROWS) {
                    factor[p][0] = row_scale[0];
                    factor[p][1] = row_scale[1];
                }
                for (int e = 0; e < kParts; ++e) mx_wgmma_pin(part[p][e]);
                mx_wgmma_fence();
                mx_wgmma_e4m3_rs_m64k32<PRODUCT_N>(part[p], a[p], b + 2 * kb, 0);
                mx_wgmma_commit();
                // MX_ROWS: the factors' products while this block's products run.
                if constexpr (MX_ROWS) {
#pragma unroll
                    for (int j = 0; j < PRODUCT_N / 8; ++j) {
                        const float2 f = *reinterpret_cast<const float2*>(
                            &block_factor[window & 1][in_window * 4 + kb][8 * j + 2 * t]);
#pragma unroll
                        for (int h = 0; h < 2; ++h) {
                            factor[p][4 * j + 2 * h] = row_scale[h] * f.x;
                            factor[p][4 * j + 2 * h + 1] = row_scale[h] * f.y;
                        }
                    }
                }
                if (behind_block || kb > 0) {
                    mx_wgmma_wait_one();  // the block before's products are done
                    retire(sums, part[p ^ 1], a[p ^ 1], factor[p ^ 1]);
                }
            }
            load_chunk(ring_[s], k128 + AHEAD);
        };
        // ptxas keeps products in flight across blocks (wgmma.wait_group 1) only where it can tell
        // which block's sums are read: within straight-line code that ends with every product
        // retired. A step that may stop after any chunk, or a pipeline carried over the loop's back
        // edge, made it wait for every product before the next (C7514: one block's products at a
        // time, the loop bound by their latency). So the chunks go in pipelines of kPipelineChunks,
        // and the chunks past the last whole one (K / 128 not a multiple of it) one each. Chunk
        // k128's weights are in ring slot k128 % AHEAD.
        const int full_pipelines_end = k128_count_ - k128_count_ % kPipelineChunks;
        for (int k0 = 0; k0 < full_pipelines_end; k0 += kPipelineChunks) {
#pragma unroll
            for (int c = 0; c < kPipelineChunks; ++c) multiply_chunk(c % AHEAD, k0 + c, c > 0);
            mx_wgmma_wait_all();
            retire(sums, part[1], a[1], factor[1]);  // the pipeline's last block (kb 3)
        }
#pragma unroll
        for (int c = 0; c < kPipelineChunks; ++c) {
            if (full_pipelines_end + c >= k128_count_) break;
            multiply_chunk(c % AHEAD, full_pipelines_end + c, false);
            mx_wgmma_wait_all();
            retire(sums, part[1], a[1], factor[1]);
        }
        // The weights' e4m3 code is the value times 2^-6 (mx_e2m1_e4m3_decode); the rows' base (or,
        // MX_ROWS, their block scales, already applied) gives the rest.
#pragma unroll
        for (int e = 0; e < kParts; ++e) sums[e] *= MX_ROWS ? 64.f : column_factor[8 * (e / 4) + 2 * t + (e & 1)];
#else
        (void)act, (void)act_base, (void)tile_rows, (void)K, (void)shared;
        mx_wgmma_unavailable();
#endif
    }

private:
    // Chunks a pipeline of products spans (run()). With 2 chunks ahead, a whole window (drained where
    // the window's buffer is refilled anyway): 512 tokens 723 -> 696 us against pipelines of 2. With
    // 4 ahead, those 4: pipelines of a window were slower there, 1-256 tokens +1-3 % (registers
    // 126 -> 129; moetune bench, H200, docs/kernel-design.md). With 8, the window.
    static constexpr int kPipelineChunks = AHEAD == 2 ? kWindowChunks : AHEAD;
    static_assert(kWindowChunks % kPipelineChunks == 0 && kPipelineChunks % AHEAD == 0,
                  "a window starts only on a pipeline's first chunk, and a pipeline fills whole rounds of the ring");

    struct Chunk {
        mx_u32x4 lo, hi;  // row g of weight tiles lo and hi: word kb = block kb
        moetune_u32 scale_lo, scale_hi;  // their 4 block scales (byte kb = block kb)
    };
    Chunk ring_[AHEAD];
    const unsigned char* weights_;  // this lane's vector of tile lo in chunk 0
    long long weights_hi_;          // from there to its vector of tile hi
    const unsigned char* scales_;   // its row of tile lo's scale word of chunk 0
    int scales_hi_;                 // from there to its row of tile hi's
    int k128_count_;
    moetune_u32 scale_words_[kScaleWords > 0 ? kScaleWords : 1];  // MX_ROWS: the next window's scales

    __device__ void load_chunk(Chunk& c, int k128) const {
        if (k128 >= k128_count_) return;
        const unsigned char* v = weights_ + (long long)k128 * 512;
        c.lo = mx_load16<NON_TEMPORAL>(v);
        c.hi = mx_load16<NON_TEMPORAL>(v + weights_hi_);
        const moetune_u32* s = reinterpret_cast<const moetune_u32*>(scales_ + k128 * 4);
        c.scale_lo = mx_load4(s);
        c.scale_hi = mx_load4(reinterpret_cast<const moetune_u32*>(scales_ + k128 * 4 + scales_hi_));
    }

    // 2^(byte kb - 127) as a float's bits (byte 0 gives 0 instead of 2^-127, 255 infinity instead of
    // NaN: neither occurs in trained weights).
    __device__ static float scale_of(moetune_u32 word, int kb) {
        return __uint_as_float(((word >> (8 * kb)) & 0xFFu) << 23);
    }

#if MOETUNE_WGMMA_AVAILABLE
    // Keeps the A registers of a product in place until its wait (the product reads them asynchronously).
    __device__ static void pin(moetune_u32 (&a)[4]) {
        asm volatile("" : "+r"(a[0]), "+r"(a[1]), "+r"(a[2]), "+r"(a[3])::"memory");
    }

    // sums += a finished block's partial sums times its factors (run()); its A registers stay in place
    // until here.
    __device__ static void retire(float (&sums)[kAccumulators], float (&part)[kParts], moetune_u32 (&a)[4],
                                  const float (&factor)[kFactors]) {
        for (int e = 0; e < kParts; ++e) mx_wgmma_pin(part[e]);
        pin(a);
#pragma unroll
        for (int e = 0; e < kParts; ++e) sums[e] = fmaf(part[e], factor[MX_ROWS ? e : (e >> 1) & 1], sums[e]);
    }

    // Before window `window`'s first chunk: once every warp's products of the window before are done,
    // (MX_ROWS) turns this window's scales into factors, starts the copies of the next window into
    // their buffer, and waits for this one's.
    __device__ void enter_window(const unsigned char* act, const unsigned char* act_scale, const int* tile_rows, int K,
                                 unsigned char* shared, int window, BlockFactors& block_factor) {
        if (window > 0) {
            mx_wgmma_wait_all();
            __syncthreads();
        }
        if constexpr (MX_ROWS) {
#pragma unroll
            for (int i = 0; i < kScaleWords; ++i) {
                const int u = int(threadIdx.x) + i * kThreads;
                if (u >= TILE_M * kWindowChunks) break;
                const int r = u / kWindowChunks, c = u % kWindowChunks;
#pragma unroll
                for (int kb = 0; kb < 4; ++kb)
                    block_factor[window & 1][4 * c + kb][r] = mx_float_of(((scale_words_[i] >> (8 * kb)) & 0xFFu) << 23);
            }
        }
        copy_window(act, act_scale, tile_rows, K, shared, window + 1);
        mx_cp_async_wait_group<1>();
        mx_fence_shared_for_async();
        __syncthreads();
    }

    // Starts the copies of window `window`'s chunks (none past K: an empty group) into buffer
    // window % 2: chunk c, token row r, 16-byte unit q at c * TILE_M * 128 + r * 128 + (q ^ r % 8) * 16.
    // Padding rows are zero-filled without a read. MX_ROWS: and loads the window's scale words (row
    // r, chunk c: word u = r * kWindowChunks + c of the threads' words; 0 for padding and past K).
    __device__ void copy_window(const unsigned char* act, const unsigned char* act_scale, const int* tile_rows, int K,
                                unsigned char* shared, int window) {
        const int first = window * kWindowChunks;
        const int chunks = min(kWindowChunks, k128_count_ - first);
        unsigned char* buffer = shared + (window & 1) * kWindowBytes;
#pragma unroll
        for (int i = 0; i < kCopyUnits; ++i) {
            const int u = int(threadIdx.x) + i * kThreads;
            const int q = u % 8, r = (u / 8) % TILE_M, c = u / (8 * TILE_M);
            if (c >= chunks) break;
            const int row = tile_rows[r];
            mx_cp_async16(buffer + (c * TILE_M + r) * kRowBytes + (mx_swizzle128_slot(r, q) << 4),
                          act + (long long)(row >= 0 ? row : 0) * K + (first + c) * 128 + q * 16, row >= 0);
        }
        if constexpr (MX_ROWS) {
#pragma unroll
            for (int i = 0; i < kScaleWords; ++i) {
                const int u = int(threadIdx.x) + i * kThreads;
                const int r = u / kWindowChunks, c = u % kWindowChunks;
                const int row = r < TILE_M ? tile_rows[r] : -1;
                scale_words_[i] = row >= 0 && c < chunks
                                      ? mx_load4(reinterpret_cast<const moetune_u32*>(act_scale + (long long)row * (K / 32) +
                                                                                      (first + c) * 4))
                                      : 0u;
            }
        }
        mx_cp_async_commit();
    }
#endif
};
