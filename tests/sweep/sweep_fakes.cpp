#include "sweep_fakes.h"

#include "kernels/kernel_name.h"

namespace moetune::test {

std::map<std::string, std::string> FakeCompileAhead::wait(const std::vector<kernels::KernelConfig>& configs) {
    if (events && !configs.empty()) events->push_back("wait " + std::to_string(configs.size()));
    std::map<std::string, std::string> failed;
    for (const kernels::KernelConfig& c : configs)
        if (auto it = failing.find(kernels::kernel_name(c)); it != failing.end()) failed.insert(*it);
    return failed;
}

measure::MeasureResult passing(const measure::MeasureTask& task, double us) {
    measure::MeasureResult r;
    r.kernel_name = task.kernel_name;
    r.ok = true;
    r.us = us;
    r.err = 0.0;
    r.spread_pct = 1.5;
    return r;
}

measure::MeasureResult failing(const measure::MeasureTask& task, const std::string& failure) {
    measure::MeasureResult r;
    r.kernel_name = task.kernel_name;
    r.failure = failure;
    return r;
}

}  // namespace moetune::test
