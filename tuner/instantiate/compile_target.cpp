#include "instantiate/compile_target.h"

#include "rtc/compiler.h"

namespace moetune::instantiate {
namespace {

// rtc::compiler_version() is "<compiler> <major>.<minor>": nvrtc, hiprtc, or none.
std::string compiler_name() {
    const std::string version = rtc::compiler_version();
    return version.substr(0, version.find(' '));
}

std::optional<TargetVendor> compiler_vendor() {
    const std::string name = compiler_name();
    if (name == "nvrtc") return TargetVendor::nvidia;
    if (name == "hiprtc") return TargetVendor::amd;
    return std::nullopt;
}

}  // namespace

std::optional<TargetVendor> target_vendor(std::string_view arch) {
    if (arch.substr(0, 3) == "sm_") return TargetVendor::nvidia;
    if (arch.substr(0, 3) == "gfx") return TargetVendor::amd;
    return std::nullopt;
}

bool has_kernel_compiler() { return compiler_vendor().has_value(); }

std::optional<std::string> unsupported_target_reason(std::string_view arch) {
    const auto compiler = compiler_vendor();
    if (!compiler) return "moetune was built without a kernel compiler (MOETUNE_GPU=none); build with cuda or hip";
    const auto target = target_vendor(arch);
    if (target == compiler) return std::nullopt;
    const std::string name = compiler_name();
    if (target == TargetVendor::amd)
        return "this moetune compiles kernels with " + name + " (NVIDIA only) and cannot build for " +
               std::string(arch) + "; AMD targets need the HIP build (cmake -DMOETUNE_GPU=hip, hipRTC)";
    if (target == TargetVendor::nvidia)
        return "this moetune compiles kernels with " + name + " (AMD only) and cannot build for " + std::string(arch) +
               "; NVIDIA targets need the CUDA build (cmake -DMOETUNE_GPU=cuda, NVRTC)";
    return "'" + std::string(arch) + "' is not a compile target (sm_* for NVIDIA, gfx* for AMD)";
}

}  // namespace moetune::instantiate
