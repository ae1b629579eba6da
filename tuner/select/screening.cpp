#include "select/screening.h"

#include <map>
#include <stdexcept>
#include <tuple>

namespace moetune::select {

std::vector<std::size_t> screening_finalists(const std::vector<CandidateResult>& results, double err_ratio,
                                             double margin) {
    if (!(margin >= 1.0)) throw std::invalid_argument("the screening margin must be >= 1");
    std::map<std::tuple<int, int, int>, double> fastest;  // (stage, block_m, kind) -> us
    for (const CandidateResult& r : results) {
        if (!passes(r, err_ratio)) continue;
        auto [it, inserted] = fastest.try_emplace({r.stage, r.block_m, r.kind}, r.us);
        if (!inserted && r.us < it->second) it->second = r.us;
    }
    std::vector<std::size_t> finalists;
    for (std::size_t i = 0; i < results.size(); ++i) {
        const CandidateResult& r = results[i];
        if (passes(r, err_ratio) && r.us <= margin * fastest.at({r.stage, r.block_m, r.kind})) finalists.push_back(i);
    }
    return finalists;
}

}  // namespace moetune::select
