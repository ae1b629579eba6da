#include "kernels/compile_plan.h"

#include <map>
#include <set>
#include <string>

#include "kernels/kernel_name.h"

namespace moetune::kernels {

CompilePlan plan_compile(const std::vector<data::MoeShape>& shapes, const DeviceLimits& limits,
                         const EnumerationOptions& options) {
    CompilePlan plan;
    for (Stage stage : {Stage::gate_up, Stage::down}) {
        std::set<std::string> kept;
        std::map<std::string, std::string> first_reason;  // kernel name -> reason at the first shape
        for (const data::MoeShape& shape : shapes) {
            const CandidateList list = enumerate_candidates(stage, shape, limits, options);
            for (const KernelConfig& c : list.kept) kept.insert(kernel_name(c));
            for (const PrunedConfig& p : list.pruned) first_reason.emplace(kernel_name(p.config), p.reason);
        }
        if (shapes.empty()) continue;
        for (const KernelConfig& c : search_space(stage, options.mma_paths)) {
            const std::string name = kernel_name(c);
            if (kept.count(name)) plan.kernels.push_back(c);
            else plan.pruned.push_back({c, first_reason.at(name)});
        }
    }
    return plan;
}

}  // namespace moetune::kernels
