#include "instantiate/batch_compile.h"

#include <chrono>
#include <exception>
#include <future>

#include "instantiate/kernel_request.h"
#include "kernels/kernel_name.h"
#include "rtc/compile_pool.h"
#include "rtc/compiler.h"

namespace moetune::instantiate {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Fills status, usage and message from a code object.
void judge(KernelOutcome& o, const rtc::CompiledCode& code, const std::string& arch) {
    o.from_cache = code.from_cache;
    o.compile_seconds = code.compile_ms / 1000.0;
    o.usage = resource_usage(code, arch);
    o.status = code.from_cache ? CompileStatus::cache_hit : CompileStatus::compiled;
    if (!o.usage) return;
    if (auto reason = spill_reason(*o.usage, o.config)) {
        o.status = CompileStatus::spills;
        o.message = std::move(*reason);
    }
}

}  // namespace

const char* status_name(CompileStatus s) {
    switch (s) {
        case CompileStatus::compiled: return "compiled";
        case CompileStatus::cache_hit: return "cache_hit";
        case CompileStatus::spills: return "spills";
        case CompileStatus::failed: return "failed";
    }
    return "?";
}

std::vector<KernelOutcome> compile_kernels(const std::vector<kernels::KernelConfig>& configs,
                                           const BatchCompileOptions& options) {
    std::vector<KernelOutcome> outcomes(configs.size());
    std::vector<std::future<rtc::CompiledCode>> pending(configs.size());
    std::size_t done = 0;
    auto finish = [&](const KernelOutcome& o) {
        ++done;
        if (options.on_outcome) options.on_outcome(o, done, configs.size());
    };

    rtc::CompilePool pool(options.cache, options.threads);
    for (std::size_t i = 0; i < configs.size(); ++i) {
        KernelOutcome& o = outcomes[i];
        o.config = configs[i];
        try {
            o.name = kernels::kernel_name(configs[i]);
            rtc::CompileRequest request = kernel_compile_request(configs[i], options.arch);
            if (options.cache) {
                const auto start = std::chrono::steady_clock::now();
                std::optional<rtc::CompiledCode> hit = options.cache->load(rtc::cache_key(request));
                if (hit) {
                    o.cache_hit_seconds = seconds_since(start);
                    judge(o, *hit, options.arch);
                    finish(o);
                    continue;
                }
            }
            pending[i] = pool.submit(std::move(request));
        } catch (const std::exception& e) {  // a config kernel_source rejects
            o.message = e.what();
            finish(o);
        }
    }
    for (std::size_t i = 0; i < configs.size(); ++i) {
        if (!pending[i].valid()) continue;
        KernelOutcome& o = outcomes[i];
        try {
            judge(o, pending[i].get(), options.arch);
        } catch (const std::exception& e) {  // rtc::CompileError: the compiler's verdict and log
            o.message = e.what();
        }
        finish(o);
    }
    return outcomes;
}

}  // namespace moetune::instantiate
