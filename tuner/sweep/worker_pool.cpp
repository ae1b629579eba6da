#include "sweep/worker_pool.h"

#include <atomic>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "measure/failure.h"

namespace moetune::sweep {

WorkerPool::WorkerPool(std::vector<std::unique_ptr<TaskWorker>> workers) : workers_(std::move(workers)) {
    if (workers_.empty()) throw std::invalid_argument("a worker pool needs at least one worker");
}

std::vector<measure::MeasureResult> WorkerPool::run(const std::vector<measure::MeasureTask>& tasks,
                                                    const std::function<void()>& on_done) {
    std::vector<measure::MeasureResult> results(tasks.size());
    if (tasks.empty()) return results;
    std::atomic<std::size_t> next{0};
    std::mutex retired_mutex;
    const auto drain = [&](std::unique_ptr<TaskWorker>& worker) {
        for (std::size_t i = next++; i < tasks.size(); i = next++) {
            try {
                results[i] = worker->run(tasks[i]);
            } catch (const std::exception& e) {
                const std::string why = worker->name() + ": " + e.what();
                results[i] = {};
                results[i].kernel_name = tasks[i].kernel_name;
                results[i].failure = measure::failure_text("internal", why);
                std::lock_guard lock(retired_mutex);
                retired_.push_back(why);
                worker.reset();
            }
            if (on_done) on_done();
            if (!worker) return;
        }
    };
    std::vector<std::thread> threads;
    for (std::unique_ptr<TaskWorker>& w : workers_)
        if (w) threads.emplace_back(drain, std::ref(w));
    for (std::thread& t : threads) t.join();

    if (next.load() < tasks.size()) {  // every worker retired with tasks left (or before this run)
        std::string why;
        for (const std::string& r : retired_) why += (why.empty() ? "" : "; ") + r;
        throw std::runtime_error("no worker is left to measure candidates (" + why + ")");
    }
    return results;
}

int WorkerPool::restarts() const {
    int total = 0;
    for (const auto& w : workers_)
        if (w) total += w->restarts();
    return total;
}

}  // namespace moetune::sweep
