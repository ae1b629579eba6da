#pragma once
// The summary of a batch compile: how many kernels were built, loaded, pruned for spills or
// failed, and the time per kernel of compiling and of a cache hit.
#include <cstddef>
#include <optional>
#include <vector>

#include "instantiate/batch_compile.h"

namespace moetune::instantiate {

struct TimeStats {
    std::size_t count = 0;
    double mean = 0, median = 0, max = 0;  // seconds
};

// nullopt for no samples. The median of an even count is the mean of the middle two.
std::optional<TimeStats> time_stats(std::vector<double> seconds);

struct CompileSummary {
    std::size_t kernels = 0;
    std::size_t compiled = 0;   // built now and usable
    std::size_t cache_hits = 0; // loaded and usable
    std::size_t spills = 0;     // pruned after compiling
    std::size_t failed = 0;
    std::size_t built_now = 0;  // compiled + spilled kernels the compiler ran for in this batch
    // Compiler time per kernel over every kernel with code (built now, or when its cache entry was).
    std::optional<TimeStats> compile;
    // Lookup time of the cache hits.
    std::optional<TimeStats> cache_hit;
};

CompileSummary summarize(const std::vector<KernelOutcome>& outcomes);

}  // namespace moetune::instantiate
