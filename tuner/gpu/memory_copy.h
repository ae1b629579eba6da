#pragma once
// Device-to-device copies, for memory moetune does not own as DeviceBuffers (a caller's, or raw
// bandwidth probes).
#include <cstddef>

namespace moetune::gpu {

class Stream;

// Enqueues copying `bytes` from `src` to `dst` (both device memory, not overlapping); capturable.
void copy_device_async(void* dst, const void* src, std::size_t bytes, const Stream& stream);

}  // namespace moetune::gpu
