#include "gpu/stream.h"

#include <utility>

#include "gpu/event.h"
#include "gpu/hip_check.h"

namespace moetune::gpu {

Stream::Stream() {
    hipStream_t s = nullptr;
    MOETUNE_HIP_CHECK(hipStreamCreate(&s));
    handle_ = s;
}

Stream Stream::borrow(void* native) { return Stream(native, false); }

Stream::~Stream() { release(); }

void Stream::release() noexcept {
    if (handle_ && owned_) (void)hipStreamDestroy(static_cast<hipStream_t>(handle_));
    handle_ = nullptr;
}

Stream::Stream(Stream&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), owned_(std::exchange(other.owned_, true)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
    if (this != &other) {
        release();
        handle_ = std::exchange(other.handle_, nullptr);
        owned_ = std::exchange(other.owned_, true);
    }
    return *this;
}

void Stream::synchronize() const { MOETUNE_HIP_CHECK(hipStreamSynchronize(static_cast<hipStream_t>(handle_))); }

void Stream::wait(const Event& event) const {
    MOETUNE_HIP_CHECK(hipStreamWaitEvent(static_cast<hipStream_t>(handle_), static_cast<hipEvent_t>(event.native()), 0));
}

}  // namespace moetune::gpu
