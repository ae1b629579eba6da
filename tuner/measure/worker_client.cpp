#include "measure/worker_client.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "kernels/kernel_name.h"
#include "measure/child_process.h"
#include "measure/failure.h"
#include "measure/worker_protocol.h"

namespace moetune::measure {
namespace {

// How long a worker gets to exit on its own (EOF, or after reporting a fault) before SIGKILL. Its
// CUDA/HIP context teardown takes well under a second.
constexpr std::chrono::milliseconds kExitGrace{5000};

std::string seconds(double s) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", s);
    return text;
}

}  // namespace

std::string self_executable() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

WorkerClient::WorkerClient(int gpu, std::string moetune_exe, double task_timeout_s)
    : gpu_(gpu), exe_(std::move(moetune_exe)), task_timeout_s_(task_timeout_s) {
    if (!(task_timeout_s_ > 0)) throw std::invalid_argument("WorkerClient: the task timeout must be positive");
}

WorkerClient::~WorkerClient() {
    if (worker_) worker_->stop(kExitGrace);
}

void WorkerClient::ensure_worker() {
    // A worker may have died between tasks (killed from outside, or its parent thread ended): reap it
    // and start another; the task about to be sent has not been lost.
    if (worker_ && !worker_->running()) {
        spdlog::warn("gpu {}: worker exited between tasks ({}); starting a new one", gpu_, worker_->kill());
        worker_.reset();
    }
    if (worker_) return;
    worker_ = std::make_unique<ChildProcess>(std::vector<std::string>{exe_, "worker", "--gpu", std::to_string(gpu_)});
    if (started_++ > 0) ++restarts_;
    spdlog::debug("gpu {}: started worker {}", gpu_, worker_->pid());
}

MeasureResult WorkerClient::worker_failure(const MeasureTask& task, std::string failure) {
    MeasureResult r;
    r.kernel_name = task.kernel_name;
    if (const std::optional<kernels::KernelConfig> c = kernels::parse_kernel_name(task.kernel_name)) {
        r.stage = kernels::stage_number(c->stage);
        r.block_m = kernels::sort_block_m(*c);
    }
    r.failure = std::move(failure);
    worker_.reset();  // kills and reaps whatever is left of it
    return r;
}

MeasureResult WorkerClient::run(const MeasureTask& task) {
    const std::string line = encode_task_line(task);
    ensure_worker();
    if (!worker_->write(line)) {
        // It died after the running() check; it has not seen the task, so one retry is safe.
        spdlog::warn("gpu {}: worker exited before taking a task ({}); starting a new one", gpu_, worker_->kill());
        worker_.reset();
        ensure_worker();
        if (!worker_->write(line)) {
            const std::string how = worker_->kill();
            return worker_failure(task, failure_text("fault", "a new worker exited before taking the task (" + how +
                                                                  "): " + worker_->last_stderr_line()));
        }
    }

    const auto deadline = ChildProcess::Clock::now() + std::chrono::duration_cast<ChildProcess::Clock::duration>(
                                                           std::chrono::duration<double>(task_timeout_s_));
    std::string reply;
    switch (worker_->read_line(&reply, deadline)) {
    case ChildProcess::Read::timeout: {
        const std::string how = worker_->kill();
        spdlog::warn("gpu {}: {} did not finish within {} s; worker killed ({})", gpu_, task.kernel_name,
                     seconds(task_timeout_s_), how);
        return worker_failure(task, "timeout after " + seconds(task_timeout_s_) + " s");
    }
    case ChildProcess::Read::eof: {
        const std::string how = worker_->stop(kExitGrace);
        const std::string& last = worker_->last_stderr_line();
        spdlog::warn("gpu {}: worker exited with {} while measuring {}", gpu_, how, task.kernel_name);
        return worker_failure(task,
                              failure_text("fault", "worker exited with " + how + (last.empty() ? "" : ": " + last)));
    }
    case ChildProcess::Read::line: break;
    }

    MeasureResult result;
    std::string protocol_error;
    try {
        result = decode_result_line(reply);
        if (result.kernel_name != task.kernel_name) protocol_error = "answered for '" + result.kernel_name + "'";
    } catch (const std::runtime_error& e) {
        protocol_error = e.what();
    }
    if (!protocol_error.empty()) {
        spdlog::warn("gpu {}: worker protocol error on {}: {}; worker killed ({})", gpu_, task.kernel_name,
                     protocol_error, worker_->kill());
        return worker_failure(task, failure_text("fault", "worker protocol error: " + protocol_error));
    }
    if (failure_kind(result.failure) == "fault") {
        // The worker's GPU context is lost and it exits after this reply; reap it now.
        spdlog::warn("gpu {}: {}: {}; the worker exits ({})", gpu_, task.kernel_name, result.failure,
                     worker_->stop(kExitGrace));
        worker_.reset();
    }
    return result;
}

}  // namespace moetune::measure
