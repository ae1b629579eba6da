// Done when (issue 4 item 5): every candidate for DSv4.1-Flash at M = 1, 32 and 4096 passes the
// reference under the cosine gate, stage 1 and stage 2. All candidates are compiled in parallel into
// the test kernel cache first (instantiate::compile_kernels; kernels that spill are measured all the
// same), then measured through one worker process (a fault in one would not stop the rest). Timing
// is cut to the minimum here -- this test is about correctness; the timing is tested in
// measure_gpu_test -- and the time each phase takes is printed.
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "instantiate/batch_compile.h"
#include "measure/worker_client.h"
#include "measure_gpu_fixture.h"
#include "rtc/compiler.h"
#include "support/test_env.h"

using namespace moetune;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

TEST_CASE("every DSv4.1-Flash candidate at M = 1, 32, 4096 passes the cosine gate", "[gpu][measure][all]") {
    const int buckets[] = {1, 32, 4096};
    std::vector<measure::MeasureTask> tasks;
    for (int tokens : buckets)
        for (kernels::Stage stage : {kernels::Stage::gate_up, kernels::Stage::down})
            for (const kernels::KernelConfig& c : test::candidates(stage, tokens)) {
                measure::MeasureTask t = test::task_for(c, tokens);
                t.metric = "cosine";
                t.err_ratio = 0.1;
                t.timing = {1, 0, 1, false};
                tasks.push_back(t);
            }

    const Clock::time_point compile_start = Clock::now();
    const rtc::KernelCache cache(MOETUNE_TEST_KERNEL_CACHE);
    for (const rtc::CompileRequest& r : measure::worker_support_requests(test::device_arch())) rtc::compile(r, &cache);
    std::vector<kernels::KernelConfig> configs;  // each distinct kernel once (buckets share many)
    std::set<std::string> names;
    for (const measure::MeasureTask& t : tasks)
        if (names.insert(t.kernel_name).second) configs.push_back(*kernels::parse_kernel_name(t.kernel_name));
    instantiate::BatchCompileOptions options;
    options.arch = test::device_arch();
    options.cache = &cache;
    int spilling = 0;
    for (const instantiate::KernelOutcome& o : instantiate::compile_kernels(configs, options)) {
        INFO(o.name << ": " << o.message);
        CHECK(o.status != instantiate::CompileStatus::failed);
        if (o.status == instantiate::CompileStatus::spills) ++spilling;  // measured all the same
    }
    std::printf("compiled %zu distinct kernels for %zu tasks in %.1f s (%d spill)\n", configs.size(), tasks.size(),
                seconds_since(compile_start), spilling);

    measure::WorkerClient client(0, test::moetune_binary().string(), 300);
    std::map<int, double> bucket_seconds;
    std::map<int, int> bucket_count;
    int failed = 0;
    double worst_err = 0;
    for (const measure::MeasureTask& t : tasks) {
        const Clock::time_point start = Clock::now();
        const measure::MeasureResult r = client.run(t);
        bucket_seconds[t.shape.tokens] += seconds_since(start);
        ++bucket_count[t.shape.tokens];
        if (r.ok) worst_err = std::max(worst_err, r.err);
        else {
            ++failed;
            std::printf("FAILED M=%d %s: %s\n", t.shape.tokens, r.kernel_name.c_str(), r.failure.c_str());
        }
        INFO("M=" << t.shape.tokens << " " << r.kernel_name << ": " << r.failure);
        CHECK(r.ok);
    }
    for (int tokens : buckets)
        std::printf("M=%-5d %4d candidates measured in %6.1f s\n", tokens, bucket_count[tokens],
                    bucket_seconds[tokens]);
    std::printf("%zu candidates, %d failed, worst cosine difference of the passing ones %.5f, %d worker restarts\n",
                tasks.size(), failed, worst_err, client.restarts());
    CHECK(client.restarts() == 0);
}
