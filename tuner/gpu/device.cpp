#include "gpu/device.h"

#include "gpu/hip_check.h"

namespace moetune::gpu {

std::string unavailable_reason() {
#if defined(MOETUNE_GPU_NONE)
    return "moetune was built without GPU support (MOETUNE_GPU=none)";
#else
    int count = 0;
    const hipError_t status = hipGetDeviceCount(&count);
    const std::string vendor =
        status == hipSuccess ? std::string() : std::string(" (") + hipGetErrorString(status) + ")";
    if (status == hipErrorInsufficientDriver) return "no usable GPU driver on this host" + vendor;
    if (status == hipErrorNoDevice || (status == hipSuccess && count == 0)) return "no GPU device found" + vendor;
    if (status != hipSuccess)
        return std::string("the GPU runtime failed to start: ") + hipGetErrorName(status) + vendor;
    return {};
#endif
}

int device_count() {
    int count = 0;
    return hipGetDeviceCount(&count) == hipSuccess ? count : 0;
}

DeviceInfo device_info(int device) {
    hipDeviceProp_t p{};
    MOETUNE_HIP_CHECK(hipGetDeviceProperties(&p, device));
    DeviceInfo info;
    info.index = device;
    info.name = p.name;
    info.arch = moetune_hip_compile_arch(p);
    info.gfx = moetune_hip_table_arch(p);
    info.cu_num = p.multiProcessorCount;
    info.shared_mem_per_block_optin = moetune_hip_shared_mem_optin(p);
    info.registers_per_block = p.regsPerBlock;
    info.l2_bytes = static_cast<std::size_t>(p.l2CacheSize);
    info.total_memory_bytes = p.totalGlobalMem;
    info.wall_clock_khz = moetune_hip_wall_clock_khz(p);
    return info;
}

void set_device(int device) { MOETUNE_HIP_CHECK(hipSetDevice(device)); }

int current_device() {
    int device = 0;
    MOETUNE_HIP_CHECK(hipGetDevice(&device));
    return device;
}

}  // namespace moetune::gpu
