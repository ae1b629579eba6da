// The shared task queue over several workers: every task runs once, results come back in task
// order whatever ran where, failing workers do not stall it, and dead workers end it with an error.
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "support/catch.hpp"
#include "sweep/worker_pool.h"
#include "sweep_fakes.h"

using namespace moetune;
using namespace moetune::sweep;

namespace {

std::vector<measure::MeasureTask> make_tasks(int n) {
    std::vector<measure::MeasureTask> tasks(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) tasks[static_cast<std::size_t>(i)].kernel_name = "k" + std::to_string(i);
    return tasks;
}

// us = the task's number + 1, after a delay that differs per worker, so tasks finish out of order.
class SlowWorker : public TaskWorker {
public:
    SlowWorker(int id, std::chrono::microseconds delay, std::multiset<std::string>& seen, std::mutex& m)
        : id_(id), delay_(delay), seen_(seen), mutex_(m) {}
    measure::MeasureResult run(const measure::MeasureTask& t) override {
        std::this_thread::sleep_for(delay_);
        {
            std::lock_guard lock(mutex_);
            seen_.insert(t.kernel_name);
        }
        ++ran;
        return test::passing(t, std::stod(t.kernel_name.substr(1)) + 1);
    }
    std::string name() const override { return "GPU " + std::to_string(id_); }
    int restarts() const override { return id_; }
    std::atomic<int> ran{0};

private:
    int id_;
    std::chrono::microseconds delay_;
    std::multiset<std::string>& seen_;
    std::mutex& mutex_;
};

// Always throws: a worker whose process cannot even be started. Counts its calls in `calls`,
// which outlives it (the pool destroys a retired worker).
class BrokenWorker : public TaskWorker {
public:
    explicit BrokenWorker(std::atomic<int>& calls) : calls_(calls) {}
    measure::MeasureResult run(const measure::MeasureTask&) override {
        ++calls_;
        throw std::runtime_error("cannot start /nonexistent/moetune");
    }
    std::string name() const override { return "GPU 9"; }
    int restarts() const override { return 0; }

private:
    std::atomic<int>& calls_;
};

// Every task comes back failed (a worker that crashes on everything, and restarts each time).
class CrashingWorker : public TaskWorker {
public:
    measure::MeasureResult run(const measure::MeasureTask& t) override {
        ++restarts_;
        return test::failing(t, "fault: worker exited with signal 11 (Segmentation fault)");
    }
    std::string name() const override { return "GPU 3"; }
    int restarts() const override { return restarts_; }

private:
    int restarts_ = 0;
};

}  // namespace

TEST_CASE("worker pool: every task runs exactly once and results come back in task order") {
    std::multiset<std::string> seen;
    std::mutex m;
    std::vector<std::unique_ptr<TaskWorker>> workers;
    workers.push_back(std::make_unique<SlowWorker>(0, std::chrono::microseconds(50), seen, m));
    workers.push_back(std::make_unique<SlowWorker>(1, std::chrono::microseconds(300), seen, m));
    workers.push_back(std::make_unique<SlowWorker>(2, std::chrono::microseconds(10), seen, m));
    WorkerPool pool(std::move(workers));
    std::atomic<int> done{0};
    const auto tasks = make_tasks(200);
    const auto results = pool.run(tasks, [&] { ++done; });
    REQUIRE(results.size() == 200);
    CHECK(done == 200);
    CHECK(seen.size() == 200);
    for (int i = 0; i < 200; ++i) {
        CHECK(seen.count("k" + std::to_string(i)) == 1);
        CHECK(results[static_cast<std::size_t>(i)].kernel_name == "k" + std::to_string(i));
        CHECK(results[static_cast<std::size_t>(i)].us == i + 1);
    }
    CHECK(pool.restarts() == 0 + 1 + 2);
    CHECK(pool.run({}, [] {}).empty());
}

TEST_CASE("worker pool: a worker that throws is retired, its task failed, the others finish the queue") {
    std::multiset<std::string> seen;
    std::mutex m;
    std::atomic<int> broken_calls{0};
    std::vector<std::unique_ptr<TaskWorker>> workers;
    workers.push_back(std::make_unique<BrokenWorker>(broken_calls));
    // 1 ms a task: the broken worker's thread gets a task long before the queue is empty.
    workers.push_back(std::make_unique<SlowWorker>(0, std::chrono::milliseconds(1), seen, m));
    WorkerPool pool(std::move(workers));
    const auto results = pool.run(make_tasks(50), [] {});
    CHECK(broken_calls == 1);
    std::size_t failed = 0;
    for (const auto& r : results) {
        if (r.ok) continue;
        ++failed;
        CHECK(r.failure == "internal: GPU 9: cannot start /nonexistent/moetune");
    }
    CHECK(failed == 1);
    CHECK(seen.size() == 49);
    // The retired worker takes no part in later runs.
    CHECK(pool.run(make_tasks(5), [] {}).size() == 5);
    CHECK(broken_calls == 1);
}

TEST_CASE("worker pool: workers that fail every task still empty the queue (no livelock)") {
    std::vector<std::unique_ptr<TaskWorker>> workers;
    workers.push_back(std::make_unique<CrashingWorker>());
    workers.push_back(std::make_unique<CrashingWorker>());
    WorkerPool pool(std::move(workers));
    const auto results = pool.run(make_tasks(100), [] {});
    REQUIRE(results.size() == 100);
    for (const auto& r : results) CHECK_FALSE(r.ok);
    CHECK(pool.restarts() == 100);
}

TEST_CASE("worker pool: when every worker is retired, the run ends with an error instead of waiting") {
    std::atomic<int> calls{0};
    std::vector<std::unique_ptr<TaskWorker>> workers;
    workers.push_back(std::make_unique<BrokenWorker>(calls));
    workers.push_back(std::make_unique<BrokenWorker>(calls));
    WorkerPool pool(std::move(workers));
    CHECK_THROWS_WITH(pool.run(make_tasks(10), [] {}),
                      "no worker is left to measure candidates (GPU 9: cannot start /nonexistent/moetune; GPU 9: "
                      "cannot start /nonexistent/moetune)");
    CHECK(calls == 2);
    CHECK_THROWS_AS(pool.run(make_tasks(1), [] {}), std::runtime_error);
    CHECK(calls == 2);
    CHECK_THROWS_AS(WorkerPool({}), std::invalid_argument);
}
