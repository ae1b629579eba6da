// moetune compile: builds every distinct candidate kernel of a shape file for one arch, without a
// GPU (NVRTC / hipRTC), into the disk cache a sweep reads, so a later sweep (or a rerun) finds them
// all compiled. Progress and ETA on stderr, a summary on stdout, every kernel's outcome in --report.
#include <chrono>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <thread>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "cli/candidate_options.h"
#include "cli/command.h"
#include "cli/number_checks.h"
#include "cli/exit_codes.h"
#include "common/atomic_file.h"
#include "common/input_error.h"
#include "instantiate/batch_compile.h"
#include "instantiate/compile_stats.h"
#include "instantiate/compile_target.h"
#include "kernels/compile_plan.h"
#include "kernels/device_limits.h"
#include "kernels/kernel_name.h"
#include "kernels/shape_rows.h"
#include "rtc/compiler.h"
#include "rtc/kernel_cache.h"

namespace moetune::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

struct CompileOptions {
    std::string shapes;
    std::string arch;
    std::vector<int> tokens;  // empty: each row's own token count
    std::string cache_dir = rtc::KernelCache::default_dir().string();
    unsigned jobs = 0;  // 0: one per hardware thread
    std::string report;
    bool no_heuristics = false;
    std::vector<kernels::MmaPath> mma_paths = kernels::EnumerationOptions{}.mma_paths;
    std::string kernels;  // --kernels
};

std::string duration_text(double seconds) {
    const long s = std::lround(seconds);
    return s >= 60 ? fmt::format("{}m{:02}s", s / 60, s % 60) : fmt::format("{}s", s);
}

std::string stats_text(const std::optional<instantiate::TimeStats>& t, double scale, const char* unit) {
    if (!t) return "none";
    return fmt::format("mean {:.2f} {}, median {:.2f} {}, max {:.2f} {} ({} kernels)", t->mean * scale, unit,
                       t->median * scale, unit, t->max * scale, unit, t->count);
}

ordered_json stats_json(const std::optional<instantiate::TimeStats>& t) {
    if (!t) return nullptr;
    return {{"count", t->count}, {"mean", t->mean}, {"median", t->median}, {"max", t->max}};
}

// Progress on stderr: every failure and spill at once, otherwise a line at most every 2 seconds.
class Progress {
public:
    explicit Progress(Clock::time_point start) : start_(start), last_(start) {}

    void operator()(const instantiate::KernelOutcome& o, std::size_t done, std::size_t total) {
        using instantiate::CompileStatus;
        if (o.status == CompileStatus::failed) spdlog::error("{}: compilation failed: {}", o.name, o.message);
        if (o.status == CompileStatus::spills) spdlog::info("{}: pruned: {}", o.name, o.message);
        const auto now = Clock::now();
        if (done < total && now - last_ < std::chrono::seconds(2)) return;
        last_ = now;
        const double elapsed = std::chrono::duration<double>(now - start_).count();
        spdlog::info("compile [{}/{}] {:.0f}% elapsed {} ETA {}", done, total, 100.0 * done / total,
                     duration_text(elapsed), duration_text(elapsed / done * (total - done)));
    }

private:
    Clock::time_point start_, last_;
};

ordered_json outcome_json(const instantiate::KernelOutcome& o) {
    ordered_json k = {{"name", o.name},
                      {"stage", kernels::stage_number(o.config.stage)},
                      {"status", instantiate::status_name(o.status)},
                      {"from_cache", o.from_cache}};
    if (o.compile_seconds) k["compile_seconds"] = *o.compile_seconds;
    if (o.cache_hit_seconds) k["cache_hit_seconds"] = *o.cache_hit_seconds;
    if (o.usage) {
        k["registers"] = o.usage->registers;
        k["spill_bytes"] = o.usage->spill_bytes;
    }
    if (!o.message.empty()) k["message"] = o.message;
    return k;
}

ordered_json report_json(const CompileOptions& o, const kernels::CompilePlan& plan,
                         const std::vector<instantiate::KernelOutcome>& outcomes,
                         const instantiate::CompileSummary& s, unsigned threads, double wall_seconds) {
    ordered_json kernels = ordered_json::array();
    for (const instantiate::KernelOutcome& k : outcomes) kernels.push_back(outcome_json(k));
    ordered_json pruned = ordered_json::array();
    for (const kernels::PrunedConfig& p : plan.pruned)
        pruned.push_back({{"name", kernels::kernel_name(p.config)}, {"reason", p.reason}});
    return {{"arch", o.arch},
            {"compiler", rtc::compiler_version()},
            {"shapes", o.shapes},
            {"tokens", o.tokens},
            {"threads", threads},
            {"wall_seconds", wall_seconds},
            {"summary",
             {{"kernels", s.kernels},
              {"compiled", s.compiled},
              {"cache_hits", s.cache_hits},
              {"spills", s.spills},
              {"failed", s.failed},
              {"pruned_before_compiling", plan.pruned.size()},
              {"compile_seconds", stats_json(s.compile)},
              {"cache_hit_seconds", stats_json(s.cache_hit)}}},
            {"kernels", kernels},
            {"pruned", pruned}};
}

void print_summary(const CompileOptions& o, std::size_t shape_count, const kernels::CompilePlan& plan,
                   const instantiate::CompileSummary& s, unsigned threads, double wall_seconds) {
    std::size_t stage1 = 0;
    for (const kernels::KernelConfig& c : plan.kernels) stage1 += c.stage == kernels::Stage::gate_up;
    fmt::print("{} ({}): {} kernels for {} shapes (stage 1: {}, stage 2: {}); {} configs pruned before compiling\n",
               o.arch, rtc::compiler_version(), s.kernels, shape_count, stage1, s.kernels - stage1, plan.pruned.size());
    fmt::print("  compiled {}, cache hits {}, pruned after compiling (spills) {}, failed {}; wall {}, {} thread{}\n",
               s.compiled, s.cache_hits, s.spills, s.failed, duration_text(wall_seconds), threads, threads == 1 ? "" : "s");
    fmt::print("  compile time per kernel: {}{}\n", stats_text(s.compile, 1.0, "s"),
               s.built_now == s.kernels - s.failed ? "" : fmt::format("; {} built now, the rest when cached", s.built_now));
    fmt::print("  cache hit time per kernel: {}\n", stats_text(s.cache_hit, 1000.0, "ms"));
}

int run_compile(const CompileOptions& o) {
    if (!instantiate::has_kernel_compiler()) {
        spdlog::error("{}", *instantiate::unsupported_target_reason(o.arch));
        return kExitNoGpu;
    }
    if (auto why = instantiate::unsupported_target_reason(o.arch)) {
        spdlog::error("--arch {}: {}", o.arch, *why);
        return kExitUsage;
    }
    kernels::ShapeRows rows;
    try {
        rows = kernels::read_shape_rows(o.shapes, o.tokens);
    } catch (const InputError& e) {
        spdlog::error("{}", e.what());
        return kExitUsage;
    }
    // A report that cannot be written is found before minutes of compiling, not after.
    if (!o.report.empty())
        if (const auto why = unwritable_reason(o.report)) {
            spdlog::error("cannot write report {}: {}; nothing was compiled", o.report, *why);
            return kExitCannotWrite;
        }
    for (const std::string& s : rows.skipped) spdlog::error("{}; row skipped", s);
    std::error_code ec;
    fs::create_directories(o.cache_dir, ec);
    if (ec) {
        spdlog::error("cannot create the kernel cache directory {}: {}", o.cache_dir, ec.message());
        return kExitCannotWrite;
    }
    std::vector<data::MoeShape> shapes;
    for (const kernels::ShapeRow& r : rows.rows) shapes.push_back(r.shape);

    kernels::EnumerationOptions enumeration;
    enumeration.heuristics = !o.no_heuristics;
    enumeration.mma_paths = o.mma_paths;
    enumeration.names = kernels::name_filter(o.kernels);  // checked by CLI11
    const kernels::CompilePlan plan =
        kernels::plan_compile(shapes, *kernels::device_limits_for_arch(o.arch), enumeration);
    for (const kernels::PrunedConfig& p : plan.pruned)
        spdlog::debug("pruned {}: {}", kernels::kernel_name(p.config), p.reason);

    const rtc::KernelCache cache(o.cache_dir);
    instantiate::BatchCompileOptions batch;
    batch.arch = o.arch;
    batch.cache = &cache;
    const unsigned threads = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
    batch.threads = threads;
    const auto start = Clock::now();
    spdlog::info("compiling {} kernels for {} with {} thread{} into {}", plan.kernels.size(), o.arch, threads,
                 threads == 1 ? "" : "s", o.cache_dir);
    batch.on_outcome = Progress(start);
    const std::vector<instantiate::KernelOutcome> outcomes = instantiate::compile_kernels(plan.kernels, batch);
    const double wall = std::chrono::duration<double>(Clock::now() - start).count();

    const instantiate::CompileSummary summary = instantiate::summarize(outcomes);
    print_summary(o, shapes.size(), plan, summary, threads, wall);
    if (!o.report.empty()) {
        try {
            write_file_atomically(o.report, report_json(o, plan, outcomes, summary, threads, wall).dump(2) + "\n");
        } catch (const std::exception& e) {
            spdlog::error("{}", e.what());
            return kExitCannotWrite;
        }
    }
    return summary.failed > 0 || !rows.skipped.empty() ? kExitFailed : kExitOk;
}

}  // namespace

Command add_compile_command(CLI::App& parent) {
    auto o = std::make_shared<CompileOptions>();
    CLI::App* app = parent.add_subcommand(
        "compile", "Compile every distinct candidate kernel of a shape file for one arch into the kernel cache (no GPU)");
    app->add_option("--shapes", o->shapes, "Untuned shape CSV (AITER format)")->required();
    app->add_option("--arch", o->arch, "Compile target (NVIDIA builds: sm_90a; HIP builds: gfx90a, gfx942, gfx950)")
        ->required()
        ->check(CLI::IsMember(kernels::known_archs()));
    app->add_option("--tokens", o->tokens, "Token counts (comma-separated) instead of each row's own")
        ->delimiter(',')
        ->check(number_in(1, (1 << 24) - 1));
    app->add_option("--cache-dir", o->cache_dir, "Kernel cache directory")->capture_default_str();
    app->add_option("-j,--jobs", o->jobs, "Compiler threads (default: one per hardware thread)")
        ->check(number_in(1, 1024));
    app->add_option("--report", o->report, "Write every kernel's outcome and the timings as JSON to this file");
    app->add_flag("--no-heuristics", o->no_heuristics,
                  "Also compile the configs the block_m heuristic prunes at every token count");
    add_mma_option(*app, o->mma_paths);
    add_kernels_option(*app, o->kernels);
    return Command{app, [o] { return run_compile(*o); }};
}

}  // namespace moetune::cli
