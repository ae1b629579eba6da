#pragma once
// MXFP8 -> rebased rows (kernel_templates/common/mx_rebase.h), on the CPU: what mxfp8_rebase.hip
// writes, bit for bit, and what the tests check the FP8 warpgroup-product kernels' input against.
#include <cstdint>
#include <span>
#include <vector>

namespace moetune::formats {

// values [rows, cols] e4m3fn and scales [rows, cols/32] e8m0 -> rebased [rows, cols] e4m3fn and
// bases [rows] e8m0 (each row's largest scale); interleave_words: each 32-byte block's words in
// the order of mx_interleaved_source_word (the register-fed FP8 kernels').
void rebase_mxfp8(std::span<const uint8_t> values, std::span<const uint8_t> scales, int rows, int cols,
                  std::span<uint8_t> rebased, std::span<uint8_t> bases, bool interleave_words = false);

// MXFP8 values [rows, cols] (cols a multiple of 32) with each 32-byte block's words in the order of
// mx_interleaved_source_word, the register-fed FP8 kernels' (what they read as MXFP8 rows, _mxr).
std::vector<uint8_t> interleave_mxfp8_words(std::span<const uint8_t> values);

// Weights in the kernel layout (formats::WeightLayout::mma_k128: coded values [rows/8][K/128][512
// bytes], scales [rows, K/32]) -> rebased rows [rows, K] e4m3fn, element (row, k) at
// mx_rebased_weight_offset (common/rebased_weight_layout.h: 64-row blocks of swizzled 128-wide
// chunks), and bases [rows] e8m0 (common/mx_rebase.h), what weight_rebase.hip writes.
void rebase_coded_weights(std::span<const uint8_t> coded, std::span<const uint8_t> scales, int rows, int K,
                          std::span<uint8_t> rebased, std::span<uint8_t> bases);

// The same weights as FP4 blocks (common/fp4_weight_blocks.h: rows a multiple of 64, [rows *
// mx_fp4_blocks_row_bytes(K)] bytes of codes and table rows) and the same bases, which an FP8 loop
// rebases to rebase_coded_weights' bytes itself (common/mx_e2m1_e4m3_lut.h).
void fp4_weight_blocks(std::span<const uint8_t> coded, std::span<const uint8_t> scales, int rows, int K,
                       std::span<uint8_t> blocks, std::span<uint8_t> bases);

}  // namespace moetune::formats
