#include "select/clock_recheck.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

namespace moetune::select {
namespace {

struct Group {
    double fastest_us = std::numeric_limits<double>::infinity();
    double low_mhz = std::numeric_limits<double>::infinity();
    double high_mhz = 0;
    // How far a time taken at one reading can be from one taken at another (1 when all agree).
    double clock_ratio() const { return high_mhz > 0 ? high_mhz / low_mhz : 1.0; }
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
        for (double mhz : {r.sm_mhz_before, r.sm_mhz_after})
            if (mhz > 0) {
                g.low_mhz = std::min(g.low_mhz, mhz);
                g.high_mhz = std::max(g.high_mhz, mhz);
            }
    }
    std::map<Key, std::vector<std::size_t>> contenders;
    for (std::size_t i = 0; i < results.size(); ++i) {
        const CandidateResult& r = results[i];
        if (!passes(r, err_ratio)) continue;
        const Key key{r.stage, r.block_m, r.kind};
        const Group& g = groups.at(key);
        const double q = g.clock_ratio();
        if (q > 1 + tolerance && r.us <= q * g.fastest_us) contenders[key].push_back(i);
    }
    std::vector<std::size_t> recheck;
    for (const auto& [key, indices] : contenders)
        if (indices.size() >= 2) recheck.insert(recheck.end(), indices.begin(), indices.end());
    std::sort(recheck.begin(), recheck.end());
    return recheck;
}

}  // namespace moetune::select
