#include "gpu/memory_copy.h"

#include "gpu/hip_check.h"
#include "gpu/stream.h"

namespace moetune::gpu {

void copy_device_async(void* dst, const void* src, std::size_t bytes, const Stream& stream) {
    if (bytes == 0) return;
    MOETUNE_HIP_CHECK(
        hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToDevice, static_cast<hipStream_t>(stream.native())));
}

}  // namespace moetune::gpu
