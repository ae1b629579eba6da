#pragma once
// The reference workload (performance-anchors.md): DeepSeek-V4.1-Flash EP4.
#include "data/moe_problem.h"

namespace moetune::test {

inline data::MoeShape dsv41_flash_ep4(int tokens) {
    data::MoeShape s;
    s.tokens = tokens;
    s.model_dim = 5120;
    s.inter_dim = 2304;
    s.experts = 96;
    s.topk = 5;
    return s;
}

// AITER's reachable buckets up to 16384 (powers of two).
inline constexpr int kBuckets[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};

}  // namespace moetune::test
