#include "kernels/device_limits.h"

namespace moetune::kernels {
namespace {

// sm_90a: H100/H200 SXM (CUDA guide, compute capability 9.0: 227 KB opt-in shared memory per block,
// 64K registers per block, 255 per thread). 132 SMs = H200 SXM / H100 SXM.
// CDNA: 64 KB LDS per workgroup (160 KB on gfx950), 512 VGPRs per lane (256 arch + 256 acc).
// CU counts: MI250X GCD 110, MI300X 304, MI355X 256.
const DeviceLimits kPresets[] = {
    {"sm_90a", 227 * 1024, 65536, 255, 1024, 132},
    {"gfx90a", 64 * 1024, 65536, 512, 1024, 110},
    {"gfx942", 64 * 1024, 65536, 512, 1024, 304},
    {"gfx950", 160 * 1024, 65536, 512, 1024, 256},
};

}  // namespace

std::optional<DeviceLimits> device_limits_for_arch(std::string_view arch) {
    for (const DeviceLimits& d : kPresets)
        if (d.arch == arch) return d;
    return std::nullopt;
}

std::vector<std::string> known_archs() {
    std::vector<std::string> archs;
    for (const DeviceLimits& d : kPresets) archs.push_back(d.arch);
    return archs;
}

}  // namespace moetune::kernels
