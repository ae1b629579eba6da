#include "gpu/stream.h"

#include <utility>

#include "gpu/hip_check.h"

namespace moetune::gpu {

Stream::Stream() {
    hipStream_t s = nullptr;
    MOETUNE_HIP_CHECK(hipStreamCreate(&s));
    handle_ = s;
}

Stream::~Stream() {
    if (handle_) (void)hipStreamDestroy(static_cast<hipStream_t>(handle_));
}

Stream::Stream(Stream&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
    if (this != &other) {
        if (handle_) (void)hipStreamDestroy(static_cast<hipStream_t>(handle_));
        handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
}

void Stream::synchronize() const { MOETUNE_HIP_CHECK(hipStreamSynchronize(static_cast<hipStream_t>(handle_))); }

}  // namespace moetune::gpu
