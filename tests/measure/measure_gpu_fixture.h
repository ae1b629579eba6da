#pragma once
// Shared by the GPU tests of the harness: DSv4.1-Flash tasks, candidates picked from the real
// enumeration (so the tests follow the search space), and a kernel cache that outlives the test run
// (re-runs skip compiling).
#include <functional>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "kernels/candidates.h"
#include "kernels/device_limits.h"
#include "kernels/kernel_name.h"
#include "instantiate/kernel_request.h"
#include "measure/harness_kernels.h"
#include "measure/measure_task.h"
#include "rtc/compiler.h"
#include "rtc/kernel_cache.h"
#include "support/catch.hpp"

namespace moetune::test {

inline data::MoeShape dsv41(int tokens) { return {tokens, 5120, 2304, 96, 5}; }

inline const std::string& device_arch() {
    static const std::string arch = gpu::device_info(0).arch;
    return arch;
}

inline std::vector<kernels::KernelConfig> candidates(kernels::Stage stage, int tokens) {
    const auto limits = kernels::device_limits_for_arch(device_arch());
    REQUIRE(limits);
    return kernels::enumerate_candidates(stage, dsv41(tokens), *limits).kept;
}

// The first candidate of `stage` at `tokens` that `pick` accepts.
inline kernels::KernelConfig candidate(kernels::Stage stage, int tokens,
                                       const std::function<bool(const kernels::KernelConfig&)>& pick) {
    for (const kernels::KernelConfig& c : candidates(stage, tokens))
        if (pick(c)) return c;
    FAIL("no stage-" << kernels::stage_number(stage) << " candidate at " << tokens << " tokens fits the test");
    return {};
}

inline measure::MeasureTask task_for(const kernels::KernelConfig& c, int tokens) {
    measure::MeasureTask t;
    t.shape = dsv41(tokens);
    t.seed = 20261130;
    t.kernel_name = kernels::kernel_name(c);
    t.arch = device_arch();
    t.cache_dir = MOETUNE_TEST_KERNEL_CACHE;
    return t;
}

// Compiles a task's kernel and a worker's support kernels into the test cache, so a worker started
// for the task spends its timeout on the task, not on the compiler.
inline void precompile(const measure::MeasureTask& t) {
    const rtc::KernelCache cache(t.cache_dir);
    for (const rtc::CompileRequest& r : measure::worker_support_requests(t.arch)) rtc::compile(r, &cache);
    rtc::compile(
        instantiate::kernel_compile_request(*kernels::parse_kernel_name(t.kernel_name), t.arch, t.test_break), &cache);
}

}  // namespace moetune::test
