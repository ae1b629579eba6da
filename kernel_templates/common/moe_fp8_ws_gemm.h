#pragma once
// The warp-specialised FP8 loop (_ws): the products of moe_fp8_wgmma_gemm.h (rebased e4m3 rows of
// activations and weights, e4m3 warpgroup products, FP32 sums scaled by the bases at the end), with
// the copying and the multiplying done by different warps, handing buffers over through mbarriers
// instead of a barrier over the workgroup every chunk.
//
// Why: the 256 x 128 tiles of that loop run ~1,750 cycles a 128-wide K chunk where their 16
// products take ~1,024 at the FP8 rate, and every one of its warps copies, waits for its copies and
// meets the others at the chunk's barrier. Measured (docs/kernel-design.md, "The epilogue's cost; a
// warp-specialised FP8 loop"): the barrier was not what held that loop back -- this one is as fast
// or slower at 128 x 128 and 256 x 128 -- but it also builds 192-wide tiles (two row blocks of 96
// accumulators a consumer thread), which won 1-3 % in stage 1 at 1024-16384 tokens. Here
//  - one producer warpgroup copies every chunk into a ring of kStages buffers: the activation rows
//    with cp.async (gathered by the sorted order, so no bulk copy serves them), each thread's
//    copies arriving on the buffer's `full` barrier as they land (cp.async.mbarrier.arrive), and
//    the weights, which lie in the buffer's layout already (rebased_weight_layout.h), as one bulk
//    copy of 8 KB a 64-row block by one thread, whose bytes the barrier also waits for (against 16
//    weight copies a producer thread and chunk at 128 x 256: that tile 5-9 % faster in both stages
//    at 1024-16384 tokens, and since then the fastest of both at 2048-16384; docs/kernel-design.md,
//    session 33);
//  - consumer warpgroups of 128 rows (two m64n{TILE_N} row blocks, 2 x TILE_N / 2 accumulators a
//    thread; 256 wide, one block of 64 rows, 128 accumulators; 64 x 256, two side by side over the
//    tile's 64 rows, 128 columns each: as many threads rebase FP4 weights as at 128 x 256, while a
//    chunk buffer holds half the rows, so 6 fit against 4 -- _f4w stage 1 at 1024 tokens 23 % faster
//    than one m64n256 warpgroup, and 6 % faster than 128 x 256, docs/kernel-design.md, session 43)
//    wait on `full`, issue the chunk's products, and once the chunk before's are done
//    (wgmma.wait_group 1) give its buffer back on its `empty` barrier, where the producer waits
//    before filling it again; a warpgroup of one block that holds padding only issues nothing
//    (stage 1 3 % faster at 1024 and 8192 tokens, docs/kernel-design.md, session 34);
//  - the producer walks the tiles (tile_walk.h) ahead of the consumers: it stores a tile's rows and
//    bases in one of two slots, announces it on the slot's `ready` barrier and goes on copying the
//    tile's chunks while the consumers still multiply and store the tile before; the consumers give
//    the slot back on `done` after their epilogue.
// FP4_WEIGHTS (_f4w): the weights come as FP4 blocks (fp4_weight_blocks.h: half the bytes, the same
// 64-row blocks) in the chunk buffers beside the rows, one bulk copy a block, and the consumers rebase
// them to the e4m3 bytes of the rebased copy (mx_e2m1_e4m3_lut.h) into a ring of
// kMxWsRebasedBuffers weight buffers, while their products of the chunk before run: every consumer
// thread rebases its share of the chunk's weight rows, fences them for the tensor cores, waits for
// the chunk before's products (wait_group 0), gives that chunk's buffer back and meets the other
// consumers at one named barrier a chunk, then the chunk's products go out. Two buffers suffice with
// one barrier a chunk: a consumer that passed chunk c - 1's barrier writes chunk c's buffer, which
// chunk c - 2's products read, and every consumer warpgroup saw those done before it arrived there.
// The products of a chunk wait for the rebase of the next rather than running back to back, which
// costs nothing where the rebase is the longer of the two (it is: docs/kernel-design.md, session 42),
// and the ring's third buffer (32 KB at 256 wide) became a fourth chunk buffer at 128 x 256 (sixth at
// 64 x 256): while a chunk is rebased and the one before multiplied, two chunks' copies are in flight
// rather than one (session 42's PC sampling: with three, a quarter of the consumers' chunk loop went
// waiting for them). Why: at 1024-2048 tokens the stages read the
// rebased e4m3 weights at ~90 % of the DRAM's bandwidth (docs/kernel-design.md, session 33). The
// producers rebasing them instead (session 36) were 2-3x slower: one warpgroup's table lookups, a
// chain of shared-memory loads per 16 weights, set the pace of every chunk.
// The sums are not promoted (as on the 512-thread tiles of moe_fp8_wgmma_gemm.h): two row blocks of
// accumulators (or one 256 wide) leave no room for partial-sum sets.
//
// Why 256 wide: every m64nNk32 product reads its N x 32 bytes of weights from shared memory in
// N / 2 cycles (64 bytes a cycle whatever N) and its 64 x 32 of activations (4096 / N a cycle), and
// the copies write (TILE_M + TILE_N) x 128 bytes a chunk: of the 128 bytes a cycle an SM's shared
// memory serves, 256 x 128 tiles need 96 + 48 at the FP8 rate, 128 x 256 80 + 48. Measured: 2-6 %
// faster in stage 2 at 1024, 2048 and 16384 tokens, 1 % in stage 1 at 1024 (docs/kernel-design.md,
// session 32); with the bulk weight copies ahead of the plain 256 x 128 loop at 4096 and 8192 too.
#include "fp4_weight_blocks.h"
#include "fp8_chunk_copy.h"
#include "host_device.h"
#include "mbarrier.h"
#include "memory.h"
#include "mx_e2m1_e4m3_lut.h"
#include "rebased_sums.h"
#include "shared_operand_layout.h"
#include "tile_walk.h"
#include "wgmma_fp8.h"

// One warp's 16 rows of one row block: what the stage kernels' epilogues read as gemm.acc[0][j][e].
template <int NJ>
struct MxAccumulatorBlock {
    const float (&acc)[1][NJ][4];
};

// FP4_WEIGHTS: the rebasing table (mx_e2m1_e4m3_lut.h), filled once a workgroup. Nothing without.
template <bool FP4_WEIGHTS>
struct MxWsFp4Shared {
    moetune_u32 fp4_table[2 * kMxE2m1E4m3Shifts];
};
template <>
struct MxWsFp4Shared<false> {};

template <int TILE_M, int TILE_N, bool FP4_WEIGHTS = false>
struct MxMoeFp8WsGemm {
    static constexpr int kConsumers = mx_ws_consumer_warpgroups(TILE_M, TILE_N);
    // Side by side (64 x 256): both consumer warpgroups multiply the tile's 64 rows, each its half of
    // the columns; otherwise each its row blocks over all of them.
    static constexpr bool kSideBySide = mx_ws_side_by_side(TILE_M, TILE_N);
    static constexpr int kColumns = mx_ws_consumer_columns(TILE_M, TILE_N);  // a consumer warpgroup's
    static constexpr int kBlocks = mx_ws_consumer_row_blocks(TILE_M, TILE_N);  // row blocks a consumer warpgroup
    static constexpr int kConsumerThreads = 128 * kConsumers;
    static constexpr int kProducerThreads = 128;
    static constexpr int kThreads = kConsumerThreads + kProducerThreads;
    static_assert(kThreads == 32 * mx_ws_warps(TILE_M, TILE_N), "the host's warps");
    static_assert(TILE_M % 64 == 0 && kBlocks >= 1 && kBlocks <= 2, "row blocks of 64, at most two a warpgroup");
    static_assert(kColumns == 64 || kColumns == 128 || kColumns == 192 || (kColumns == 256 && kBlocks == 1),
                  "m64n64, m64n128, m64n192 or (one row block a warpgroup) m64n256 products");
    static constexpr int NJ = kColumns / 8;
    static constexpr int kAccumulators = kColumns / 2;
    static constexpr int kRowBytes = 128;
    static constexpr int kStageBytes = mx_ws_stage_bytes(TILE_M, TILE_N, FP4_WEIGHTS);
    static constexpr int kStages = mx_ws_stages(TILE_M, TILE_N, FP4_WEIGHTS);
    // Where a chunk buffer's weights start (FP4_WEIGHTS: its FP4 blocks), and the bytes the bulk
    // copies of a chunk's weights bring.
    static constexpr int kWeightsAt = TILE_M * kRowBytes;
    static constexpr int kWeightBytes = TILE_N / kMxRebasedBlockRows * (FP4_WEIGHTS ? kMxFp4ChunkBytes : kMxRebasedChunkBytes);
    static constexpr int kRebasedBytes = TILE_N * kRowBytes;  // one buffer of the rebased ring (FP4_WEIGHTS)
    static_assert(kMxFp4BlockRows == kMxRebasedBlockRows, "FP4 blocks and rebased blocks of the same rows");
    static_assert(kStages >= 2, "two buffers at least");
    static_assert(kStageBytes % 1024 == 0, "every buffer on the swizzle's 1024-byte period");
    // The producers read the tile's rows from its row table at every chunk: their registers go to the
    // consumers.
    using Copy = MxFp8ChunkCopy<TILE_M, TILE_N, kProducerThreads, false>;
    // With two consumer warpgroups (384 threads) the compiler's even share is 168 registers a thread,
    // too few for two row blocks of accumulators and stage 2's epilogue (172 bytes of spill at 128
    // wide): the producers keep 40 (setmaxnreg; no spill, their rows read from shared memory) and
    // the consumers take the rest, 232 a thread.
    static constexpr bool kRebalance = mx_ws_rebalances(TILE_M, TILE_N);
    static constexpr int kProducerRegisters = 40;
    static constexpr int kConsumerRegisters =
        (mx_launch_registers(kThreads) * kThreads - kProducerRegisters * kProducerThreads) /
        kConsumerThreads / 8 * 8;

    // What the walk keeps in static shared memory (the stage kernel declares it).
    struct Shared : MxWsFp4Shared<FP4_WEIGHTS> {
        moetune_u64 full[kStages];   // a buffer's copies have landed (every producer thread arrives, and
                                     // producer 0 once more with the bulk copies' bytes)
        moetune_u64 empty[kStages];  // its products are done (every consumer warp arrives)
        moetune_u64 ready[2];        // a slot's tile, rows and bases are stored (every producer thread)
        moetune_u64 done[2];         // the consumers' epilogue of the slot's tile is done (every consumer warp)
        int tile[2];                 // the slot's tile; -1: the walk has ended
        int next[2];                 // the tile the producers take after the slot's
        unsigned live[2];            // bit b: the slot's 64-row block b holds a real row (one block a consumer
                                     // warpgroup only: consume)
        unsigned char row_base[2][TILE_M];
        unsigned char column_base[2][TILE_N];
    };

    // A tile for the producer: rows, the activation row of each tile row (-1 = padding; in shared
    // memory, stored by prepare); w, the expert's rebased weights (rebased_weight_layout.h; with
    // FP4_WEIGHTS its FP4 blocks, fp4_weight_blocks.h); w_base, their bases; n0, the tile's first
    // weight row. valid false: the tile lies past the sorted rows (the walk ends). weights_read_once: no
    // other tile reads this tile's weights (mx_expert_row_tiles_one), so their copies leave L2 first.
    struct Tile {
        bool valid;
        const int* rows;
        const unsigned char* w;
        const unsigned char* w_base;
        int n0;
        bool weights_read_once;
    };

    // Every thread of the workgroup calls it once; it returns when the walk has ended. act: [rows, K]
    // rebased e4m3; act_base: [rows] e8m0; shared: the dynamic shared memory (mx_ws_shared_bytes).
    // prepare(tile, slot, p): every producer thread (p = 0..127) stores its share of the tile's rows
    // into the row tables of `slot` (rows p, p + 128, ...) and returns the Tile.
    // finish(tile, slot, block, m0, n): a consumer warp's epilogue of one row block, whose first row
    // (of the warp's 16) is m0 and first column (of the tile's) n, with the rows of `slot`.
    template <class Prepare, class Finish>
    __device__ void walk(const unsigned char* __restrict__ act, const unsigned char* __restrict__ act_base, int K,
                         unsigned char* shared, Shared& sh, Prepare prepare, Finish finish) {
#if MOETUNE_WGMMA_AVAILABLE
        shared += (1024 - int(__cvta_generic_to_shared(shared) & 1023u)) & 1023;
        const int tid = int(threadIdx.x);
        if (tid == 0) {
            for (int s = 0; s < kStages; ++s) {
                mx_mbarrier_init(&sh.full[s], kProducerThreads + 1);  // + the bulk copies' arrival
                mx_mbarrier_init(&sh.empty[s], kConsumerThreads / 32);
            }
            for (int slot = 0; slot < 2; ++slot) {
                mx_mbarrier_init(&sh.ready[slot], kProducerThreads);
                mx_mbarrier_init(&sh.done[slot], kConsumerThreads / 32);
            }
        }
        if constexpr (FP4_WEIGHTS) {
            if (tid < 2 * kMxE2m1E4m3Shifts) sh.fp4_table[tid] = mx_e2m1_e4m3_table_word(tid / 2, tid % 2);
        }
        __syncthreads();
        if (tid >= kConsumerThreads) {
            if constexpr (kRebalance) mx_set_max_registers<false, kProducerRegisters>();
            produce(act, act_base, K, shared, sh, prepare, tid - kConsumerThreads);
        } else {
            if constexpr (kRebalance) mx_set_max_registers<true, kConsumerRegisters>();
            consume(K, shared, sh, finish);
        }
#else
        (void)act, (void)act_base, (void)K, (void)shared, (void)sh, (void)prepare, (void)finish;
        mx_wgmma_unavailable();
#endif
    }

private:
    float acc_[kBlocks][1][NJ][4];

#if MOETUNE_WGMMA_AVAILABLE
    template <class Prepare>
    __device__ static void produce(const unsigned char* __restrict__ act, const unsigned char* __restrict__ act_base,
                                   int K, unsigned char* shared, Shared& sh, Prepare& prepare, int p) {
        const int chunks = K / 128;
        int tile = int(blockIdx.x);
        int chunk = 0;  // chunks copied so far, over all tiles: chunk c goes to buffer c % kStages
        const moetune_u64 evict_first = mx_l2_evict_first_policy();  // for the tiles that read their weights once
        for (int t = 0;; ++t) {
            const int slot = t & 1;
            if (t >= 2) mx_mbarrier_wait(&sh.done[slot], ((t >> 1) - 1) & 1);  // tile t - 2 has left the slot
            const Tile next = prepare(tile, slot, p);
            if (p == 0) {
                sh.tile[slot] = next.valid ? tile : -1;
                if (next.valid) sh.next[slot] = mx_take_tile();
                if constexpr (kBlocks == 1) sh.live[slot] = 0;
            }
            mx_named_barrier(1, kProducerThreads);  // the slot's rows and next tile are stored
            if (next.valid) {
                unsigned live = 0;  // (only the consumers of one row block read it)
                for (int r = p; r < TILE_M; r += kProducerThreads) {
                    const int row = next.rows[r];
                    sh.row_base[slot][r] = act_base[row >= 0 ? row : 0];
                    if constexpr (kBlocks == 1) live |= unsigned(row >= 0) << (r / 64);
                }
                if constexpr (kBlocks == 1) {
                    if (live != 0) atomicOr(&sh.live[slot], live);
                }
                for (int n = p; n < TILE_N; n += kProducerThreads) sh.column_base[slot][n] = next.w_base[next.n0 + n];
            }
            mx_mbarrier_arrive(&sh.ready[slot]);
            if (!next.valid) break;
            const Copy src(act, next.rows, next.w, next.n0, K, p);
            for (int k128 = 0; k128 < chunks; ++k128, ++chunk) {
                const int s = chunk % kStages;
                if (chunk >= kStages) mx_mbarrier_wait(&sh.empty[s], ((chunk / kStages) - 1) & 1);
                unsigned char* buffer = shared + s * kStageBytes;
                if (p == 0) {
                    const moetune_u64* hint = next.weights_read_once ? &evict_first : nullptr;
                    mx_mbarrier_arrive_expect_bytes(&sh.full[s], kWeightBytes);
#pragma unroll
                    for (int b = 0; b < TILE_N / kMxRebasedBlockRows; ++b) {
                        if constexpr (FP4_WEIGHTS)
                            mx_bulk_copy(buffer + kWeightsAt + b * kMxFp4ChunkBytes,
                                         fp4_block_chunk(next, K, b, k128), kMxFp4ChunkBytes, &sh.full[s],
                                         hint);
                        else
                            mx_bulk_copy(Copy::weight_block_in(buffer, b), src.weight_block(k128, b),
                                         kMxRebasedChunkBytes, &sh.full[s], hint);
                    }
                }
                src.copy_rows(buffer, k128, p);
                mx_mbarrier_arrive_on_copies(&sh.full[s]);
            }
            tile = sh.next[slot];
        }
        mx_cp_async_wait_all();
    }

    template <class Finish>
    __device__ void consume(int K, unsigned char* shared, Shared& sh, Finish& finish) {
        const int chunks = K / 128;
        const int tid = int(threadIdx.x);
        const int warpgroup = __shfl_sync(0xFFFFFFFFu, tid / 128, 0);
        const int warp_row = ((tid >> 5) & 3) * 16;  // the warp's rows within a row block
        moetune_u64 act_descriptor[kBlocks];
#pragma unroll
        for (int i = 0; i < kBlocks; ++i)
            act_descriptor[i] = mx_wgmma_descriptor(shared + block_row(warpgroup, i) * kRowBytes);
        // The weights: the chunk buffer's (plus the buffer's offset), or FP4_WEIGHTS the rebased ring's
        // first buffer (plus the buffer's).
        unsigned char* rebased = shared + kStages * kStageBytes;
        const int n_first = kSideBySide ? warpgroup * kColumns : 0;  // this warpgroup's columns of the tile
        const moetune_u64 weight_descriptor =
            mx_wgmma_descriptor((FP4_WEIGHTS ? rebased : shared + kWeightsAt) + n_first * kRowBytes);
        int chunk = 0;  // chunks multiplied so far, over all tiles
        for (int t = 0;; ++t) {
            const int slot = t & 1;
            mx_mbarrier_wait(&sh.ready[slot], (t >> 1) & 1);
            const int tile = sh.tile[slot];
            if (tile < 0) break;
            // A warpgroup of one row block that holds padding only (the end of an expert's rows: a
            // sort block's real rows come first) neither multiplies nor stores it. (With two blocks a
            // warpgroup, choosing its products at run time made ptxas fence the accumulators and
            // the 128 x 128 and 128 x 192 tiles 1.3-2 times slower: those multiply every block.)
            const unsigned live = kBlocks == 1 ? (sh.live[slot] >> (block_row(warpgroup, 0) / 64)) & 1u : 1u;
#pragma unroll
            for (int i = 0; i < kBlocks; ++i)
#pragma unroll
                for (int j = 0; j < NJ; ++j)
#pragma unroll
                    for (int e = 0; e < 4; ++e) acc_[i][0][j][e] = 0.f;
            for (int k128 = 0; k128 < chunks; ++k128, ++chunk) {
                const int s = chunk % kStages;
                mx_mbarrier_wait(&sh.full[s], (chunk / kStages) & 1);
                if constexpr (FP4_WEIGHTS) {
                    const int r = chunk % kMxWsRebasedBuffers;
                    rebase_weights(shared + s * kStageBytes + kWeightsAt, rebased + r * kRebasedBytes, sh.fp4_table, tid);
                    // The producers' copies, seen through the barrier, and this thread's rebased weights,
                    // for wgmma.
                    mx_fence_shared_for_async();
                    // The chunk before's products are done (they ran beside the rebase): its buffer goes
                    // back, and once every consumer is past the barrier no product reads the rebased
                    // buffer the next chunk writes.
                    mx_wgmma_wait_all();
                    pin();
                    if (k128 > 0) release(sh.empty[unsigned(chunk - 1) % kStages]);  // unsigned: no sign fix-up
                    mx_named_barrier(2, kConsumerThreads);  // every share is rebased
                    multiply(act_descriptor, weight_descriptor, s * (kStageBytes / 16), r * (kRebasedBytes / 16), live);
                } else {
                    mx_fence_shared_for_async();  // the producers' copies, seen through the barrier, for wgmma
                    multiply(act_descriptor, weight_descriptor, s * (kStageBytes / 16), s * (kStageBytes / 16), live);
                    mx_wgmma_wait_one();  // the chunk before's products are done: its buffer goes back
                    pin();
                    if (k128 > 0) release(sh.empty[(chunk - 1) % kStages]);
                }
            }
            mx_wgmma_wait_all();
            pin();
            release(sh.empty[(chunk - 1) % kStages]);
#pragma unroll
            for (int i = 0; i < kBlocks; ++i) {
                if (live == 0) continue;
                const int m0 = block_row(warpgroup, i) + warp_row;
                mx_apply_rebase_bases<NJ>(acc_[i][0], sh.row_base[slot] + m0, sh.column_base[slot] + n_first);
                finish(tile, slot, MxAccumulatorBlock<NJ>{acc_[i]}, m0, n_first);
            }
            release(sh.done[slot]);
        }
        if (tid == 0) mx_end_tile_walk();
    }

    // The first tile row of row block i of consumer warpgroup `warpgroup`.
    __device__ static int block_row(int warpgroup, int i) { return kSideBySide ? 0 : (warpgroup + kConsumers * i) * 64; }

    // One chunk's products: 4 K slices of 32 (one MX block each) for each row block.
    // live 0: the warpgroup's one row block holds padding only (consume); it issues nothing.
    // act_units / weight_units: the chunk's rows and weights from the descriptors' buffers, in 16 bytes.
    __device__ void multiply(const moetune_u64 (&act_descriptor)[kBlocks], moetune_u64 weight_descriptor, int act_units,
                             int weight_units, unsigned live) {
        pin();
        if (live == 0) return;
        mx_wgmma_fence();
#pragma unroll
        for (int s = 0; s < 4; ++s)
#pragma unroll
            for (int i = 0; i < kBlocks; ++i)
                mx_wgmma_e4m3_m64k32<kColumns>(reinterpret_cast<float(&)[kAccumulators]>(acc_[i][0]),
                                             act_descriptor[i] + act_units + 2 * s,
                                             weight_descriptor + weight_units + 2 * s);
        mx_wgmma_commit();
        pin();
    }

    __device__ void pin() {
#pragma unroll
        for (int i = 0; i < kBlocks; ++i)
#pragma unroll
            for (int j = 0; j < NJ; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) mx_wgmma_pin(acc_[i][0][j][e]);
    }

    // FP4_WEIGHTS: the FP4 blocks of chunk `k128` of the tile's weight block b (fp4_weight_blocks.h).
    __device__ static const unsigned char* fp4_block_chunk(const Tile& tile, int K, int b, int k128) {
        return tile.w + (long long)(tile.n0 + b * kMxFp4BlockRows) * mx_fp4_blocks_row_bytes(K) +
               (long long)k128 * kMxFp4ChunkBytes;
    }

    // FP4_WEIGHTS: consumer thread c's share of a chunk's FP4 blocks (`blocks`, in a chunk buffer)
    // rebased into a buffer of the ring: unit c % 8 (16 elements: 8 bytes of codes, one table row) of
    // rows c / 8, + kConsumerThreads / 8, ... (a quarter warp reads one row's 64 bytes of codes and
    // stores its 8 units in 8 bank groups). The loads of kBatch units go out before the first is
    // converted: each unit is a chain of two shared-memory loads (codes and table row, then the
    // table's words), which one unit at a time would wait out in turn. A thread's rows lie a whole
    // number of times kRowsApart from its first, which divides a block's 64 rows: unit i's block and
    // row in it are (first row) + i kRowsApart split at compile time, so every address is the thread's
    // first one plus a constant (computed from the row, ptxas redid a multiply and two adds a unit).
    __device__ static void rebase_weights(const unsigned char* blocks, unsigned char* out, const moetune_u32* table,
                                          int c) {
        constexpr int kRowsApart = kConsumerThreads / 8;
        constexpr int kUnits = TILE_N / kRowsApart;
        constexpr int kBatch = kUnits < 8 ? kUnits : 8;
        static_assert(TILE_N % kRowsApart == 0 && kUnits % kBatch == 0, "whole batches of units a thread");
        static_assert(kMxFp4BlockRows % kRowsApart == 0, "a thread's rows keep their place in a block");
        const int u = c % 8, first_row = c / 8 % kRowsApart;  // c < kConsumerThreads: first_row = c / 8
#pragma unroll
        for (int i0 = 0; i0 < kUnits; i0 += kBatch) {
            uint2 codes[kBatch];
            int table_row[kBatch];
#pragma unroll
            for (int i = 0; i < kBatch; ++i) {
                const int apart = (i0 + i) * kRowsApart;  // a constant: rows from the thread's first
                const unsigned char* block = blocks + apart / kMxFp4BlockRows * kMxFp4ChunkBytes;
                const int r = first_row + apart % kMxFp4BlockRows;
                codes[i] = *reinterpret_cast<const uint2*>(block + mx_fp4_unit_codes(r, u));
                table_row[i] = block[mx_fp4_unit_table_row(r, u)];
            }
#pragma unroll
            for (int i = 0; i < kBatch; ++i) {
                const int row = first_row + (i0 + i) * kRowsApart;
                const uint2 entry = *reinterpret_cast<const uint2*>(table + 2 * table_row[i]);
                mx_u32x4 e4m3;
                mx_e2m1x8_to_e4m3(codes[i].x, entry.x, entry.y, e4m3.x, e4m3.y);
                mx_e2m1x8_to_e4m3(codes[i].y, entry.x, entry.y, e4m3.z, e4m3.w);
                mx_store16(out + mx_ws_rebased_unit(row, u), e4m3);
            }
        }
    }

    // This warp is done with what the barrier guards (one arrival a consumer warp).
    __device__ static void release(moetune_u64& barrier) {
        __syncwarp();
        if ((threadIdx.x & 31) == 0) mx_mbarrier_arrive(&barrier);
    }
#endif
};
