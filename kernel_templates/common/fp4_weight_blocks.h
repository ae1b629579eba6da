#pragma once
// FP4 weights as the warp-specialised FP8 loop reads them when it rebases them itself
// (moe_fp8_ws_gemm.h, FP4_WEIGHTS; the table: mx_e2m1_e4m3_lut.h): half the bytes of the rebased
// e4m3 weights (rebased_weight_layout.h), in the same blocks. A [rows, K] tensor (rows a multiple of
// 64, K of 128) lies in blocks of 64 consecutive rows, and within a block chunk after chunk of 128 K;
// each block-chunk is
//   - the 64 rows' e2m1 codes, 64 bytes a row (AITER's packing: element k in the low nibble of byte
//     k / 2 when k is even, but each word of 8 codes with its sign bits moved among the nibbles'
//     bit 3s, mx_e2m1x8_split_signs in mx_e2m1_e4m3_lut.h), 4096 bytes, then
//   - each row's four table rows (mx_e2m1_e4m3_shift_row of the row's base and the scale of each of
//     its four MX blocks in the chunk), a byte each, 256 bytes:
// 4352 bytes that one bulk copy moves. A row's base (one e8m0, the largest of its block scales, as
// for the rebased weights) is kept apart, [rows].
// Block b starts at byte 64 b mx_fp4_blocks_row_bytes(K), so an expert's rows (N rows, a multiple of
// 64) start at e N mx_fp4_blocks_row_bytes(K).
#include "host_device.h"

constexpr int kMxFp4BlockRows = 64;
constexpr int kMxFp4ChunkCodeBytes = kMxFp4BlockRows * 64;                    // a block-chunk's codes
constexpr int kMxFp4ChunkBytes = kMxFp4ChunkCodeBytes + kMxFp4BlockRows * 4;  // and its table rows

// Bytes a row takes in the layout: 68 a 128-wide chunk.
MOETUNE_HD constexpr long long mx_fp4_blocks_row_bytes(int K) {
    return (long long)(K / 128) * (kMxFp4ChunkBytes / kMxFp4BlockRows);
}

// Where the block-chunk holding element (row, k) starts.
MOETUNE_HD long long mx_fp4_block_chunk_offset(int K, long long row, int k) {
    return (row - row % kMxFp4BlockRows) * mx_fp4_blocks_row_bytes(K) + (long long)(k / 128) * kMxFp4ChunkBytes;
}

// Within a block-chunk, where unit u (elements 16 u .. 16 u + 15 of the chunk: 8 bytes of codes) of
// the block's row r (0..63) lies, and its table row: what a loop that rebases a staged block-chunk
// reads (moe_fp8_ws_gemm.h), and the element offsets below.
MOETUNE_HD constexpr int mx_fp4_unit_codes(int r, int u) { return r * 64 + 8 * u; }
MOETUNE_HD constexpr int mx_fp4_unit_table_row(int r, int u) { return kMxFp4ChunkCodeBytes + r * 4 + u / 2; }

// The byte holding element (row, k)'s code (its low nibble when k is even; its sign bit elsewhere
// in the word of 8 from element k - k % 8 when the signs are split).
MOETUNE_HD long long mx_fp4_code_offset(int K, long long row, int k) {
    return mx_fp4_block_chunk_offset(K, row, k) + mx_fp4_unit_codes(int(row % kMxFp4BlockRows), (k % 128) / 16) +
           (k % 16) / 2;
}

// The byte holding the table row of element (row, k)'s MX block.
MOETUNE_HD long long mx_fp4_table_row_offset(int K, long long row, int k) {
    return mx_fp4_block_chunk_offset(K, row, k) + mx_fp4_unit_table_row(int(row % kMxFp4BlockRows), (k % 128) / 16);
}
