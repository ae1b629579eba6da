// moetune worker --gpu N (hidden): a measurement worker process. measure::WorkerClient starts it and
// talks to it over the worker protocol (tuner/measure/worker_protocol.h): one task JSON line in on
// stdin, one result JSON line out on stdout, logs on stderr. It exits at EOF on stdin, or right after
// reporting a GPU fault (its context is lost; the parent starts a fresh worker).
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <thread>

#include <spdlog/spdlog.h>

#include "cli/command.h"
#include "cli/number_checks.h"
#include "cli/exit_codes.h"
#include "gpu/device.h"
#include "measure/measurer.h"
#include "measure/worker_protocol.h"

namespace moetune::cli {
namespace {

// The protocol gets the real stdout to itself; anything else that prints to stdout (a library, a
// stray printf) is sent to stderr instead of corrupting a result line.
std::FILE* take_protocol_stdout() {
    const int protocol_fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (protocol_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        throw std::runtime_error("worker: cannot set up its stdout");
    std::FILE* out = ::fdopen(protocol_fd, "w");
    if (!out) throw std::runtime_error("worker: cannot open its protocol stream");
    return out;
}

// A worker stuck in a hung kernel never reads its stdin again: it must die with the parent instead
// of holding the GPU forever (the parent normally kills it itself on a timeout). Not with
// PR_SET_PDEATHSIG: that fires when the parent *thread* that started the worker ends, and the sweep
// starts workers from pool threads that end after every pass -- each pass's first task then met a
// killed worker. A watchdog thread notices when the worker is re-parented instead.
void exit_when_parent_dies() {
    const pid_t parent = ::getppid();
    std::thread([parent] {
        while (::getppid() == parent) std::this_thread::sleep_for(std::chrono::milliseconds(500));
        std::_Exit(kExitFailed);
    }).detach();
}

int run_worker(int gpu) {
    exit_when_parent_dies();
    if (const std::string why = gpu::unavailable_reason(); !why.empty()) {
        spdlog::error("no GPU: {}", why);
        return kExitNoGpu;
    }
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(take_protocol_stdout(), &std::fclose);
    measure::Measurer measurer(gpu);
    const bool lost = measure::serve_worker(std::cin, out.get(), [&](const measure::MeasureTask& task) {
        measure::MeasureResult result = measurer.run(task);
        return measure::WorkerReply{std::move(result), measurer.context_lost()};
    });
    return lost ? kExitFailed : kExitOk;
}

}  // namespace

Command add_worker_command(CLI::App& parent) {
    auto gpu = std::make_shared<int>(0);
    CLI::App* app = parent.add_subcommand("worker", "Measurement worker process (started by moetune itself)");
    app->group("");  // hidden from --help: users never start it
    app->add_option("--gpu", *gpu, "Device index")->check(non_negative_number());
    return {app, [gpu] { return run_worker(*gpu); }};
}

}  // namespace moetune::cli
