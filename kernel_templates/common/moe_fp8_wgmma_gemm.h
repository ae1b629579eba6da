#pragma once
// The main loop of the FP8 _wgmma kernels (_smem_wgmma without _mbf16): e4m3 x e4m3 warpgroup
// products, one MX block of K each, from shared memory, at twice the bf16 products' rate and with
// half their shared-memory bytes per product (docs/kernel-design.md, "FP8 warpgroup products on
// rebased rows").
//
// The MX scales cannot ride along per block (a per-block rescale of the FP32 sums would cost as
// much as the products), so both operands arrive rebased (mx_rebase.h): each activation row and
// each weight row is e4m3 relative to one base, its largest block scale -- the activations
// rebased once per row before the kernel (mxfp8_rebase.hip), the weights once when they are laid
// out (weight_rebase.hip). The products accumulate in FP32 over all of K, and the sums are the
// accumulators times 2^(base_row + base_column - 254), applied once at the end. The loop converts
// nothing: both operands are copied with cp.async, so a thread's work per chunk is a few copies
// and, for one thread a warpgroup, the products.
//
// Pipeline: kBuffers buffers (4, or 6 for 128-row tiles), chunk k + kBuffers - 2 copied while chunk
// k's products run and chunk k + 1's copies land, one barrier a chunk. Warps = TILE_M / 16, one
// warpgroup per 64 rows over the tile's whole width.
//
// Persistent walk: a workgroup multiplies tile after tile (moe_stage1.hip, moe_stage2.hip,
// tile_walk.h), and the copy stream runs on across them: the last kAhead chunks of a tile copy the
// next tile's first kAhead, so they are in flight while this tile's epilogue runs (one workgroup an
// SM has nothing else to hide its first copies with; stage 2 3-16 % faster at 1024-16384 tokens,
// the 40-chunk stage-1 tiles the same, docs/kernel-design.md "A tile walk"). The buffers go round as
// one ring: chunk k of a tile sits in buffer (phase + k) % kBuffers, phase the chunks of the tiles before.
#include "fp8_chunk_copy.h"
#include "host_device.h"
#include "memory.h"
#include "mx_types.h"
#include "rebased_sums.h"
#include "shared_operand_layout.h"
#include "wgmma_fp8.h"

template <int TILE_M, int TILE_N, bool NON_TEMPORAL>
struct MxMoeFp8WgmmaGemm {
    static constexpr int kThreads = TILE_M / 16 * 32;
    static constexpr int MT = 1;
    static constexpr int NJ = TILE_N / 8;
    static constexpr int kAccumulators = TILE_N / 2;
    static_assert(TILE_M % 64 == 0 && (TILE_N == 64 || TILE_N == 128), "warpgroups of 64 rows, 64 or 128 wide");
    // A row's 128-wide K chunk as e4m3: one 128-byte row of the swizzled layout.
    static constexpr int kRowBytes = 128;
    static constexpr int kBufferBytes = (TILE_M + TILE_N) * kRowBytes;
    // The host gives the dynamic shared memory of the bf16 loop's buffers of twice the bytes a row
    // (kernels::dynamic_shared_bytes): twice as many FP8 buffers fit. The more of them, the more
    // weight bytes in flight: at 2048 tokens the 128-row tiles with 2 chunks ahead read DRAM at 55 %
    // of its peak and stalled at the chunk barrier half of the time (ncu, docs/kernel-design.md).
    static constexpr int kBuffers = 2 * mx_shared_operand_buffers(true, TILE_M, TILE_N);
    // Chunks copied ahead of the one being multiplied: every buffer but that one's and the chunk
    // before's, whose products may still run across the barrier.
    static constexpr int kAhead = kBuffers - 2;
    // Hopper's FP8 warpgroup products keep fewer bits than FP32 when they add into their
    // accumulators, so over all of K (5120) the sums drift (~1e-2 rel L2 measured against the bf16
    // path). Promoting (DeepGEMM's remedy): each chunk's products go to a fresh partial-sum set that
    // is added into FP32 sums on the CUDA cores once done, 128 of K at a time. It takes two more
    // accumulator sets (the chunk in flight and the one being added), 3 * TILE_N / 2 registers of
    // accumulators a thread: room for it up to 256 threads (255 registers), not at 512 (128).
    static constexpr bool kPromote = kThreads <= 256;
    static_assert(kBuffers * kBufferBytes <=
                      mx_shared_operand_buffers(true, TILE_M, TILE_N) * (TILE_M + TILE_N) * kMxSharedRowBytes,
                  "the FP8 buffers fit the bf16 loop's");
    static_assert(kAhead >= 2, "two chunks ahead at least");
    // The copies of a chunk, every thread of the workgroup its share.
    using Copy = MxFp8ChunkCopy<TILE_M, TILE_N, kThreads>;

    float acc[MT][NJ][4];

    // One tile: rows, the activation row of each of its rows (-1 = padding; in shared memory); w,
    // this expert's rebased weight rows [N, K]; w_base, their bases [N]; n0, its first weight row.
    struct Tile {
        const int* rows;
        const unsigned char* w;
        const unsigned char* w_base;
        int n0;
    };

    // Multiplies `tile` into acc. act: [rows, K] rebased e4m3; act_base: [rows] e8m0 (mx_rebase.h);
    // next (when has_next): the tile this workgroup multiplies after it, whose rows store_next_rows()
    // writes to shared memory (called once this tile's first chunk is under way, so that the loads
    // behind them have landed meanwhile); its first chunks are copied during this tile's last.
    // shared: the dynamic shared memory (of which this loop uses kBuffers * kBufferBytes + 1024).
    // Every thread of the workgroup calls it, tile after tile, with a barrier between a tile's
    // epilogue and the writes of the rows after next.
    template <class StoreNextRows>
    __device__ void run(const unsigned char* __restrict__ act, const unsigned char* __restrict__ act_base,
                        const Tile& tile, const Tile& next, bool has_next, int K, unsigned char* shared,
                        StoreNextRows store_next_rows) {
        for (int j = 0; j < NJ; ++j)
            for (int e = 0; e < 4; ++e) acc[0][j][e] = 0.f;
#if MOETUNE_WGMMA_AVAILABLE
        shared += (1024 - int(__cvta_generic_to_shared(shared) & 1023u)) & 1023;
        // The rows' and columns' bases, read at the end: loaded now, stored with the next tile's rows.
        static_assert(TILE_M <= kThreads && TILE_N <= kThreads, "a row and a column a thread at most");
        __shared__ unsigned char row_base[TILE_M], column_base[TILE_N];
        const int tid = int(threadIdx.x);
        const unsigned char my_row_base = tid < TILE_M ? act_base[tile.rows[tid] >= 0 ? tile.rows[tid] : 0] : 0;
        const unsigned char my_column_base = tid < TILE_N ? tile.w_base[tile.n0 + tid] : 0;
        auto store_deferred = [&] {
            if (tid < TILE_M) row_base[tid] = my_row_base;
            if (tid < TILE_N) column_base[tid] = my_column_base;
            store_next_rows();
        };

        const int k128_count = K / 128;
        const Copy src(act, tile.rows, tile.w, tile.n0, K, tid);
        if (!prefetched_) {
#pragma unroll
            for (int k128 = 0; k128 < kAhead; ++k128) {
                if (k128 < k128_count) src.copy(shared + buffer(k128) * kBufferBytes, k128, tid);
                mx_cp_async_commit();  // a group a chunk, empty past K's end, so that the waits count chunks
            }
            mx_cp_async_wait_group<kAhead - 1>();  // chunk 0 has landed
            mx_fence_shared_for_async();
            __syncthreads();
        }
        // The next tile's chunks are copied from step k128_count - kAhead on; its rows are stored
        // after step 0's barrier and visible after step 1's, so from step 2. With fewer chunks, the
        // next tile copies its own.
        prefetched_ = has_next && k128_count - kAhead >= 2;

        const int warpgroup = __shfl_sync(0xFFFFFFFFu, int(threadIdx.x) / 128, 0);
        const moetune_u64 act_descriptor = mx_wgmma_descriptor(shared + warpgroup * 64 * kRowBytes);
        const moetune_u64 weight_descriptor = mx_wgmma_descriptor(shared + TILE_M * kRowBytes);
        float(&sums)[kAccumulators] = reinterpret_cast<float(&)[kAccumulators]>(acc[0]);
        const Chunks chunks{src, act, next, prefetched_, shared, k128_count, phase_, act_descriptor, weight_descriptor};
        if constexpr (kPromote) {
            // Chunks alternate between two partial-sum sets; once a chunk's products are done (the
            // wait in multiply), its set is added into the FP32 sums while the next chunk's run.
            // ptxas keeps a chunk's products in flight while the CUDA cores add the chunk before's only
            // where it can tell which set is read: within straight-line code that ends with every
            // product done. Carried over the loop's back edge (or past a break), it waited for every
            // product before the next chunk's (C7514). So a step of two chunks is one pipeline, and
            // an odd last chunk a step of its own.
            float part[2][kAccumulators];
            const int pairs_end = k128_count - k128_count % 2;
            auto pair = [&](int k128, auto after_first_barrier) {
                multiply<true>(part[0], chunks, k128);
                __syncthreads();
                after_first_barrier();
                multiply<true>(part[1], chunks, k128 + 1);
                promote(sums, part[0]);
                __syncthreads();
                mx_wgmma_wait_all();
                promote(sums, part[1]);
            };
            // The first pair stores the deferred rows (a straight-line pipeline of its own).
            if (pairs_end > 0) pair(0, store_deferred);
            for (int k128 = 2; k128 < pairs_end; k128 += 2) pair(k128, [] {});
            if (pairs_end < k128_count) {
                multiply<true>(part[0], chunks, pairs_end);
                __syncthreads();
                if (pairs_end == 0) store_deferred();
                mx_wgmma_wait_all();
                promote(sums, part[0]);
            }
        } else {
            multiply<false>(sums, chunks, 0);
            __syncthreads();
            store_deferred();
            for (int k128 = 1; k128 < k128_count; ++k128) {
                multiply<false>(sums, chunks, k128);
                __syncthreads();
            }
            mx_wgmma_wait_all();
            for (int e = 0; e < kAccumulators; ++e) mx_wgmma_pin(sums[e]);
        }
        if (k128_count < 2) __syncthreads();  // no barrier after the deferred stores yet
        phase_ = buffer(k128_count);
        mx_apply_rebase_bases<NJ>(acc[0], row_base + (tid >> 5) * 16, column_base);
#else
        (void)act, (void)act_base, (void)tile, (void)next, (void)has_next, (void)K, (void)shared;
        store_next_rows();
        mx_wgmma_unavailable();
#endif
    }

private:
    int phase_ = 0;            // the buffer of the next tile's chunk 0
    bool prefetched_ = false;  // its first kAhead chunks are copied (by the run before)

    __device__ int buffer(int k128) const { return (phase_ + k128) % kBuffers; }

#if MOETUNE_WGMMA_AVAILABLE
    // What every chunk's step needs.
    struct Chunks {
        const Copy& src;
        const unsigned char* act;
        const Tile& next;  // copied from past this tile's chunks when prefetch
        bool prefetch;
        unsigned char* shared;
        int count;
        int phase;
        moetune_u64 act_descriptor, weight_descriptor;
    };

    // One chunk's step, up to the barrier: starts the copies of chunk k + kAhead (of the next tile
    // past this one's last) into its buffer (which last held chunk k - 2, whose products finished
    // before the last barrier), issues chunk k's products into d (FRESH: d = the chunk's products;
    // else d += them), and waits until chunk k + 1 has landed and chunk k - 1's products are done.
    template <bool FRESH>
    __device__ static void multiply(float (&d)[kAccumulators], const Chunks& c, int k128) {
        const int ahead = k128 + kAhead;
        unsigned char* ahead_buffer = c.shared + ((c.phase + ahead) % kBuffers) * kBufferBytes;
        const int tid = int(threadIdx.x);
        if (ahead < c.count) c.src.copy(ahead_buffer, ahead, tid);
        else if (c.prefetch)
            Copy(c.act, c.next.rows, c.next.w, c.next.n0, c.src.K, tid).copy(ahead_buffer, ahead - c.count, tid);
        mx_cp_async_commit();
        const int units = ((c.phase + k128) % kBuffers) * (kBufferBytes / 16);
        for (int e = 0; e < kAccumulators; ++e) mx_wgmma_pin(d[e]);
        mx_wgmma_fence();
#pragma unroll
        for (int s = 0; s < 4; ++s)  // K slice s: 32 bytes of each row
            mx_wgmma_e4m3_m64k32<TILE_N>(d, c.act_descriptor + units + 2 * s, c.weight_descriptor + units + 2 * s,
                                         FRESH && s == 0 ? 0 : 1);
        mx_wgmma_commit();
        for (int e = 0; e < kAccumulators; ++e) mx_wgmma_pin(d[e]);
        mx_cp_async_wait_group<kAhead - 1>();  // chunk k + 1 has landed
        mx_fence_shared_for_async();
        mx_wgmma_wait_one();  // the chunk before's products are done: its buffer is the next filled
        for (int e = 0; e < kAccumulators; ++e) mx_wgmma_pin(d[e]);
    }

    // sums += a finished chunk's partial sums (FP32 adds on the CUDA cores).
    __device__ static void promote(float (&sums)[kAccumulators], float (&part)[kAccumulators]) {
        for (int e = 0; e < kAccumulators; ++e) mx_wgmma_pin(part[e]);
#pragma unroll
        for (int e = 0; e < kAccumulators; ++e) sums[e] += part[e];
    }
#endif
};
