#pragma once
// The copies of one 128-wide K chunk of an FP8 shared-operand tile into its buffer (both FP8
// warpgroup loops: moe_fp8_wgmma_gemm.h, where every thread of the workgroup copies, and
// moe_fp8_ws_gemm.h, where a producer warpgroup does): the tile's activation rows, then its weight
// rows, each a 128-byte row of e4m3 in the 128-byte swizzle the wgmma descriptors read
// (mx_swizzle128_slot). Thread `tid` of THREADS copies unit tid % 8 of kActUnits
// activation rows a chunk; the 8 threads of a quarter warp copy one row's 128 bytes (one read, 8
// different bank groups). Padding rows are zero-filled without a read.
//
// The weights lie in the buffer's layout already (rebased_weight_layout.h: a 64-row block's chunk is
// 8 KB in order), so their copies go in order: thread tid copies units tid, tid + THREADS, ... of
// the tile's TILE_N / 64 blocks (copy_weights; or one bulk copy a block, moe_fp8_ws_gemm.h).
//
// Which activation rows, ROWS_IN_REGISTERS:
//  - true: rows tid / 8, + THREADS / 8, ..., kept in registers for the whole tile as indices, not
//    pointers (two pointers a unit spilled the 256-row tiles of 512 threads), and a bit a unit: its
//    row is real. Unit i lies i THREADS / 8 rows (a multiple of 8: the same swizzle phase) below
//    unit 0, i.e. i THREADS * 16 bytes further.
//  - false: the kActUnits consecutive rows from (tid / 8) kActUnits, read from the tile's row table
//    in shared memory at every chunk as 16-byte vectors (the warp-specialised loop's producers, whose
//    registers go to the consumers: one read's latency a chunk, where reading each unit's row before
//    its copy left the producers stalled on shared memory 40 % of the time, ncu).
#include "memory.h"
#include "rebased_weight_layout.h"

// Where a thread of MxFp8ChunkCopy finds its UNITS activation rows (ROWS_IN_REGISTERS above).
template <int UNITS, bool ROWS_IN_REGISTERS>
struct MxFp8ActRows {
    unsigned row[UNITS];  // unit i's activation row (0 for padding)
    unsigned real;        // bit i: unit i's row is real
};
template <int UNITS>
struct MxFp8ActRows<UNITS, false> {
    const int* first;  // this thread's first row in the tile's row table
};

template <int TILE_M, int TILE_N, int THREADS, bool ROWS_IN_REGISTERS = true>
struct MxFp8ChunkCopy {
    static constexpr int kRowBytes = 128;
    static constexpr int kActUnits = TILE_M * 8 / THREADS;
    static constexpr int kWeightUnits = TILE_N * 8 / THREADS;
    static_assert(kActUnits * THREADS == TILE_M * 8 && kWeightUnits * THREADS == TILE_N * 8,
                  "whole activation and weight units per thread");
    static_assert(THREADS % 64 == 0, "whole swizzle periods of rows between a thread's units");
    static_assert(kActUnits <= 32, "one bit of act_real a unit");
    static_assert(ROWS_IN_REGISTERS || kActUnits % 4 == 0, "the rows read as whole 16-byte vectors");
    static constexpr int kBlockUnits = kMxRebasedChunkBytes / 16;
    static_assert(TILE_N % kMxRebasedBlockRows == 0 && kBlockUnits % THREADS == 0,
                  "whole 64-row weight blocks, THREADS dividing a block's 512 units");

    const unsigned char* act;
    MxFp8ActRows<kActUnits, ROWS_IN_REGISTERS> unit_rows;
    const unsigned char* weights;  // the tile's first weight block (rebased_weight_layout.h)
    int K;

    // tile_rows: the activation row of each tile row (-1 = padding); w: the expert's rebased weights
    // (rebased_weight_layout.h); n0: the tile's first weight row.
    __device__ MxFp8ChunkCopy(const unsigned char* __restrict__ act_rows, const int* tile_rows,
                              const unsigned char* __restrict__ w, int n0, int k, int tid) {
        act = act_rows + (tid % 8) * 16;
        if constexpr (ROWS_IN_REGISTERS) {
            unit_rows.real = 0;
#pragma unroll
            for (int i = 0; i < kActUnits; ++i) {
                const int tile_row = tile_rows[(tid + i * THREADS) / 8];
                unit_rows.row[i] = unsigned(tile_row >= 0 ? tile_row : 0);
                unit_rows.real |= unsigned(tile_row >= 0) << i;
            }
        } else {
            unit_rows.first = tile_rows + (tid / 8) * kActUnits;
        }
        weights = w + (long long)n0 * k;
        K = k;
    }

    // Starts this thread's copies of chunk k128 into `buffer`: the activation rows and the weights.
    __device__ void copy(unsigned char* buffer, int k128, int tid) const {
        copy_rows(buffer, k128, tid);
        copy_weights(buffer, k128, tid);
    }

    // Block b of chunk k128 of the tile's weights: kMxRebasedChunkBytes in the buffer's layout.
    __device__ const unsigned char* weight_block(int k128, int b) const {
        return weights + (long long)b * kMxRebasedBlockRows * K + (long long)k128 * kMxRebasedChunkBytes;
    }
    // Where block b goes in a buffer.
    __device__ static unsigned char* weight_block_in(unsigned char* buffer, int b) {
        return buffer + TILE_M * kRowBytes + b * kMxRebasedChunkBytes;
    }

    // This thread's weight units of chunk k128, in order.
    __device__ void copy_weights(unsigned char* buffer, int k128, int tid) const {
#pragma unroll
        for (int i = 0; i < kWeightUnits; ++i) {
            // Unit tid + i THREADS: THREADS divides a block's units, so it lies in block i THREADS / kBlockUnits.
            const int b = i * THREADS / kBlockUnits, in_block = (i * THREADS % kBlockUnits + tid) * 16;
            mx_cp_async16(weight_block_in(buffer, b) + in_block, weight_block(k128, b) + in_block, true);
        }
    }

    // This thread's activation units of chunk k128.
    __device__ void copy_rows(unsigned char* buffer, int k128, int tid) const {
        const int u = tid % 8;
        const unsigned char* act_chunk = act + k128 * 128;
        if constexpr (ROWS_IN_REGISTERS) {
            const int r = tid / 8;
            unsigned char* first = buffer + r * kRowBytes + (mx_swizzle128_slot(r, u) << 4);
#pragma unroll
            for (int i = 0; i < kActUnits; ++i)
                mx_cp_async16(first + i * THREADS * 16, act_chunk + (unsigned long long)unit_rows.row[i] * unsigned(K),
                              (unit_rows.real >> i) & 1u);
        } else {
            const int r0 = (tid / 8) * kActUnits;
#pragma unroll
            for (int i = 0; i < kActUnits; i += 4) {
                const int4 v = *reinterpret_cast<const int4*>(unit_rows.first + i);
                const int rows[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const int r = r0 + i + e;
                    mx_cp_async16(buffer + r * kRowBytes + (mx_swizzle128_slot(r, u) << 4),
                                  act_chunk + (unsigned long long)unsigned(rows[e] >= 0 ? rows[e] : 0) * unsigned(K),
                                  rows[e] >= 0);
                }
            }
        }
    }
};
