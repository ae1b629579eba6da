#include "data/moe_sorting.h"

#include <stdexcept>
#include <vector>

namespace moetune::data {

SortedRouting moe_sorting_cpu(const Routing& routing, int experts, int block_m) {
    const int tokens = routing.tokens, topk = routing.topk;
    if (block_m <= 0 || experts <= 0 || topk <= 0 || topk >= 256 || tokens < 0 || tokens >= (1 << 24))
        throw std::invalid_argument("moe_sorting_cpu: need block_m > 0, experts > 0, 0 < topk < 256, 0 <= M < 2^24");
    if (routing.ids.size() != size_t(tokens) * size_t(topk) || routing.weights.size() != routing.ids.size())
        throw std::invalid_argument("moe_sorting_cpu: routing ids/weights are not [M, topk]");

    // Count per expert, then give each expert a segment rounded up to whole blocks.
    std::vector<int64_t> count(size_t(experts), 0);
    for (int32_t e : routing.ids) {
        if (e < 0 || e >= experts) throw std::invalid_argument("moe_sorting_cpu: expert id out of range");
        ++count[size_t(e)];
    }
    std::vector<int64_t> segment_start(size_t(experts) + 1, 0);
    for (int e = 0; e < experts; ++e)
        segment_start[size_t(e) + 1] = segment_start[size_t(e)] + (count[size_t(e)] + block_m - 1) / block_m * block_m;

    SortedRouting out;
    out.block_m = block_m;
    const int64_t length = max_num_tokens_padded(tokens, topk, experts, block_m);
    out.sorted_token_ids.assign(size_t(length), sorted_padding_entry(tokens, topk));
    out.sorted_weights.assign(size_t(length), 0.0f);
    out.sorted_expert_ids.assign(size_t(max_num_m_blocks(tokens, topk, experts, block_m)), -1);

    // Scanning tokens in order, then slots, fills each segment in ascending (token, slot) order.
    std::vector<int64_t> next(segment_start.begin(), segment_start.end() - 1);
    for (int t = 0; t < tokens; ++t) {
        for (int s = 0; s < topk; ++s) {
            const size_t i = size_t(t) * size_t(topk) + size_t(s);
            const size_t pos = size_t(next[size_t(routing.ids[i])]++);
            out.sorted_token_ids[pos] = sorted_entry(t, s);
            out.sorted_weights[pos] = routing.weights[i];
        }
    }
    for (int e = 0; e < experts; ++e)
        for (int64_t b = segment_start[size_t(e)] / block_m; b < segment_start[size_t(e) + 1] / block_m; ++b)
            out.sorted_expert_ids[size_t(b)] = e;

    out.num_valid_ids[0] = int32_t(segment_start[size_t(experts)]);
    out.num_valid_ids[1] = tokens;
    return out;
}

}  // namespace moetune::data
