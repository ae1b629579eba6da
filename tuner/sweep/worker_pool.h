#pragma once
// One thread per worker (one worker per GPU), all pulling the next task from one shared queue,
// so a fast GPU takes more tasks and a slow or restarting one fewer. Each task is taken exactly
// once and always yields a result: a worker that throws is recorded as that task's failure and
// the thread goes on with the next task. The queue only moves forward, so the pool cannot
// livelock (AITER #5091), whatever the workers do; crashed or hung worker processes are restarted
// inside the worker (measure::WorkerClient). Results are stored by task index, so they do not
// depend on which GPU ran what.
#include <memory>
#include <string>
#include <vector>

#include "sweep/task_runner.h"

namespace moetune::sweep {

// Runs tasks one at a time on one device.
class TaskWorker {
public:
    virtual ~TaskWorker() = default;
    virtual measure::MeasureResult run(const measure::MeasureTask& task) = 0;
    virtual std::string name() const = 0;  // "GPU 1", for messages
};

class WorkerPool : public TaskRunner {
public:
    // At least one worker (throws std::invalid_argument otherwise).
    explicit WorkerPool(std::vector<std::unique_ptr<TaskWorker>> workers);

    std::vector<measure::MeasureResult> run(const std::vector<measure::MeasureTask>& tasks,
                                           const std::function<void()>& on_done) override;

private:
    std::vector<std::unique_ptr<TaskWorker>> workers_;
};

}  // namespace moetune::sweep
