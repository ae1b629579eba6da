#include "gpu/event.h"

#include "gpu/hip_check.h"
#include "gpu/stream.h"

namespace moetune::gpu {

Event::Event(Kind kind) {
    hipEvent_t e = nullptr;
    if (kind == Kind::ordering) MOETUNE_HIP_CHECK(hipEventCreateWithFlags(&e, hipEventDisableTiming));
    else MOETUNE_HIP_CHECK(hipEventCreate(&e));
    handle_ = e;
}

Event::~Event() {
    if (handle_) (void)hipEventDestroy(static_cast<hipEvent_t>(handle_));
}

void Event::record(const Stream& stream) {
    MOETUNE_HIP_CHECK(hipEventRecord(static_cast<hipEvent_t>(handle_), static_cast<hipStream_t>(stream.native())));
}

void Event::synchronize() const { MOETUNE_HIP_CHECK(hipEventSynchronize(static_cast<hipEvent_t>(handle_))); }

float Event::elapsed_ms(const Event& start, const Event& stop) {
    stop.synchronize();
    float ms = 0.0f;
    MOETUNE_HIP_CHECK(
        hipEventElapsedTime(&ms, static_cast<hipEvent_t>(start.handle_), static_cast<hipEvent_t>(stop.handle_)));
    return ms;
}

}  // namespace moetune::gpu
