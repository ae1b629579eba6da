#pragma once
// Compiles a list of candidate kernels for one arch: cache hits are loaded (and timed) on the
// calling thread, misses compile on an rtc::CompilePool, each result is checked for spills.
// `moetune compile` builds a whole shape file with it; the outcome of every kernel is kept.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "instantiate/resource_usage.h"
#include "kernels/kernel_config.h"
#include "rtc/kernel_cache.h"

namespace moetune::instantiate {

enum class CompileStatus {
    compiled,   // built now
    cache_hit,  // loaded from the disk cache
    spills,     // built or loaded, but it spills: pruned after compiling (message says how much)
    failed,     // the config or the compiler refused it (message says why)
};
const char* status_name(CompileStatus s);  // "compiled", "cache_hit", "spills", "failed"

struct KernelOutcome {
    kernels::KernelConfig config;
    std::string name;
    CompileStatus status = CompileStatus::failed;
    bool from_cache = false;
    // The compiler's time for this code: now, or when the cache entry was built. nullopt: failed.
    std::optional<double> compile_seconds;
    // A cache hit: the time the lookup took (key, read, checksum), i.e. what a rerun costs.
    std::optional<double> cache_hit_seconds;
    std::optional<ResourceUsage> usage;
    std::string message;  // spills / failed: the reason
};

struct BatchCompileOptions {
    std::string arch;
    const rtc::KernelCache* cache = nullptr;  // nullptr: compile everything
    unsigned threads = 0;                     // 0: one per hardware thread
    // Called on the calling thread after each kernel, with the count done so far.
    std::function<void(const KernelOutcome&, std::size_t done, std::size_t total)> on_outcome;
};

// One outcome per config, in the order given.
std::vector<KernelOutcome> compile_kernels(const std::vector<kernels::KernelConfig>& configs,
                                           const BatchCompileOptions& options);

}  // namespace moetune::instantiate
