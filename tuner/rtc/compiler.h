#pragma once
// Run-time compilation through hipRTC (NVRTC on NVIDIA, via gpu/hip_api.h). Needs no GPU: the
// sweep compiles on every CPU core while the GPUs time what is already built.
#include <string>

#include "rtc/compile_request.h"
#include "rtc/compiled_code.h"
#include "rtc/kernel_cache.h"

namespace moetune::rtc {

// "nvrtc 13.0" / "hiprtc 6.4": part of every cache key.
std::string compiler_version();

// The cache key of a request: SHA-256 over the source, its resolved headers, the full option list
// (target defaults included), the arch, the name expressions and compiler_version().
std::string cache_key(const CompileRequest& request);

// Compiles `request`, or loads it from `cache` when given and it holds the key; a fresh result is
// stored there (a failure to store is logged, not fatal). Throws CompileError when the compiler
// rejects the program, std::invalid_argument for an unresolvable #include. Thread-safe.
CompiledCode compile(const CompileRequest& request, const KernelCache* cache = nullptr);

}  // namespace moetune::rtc
