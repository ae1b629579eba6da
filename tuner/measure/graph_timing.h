#pragma once
// Timing with graph replays: R launches of a candidate are captured back to back into one graph, so
// the host's launch overhead (comparable to a few-token MoE's runtime) stays out of the measurement;
// the graph is replayed for warm-up, then each timed replay runs between two events.
// Per-launch time = median(replay ms) / R. The median ignores the odd slow replay (a clock change,
// another process) without AITER's IQR filter; the spread (max - min) / median shows how noisy it was.
#include <functional>
#include <vector>

#include "gpu/stream.h"
#include "measure/measure_task.h"

namespace moetune::measure {

struct TimingStats {
    double us_per_launch = 0;
    double spread_pct = 0;
};

// From the replay times of graphs holding launches_per_graph launches each. Pure; throws
// std::invalid_argument for no replays or a count below 1.
TimingStats summarize_replays(std::vector<float> replay_ms, int launches_per_graph);

// The R of a graph whose replays should last about options.replay_ms, for a launch that took
// single_launch_ms: between 1 and options.launches_per_graph, which it is when replay_ms is 0; then, when
// it holds at least options.routings launches, rounded down to a multiple of them (so a replay stays within
// replay_ms; `moetune bench`, which must time every routing in both arms, rounds up: bench/shape_bench.cpp). Pure.
int adapted_launches_per_graph(double single_launch_ms, const TimingOptions& options);

// Times one launch between two events (the launch must already have run once: modules loaded,
// pages touched) and returns options with launches_per_graph adapted to it.
TimingOptions adapt_to_launch_time(const gpu::Stream& stream, const TimingOptions& options,
                                   const std::function<void()>& enqueue);

// enqueue(launch) must only enqueue work on `stream` (it runs in capture mode); launch counts
// 0..launches_per_graph-1 so the caller can rotate buffers. Returns when all replays are done.
TimingStats time_in_graph(const gpu::Stream& stream, const TimingOptions& options,
                          const std::function<void(int launch)>& enqueue);

}  // namespace moetune::measure
