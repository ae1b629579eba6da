#pragma once
// Where libmoetune keeps compiled kernels: the caller's directory, else the default one `moetune
// compile` and sweeps fill, so kernels tuned on this host are already there.
#include <filesystem>

#include "moetune/fused_moe.h"
#include "rtc/kernel_cache.h"

namespace moetune::runtime {

inline std::filesystem::path cache_dir(const FusedMoeOptions& options) {
    return rtc::KernelCache::dir_or_default(options.cache_dir);
}

}  // namespace moetune::runtime
