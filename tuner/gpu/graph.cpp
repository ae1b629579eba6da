#include "gpu/graph.h"

#include <utility>

#include "gpu/hip_check.h"
#include "gpu/stream.h"

namespace moetune::gpu {

Graph Graph::capture(const Stream& stream, const std::function<void()>& work) {
    auto s = static_cast<hipStream_t>(stream.native());
    // Thread-local mode: compile-pool threads may use the runtime while this thread captures.
    MOETUNE_HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeThreadLocal));
    hipGraph_t graph = nullptr;
    try {
        work();
    } catch (...) {
        // End the capture so the stream is usable again; the partial graph is discarded.
        if (hipStreamEndCapture(s, &graph) == hipSuccess && graph) (void)hipGraphDestroy(graph);
        throw;
    }
    MOETUNE_HIP_CHECK(hipStreamEndCapture(s, &graph));
    Graph g;
    g.graph_ = graph;
    hipGraphExec_t exec = nullptr;
    MOETUNE_HIP_CHECK(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
    g.exec_ = exec;
    return g;
}

Graph::~Graph() { release(); }

Graph::Graph(Graph&& other) noexcept
    : graph_(std::exchange(other.graph_, nullptr)), exec_(std::exchange(other.exec_, nullptr)) {}

Graph& Graph::operator=(Graph&& other) noexcept {
    if (this != &other) {
        release();
        graph_ = std::exchange(other.graph_, nullptr);
        exec_ = std::exchange(other.exec_, nullptr);
    }
    return *this;
}

void Graph::release() noexcept {
    if (exec_) (void)hipGraphExecDestroy(static_cast<hipGraphExec_t>(exec_));
    if (graph_) (void)hipGraphDestroy(static_cast<hipGraph_t>(graph_));
    exec_ = graph_ = nullptr;
}

void Graph::replay(const Stream& stream, int times) const {
    for (int i = 0; i < times; ++i)
        MOETUNE_HIP_CHECK(
            hipGraphLaunch(static_cast<hipGraphExec_t>(exec_), static_cast<hipStream_t>(stream.native())));
}

}  // namespace moetune::gpu
