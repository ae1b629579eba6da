#pragma once
// Where the rebased weights (mx_rebase.h) keep element (row, k) of a [rows, K] tensor: in blocks of
// 64 consecutive rows, and within a block chunk after chunk of 128 K, each chunk the block's 64 rows
// of 128 bytes in the 128-byte swizzle of the wgmma descriptors (mx_swizzle128_slot,
// shared_operand_layout.h). A block's chunk is then byte for byte the 8 KB a
// shared-operand FP8 kernel's buffer holds of those rows (fp8_chunk_copy.h), so one bulk copy moves
// it (moe_fp8_ws_gemm.h) and plain copies go unit for unit in order, with no per-row address math.
// Why: the copies set the pace of those loops (docs/kernel-design.md, "Where the warps wait":
// the address math of 16-byte copies of rows K bytes apart was 17.6 % of the instructions).
//
// Block b starts at row 64 b, i.e. at byte 64 b K as in plain row order, so an expert's rows (N a
// multiple of 64 wherever the kernels read them: tile_n, 64-256, divides N) start at e N K as before;
// the last block of a tensor whose rows are not a multiple of 64 holds the rest.
#include "host_device.h"
#include "shared_operand_layout.h"

constexpr int kMxRebasedBlockRows = 64;
constexpr int kMxRebasedChunkBytes = kMxRebasedBlockRows * 128;  // one block's 128-wide chunk

MOETUNE_HD long long mx_rebased_weight_offset(long long rows, int K, long long row, int k) {
    const long long first = row - row % kMxRebasedBlockRows;
    const long long height = rows - first < kMxRebasedBlockRows ? rows - first : kMxRebasedBlockRows;
    const int r = int(row - first), unit = (k % 128) / 16;
    return first * K + (long long)(k / 128) * height * 128 + r * 128 + (mx_swizzle128_slot(r, unit) << 4) + k % 16;
}
