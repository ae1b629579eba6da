#pragma once
// A captured and instantiated GPU graph. Timing replays of a graph removes the host's launch
// overhead from the measurement (the MoE of a few tokens runs in tens of microseconds, comparable
// to launching its kernels one by one).
#include <functional>

namespace moetune::gpu {

class Stream;

class Graph {
public:
    // Runs `work` with `stream` in capture mode (work must only enqueue on `stream`: launches,
    // async memsets), then instantiates the result. Nothing executes until replay().
    static Graph capture(const Stream& stream, const std::function<void()>& work);
    ~Graph();
    Graph(Graph&& other) noexcept;
    Graph& operator=(Graph&& other) noexcept;
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;

    // Enqueues `times` back-to-back executions of the graph on `stream`.
    void replay(const Stream& stream, int times = 1) const;

private:
    Graph() = default;
    void release() noexcept;
    void* graph_ = nullptr;
    void* exec_ = nullptr;
};

}  // namespace moetune::gpu
