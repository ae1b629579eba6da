#pragma once
// The real TaskWorker: a measure::WorkerClient, i.e. one `moetune` worker process bound to one
// GPU. The client restarts its process after a crash or a task past the timeout and returns that
// task as failed, so from here every task simply yields a result.
#include <string>

#include "measure/worker_client.h"
#include "sweep/worker_pool.h"

namespace moetune::sweep {

class GpuWorker : public TaskWorker {
public:
    GpuWorker(int gpu, const std::string& moetune_exe, double task_timeout_s)
        : gpu_(gpu), client_(gpu, moetune_exe, task_timeout_s) {}

    measure::MeasureResult run(const measure::MeasureTask& task) override { return client_.run(task); }
    std::string name() const override { return "GPU " + std::to_string(gpu_); }
    int restarts() const override { return client_.restarts(); }

private:
    int gpu_;
    measure::WorkerClient client_;
};

}  // namespace moetune::sweep
