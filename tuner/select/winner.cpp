#include "select/winner.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

namespace moetune::select {
namespace {

// Faster first; equal times -> the smaller name (deterministic, independent of result order).
bool better_pick(const CandidateResult& a, const StagePick& b) {
    return std::tie(a.us, a.kernel_name) < std::tie(b.us, b.kernel_name);
}

bool better_pair(const PairChoice& a, const PairChoice& b) {
    const double ua = a.us(), ub = b.us();
    return std::tie(ua, a.block_m, a.stage1.kernel_name, a.stage2.kernel_name) <
           std::tie(ub, b.block_m, b.stage1.kernel_name, b.stage2.kernel_name);
}

}  // namespace

bool measured(const CandidateResult& r) { return r.ok && std::isfinite(r.us) && r.us > 0; }

bool passes(const CandidateResult& r, double err_ratio) {
    return measured(r) && r.err <= err_ratio;  // a NaN err compares false: rejected
}

Selection select_winner(const std::vector<CandidateResult>& results, double err_ratio) {
    Selection s;
    // Fastest passing kernel per (block_m, stage); std::map keeps block_m ascending.
    std::map<int, std::array<std::optional<StagePick>, 2>> best;
    for (const CandidateResult& r : results) {
        // Failed, untimed, over the error ratio, or not a stage of a two-stage MoE: never picked.
        if (!passes(r, err_ratio) || (r.stage != 1 && r.stage != 2)) continue;
        std::optional<StagePick>& slot = best[r.block_m][r.stage - 1];
        if (!slot || better_pick(r, *slot)) slot = StagePick{r.kernel_name, r.us, r.err};
    }

    std::vector<PairChoice> pairs;
    for (const auto& [block_m, stages] : best) {
        if (!stages[0] || !stages[1]) {
            s.unpaired_block_m.push_back(block_m);
            continue;
        }
        pairs.push_back({block_m, *stages[0], *stages[1]});
    }
    std::sort(pairs.begin(), pairs.end(), better_pair);
    if (!pairs.empty()) s.winner = pairs[0];
    if (pairs.size() > 1) s.runner_up = pairs[1];
    return s;
}

}  // namespace moetune::select
