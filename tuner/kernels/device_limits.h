#pragma once
// What one workgroup of a kernel may use on a target, for static pruning before anything is
// compiled. Presets are known per architecture string; the gpu layer fills the same struct from
// the real device (hipDeviceProp) when one is present.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace moetune::kernels {

struct DeviceLimits {
    std::string arch;                     // compile target: "sm_90a", "gfx90a", "gfx942", "gfx950"
    int max_shared_memory_per_block = 0;  // bytes, opt-in maximum (CUDA: above the 48 KB default)
    int registers_per_block = 0;          // 32-bit registers of one workgroup
    int max_registers_per_thread = 0;     // what one thread (lane) may address
    int max_threads_per_block = 0;
    int multiprocessors = 0;              // SMs / CUs of the preset's reference part, for shape heuristics
};

// The preset for an arch string, or nullopt when moetune has none.
std::optional<DeviceLimits> device_limits_for_arch(std::string_view arch);
// Arch strings with a preset, for messages and --help.
std::vector<std::string> known_archs();

}  // namespace moetune::kernels
