#pragma once
// Which GPUs this process can use and what they are. Vendor-neutral: the same fields describe an
// NVIDIA and an AMD device, in the terms the tuner and the AITER tables need.
#include <cstddef>
#include <string>

namespace moetune::gpu {

struct DeviceInfo {
    int index = 0;
    std::string name;                            // "NVIDIA H200", "AMD Instinct MI355X"
    std::string arch;                            // compilation target: "sm_90a", "gfx950:sramecc+:xnack-"
    std::string gfx;                             // the AITER gfx column: "sm_90", "gfx950"
    int cu_num = 0;                              // SMs / CUs: the AITER cu_num column
    std::size_t shared_mem_per_block_optin = 0;  // most dynamic shared memory one block can get
    int registers_per_block = 0;
    std::size_t l2_bytes = 0;
    std::size_t total_memory_bytes = 0;
    int wall_clock_khz = 0;                      // rate of the kernels' constant wall clock (sm_clock_probe.hip)
};

// Empty when a GPU can be used; otherwise a sentence saying why not (built without GPU support,
// no driver, no device), for "no GPU: <reason>" messages and for skipping GPU tests.
std::string unavailable_reason();
// Number of usable devices; 0 when unavailable_reason() is not empty.
int device_count();
// Throws GpuError for an index that is not a usable device.
DeviceInfo device_info(int device);
// Makes `device` current for this thread's later GPU calls.
void set_device(int device);
int current_device();

}  // namespace moetune::gpu
