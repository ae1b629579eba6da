#pragma once
// How the sweep driver gets candidates measured: hand over all tasks of a bucket, get one result
// per task back. The real runner is a WorkerPool of GPU worker processes (worker_pool.h); tests
// give the driver a runner with canned results, failures, or one that dies midway.
#include <functional>
#include <vector>

#include "measure/measure_task.h"

namespace moetune::sweep {

class TaskRunner {
public:
    virtual ~TaskRunner() = default;
    // Runs every task exactly once and returns their results in task order. `on_done` is called
    // after each task, from any thread. A task that fails comes back as a failed result; an
    // exception means the run as a whole cannot go on (the sweep stops; OUT keeps what was written).
    virtual std::vector<measure::MeasureResult> run(const std::vector<measure::MeasureTask>& tasks,
                                                   const std::function<void()>& on_done) = 0;
};

}  // namespace moetune::sweep
