#pragma once
// Which compile targets this build can produce code for: NVRTC compiles for NVIDIA (sm_*),
// hipRTC for AMD (gfx*). Decided from rtc::compiler_version(), so the code stays vendor-neutral.
#include <optional>
#include <string>
#include <string_view>

namespace moetune::instantiate {

enum class TargetVendor { nvidia, amd };

// sm_* -> nvidia, gfx* -> amd, anything else nullopt.
std::optional<TargetVendor> target_vendor(std::string_view arch);

// Why this build cannot compile kernels for `arch` (no compiler at all, or the other vendor's);
// nullopt when it can.
std::optional<std::string> unsupported_target_reason(std::string_view arch);

// Whether this build has a kernel compiler at all (MOETUNE_GPU=none has none).
bool has_kernel_compiler();

}  // namespace moetune::instantiate
