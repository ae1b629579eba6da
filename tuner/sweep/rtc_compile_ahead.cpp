#include "sweep/rtc_compile_ahead.h"

#include <exception>

#include "kernels/kernel_name.h"
#include "instantiate/kernel_request.h"
#include "measure/failure.h"

namespace moetune::sweep {

RtcCompileAhead::RtcCompileAhead(rtc::CompilePool& pool, std::string arch, int test_break)
    : pool_(pool), arch_(std::move(arch)), test_break_(test_break) {}

void RtcCompileAhead::start(const std::vector<kernels::KernelConfig>& configs) {
    for (const kernels::KernelConfig& c : configs) {
        const std::string name = kernels::kernel_name(c);
        if (running_.count(name) || finished_.count(name)) continue;
        try {
            running_.emplace(name, pool_.submit(instantiate::kernel_compile_request(c, arch_, test_break_)));
        } catch (const std::exception& e) {  // a config compile_definitions rejects
            finished_.emplace(name, measure::failure_text("compile", e.what()));
        }
    }
}

std::map<std::string, std::string> RtcCompileAhead::wait(const std::vector<kernels::KernelConfig>& configs) {
    start(configs);
    std::map<std::string, std::string> failures;
    for (const kernels::KernelConfig& c : configs) {
        const std::string name = kernels::kernel_name(c);
        if (auto it = running_.find(name); it != running_.end()) {
            std::string outcome;
            try {
                it->second.get();
            } catch (const std::exception& e) {
                outcome = measure::failure_text("compile", e.what());
            }
            running_.erase(it);
            finished_.emplace(name, std::move(outcome));
        }
        if (const std::string& outcome = finished_.at(name); !outcome.empty()) failures.emplace(name, outcome);
    }
    return failures;
}

}  // namespace moetune::sweep
