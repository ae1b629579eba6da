#pragma once
// Where the _smem / _wgmma loop (moe_shared_gemm.h) keeps its widened operands in shared memory and
// which thread stores what: plain functions, so that a CPU test checks the properties the loop's
// speed rests on (every byte once, no bank conflicts; tests/formats/shared_operand_layout_test.cpp).
// A 16-byte access by a warp is served a quarter warp (8 lanes, 128 bytes) at a time, in one
// wavefront when those 8 lanes hit 8 different 16-byte bank groups (byte offset / 16 mod 8).
//
// Warp products (mma.sync), per buffer: A (TILE_M * 256 bytes), then B (TILE_N * 256 bytes), bf16
// with the scales folded in, in 16-byte segments that are exactly one lane's fragment registers, so
// that each fragment is one 16-byte load and no register moves:
//  - B: row-major, 256 bytes a weight row; unit kb * 4 + t of a row holds the 8 values at k
//    kb*32 + 8t .. + 7 as the four bf16 pairs of the block path (mx_block_mma.h): (0, 2), (1, 3),
//    (4, 6), (5, 7), i.e. b[h][0..1] of both products h of lane (g = row, t). Unit u of row r lies
//    at u ^ 4 (r & 1): the 8 lanes of a quarter warp read rows r, r + 1 at units 4kb .. 4kb + 3 and
//    hit 8 different bank groups.
//  - A: rows g and g + 8 of each 16-row group share a "pair row" of 512 bytes (pair row 8 * group
//    + g), in segments (unit, h) = the A fragment of product h of lane (g, t): pair 2h of row g,
//    of row g + 8, pair 2h + 1 of row g, of row g + 8. Segment s = 8 kb + 2 t + h lies at 8 kb +
//    ((2 t + h) ^ (pair row & 1) ^ kb): conflict-free for the loads (two pair rows of opposite
//    parity per quarter warp) and for the stores (a quarter warp stores one pair row's 8 pieces).
// Warpgroup products (WGMMA): both operands K-major in the 128-byte swizzle the wgmma descriptors
// read (mx_wgmma_unit_offset), in the same pair order; the activations are copied there pre-widened
// (their wide layout's 16-byte units are these units).
#include "fp4_weight_blocks.h"
#include "host_device.h"

// One row's 128-wide K chunk as bf16.
constexpr int kMxSharedRowBytes = 256;

// sm_90's opt-in shared memory per workgroup (wgmma is sm_90a only; the host's DeviceLimits holds
// the same figure for launching).
constexpr int kMxWgmmaSharedLimit = 227 * 1024;
// sm_90's registers per SM, all of which one workgroup of the warp-specialised loop takes.
constexpr int kMxWgmmaRegistersPerSm = 65536;
// What a thread of a workgroup of `threads` holds when that workgroup takes them all: the even share in
// the allocation's steps of 8 registers. The workgroup's pool is this times its threads, so setmaxnreg
// can hand out no more than that (a warp asking past it waits for ever).
MOETUNE_HD constexpr int mx_launch_registers(int threads) { return kMxWgmmaRegistersPerSm / threads / 8 * 8; }

// Operand buffers of a shared-operand loop (moe_shared_gemm.h, MxMoeSharedGemm::kBuffers; the host's
// kernels::dynamic_shared_bytes): two, and with warpgroup products on tiles of 128 rows and more
// (one workgroup per SM) a third where it fits, so that a chunk's products run on through the next
// chunk's barrier instead of draining with nothing else on the SM to fill the gap.
MOETUNE_HD constexpr int mx_shared_operand_buffers(bool wgmma, int tile_m, int tile_n) {
    const int buffer = (tile_m + tile_n) * kMxSharedRowBytes;
    const int align = wgmma ? 1024 : 0;
    return wgmma && tile_m >= 128 && 3 * buffer + align <= kMxWgmmaSharedLimit ? 3 : 2;
}

// WGMMA: the 64-row block and the column block of warpgroup `warpgroup` (four consecutive warps)
// when WARPS_M warps of 16 rows cover the tile's rows: warpgroups take the rows first (WARPS_M / 4
// of them), then the column blocks. The loop's descriptors (moe_shared_gemm.h) and the warps'
// epilogue blocks (mx_warp_origin, moe_gemm.h) both follow it.
template <int WARPS_M>
MOETUNE_HD void mx_warpgroup_block(int warpgroup, int& rows_group, int& columns_group) {
    static_assert(WARPS_M % 4 == 0, "warpgroups of four 16-row warps");
    rows_group = warpgroup % (WARPS_M / 4);
    columns_group = warpgroup / (WARPS_M / 4);
}

// K chunks per pass of the WGMMA loop (moe_shared_gemm.h, MxMoeSharedGemm::kChunksPerPass; the
// host's register model): two where a thread stages several weight vectors (they alternate between
// two register sets instead of being copied, ~30 moves a chunk), one where it stages one (5 moves)
// or the workgroup has 512 threads (the second pass's registers made those tiles spill at the 128 a
// thread has there).
MOETUNE_HD constexpr int mx_wgmma_chunks_per_pass(int weight_vectors_per_thread, int threads) {
    return weight_vectors_per_thread > 1 && threads < 512 ? 2 : 1;
}

// The 128-byte swizzle the wgmma descriptors read: 16-byte unit u (0..7) of a 128-byte row lies in
// slot u ^ row % 8 of the row, so that the 8 rows of a 1024-byte period put a unit in 8 different
// bank groups. (Callers add row * 128 + slot * 16 in their own integer width.)
MOETUNE_HD constexpr int mx_swizzle128_slot(int row, int unit) { return unit ^ (row & 7); }

// The wgmma layout (K-major, 128-byte swizzle) of a region of `rows` rows: two atom columns of
// 64 K each (rows x 128 bytes), 16-byte unit u of a row at (u % 8) ^ (row % 8) of its column.
MOETUNE_HD int mx_wgmma_unit_offset(int rows, int row, int unit) {
    return (unit >> 3) * rows * 128 + row * 128 + (mx_swizzle128_slot(row, unit & 7) << 4);
}

// B unit u of weight row `row` in the warp-product layout.
MOETUNE_HD int mx_shared_b_unit_offset(int row, int unit) {
    return row * kMxSharedRowBytes + ((unit ^ ((row & 1) << 2)) << 4);
}

// A segment s (= 8 kb + 2 t + h) of pair row `pair_row` in the warp-product layout.
MOETUNE_HD int mx_shared_a_segment_offset(int pair_row, int segment) {
    const int kb = segment >> 3;
    return pair_row * 512 + ((segment & ~7) | ((segment & 7) ^ (pair_row & 1) ^ kb)) * 16;
}

// The pair row and piece (k 16 piece .. + 15 of the chunk) of activation vector pair p in the
// warp-product layout: a quarter warp takes one pair row's 8 pieces (the A layout above is
// conflict-free for them).
MOETUNE_HD void mx_shared_act_pair_position(int p, int& pair_row, int& piece) { pair_row = p / 8, piece = p % 8; }

// WGMMA: where pre-widened activation unit u of a chunk (row u / 16, unit u % 16: 16 threads copy one
// row's 256 contiguous bytes) lands. A quarter warp's 8 units are units 0..7 or 8..15 of one row:
// 8 different bank groups.
MOETUNE_HD int mx_wgmma_wide_act_offset(int tile_m, int u) { return mx_wgmma_unit_offset(tile_m, u / 16, u % 16); }

// The lane of its 8-row mma_k128 tile whose 16 bytes weight vector v holds (lane = 4 row + t).
// The warp loads the whole 512-byte tile either way; with WGMMA the 8 threads of a quarter warp take
// rows r and r + 4 (t = 0..3), whose units fall in 8 different bank groups of the 128-byte swizzle
// (rows r, r + 1 map to the same four groups: every store took two).
template <bool WGMMA>
MOETUNE_HD int mx_shared_weight_lane(int v) {
    const int lane = v % 32;
    if constexpr (!WGMMA) return lane;
    const int quarter = lane / 8, w = lane % 8;
    return (quarter + 4 * (w / 4)) * 4 + w % 4;
}

// The rows of one warpgroup product (wgmma's M): the smallest tile of the unswapped WGMMA loop.
constexpr int kMxWarpgroupRows = 64;

// Whether a WGMMA tile is swapped (moe_shared_gemm.h, kSwapped): fewer rows than a warpgroup product
// has, so the weights' rows fill the warpgroups instead (the host's kernels::swapped_wgmma).
MOETUNE_HD constexpr bool mx_swapped_wgmma(bool wgmma, int tile_m) { return wgmma && tile_m < kMxWarpgroupRows; }

// Whether the grid walks the N tiles first (moe_gemm.h, mx_row_tile; the host's
// kernels::n_tiles_fastest): the shared-operand warpgroup kernels.
MOETUNE_HD constexpr bool mx_n_tiles_fastest(bool wgmma, bool shared_operands) { return wgmma && shared_operands; }

// Whether a workgroup walks tiles (tile blockIdx.x, then gridDim.x further, N tiles fastest, until
// the sorted rows end) over a 1-D grid sized to the workgroups the GPU holds at once (the host's
// kernels::persistent_tiles and launch_geometry): the FP8 shared-operand warpgroup kernels, whose one
// workgroup an SM could hide nothing of a tile's start and end (moe_fp8_wgmma_gemm.h).
MOETUNE_HD constexpr bool mx_persistent_tiles(bool wgmma, bool shared_operands, bool fp8) {
    return wgmma && shared_operands && fp8;
}

// Whether the row tile of TILE_M sorted rows from row0 (row0 < num_valid) is its expert's only one, from the
// sort's block -> expert table of SORT_BM-row blocks (TILE_M <= SORT_BM, both powers of two: a tile lies in one
// block). Then no other tile of a walk reads the weights its N tiles copy: the _ws_ro loop copies them evict-first,
// so that L2 keeps what is read again (the rows, which every N tile of the row tile reads, and stage 2's atomic adds,
// which a token's other experts repeat). Where an expert has two or more row tiles its weights are read once a row
// tile, and evict-first lost them between those reads (stage 1 +30 %, stage 2 +17 % at 4096 tokens on the H100,
// docs/kernel-design.md). Both reads of the table go out together and unconditionally (an index clamped into the
// table), beside the caller's read of the tile's expert: short-circuit tests made them loads that waited on each
// other. A kernel of its own (_ro) rather than in every _ws kernel: the producers' choice between two copy
// instructions alone, never taken, cost the 128 x 256 stage 1 2-3 % at 4096-8192 tokens (H100), where it seldom
// holds; the tuner keeps _ro where it pays.
template <int TILE_M, int SORT_BM>
MOETUNE_HD bool mx_expert_row_tiles_one(const int* sorted_expert_ids, int row0, int num_valid, int expert) {
    static_assert(TILE_M <= SORT_BM, "a row tile within one sort block");
    const int after = row0 + TILE_M;
    const int before_expert = sorted_expert_ids[(row0 > 0 ? row0 - 1 : 0) / SORT_BM];
    const int after_expert = sorted_expert_ids[(after < num_valid ? after : row0) / SORT_BM];
    return (row0 == 0 || before_expert != expert) & (after >= num_valid || after_expert != expert);
}

// The warp-specialised FP8 loop (_ws, moe_fp8_ws_gemm.h; the host's kernels::warp_specialised):
// consumer warpgroups of 128 rows (two m64 row blocks each; one of 64 rows on a 64-row tile) and one
// producer warpgroup that copies every chunk. 256-wide tiles: consumer warpgroups of one 64-row block
// (an m64n256 block is 128 accumulators a thread, two would not fit), so 64 and 128 rows only; on 64
// rows two warpgroups side by side, 128 columns each (m64n128), so that as many consumers rebase FP4
// weights (_f4w) as on 128 rows.
constexpr int kMxWsWideN = 256;
MOETUNE_HD constexpr bool mx_ws_side_by_side(int tile_m, int tile_n) {
    return tile_n >= kMxWsWideN && tile_m == kMxWarpgroupRows;
}
// (256 wide: two either way, one a row block at 128 rows, side by side at 64.)
MOETUNE_HD constexpr int mx_ws_consumer_warpgroups(int tile_m, int tile_n) {
    return tile_n >= kMxWsWideN ? 2 : tile_m > 128 ? tile_m / 128 : 1;
}
// With more than one consumer warpgroup the producers give registers to the consumers (setmaxnreg,
// moe_fp8_ws_gemm.h), so the kernel compiles to the launch's even share (the host's resource model).
MOETUNE_HD constexpr bool mx_ws_rebalances(int tile_m, int tile_n) {
    return mx_ws_consumer_warpgroups(tile_m, tile_n) > 1;
}
// The columns of a consumer warpgroup's products: the tile's, or side by side half of them.
MOETUNE_HD constexpr int mx_ws_consumer_columns(int tile_m, int tile_n) {
    return mx_ws_side_by_side(tile_m, tile_n) ? tile_n / 2 : tile_n;
}
// The 64-row blocks a consumer warpgroup multiplies: one side by side, else its share of the tile's.
MOETUNE_HD constexpr int mx_ws_consumer_row_blocks(int tile_m, int tile_n) {
    return mx_ws_side_by_side(tile_m, tile_n) ? 1 : tile_m / kMxWarpgroupRows / mx_ws_consumer_warpgroups(tile_m, tile_n);
}
MOETUNE_HD constexpr int mx_ws_warps(int tile_m, int tile_n) { return 4 * mx_ws_consumer_warpgroups(tile_m, tile_n) + 4; }
// Its stages: as many chunk buffers as fit the opt-in shared memory beside 1024 bytes of alignment,
// kMxWsStaticShared of the stage kernels' row tables and barriers and, with FP4 weights, the ring of
// rebased weights, at most 8 (4 at 256 x 128 and 128 x 256, 6 at 128 x 128; with FP4 weights 4 at
// 128 x 256, 6 at 64 x 256). A chunk buffer holds the tile's rows and weight rows, 128 bytes each;
// with FP4 weights (moe_fp8_ws_gemm.h, FP4_WEIGHTS) the rows and the weights' FP4 blocks
// (fp4_weight_blocks.h: half the bytes and a table row a block), on the swizzle's 1024-byte period,
// and the consumers rebase the blocks into a ring of kMxWsRebasedBuffers e4m3 buffers of the tile's
// weight rows (two: a consumer writes one while the others' products may still read the other).
constexpr int kMxWsStaticShared = 8 * 1024;
constexpr int kMxWsRebasedBuffers = 2;
MOETUNE_HD constexpr int mx_ws_stage_bytes(int tile_m, int tile_n, bool fp4_weights) {
    return fp4_weights ? (tile_m * 128 + tile_n / kMxFp4BlockRows * kMxFp4ChunkBytes + 1023) / 1024 * 1024
                       : (tile_m + tile_n) * 128;
}
MOETUNE_HD constexpr int mx_ws_rebased_ring_bytes(int tile_n, bool fp4_weights) {
    return fp4_weights ? kMxWsRebasedBuffers * tile_n * 128 : 0;
}
MOETUNE_HD constexpr int mx_ws_stages(int tile_m, int tile_n, bool fp4_weights = false) {
    const int fit = (kMxWgmmaSharedLimit - 1024 - kMxWsStaticShared - mx_ws_rebased_ring_bytes(tile_n, fp4_weights)) /
                    mx_ws_stage_bytes(tile_m, tile_n, fp4_weights);
    return fit < 8 ? fit : 8;
}
// Where a buffer of the rebased ring holds unit u (16 weights) of the tile's weight row `row`: the
// layout the bulk copies of the rebased weights give the chunk buffers (rebased_weight_layout.h).
MOETUNE_HD constexpr int mx_ws_rebased_unit(int row, int u) { return row * 128 + (mx_swizzle128_slot(row, u) << 4); }
// The dynamic shared memory of a _ws kernel: its chunk buffers, the rebased ring, 1024 to align them.
MOETUNE_HD constexpr int mx_ws_shared_bytes(int tile_m, int tile_n, bool fp4_weights) {
    return mx_ws_stages(tile_m, tile_n, fp4_weights) * mx_ws_stage_bytes(tile_m, tile_n, fp4_weights) +
           mx_ws_rebased_ring_bytes(tile_n, fp4_weights) + 1024;
}

// Swapped WGMMA tiles: the place in the buffer of the tile's 8-row
// weight tile `tile`. GATE_UP (stage 1: W1 rows in GU16 groups of four tiles, two gate then the two
// up tiles of the same output columns): tiles 1 and 2 of every group trade places, so that the 16
// rows of warp w = 2p + a (one warpgroup product's rows 16w.. of the buffer) are gate tile 4p + a
// and up tile 4p + 2 + a. Otherwise in order. (Whole tiles move: the rows keep their swizzle phase.)
template <bool GATE_UP>
MOETUNE_HD constexpr int mx_swapped_weight_tile(int tile) {
    if constexpr (!GATE_UP) return tile;
    const int q = tile & 3;
    return q == 1 || q == 2 ? tile ^ 3 : tile;
}

// The 8-row weight tile (counted from the tile's first weight row) whose rows warp `warp` of a swapped
// WGMMA tile holds in accumulators d[4j + c] (moe_shared_gemm.h); d[4j + 2 + c] hold the tile after it
// (stage 2) or its up tile, 2 further (GATE_UP). mx_swapped_weight_tile is its own inverse: buffer
// tile 2w holds this one.
template <bool GATE_UP>
MOETUNE_HD constexpr int mx_swapped_warp_tile(int warp) {
    return mx_swapped_weight_tile<GATE_UP>(2 * warp);
}
