#include "instantiate/compile_stats.h"

#include <algorithm>
#include <numeric>

#include "common/median.h"

namespace moetune::instantiate {

std::optional<TimeStats> time_stats(std::vector<double> seconds) {
    if (seconds.empty()) return std::nullopt;
    std::sort(seconds.begin(), seconds.end());
    const std::size_t n = seconds.size();
    TimeStats s;
    s.count = n;
    s.mean = std::accumulate(seconds.begin(), seconds.end(), 0.0) / double(n);
    s.median = sorted_median(seconds);
    s.max = seconds.back();
    return s;
}

CompileSummary summarize(const std::vector<KernelOutcome>& outcomes) {
    CompileSummary s;
    s.kernels = outcomes.size();
    std::vector<double> compile, hit;
    for (const KernelOutcome& o : outcomes) {
        switch (o.status) {
            case CompileStatus::compiled: ++s.compiled; break;
            case CompileStatus::cache_hit: ++s.cache_hits; break;
            case CompileStatus::spills: ++s.spills; break;
            case CompileStatus::failed: ++s.failed; break;
        }
        if (o.status != CompileStatus::failed && !o.from_cache) ++s.built_now;
        if (o.compile_seconds) compile.push_back(*o.compile_seconds);
        if (o.cache_hit_seconds) hit.push_back(*o.cache_hit_seconds);
    }
    s.compile = time_stats(std::move(compile));
    s.cache_hit = time_stats(std::move(hit));
    return s;
}

}  // namespace moetune::instantiate
