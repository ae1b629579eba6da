#include "sweep/worker_pool.h"

#include <atomic>
#include <exception>
#include <stdexcept>
#include <thread>

namespace moetune::sweep {

WorkerPool::WorkerPool(std::vector<std::unique_ptr<TaskWorker>> workers) : workers_(std::move(workers)) {
    if (workers_.empty()) throw std::invalid_argument("a worker pool needs at least one worker");
}

std::vector<measure::MeasureResult> WorkerPool::run(const std::vector<measure::MeasureTask>& tasks,
                                                    const std::function<void()>& on_done) {
    std::vector<measure::MeasureResult> results(tasks.size());
    std::atomic<std::size_t> next{0};
    const auto drain = [&](TaskWorker& worker) {
        for (std::size_t i = next++; i < tasks.size(); i = next++) {
            try {
                results[i] = worker.run(tasks[i]);
            } catch (const std::exception& e) {
                results[i] = {};
                results[i].kernel_name = tasks[i].kernel_name;
                results[i].failure = "internal: " + worker.name() + ": " + e.what();
            }
            if (on_done) on_done();
        }
    };
    if (workers_.size() == 1) {
        drain(*workers_.front());  // no thread for the common one-GPU case
        return results;
    }
    std::vector<std::thread> threads;
    threads.reserve(workers_.size());
    for (auto& w : workers_) threads.emplace_back(drain, std::ref(*w));
    for (std::thread& t : threads) t.join();
    return results;
}

}  // namespace moetune::sweep
