#include "select/clock_recheck.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "common/clock_range.h"

namespace moetune::select {
namespace {

struct Group {
    double fastest_us = std::numeric_limits<double>::infinity();
    ClockRange clocks;
};

}  // namespace

std::vector<std::size_t> clock_recheck(const std::vector<CandidateResult>& results, double err_ratio,
                                       double tolerance) {
    using Key = std::tuple<int, int, int>;  // stage, block_m, kind: what the winner rule compares
    std::map<Key, Group> groups;
    for (const CandidateResult& r : results) {
        if (!passes(r, err_ratio)) continue;
        Group& g = groups[{r.stage, r.block_m, r.kind}];
        g.fastest_us = std::min(g.fastest_us, r.us);
        g.clocks.add(r.sm_mhz_before);
        g.clocks.add(r.sm_mhz_after);
    }
    std::map<Key, std::vector<std::size_t>> contenders;
    for (std::size_t i = 0; i < results.size(); ++i) {
        const CandidateResult& r = results[i];
        if (!passes(r, err_ratio)) continue;
        const Key key{r.stage, r.block_m, r.kind};
        const Group& g = groups.at(key);
        const double q = g.clocks.ratio();
        if (q > 1 + tolerance && r.us <= q * g.fastest_us) contenders[key].push_back(i);
    }
    std::vector<std::size_t> recheck;
    for (const auto& [key, indices] : contenders)
        if (indices.size() >= 2) recheck.insert(recheck.end(), indices.begin(), indices.end());
    std::sort(recheck.begin(), recheck.end());
    return recheck;
}

}  // namespace moetune::select
