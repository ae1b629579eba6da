#include "data_gpu/moe_sorting_gpu.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "data_gpu/launch_grid.h"

namespace moetune::data {
namespace {

constexpr int kChunk = kernel_names::kSortThreads * kernel_names::kSortItems;
// Shared memory per expert: moe_sort_place's group counts (8 bytes), segment starts, totals and
// cursors (4 each); the one-launch kernel adds its histogram (4).
constexpr std::size_t kPlaceSharedBytesPerExpert = 20;
constexpr std::size_t kOneChunkSharedBytesPerExpert = kPlaceSharedBytesPerExpert + 4;
// The one-launch kernel's shared memory must stay within the 48 KB every target grants.
constexpr int kMaxExperts = static_cast<int>(48 * 1024 / kOneChunkSharedBytesPerExpert);

// At least one chunk: block 0 of the scatter kernel also writes padding, tail and num_valid_ids.
int chunk_count(int tokens, int topk) {
    const long long entries = static_cast<long long>(tokens) * topk;
    return static_cast<int>(std::max(1LL, (entries + kChunk - 1) / kChunk));
}

}  // namespace

DeviceSortedRouting allocate_sorted_routing(int tokens, int topk, int experts, int block_m) {
    if (block_m <= 0 || experts <= 0 || topk <= 0 || topk >= 256 || tokens < 0 || tokens >= (1 << 24))
        throw std::invalid_argument("moe_sorting_gpu: need block_m > 0, experts > 0, 0 < topk < 256, 0 <= M < 2^24");
    if (experts > kMaxExperts)
        throw std::invalid_argument("moe_sorting_gpu: at most " + std::to_string(kMaxExperts) + " experts");
    // The kernels index with 32-bit ints.
    if (max_num_tokens_padded(tokens, topk, experts, block_m) >= (1LL << 31))
        throw std::invalid_argument("moe_sorting_gpu: M*topk + experts*block_m must stay below 2^31");
    DeviceSortedRouting s;
    s.tokens = tokens;
    s.topk = topk;
    s.experts = experts;
    s.block_m = block_m;
    const auto padded = static_cast<std::size_t>(max_num_tokens_padded(tokens, topk, experts, block_m));
    s.sorted_token_ids = gpu::DeviceBuffer<int32_t>(padded);
    s.sorted_weights = gpu::DeviceBuffer<float>(padded);
    s.sorted_expert_ids =
        gpu::DeviceBuffer<int32_t>(static_cast<std::size_t>(max_num_m_blocks(tokens, topk, experts, block_m)));
    s.num_valid_ids = gpu::DeviceBuffer<int32_t>(2);
    s.chunk_counts = gpu::DeviceBuffer<int32_t>(static_cast<std::size_t>(chunk_count(tokens, topk)) * experts);
    return s;
}

void moe_sorting_gpu(const DataKernels& kernels, const DeviceRoutingView& routing, DeviceSortedRouting& out,
                     const gpu::Stream& stream, void* moe_buf, std::size_t moe_buf_bytes) {
    using namespace kernel_names;
    if (routing.tokens > out.tokens || routing.tokens < 0 || routing.topk != out.topk)
        throw std::invalid_argument("moe_sorting_gpu: the output was allocated for up to " +
                                    std::to_string(out.tokens) + " tokens x topk " + std::to_string(out.topk) +
                                    ", the routing has " + std::to_string(routing.tokens) + " x " +
                                    std::to_string(routing.topk));
    // Sizes of this routing: the tail past them is left as it is, and no consumer reads it.
    const int tokens = routing.tokens;
    const int entries = tokens * out.topk;
    const int chunks = chunk_count(tokens, out.topk);
    const int max_padded = static_cast<int>(max_num_tokens_padded(tokens, out.topk, out.experts, out.block_m));
    const int max_blocks = static_cast<int>(max_num_m_blocks(tokens, out.topk, out.experts, out.block_m));
    const unsigned long long zero_bytes = moe_buf ? moe_buf_bytes : 0;
    auto* zero_ptr = static_cast<unsigned char*>(moe_buf);

    const std::size_t int_bytes = sizeof(int);
    if (chunks == 1) {  // one launch: block 0 sorts, the others zero moe_buf (16 bytes per thread and step)
        const unsigned zero_blocks = zero_bytes ? grid_stride_blocks(zero_bytes / 16, kSortThreads) : 0;
        kernels.kernel(kSortOneChunk)
            .launch({{1 + zero_blocks}, {kSortThreads}, kOneChunkSharedBytesPerExpert * out.experts},
                    stream, routing.ids, routing.weights, tokens, out.topk, out.experts, out.block_m, max_padded,
                    max_blocks, out.sorted_token_ids.data(), out.sorted_weights.data(), out.sorted_expert_ids.data(),
                    out.num_valid_ids.data(), zero_ptr, zero_bytes);
        return;
    }
    // Blocks past the chunks only zero moe_buf (16 bytes per thread and step).
    const unsigned blocks =
        std::max<unsigned>(static_cast<unsigned>(chunks), grid_stride_blocks(zero_bytes / 16, kSortThreads));
    kernels.kernel(kSortCount)
        .launch({{blocks}, {kSortThreads}, static_cast<std::size_t>(out.experts) * int_bytes}, stream, routing.ids,
                entries, out.experts, chunks, out.chunk_counts.data(), zero_ptr, zero_bytes);
    kernels.kernel(kSortScatter)
        .launch(
            {{static_cast<unsigned>(chunks)}, {kSortThreads}, kPlaceSharedBytesPerExpert * out.experts},
            stream, routing.ids, routing.weights, tokens, out.topk, out.experts, out.block_m, chunks,
            out.chunk_counts.data(), max_padded, max_blocks, out.sorted_token_ids.data(), out.sorted_weights.data(),
            out.sorted_expert_ids.data(), out.num_valid_ids.data());
}

void moe_sorting_gpu(const DataKernels& kernels, const DeviceRouting& routing, DeviceSortedRouting& out,
                     const gpu::Stream& stream, void* moe_buf, std::size_t moe_buf_bytes) {
    const DeviceRoutingView view{routing.ids.data(), routing.weights.data(), routing.tokens, routing.topk};
    moe_sorting_gpu(kernels, view, out, stream, moe_buf, moe_buf_bytes);
}

SortedRouting moe_sorting_gpu(const DataKernels& kernels, const Routing& routing, int experts, int block_m) {
    DeviceSortedRouting out = allocate_sorted_routing(routing.tokens, routing.topk, experts, block_m);
    const DeviceRouting device_routing = upload(routing);
    const gpu::Stream stream;
    moe_sorting_gpu(kernels, device_routing, out, stream);
    stream.synchronize();
    return download(out);
}

}  // namespace moetune::data
