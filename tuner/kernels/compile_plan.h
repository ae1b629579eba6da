#pragma once
// The kernels a set of shapes needs, each once. A config's binary does not depend on the shape or
// the token count (those are kernel arguments), so the 15 token buckets of one shape, which share
// most of their candidates, compile each of them once: `moetune compile` builds exactly this list.
#include <vector>

#include "data/moe_problem.h"
#include "kernels/candidates.h"
#include "kernels/device_limits.h"

namespace moetune::kernels {

struct CompilePlan {
    // Every config some shape keeps: stage 1, then stage 2, each in search-space order.
    std::vector<KernelConfig> kernels;
    // Configs of the search space no shape keeps, with the reason of the first shape.
    std::vector<PrunedConfig> pruned;
};

// Throws std::invalid_argument when a shape has shape_error (as enumerate_candidates).
CompilePlan plan_compile(const std::vector<data::MoeShape>& shapes, const DeviceLimits& limits,
                         const EnumerationOptions& options = {});

}  // namespace moetune::kernels
