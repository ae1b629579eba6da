#pragma once
// The CPU side's only parallelism: independent work items (an expert of the reference, a chunk of
// a synthetic tensor) spread over all hardware threads. Items must write disjoint data.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace moetune::data {

template <typename Work>
void parallel_for(int64_t count, const Work& work) {
    const int64_t threads = std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, std::max<int64_t>(count, 1));
    std::atomic<int64_t> next{0};
    auto worker = [&] {
        for (int64_t i = next++; i < count; i = next++) work(i);
    };
    std::vector<std::thread> pool;
    for (int64_t i = 1; i < threads; ++i) pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool) t.join();
}

}  // namespace moetune::data
