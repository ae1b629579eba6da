#include "rtc/compile_pool.h"

#include <algorithm>

namespace moetune::rtc {

CompilePool::CompilePool(const KernelCache* cache, unsigned threads) : cache_(cache) {
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    workers_.reserve(threads);
    for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

CompilePool::~CompilePool() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        queue_.clear();
    }
    ready_.notify_all();
    for (std::thread& t : workers_) t.join();
}

std::future<CompiledCode> CompilePool::submit(CompileRequest request) {
    std::future<CompiledCode> future;
    {
        std::lock_guard lock(mutex_);
        queue_.push_back(Job{std::move(request), {}});
        future = queue_.back().result.get_future();
    }
    ready_.notify_one();
    return future;
}

void CompilePool::work() {
    for (;;) {
        Job job;
        {
            std::unique_lock lock(mutex_);
            ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (stopping_) return;
            job = std::move(queue_.front());
            queue_.pop_front();
        }
        try {
            job.result.set_value(compile(job.request, cache_));
        } catch (...) {
            job.result.set_exception(std::current_exception());
        }
    }
}

}  // namespace moetune::rtc
