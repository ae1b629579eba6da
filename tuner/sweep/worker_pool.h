#pragma once
// One thread per worker (one worker per GPU), all pulling the next task from one shared queue,
// so a fast GPU takes more tasks and a slow or restarting one fewer. The queue only moves
// forward: each task is taken exactly once and always yields a result, so the pool cannot
// livelock (AITER #5091) whatever the workers do. A worker reports a crashed or hung process as a
// failed task and restarts it itself (measure::WorkerClient); a worker that throws cannot run
// anything at all (its executable is missing), so its task is recorded as failed and the worker is
// retired. Results are stored by task index, so they do not depend on which GPU ran what.
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
    virtual int restarts() const = 0;      // times its process was replaced after a crash or timeout
};

class WorkerPool : public TaskRunner {
public:
    // At least one worker (throws std::invalid_argument otherwise).
    explicit WorkerPool(std::vector<std::unique_ptr<TaskWorker>> workers);

    // Throws std::runtime_error, after every worker has been retired, when tasks are left: the
    // sweep cannot go on (nothing is lost: OUT holds every finished bucket).
    std::vector<measure::MeasureResult> run(const std::vector<measure::MeasureTask>& tasks,
                                           const std::function<void()>& on_done) override;
    int restarts() const;  // over all workers

private:
    std::vector<std::unique_ptr<TaskWorker>> workers_;
    std::vector<std::string> retired_;  // why each retired worker was retired, for later runs
};

}  // namespace moetune::sweep
