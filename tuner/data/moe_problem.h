#pragma once
// The plain data every MoE stage hands to the next: shape, routing, the moe_sorting result and the
// quantized inputs, all in *logical* (unshuffled, row-major) layouts. Kernel-specific layouts are
// made from these by tuner/formats/weight_layout.h. Semantics: ../shared/reference/aiter-fmoe-format.md §4-§5.
#include <cstdint>
#include <vector>

namespace moetune::data {

struct MoeShape {
    int tokens = 0;     // M
    int model_dim = 0;  // K of stage 1, N of stage 2
    int inter_dim = 0;  // N of stage 1 per gate/up half, K of stage 2
    int experts = 0;    // local experts E
    int topk = 0;
};

// Top-k routing, row-major [tokens, topk]: ids[t*topk + s] is the expert of slot s of token t.
struct Routing {
    int tokens = 0;
    int topk = 0;
    std::vector<int32_t> ids;
    std::vector<float> weights;
};

// AITER moe_sorting output (§5). Entries are (slot << 24) | token; each expert's segment is padded
// to a multiple of block_m with (topk << 24) | M and weight 0.
struct SortedRouting {
    int block_m = 0;
    std::vector<int32_t> sorted_token_ids;   // max_num_tokens_padded entries
    std::vector<float> sorted_weights;       // same length
    std::vector<int32_t> sorted_expert_ids;  // one per block: ceil(max_num_tokens_padded / block_m)
    int32_t num_valid_ids[2] = {0, 0};       // {padded length actually used, M}
};

inline int64_t max_num_tokens_padded(int tokens, int topk, int experts, int block_m) {
    return int64_t(tokens) * topk + int64_t(experts) * block_m - topk;
}
inline int64_t max_num_m_blocks(int tokens, int topk, int experts, int block_m) {
    return (max_num_tokens_padded(tokens, topk, experts, block_m) + block_m - 1) / block_m;
}

// An MX-quantized matrix [rows, cols]: e4m3fn (or packed e2m1) values plus one e8m0 scale per
// 32 consecutive elements of a row.
struct MxfpMatrix {
    int rows = 0;
    int cols = 0;                 // logical elements per row (a multiple of 32)
    std::vector<uint8_t> values;  // fp8: rows*cols bytes; fp4x2: rows*cols/2 bytes (even element in the low nibble)
    std::vector<uint8_t> scales;  // rows * cols/32 e8m0 bytes
};

// MXFP4 expert weights in logical layout.
//   w1: [E, 2*inter, model_dim] fp4x2 + e8m0 [E, 2*inter, model_dim/32]; rows [0, inter) are the gate
//       projection, rows [inter, 2*inter) the up projection (AITER's un-shuffled GGUU order).
//   w2: [E, model_dim, inter] fp4x2 + e8m0 [E, model_dim, inter/32].
struct MoeWeights {
    std::vector<uint8_t> w1;
    std::vector<uint8_t> w1_scale;
    std::vector<uint8_t> w2;
    std::vector<uint8_t> w2_scale;
};

}  // namespace moetune::data
