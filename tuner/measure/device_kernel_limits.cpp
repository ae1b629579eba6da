#include "measure/device_kernel_limits.h"

namespace moetune::measure {

std::optional<kernels::DeviceLimits> device_kernel_limits(const gpu::DeviceInfo& d) {
    std::optional<kernels::DeviceLimits> limits = kernels::device_limits_for_arch(d.arch);
    if (!limits) limits = kernels::device_limits_for_arch(d.gfx);
    if (!limits) return std::nullopt;
    limits->multiprocessors = d.cu_num;
    if (d.shared_mem_per_block_optin > 0)
        limits->max_shared_memory_per_block = static_cast<int>(d.shared_mem_per_block_optin);
    if (d.registers_per_block > 0) limits->registers_per_block = d.registers_per_block;
    return limits;
}

}  // namespace moetune::measure
