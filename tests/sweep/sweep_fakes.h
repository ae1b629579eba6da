#pragma once
// Stand-ins for the GPU side of a sweep, so the driver's logic (resume, atomic output, selection,
// compile-ahead order, failures) is tested on any host: a task runner with canned results, a
// compile-ahead that records what it was asked, and the reference shape file's plan.
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/device_limits.h"
#include "measure/measure_task.h"
#include "support/test_env.h"
#include "sweep/compile_ahead.h"
#include "sweep/plan.h"
#include "sweep/task_runner.h"
#include "table/table_reader.h"

namespace moetune::test {


// gfx950 so the rows pass today's `check` (tests of the NVIDIA stamp say so explicitly); the
// limits are the H200's, which decide the candidates.
inline sweep::PlanTarget test_target() {
    return {"gfx950", 256, *kernels::device_limits_for_arch("sm_90a")};
}

// The reference shapes at the given buckets.
inline std::vector<sweep::PlanEntry> reference_plan(const std::vector<long long>& buckets) {
    const auto requests = sweep::read_plan_requests(table::read_table(reference_shapes_file()), buckets);
    return sweep::build_plan(requests.requests, test_target());
}

// Answers each task with result_of(task); throws (like a process being killed) on batch
// `die_on_batch` (0-based), before running any of its tasks.
class FakeRunner : public sweep::TaskRunner {
public:
    explicit FakeRunner(std::function<measure::MeasureResult(const measure::MeasureTask&)> result_of,
                        int die_on_batch = -1)
        : result_of_(std::move(result_of)), die_on_batch_(die_on_batch) {}

    std::vector<measure::MeasureResult> run(const std::vector<measure::MeasureTask>& tasks,
                                           const std::function<void()>& on_done) override {
        if (static_cast<int>(batches.size()) == die_on_batch_) throw std::runtime_error("killed");
        batches.push_back(tasks);
        if (events) events->push_back("measure " + std::to_string(tasks.front().shape.tokens));
        std::vector<measure::MeasureResult> results;
        for (const measure::MeasureTask& t : tasks) {
            results.push_back(result_of_(t));
            on_done();
        }
        return results;
    }

    std::size_t task_count() const {
        std::size_t n = 0;
        for (const auto& b : batches) n += b.size();
        return n;
    }

    std::vector<std::vector<measure::MeasureTask>> batches;
    std::vector<std::string>* events = nullptr;  // shared with FakeCompileAhead to check the order

private:
    std::function<measure::MeasureResult(const measure::MeasureTask&)> result_of_;
    int die_on_batch_;
};

// Compiles nothing; kernels named in `failing` fail to compile.
class FakeCompileAhead : public sweep::CompileAhead {
public:
    void start(const std::vector<kernels::KernelConfig>& configs) override {
        if (events && !configs.empty()) events->push_back("start " + std::to_string(configs.size()));
        started.push_back(configs.size());
    }
    std::map<std::string, std::string> wait(const std::vector<kernels::KernelConfig>& configs) override;

    std::map<std::string, std::string> failing;  // kernel name -> failure text
    std::vector<std::size_t> started;
    std::vector<std::string>* events = nullptr;
};

// A result that passes with time `us` and err 0; a failed one with `failure`.
measure::MeasureResult passing(const measure::MeasureTask& task, double us);
measure::MeasureResult failing(const measure::MeasureTask& task, const std::string& failure);

}  // namespace moetune::test
