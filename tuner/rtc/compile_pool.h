#pragma once
// Compiles on a fixed set of threads (default: one per hardware thread) and hands back futures,
// so a sweep keeps every core compiling the next candidates while the GPUs time earlier ones.
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "rtc/compiler.h"

namespace moetune::rtc {

class CompilePool {
public:
    // `cache` may be null (no disk cache) and must outlive the pool. threads == 0: hardware_concurrency.
    explicit CompilePool(const KernelCache* cache, unsigned threads = 0);
    // Jobs not yet started are dropped (their futures report std::future_errc::broken_promise);
    // jobs being compiled are finished first.
    ~CompilePool();
    CompilePool(const CompilePool&) = delete;
    CompilePool& operator=(const CompilePool&) = delete;

    // The future yields the CompiledCode or rethrows compile()'s exception.
    std::future<CompiledCode> submit(CompileRequest request);
    unsigned threads() const { return static_cast<unsigned>(workers_.size()); }

private:
    struct Job {
        CompileRequest request;
        std::promise<CompiledCode> result;
    };
    void work();

    const KernelCache* cache_;
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<Job> queue_;
    bool stopping_ = false;
    std::vector<std::thread> workers_;
};

}  // namespace moetune::rtc
