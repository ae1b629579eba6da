#pragma once
// The CPU side's only parallelism: independent work items (an expert of the reference, a chunk of
// a synthetic tensor, a slice of an output being judged) spread over all hardware threads. Items
// must write disjoint data.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace moetune {

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

// Items [0, count) in slices of kParallelSlice: the judge of a 16384-token output reads ~190M
// values per candidate, which one thread takes most of a second over. Slices are fixed, not
// per thread, so results (floating-point sums included) do not depend on the machine.
inline constexpr int64_t kParallelSlice = int64_t(1) << 20;

// Calls work(begin, end) for each slice, in parallel.
template <typename Work>
void parallel_slices(int64_t count, const Work& work, int64_t slice = kParallelSlice) {
    const int64_t slices = (count + slice - 1) / slice;
    parallel_for(slices, [&](int64_t s) { work(s * slice, std::min(count, (s + 1) * slice)); });
}

// combine(...combine(init, r0), r1)..., r_s = work(begin, end) of slice s, in slice order.
template <typename T, typename Work, typename Combine>
T parallel_reduce(int64_t count, T init, const Work& work, const Combine& combine, int64_t slice = kParallelSlice) {
    const int64_t slices = (count + slice - 1) / slice;
    std::vector<T> partial(std::size_t(slices), init);
    parallel_for(slices, [&](int64_t s) { partial[std::size_t(s)] = work(s * slice, std::min(count, (s + 1) * slice)); });
    T total = init;
    for (const T& p : partial) total = combine(total, p);
    return total;
}

}  // namespace moetune
