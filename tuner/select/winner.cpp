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

Selection select_winner(const std::vector<CandidateResult>& results, double err_ratio, const HandoffCost& cost) {
    Selection s;
    // Fastest passing kernel per (block_m, stage, kind); std::map keeps block_m ascending.
    std::map<int, std::array<std::map<int, StagePick>, 2>> best;
    for (const CandidateResult& r : results) {
        // Failed, untimed, over the error ratio, or not a stage of a two-stage MoE: never picked.
        if (!passes(r, err_ratio) || (r.stage != 1 && r.stage != 2)) continue;
        const StagePick pick{r.kernel_name, r.us, r.err};
        auto [it, inserted] = best[r.block_m][r.stage - 1].try_emplace(r.kind, pick);
        if (!inserted && better_pick(r, it->second)) it->second = pick;
    }

    std::vector<PairChoice> pairs;  // the best of each block_m
    for (const auto& [block_m, stages] : best) {
        std::optional<PairChoice> best_here;
        for (const auto& [output, stage1] : stages[0])
            for (const auto& [input, stage2] : stages[1]) {
                const std::optional<double> handoff = cost ? cost(output, input) : std::optional<double>(0.0);
                if (!handoff) continue;
                const PairChoice pair{block_m, stage1, stage2, *handoff};
                if (!best_here || better_pair(pair, *best_here)) best_here = pair;
            }
        if (best_here) pairs.push_back(*best_here);
        else s.unpaired_block_m.push_back(block_m);
    }
    std::sort(pairs.begin(), pairs.end(), better_pair);
    if (!pairs.empty()) s.winner = pairs[0];
    if (pairs.size() > 1) s.runner_up = pairs[1];
    return s;
}

}  // namespace moetune::select
