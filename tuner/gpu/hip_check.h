#pragma once
// Turns a failed runtime call into a GpuError naming the call: `MOETUNE_HIP_CHECK(hipMalloc(&p, n));`
// Private to tuner/gpu and tuner/rtc (it pulls in the SDK through hip_api.h).
#include <string>

#include "gpu/gpu_error.h"
#include "gpu/hip_api.h"

namespace moetune::gpu {

inline void check_hip(hipError_t status, const char* call) {
    if (status == hipSuccess) return;
    throw GpuError(call, std::string(hipGetErrorString(status)) + " (" + hipGetErrorName(status) + ")");
}

}  // namespace moetune::gpu

#define MOETUNE_HIP_CHECK(call) ::moetune::gpu::check_hip((call), #call)
