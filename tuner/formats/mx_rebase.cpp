#include "formats/mx_rebase.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/mx_bf16_widen.h"
#include "common/mx_rebase.h"
#include "common/rebased_weight_layout.h"
#include "formats/mx_quantize.h"

namespace moetune::formats {

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
            // Stored word p of a block holds the block's word mx_interleaved_source_word(p).
            const int p = int(to % kMxBlock) / 4;
            const std::size_t from =
                interleave_words ? to - to % kMxBlock + std::size_t(4 * mx_interleaved_source_word(p)) + to % 4 : to;
            rebased[to] = mx_e4m3_rebase(values[from], int(base) - int(s[(to % cols) / kMxBlock]));
        }
    }
}

void rebase_coded_weights(std::span<const uint8_t> coded, std::span<const uint8_t> scales, int rows, int K,
                          std::span<uint8_t> rebased, std::span<uint8_t> bases) {
    const std::size_t n = std::size_t(rows) * K, k32_count = std::size_t(K) / kMxBlock;
    if (rows % 8 != 0 || K % 128 != 0 || coded.size() != n / 2 || rebased.size() != n ||
        scales.size() != std::size_t(rows) * k32_count || bases.size() != std::size_t(rows))
        throw std::invalid_argument("rebase_coded_weights: sizes do not match [" + std::to_string(rows) + ", " +
                                    std::to_string(K) + "]");
    for (int r = 0; r < rows; ++r) {
        const uint8_t* s = scales.data() + r * k32_count;
        bases[r] = *std::max_element(s, s + k32_count);
    }
    const int k128_count = K / 128;
    for (std::size_t v = 0; v < n / 32; ++v) {  // 16-byte vectors of 32 elements (weight_rebase.hip)
        const int lane = int(v % 32), t = lane % 4, k128 = int(v / 32 % k128_count);
        const std::size_t row = v / 32 / k128_count * 8 + lane / 4;
        for (int kb = 0; kb < 4; ++kb) {
            const moetune_u32 word = mx_e4m3_word(coded.data() + v * 16 + 4 * kb);
            const int k0 = 128 * k128 + 32 * kb + 8 * t;
            for (int j = 0; j < 8; ++j)
                rebased[mx_rebased_weight_offset(rows, K, row, k0 + j)] =
                    mx_e2m1_rebase(mx_e2m1_coded_element(word, j), scales[row * k32_count + k0 / 32], bases[row]);
        }
    }
}

}  // namespace moetune::formats
