#include "formats/mx_rebase.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/mx_bf16_widen.h"
#include "common/fp4_weight_blocks.h"
#include "common/mx_e2m1_e4m3_lut.h"
#include "common/mx_rebase.h"
#include "common/rebased_weight_layout.h"
#include "formats/mx_quantize.h"

namespace moetune::formats {
namespace {

// Where stored byte `to` of interleaved 32-byte blocks comes from: stored word p of a block holds the
// block's word mx_interleaved_source_word(p).
std::size_t interleaved_source(std::size_t to) {
    const int p = int(to % kMxBlock) / 4;
    return to - to % kMxBlock + std::size_t(4 * mx_interleaved_source_word(p)) + to % 4;
}

}  // namespace

void rebase_mxfp8(std::span<const uint8_t> values, std::span<const uint8_t> scales, int rows, int cols,
                  std::span<uint8_t> rebased, std::span<uint8_t> bases, bool interleave_words) {
    const std::size_t n = std::size_t(rows) * cols, blocks = std::size_t(cols) / kMxBlock;
    if (rows < 0 || cols % kMxBlock != 0 || values.size() != n || rebased.size() != n ||
        scales.size() != std::size_t(rows) * blocks || bases.size() != std::size_t(rows))
        throw std::invalid_argument("rebase_mxfp8: sizes do not match [" + std::to_string(rows) + ", " +
                                    std::to_string(cols) + "]");
    for (int r = 0; r < rows; ++r) {
        const uint8_t* s = scales.data() + r * blocks;
        const uint8_t base = blocks ? *std::max_element(s, s + blocks) : 0;
        bases[r] = base;
        for (std::size_t to = std::size_t(r) * cols; to < std::size_t(r + 1) * cols; ++to) {
            const std::size_t from = interleave_words ? interleaved_source(to) : to;
            rebased[to] = mx_e4m3_rebase(values[from], int(base) - int(s[(to % cols) / kMxBlock]));
        }
    }
}

std::vector<uint8_t> interleave_mxfp8_words(std::span<const uint8_t> values) {
    if (values.size() % kMxBlock != 0)
        throw std::invalid_argument("interleave_mxfp8_words: " + std::to_string(values.size()) +
                                    " bytes are not whole 32-byte blocks");
    std::vector<uint8_t> out(values.size());
    for (std::size_t to = 0; to < out.size(); ++to) out[to] = values[interleaved_source(to)];
    return out;
}

namespace {

// Each row's base: its largest block scale.
void row_bases(std::span<const uint8_t> scales, int rows, std::size_t k32_count, std::span<uint8_t> bases) {
    for (int r = 0; r < rows; ++r) {
        const uint8_t* s = scales.data() + r * k32_count;
        bases[r] = *std::max_element(s, s + k32_count);
    }
}

// f(row, k, code) for every element of [rows, K] weights in the kernel layout (coded values
// [rows/8][K/128][512 bytes]), in the order weight_rebase.hip reads them: 16-byte vectors of 32
// elements.
template <class F>
void for_each_coded_element(std::span<const uint8_t> coded, int rows, int K, F f) {
    const int k128_count = K / 128;
    for (std::size_t v = 0; v < std::size_t(rows) * K / 32; ++v) {
        const int lane = int(v % 32), t = lane % 4, k128 = int(v / 32 % k128_count);
        const std::size_t row = v / 32 / k128_count * 8 + lane / 4;
        for (int kb = 0; kb < 4; ++kb) {
            const moetune_u32 word = mx_e4m3_word(coded.data() + v * 16 + 4 * kb);
            const int k0 = 128 * k128 + 32 * kb + 8 * t;
            for (int j = 0; j < 8; ++j) f(row, k0 + j, mx_e2m1_coded_element(word, j));
        }
    }
}

}  // namespace

void rebase_coded_weights(std::span<const uint8_t> coded, std::span<const uint8_t> scales, int rows, int K,
                          std::span<uint8_t> rebased, std::span<uint8_t> bases) {
    const std::size_t n = std::size_t(rows) * K, k32_count = std::size_t(K) / kMxBlock;
    if (rows % 8 != 0 || K % 128 != 0 || coded.size() != n / 2 || rebased.size() != n ||
        scales.size() != std::size_t(rows) * k32_count || bases.size() != std::size_t(rows))
        throw std::invalid_argument("rebase_coded_weights: sizes do not match [" + std::to_string(rows) + ", " +
                                    std::to_string(K) + "]");
    row_bases(scales, rows, k32_count, bases);
    for_each_coded_element(coded, rows, K, [&](std::size_t row, int k, unsigned code) {
        rebased[mx_rebased_weight_offset(rows, K, row, k)] =
            mx_e2m1_rebase(code, scales[row * k32_count + k / kMxBlock], bases[row]);
    });
}

void fp4_weight_blocks(std::span<const uint8_t> coded, std::span<const uint8_t> scales, int rows, int K,
                       std::span<uint8_t> blocks, std::span<uint8_t> bases) {
    const std::size_t n = std::size_t(rows) * K, k32_count = std::size_t(K) / kMxBlock;
    if (rows % kMxFp4BlockRows != 0 || K % 128 != 0 || coded.size() != n / 2 ||
        blocks.size() != std::size_t(rows) * std::size_t(mx_fp4_blocks_row_bytes(K)) ||
        scales.size() != std::size_t(rows) * k32_count || bases.size() != std::size_t(rows))
        throw std::invalid_argument("fp4_weight_blocks: sizes do not match [" + std::to_string(rows) + ", " +
                                    std::to_string(K) + "]");
    row_bases(scales, rows, k32_count, bases);
    std::fill(blocks.begin(), blocks.end(), uint8_t(0));
    for (int r = 0; r < rows; ++r)
        for (std::size_t b = 0; b < k32_count; ++b)
            blocks[mx_fp4_table_row_offset(K, r, int(b * kMxBlock))] =
                uint8_t(mx_e2m1_e4m3_shift_row(scales[r * k32_count + b], bases[r]));
    // Each code into its word of 8 (4 bytes from element k - k % 8) with its sign split off: the split
    // moves bits only, so a word's split is the OR of its codes' splits.
    for_each_coded_element(coded, rows, K, [&](std::size_t row, int k, unsigned code) {
        uint8_t* word = blocks.data() + mx_fp4_code_offset(K, row, k - k % 8);
        const uint32_t bits = mx_e2m1x8_split_signs(uint32_t(code) << (4 * (k % 8)));
        for (int b = 0; b < 4; ++b) word[b] |= uint8_t(bits >> (8 * b));
    });
}

}  // namespace moetune::formats
