#pragma once
// The parent's side of a measurement worker: a `moetune worker --gpu N` process driven over the
// worker protocol (worker_protocol.h). A kernel that faults, or hangs past the task timeout, takes
// down only the worker: run() then returns a failed result for that task ("fault: worker exited with
// signal 6 (Aborted): <its last stderr line>", "timeout after 60 s"), and the next run() starts a
// fresh worker. A worker that reports a GPU fault exits by itself (its context is lost) and is
// replaced the same way. The worker's stderr (its log) passes through to this process's stderr.
//
// Thread-compatible: one WorkerClient per GPU, each used by one thread at a time.
#include <memory>
#include <string>

#include "measure/measure_task.h"

namespace moetune::measure {

class ChildProcess;

class WorkerClient {
public:
    // moetune_exe: the binary to run as `<exe> worker --gpu <gpu>` (self_executable() for moetune
    // itself). Nothing starts until the first run(). task_timeout_s counts from sending a task, and
    // includes a fresh worker's start and the bucket's data setup (seconds for DSv4.1): keep it generous.
    WorkerClient(int gpu, std::string moetune_exe, double task_timeout_s);
    ~WorkerClient();  // stops the worker (EOF on its stdin; killed if it does not exit within seconds)
    WorkerClient(const WorkerClient&) = delete;
    WorkerClient& operator=(const WorkerClient&) = delete;

    // Never throws for a worker's failure; throws std::runtime_error only when no worker can be
    // started at all (the executable is missing).
    MeasureResult run(const MeasureTask& task);

    // Workers started to replace one that exited or was killed.
    int restarts() const { return restarts_; }

private:
    void ensure_worker();
    MeasureResult worker_failure(const MeasureTask& task, std::string failure);

    int gpu_;
    std::string exe_;
    double task_timeout_s_;
    std::unique_ptr<ChildProcess> worker_;
    int started_ = 0;
    int restarts_ = 0;
};

// The running executable (/proc/self/exe), for starting workers of this same binary.
std::string self_executable();

}  // namespace moetune::measure
