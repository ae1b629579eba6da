#include "measure/graph_timing.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "common/median.h"
#include "gpu/event.h"
#include "gpu/graph.h"

namespace moetune::measure {

TimingStats summarize_replays(std::vector<float> replay_ms, int launches_per_graph) {
    if (replay_ms.empty() || launches_per_graph < 1)
        throw std::invalid_argument("summarize_replays: needs at least one replay of at least one launch");
    std::sort(replay_ms.begin(), replay_ms.end());
    const double median = sorted_median(replay_ms);
    TimingStats s;
    s.us_per_launch = median * 1000.0 / launches_per_graph;
    s.spread_pct = median > 0 ? (double(replay_ms.back()) - replay_ms.front()) / median * 100.0 : 0.0;
    return s;
}

int adapted_launches_per_graph(double single_launch_ms, const TimingOptions& options) {
    int launches = options.launches_per_graph;
    if (options.replay_ms > 0 && single_launch_ms > 0) {
        const double fitting = std::floor(options.replay_ms / single_launch_ms);
        launches = static_cast<int>(std::clamp(fitting, 1.0, double(std::max(options.launches_per_graph, 1))));
    }
    // Each routing as often as the others: fewer launches than routings take the first ones once each.
    const int routings = std::max(options.routings, 1);
    return launches >= routings ? launches - launches % routings : launches;
}

TimingOptions adapt_to_launch_time(const gpu::Stream& stream, const TimingOptions& options,
                                   const std::function<void()>& enqueue) {
    TimingOptions adapted = options;
    if (options.replay_ms <= 0) {  // no launch to time: only the routings' rounding
        adapted.launches_per_graph = adapted_launches_per_graph(0, options);
        return adapted;
    }
    gpu::Event start, stop;
    start.record(stream);
    enqueue();
    stop.record(stream);
    adapted.launches_per_graph = adapted_launches_per_graph(gpu::Event::elapsed_ms(start, stop), options);
    return adapted;
}

TimingStats time_in_graph(const gpu::Stream& stream, const TimingOptions& options,
                          const std::function<void(int launch)>& enqueue) {
    const gpu::Graph graph = gpu::Graph::capture(stream, [&] {
        for (int i = 0; i < options.launches_per_graph; ++i) enqueue(i);
    });
    graph.replay(stream, options.warmup_replays);
    // Events are created up front and recorded around back-to-back replays: no host sync between
    // replays, so the GPU never idles waiting for the host.
    std::vector<std::unique_ptr<gpu::Event>> marks;
    for (int i = 0; i <= options.timed_replays; ++i) marks.push_back(std::make_unique<gpu::Event>());
    marks[0]->record(stream);
    for (int i = 0; i < options.timed_replays; ++i) {
        graph.replay(stream);
        marks[i + 1]->record(stream);
    }
    std::vector<float> replay_ms;
    for (int i = 0; i < options.timed_replays; ++i)
        replay_ms.push_back(gpu::Event::elapsed_ms(*marks[i], *marks[i + 1]));
    return summarize_replays(std::move(replay_ms), options.launches_per_graph);
}

}  // namespace moetune::measure
