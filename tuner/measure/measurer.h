#pragma once
// In-process measurement of one candidate: build (or reuse) the bucket's device data, compile or load
// the kernel from the cache, validate one launch against the reference, then time it with graph
// replays. Used by the worker process (`moetune worker`) and by tests; a sweep goes through
// WorkerClient so that a faulting or hanging kernel cannot take the sweep down.
//
// Keeps the current bucket's device data (weights in both layouts, activations, routing, sorted
// routing per block_m, references) resident, so consecutive candidates of one bucket share them; a
// new shape (or seed) regenerates the weights, a new token count or routing only the bucket's data.
#include <memory>

#include "measure/measure_task.h"

namespace moetune::measure {

class Measurer {
public:
    // Makes `gpu` current; throws gpu::GpuError when it is not a usable device.
    explicit Measurer(int gpu);
    ~Measurer();
    Measurer(const Measurer&) = delete;
    Measurer& operator=(const Measurer&) = delete;

    // Never throws for anything about the task or the kernel: every problem comes back as a failed
    // result (failure.h lists the kinds). Not thread-safe; one Measurer per thread and GPU.
    MeasureResult run(const MeasureTask& task);

    // True once a kernel faulted: the GPU context is lost (a sticky error such as an illegal address),
    // and every later run() fails with "fault". The worker process exits then; its parent starts a new one.
    bool context_lost() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace moetune::measure
