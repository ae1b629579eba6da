#pragma once
// Candidate enumeration: the search space of each stage, pruned statically for one shape at one
// token count before anything is compiled. Every pruned config keeps its reason (`candidates -v`).
#include <string>
#include <vector>

#include "data/moe_problem.h"
#include "kernels/device_limits.h"
#include "kernels/kernel_config.h"

namespace moetune::kernels {

struct EnumerationOptions {
    // Apply shape_heuristics.h's block_m prune; off keeps every config that can run.
    bool heuristics = true;
};

struct PrunedConfig {
    KernelConfig config;
    std::string reason;
};

struct CandidateList {
    std::vector<KernelConfig> kept;  // in search-space order
    std::vector<PrunedConfig> pruned;
};

// Every config moetune tries for a stage, before pruning (see candidates.cpp for the choice).
std::vector<KernelConfig> search_space(Stage stage);

// The search space of `stage` for `shape` (shape.tokens = token count) on `limits`: hard static
// checks first (static_checks.h), then the block_m heuristic when enabled.
// Throws std::invalid_argument when shape_error(shape) is set.
CandidateList enumerate_candidates(Stage stage, const data::MoeShape& shape, const DeviceLimits& limits,
                                   const EnumerationOptions& options = {});

}  // namespace moetune::kernels
