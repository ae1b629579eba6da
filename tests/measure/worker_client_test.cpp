// WorkerClient against a fake worker (fake_worker.cpp) that crashes, exits, hangs, reports a fault or
// breaks the protocol on command: each of these fails only its own task with a precise reason, the
// next task gets a fresh worker, and no child process is left behind, zombie or alive.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "measure/failure.h"
#include "measure/worker_client.h"
#include "support/catch.hpp"

using namespace moetune::measure;

namespace {

const std::string kFakeWorker = MOETUNE_FAKE_WORKER;
constexpr const char* kKernel = "moetune_moe2_afp8_wfp4_bf16_t16x64x128_reduce_w4_sbm32";

MeasureTask command(const std::string& what) {
    MeasureTask t;
    t.shape = {1, 256, 128, 4, 2};
    t.kernel_name = kKernel;
    t.routing = what;  // the fake worker's command
    return t;
}

struct Child {
    pid_t pid;
    char state;  // 'Z' for a zombie
};

// The processes whose parent is this test process (from /proc/<pid>/stat).
std::vector<Child> children() {
    std::vector<Child> found;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream stat(entry.path() / "stat");
        std::string text;
        if (!std::getline(stat, text)) continue;  // it exited meanwhile
        // pid (comm) state ppid ...; comm may hold spaces and parentheses, so parse after the last ')'.
        std::istringstream rest(text.substr(text.rfind(')') + 1));
        char state = 0;
        pid_t ppid = 0;
        rest >> state >> ppid;
        if (ppid == ::getpid()) found.push_back({static_cast<pid_t>(std::stoi(name)), state});
    }
    return found;
}

bool process_exists(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

pid_t worker_pid(const MeasureResult& r) { return static_cast<pid_t>(r.us); }

}  // namespace

TEST_CASE("tasks go to one lazily started worker for the client's GPU", "[measure][worker]") {
    WorkerClient client(3, kFakeWorker, 10);
    CHECK(children().empty());  // nothing runs before the first task
    const MeasureResult a = client.run(command("ok"));
    REQUIRE(a.ok);
    CHECK(a.kernel_name == kKernel);
    CHECK(a.err == 3);  // the worker was started with --gpu 3
    const auto kids = children();
    REQUIRE(kids.size() == 1);
    CHECK(kids[0].pid == worker_pid(a));
    CHECK(worker_pid(client.run(command("ok"))) == worker_pid(a));  // the same worker again
    CHECK(client.restarts() == 0);
}

TEST_CASE("a crashing worker fails its task with the signal and its last stderr line", "[measure][worker]") {
    WorkerClient client(0, kFakeWorker, 10);
    const pid_t first = worker_pid(client.run(command("ok")));
    const MeasureResult r = client.run(command("abort"));
    CHECK_FALSE(r.ok);
    CHECK(r.failure == "fault: worker exited with signal 6 (Aborted): fake worker: aborting as asked");
    // The name still tells which stage and block_m failed.
    CHECK(r.stage == 2);
    CHECK(r.block_m == 32);
    CHECK(children().empty());  // reaped: no zombie
    CHECK_FALSE(process_exists(first));

    const MeasureResult next = client.run(command("ok"));
    CHECK(next.ok);
    CHECK(worker_pid(next) != first);
    CHECK(client.restarts() == 1);
}

TEST_CASE("a worker exiting without an answer fails its task with its status", "[measure][worker]") {
    WorkerClient client(0, kFakeWorker, 10);
    const MeasureResult r = client.run(command("exit"));
    CHECK(r.failure == "fault: worker exited with status 3: fake worker: exiting with status 3");
    CHECK(children().empty());
    CHECK(client.run(command("ok")).ok);
    CHECK(client.restarts() == 1);
}

TEST_CASE("a hanging worker is killed at the timeout and the run goes on", "[measure][worker]") {
    WorkerClient client(0, kFakeWorker, 1.0);
    const pid_t hung = worker_pid(client.run(command("ok")));
    const auto start = std::chrono::steady_clock::now();
    const MeasureResult r = client.run(command("hang"));
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(r.failure == "timeout after 1 s");
    CHECK(failure_kind(r.failure) == "timeout");
    CHECK(waited >= 1.0);
    CHECK(waited < 5.0);
    CHECK_FALSE(process_exists(hung));
    CHECK(children().empty());

    const MeasureResult next = client.run(command("ok"));
    CHECK(next.ok);
    CHECK(client.restarts() == 1);
}

TEST_CASE("a reported GPU fault passes through and the exiting worker is replaced", "[measure][worker]") {
    WorkerClient client(0, kFakeWorker, 10);
    const pid_t faulted = worker_pid(client.run(command("ok")));
    const MeasureResult r = client.run(command("fault"));
    CHECK(r.failure == "fault: an illegal memory access was encountered");
    CHECK_FALSE(process_exists(faulted));
    CHECK(children().empty());
    CHECK(client.run(command("ok")).ok);
    CHECK(client.restarts() == 1);
}

TEST_CASE("a worker breaking the protocol is killed and its task failed", "[measure][worker]") {
    WorkerClient client(0, kFakeWorker, 10);
    const MeasureResult garbage = client.run(command("garbage"));
    CHECK(garbage.failure.starts_with("fault: worker protocol error: not a result line"));
    CHECK(garbage.failure.find("'this is not a result'") != std::string::npos);
    CHECK(children().empty());
    const MeasureResult other = client.run(command("other"));
    CHECK(other.failure == "fault: worker protocol error: answered for 'someone_else'");
    CHECK(children().empty());
    CHECK(client.run(command("ok")).ok);
    CHECK(client.restarts() == 2);
}

TEST_CASE("a worker that died between tasks is replaced without failing the next task", "[measure][worker]") {
    WorkerClient client(0, kFakeWorker, 10);
    const pid_t killed = worker_pid(client.run(command("ok")));
    REQUIRE(::kill(killed, SIGKILL) == 0);
    // Wait until it is dead (a zombie, not yet reaped): a worker dying *while* a task is sent is a
    // failed task, as nobody can know whether it took the task; this test is about one dead before.
    for (int i = 0; i < 1000 && !(children().size() == 1 && children()[0].state == 'Z'); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const MeasureResult r = client.run(command("ok"));
    CHECK(r.ok);
    CHECK(worker_pid(r) != killed);
    CHECK(client.restarts() == 1);
    const auto kids = children();
    REQUIRE(kids.size() == 1);  // the new worker; the killed one was reaped
    CHECK(kids[0].state != 'Z');
}

TEST_CASE("destroying the client stops its worker", "[measure][worker]") {
    pid_t pid = 0;
    {
        WorkerClient client(0, kFakeWorker, 10);
        pid = worker_pid(client.run(command("ok")));
        CHECK(process_exists(pid));
    }
    CHECK_FALSE(process_exists(pid));
    CHECK(children().empty());
}

TEST_CASE("a worker executable that does not exist is an error, not a failed task", "[measure][worker]") {
    WorkerClient client(0, "/nonexistent/moetune", 10);
    CHECK_THROWS_AS(client.run(command("ok")), std::runtime_error);
    CHECK_THROWS_AS(WorkerClient(0, kFakeWorker, 0), std::invalid_argument);
}

TEST_CASE("self_executable names this test binary", "[measure][worker]") {
    CHECK(std::filesystem::path(self_executable()).filename() == "measure_test");
}
