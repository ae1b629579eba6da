#pragma once
// The limits candidates are pruned by on a real device: the arch's preset (kernels/device_limits.h)
// with what the device reports itself -- its SM / CU count, which the shape heuristics read, and its
// shared memory and registers per block. The sweep and libmoetune both take them from here, so a
// tuned row and the library's default are judged against the same limits.
#include <optional>

#include "gpu/device.h"
#include "kernels/device_limits.h"

namespace moetune::measure {

// nullopt when moetune has no preset for the device's arch (nor its gfx name).
std::optional<kernels::DeviceLimits> device_kernel_limits(const gpu::DeviceInfo& device);

}  // namespace moetune::measure
