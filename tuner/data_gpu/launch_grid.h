#pragma once
// Grid size for the grid-stride kernels of tuner/data_gpu: enough blocks to fill any current GPU,
// never more than the work needs (and at least one, so empty inputs still launch validly).
#include <algorithm>
#include <cstdint>

namespace moetune::data {

inline unsigned grid_stride_blocks(std::uint64_t work_items, unsigned threads_per_block) {
    constexpr std::uint64_t kMaxBlocks = 4096;
    const std::uint64_t needed = (work_items + threads_per_block - 1) / threads_per_block;
    return static_cast<unsigned>(std::clamp<std::uint64_t>(needed, 1, kMaxBlocks));
}

}  // namespace moetune::data
