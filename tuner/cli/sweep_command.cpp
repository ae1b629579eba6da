// moetune sweep --shapes F.csv [-o OUT.csv] [--tokens aiter|LIST] [--only-missing --tuned T.csv ...]
//               [--err-ratio R] [--metric M] [--seed S] [--routing SPEC] [--routings N] [--profile-out ALL.csv]
//               [--report RUN.json] [--dry-run [--arch A] [--gfx G] [--cu-num N]] [--gpus all|0,1]
//               [--shard i/n] [--retune] [--min-improvement-pct P] [--task-timeout S] ...
// The whole tuning run (tuner/sweep, docs/sweep.md). This file only reads the flags, checks every
// input and output before any GPU work, and maps outcomes onto exit codes:
//   2 bad flags or input, 3 no GPU, 4 an output that cannot be written (in each case nothing is
//   written), 1 when some (shape, bucket) is left without a row ("[Tuning not Finished]").
#include <charconv>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "cli/command.h"
#include "cli/number_checks.h"
#include "cli/exit_codes.h"
#include "cli/candidate_options.h"
#include "cli/timing_flags.h"
#include "common/atomic_file.h"
#include "common/input_error.h"
#include "data/error_metrics.h"
#include "data/routing_spec.h"
#include "gpu/device.h"
#include "gpu/gpu_error.h"
#include "kernels/device_limits.h"
#include "measure/worker_client.h"
#include "rtc/compile_pool.h"
#include "rtc/kernel_cache.h"
#include "select/improvement.h"
#include "sweep/gpu_worker.h"
#include "sweep/only_missing.h"
#include "sweep/output_paths.h"
#include "sweep/plan.h"
#include "sweep/plan_listing.h"
#include "sweep/profile_log.h"
#include "sweep/rtc_compile_ahead.h"
#include "sweep/shard.h"
#include "sweep/summary.h"
#include "sweep/sweep_driver.h"
#include "sweep/sweep_target.h"
#include "sweep/tuned_output.h"
#include "sweep/worker_pool.h"
#include "table/bucket.h"
#include "table/table_reader.h"

namespace moetune::cli {
namespace {

namespace fs = std::filesystem;

// The first, brief pass of screening: validation plus 3 replays of up to 5 launches, about 1 ms
// each (select/screening.h).
constexpr measure::TimingOptions kScreeningTiming{
    .launches_per_graph = 5, .warmup_replays = 1, .timed_replays = 3, .replay_ms = 1.0};

struct SweepOptions {
    std::string shapes;
    std::string output;  // empty: output/<stem>_tuned.csv
    std::string tokens;  // empty: each row's own token, as a bucket
    bool only_missing = false;
    std::vector<std::string> tuned;
    double err_ratio = 0.1;
    std::string metric = "cosine";
    std::uint64_t seed = 0;
    std::string routing = "random";
    std::optional<int> routings;  // unset: timed_routings' default
    std::string profile_out;
    std::string report;
    bool dry_run = false;
    std::string arch = "sm_90a";
    std::optional<std::string> gfx;
    std::optional<long long> cu_num;
    std::string gpus = "all";
    std::string shard = "0/1";
    bool retune = false;
    double min_improvement_pct = select::kDefaultMinImprovementPct;
    double task_timeout_s = 300;
    double finalist_margin = 1.25;  // 0: no screening, every candidate timed in full
    int clock_rounds = sweep::SweepSettings{}.clock_rounds;
    double replay_ms = measure::TimingOptions{}.replay_ms;
    std::string cache_dir;
    unsigned compile_threads = 0;
    bool no_heuristics = false;
    std::vector<kernels::MmaPath> mma_paths = kernels::EnumerationOptions{}.mma_paths;
    std::string kernels;  // --kernels
    int test_break = 0;
};

// What the flags mean once parsed and checked.
struct Inputs {
    std::vector<long long> buckets;
    sweep::Shard shard;
    std::string routing;  // canonical spelling
    int routings = 1;     // what the launches of a candidate's graph take in turn (timed_routings)
    std::string metric;
    sweep::PlanRequests requests;  // already this shard's part
    std::vector<table::Table> tuned;
    fs::path output;
    sweep::GpuSelection gpus;
};

// Flags and input files; every problem is a usage error (exit 2), reported with file and line.
std::optional<Inputs> read_inputs(const SweepOptions& o) {
    Inputs in;
    try {
        if (!o.tokens.empty()) in.buckets = table::parse_bucket_list(o.tokens);
    } catch (const std::invalid_argument& e) {
        spdlog::error("--tokens: {}", e.what());
        return std::nullopt;
    }
    try {
        in.shard = sweep::parse_shard(o.shard);
    } catch (const std::invalid_argument& e) {
        spdlog::error("--shard: {}", e.what());
        return std::nullopt;
    }
    try {  // its syntax now, with the flags; whether those GPUs exist once the device is open
        in.gpus = sweep::parse_gpu_selection(o.gpus);
    } catch (const std::invalid_argument& e) {
        spdlog::error("--gpus: {}", e.what());
        return std::nullopt;
    }
    try {
        const data::RoutingSpec routing = data::parse_routing_spec(o.routing);
        in.routing = data::to_string(routing);
        try {
            in.routings = timed_routings(o.routings, o.routing, routing);
        } catch (const std::invalid_argument& e) {
            spdlog::error("{}", e.what());
            return std::nullopt;
        }
        in.metric = std::string(data::to_string(data::parse_error_metric(o.metric)));
        in.requests = sweep::read_plan_requests(table::read_table(o.shapes), in.buckets);
        for (const std::string& path : o.tuned) {
            if (fs::exists(path)) {
                in.tuned.push_back(table::read_table(path));
                table::require_tuned_table(in.tuned.back());
            } else {
                spdlog::info("--tuned {} does not exist yet: it covers nothing", path);
            }
        }
        in.output = o.output.empty() ? sweep::default_output_path(o.shapes) : fs::path(o.output);
        sweep::TunedOutput::read(in.output);  // an existing OUT must be a table sweep can add to
        if (!o.profile_out.empty()) sweep::check_profile_file(o.profile_out);
    } catch (const InputError& e) {
        spdlog::error("{}", e.what());
        return std::nullopt;
    }
    for (const std::string& w : in.requests.warnings) spdlog::warn("{}", w);
    const std::size_t all = in.requests.requests.size();
    in.requests.requests = sweep::shard_of(in.requests.requests, in.shard);
    if (in.shard.count > 1)
        spdlog::info("shard {}/{}: {} of {} (shape, bucket) entries", in.shard.index, in.shard.count,
                     in.requests.requests.size(), all);
    return in;
}

std::vector<sweep::PlanEntry> make_plan(const SweepOptions& o, const Inputs& in, const sweep::PlanTarget& target) {
    std::vector<sweep::PlanRequest> requests = in.requests.requests;
    if (o.only_missing) {
        const std::size_t before = requests.size();
        requests = sweep::drop_covered(requests, in.tuned, target);
        spdlog::info("--only-missing: {} of {} entries are already covered by --tuned for {} cu_num {}",
                     before - requests.size(), before, target.gfx, target.cu_num);
    }
    return sweep::build_plan(requests, target,
                             {.heuristics = !o.no_heuristics,
                              .mma_paths = o.mma_paths,
                              .names = kernels::name_filter(o.kernels)});  // checked by CLI11
}

bool any_unsupported(const std::vector<sweep::PlanEntry>& entries) {
    for (const sweep::PlanEntry& e : entries)
        if (!e.supported()) return true;
    return false;
}

int run_dry(const SweepOptions& o, const Inputs& in) {
    sweep::SweepTarget target;
    try {
        target = sweep::dry_run_target(o.arch, o.gfx, o.cu_num);
    } catch (const std::invalid_argument& e) {
        spdlog::error("--arch: {}", e.what());
        return kExitUsage;
    }
    spdlog::info("dry run for {} (rows stamped gfx {}, cu_num {}; --gfx/--cu-num change that)", target.arch,
                 target.plan.gfx, target.plan.cu_num);
    std::vector<sweep::PlanEntry> entries;
    sweep::TunedOutput output;
    try {
        entries = make_plan(o, in, target.plan);
        output = sweep::TunedOutput::read(in.output);
    } catch (const InputError& e) {
        spdlog::error("{}", e.what());
        return kExitUsage;
    }
    std::cout << sweep::format_plan(entries, output, o.retune);
    return any_unsupported(entries) ? kExitFailed : kExitOk;
}

// The device side; nullopt after reporting why (exit 2 or 3 in *exit_code).
std::optional<sweep::SweepTarget> open_target(const Inputs& in, int* exit_code) {
    if (const std::string why = gpu::unavailable_reason(); !why.empty()) {
        spdlog::error("no GPU: {} (--dry-run shows the plan without one)", why);
        *exit_code = kExitNoGpu;
        return std::nullopt;
    }
    try {
        return sweep::device_target(sweep::selected_gpus(in.gpus, gpu::device_count()));
    } catch (const std::invalid_argument& e) {
        spdlog::error("--gpus: {}", e.what());
        *exit_code = kExitUsage;
    } catch (const gpu::GpuError& e) {
        spdlog::error("no GPU: {}", e.what());
        *exit_code = kExitNoGpu;
    }
    return std::nullopt;
}

// Every file the run will write, checked before any GPU work (exit 4, nothing written).
bool outputs_writable(const SweepOptions& o, const Inputs& in) {
    std::vector<fs::path> paths = {in.output};
    if (!o.profile_out.empty()) paths.emplace_back(o.profile_out);
    if (!o.report.empty()) paths.emplace_back(o.report);
    if (o.output.empty()) {  // the default output/ directory is created on first use
        std::error_code ec;
        fs::create_directories(in.output.parent_path(), ec);
        if (ec) {
            spdlog::error("cannot create {}: {}", in.output.parent_path().string(), ec.message());
            return false;
        }
    }
    for (const fs::path& p : paths)
        if (const auto why = unwritable_reason(p)) {
            spdlog::error("cannot write {}: {}; nothing was written", p.string(), *why);
            return false;
        }
    return true;
}

sweep::SweepSettings settings_for(const SweepOptions& o, const Inputs& in, const sweep::SweepTarget& target) {
    sweep::SweepSettings s;
    s.output = in.output;
    if (!o.profile_out.empty()) s.profile_out = o.profile_out;
    if (!o.report.empty()) s.report = o.report;
    s.retune = o.retune;
    s.min_improvement_pct = o.min_improvement_pct;
    if (o.finalist_margin > 0) {
        s.screening = kScreeningTiming;
        s.screening->routings = in.routings;
        s.finalist_margin = o.finalist_margin;
    }
    s.clock_rounds = o.clock_rounds;
    s.task.timing.replay_ms = o.replay_ms;
    s.task.timing.routings = in.routings;
    s.task.seed = o.seed;
    s.task.routing = in.routing;
    s.task.arch = target.arch;
    s.task.cache_dir = o.cache_dir;
    s.task.metric = in.metric;
    s.task.err_ratio = o.err_ratio;
    s.task.test_break = o.test_break;
    s.progress = sweep::Progress::mode_for_stderr();
    s.run.shapes = o.shapes;
    s.run.gfx = target.plan.gfx;
    s.run.cu_num = target.plan.cu_num;
    s.run.gpus = target.gpus;
    s.run.shard = o.shard;
    return s;
}

int run_real(const SweepOptions& o, const Inputs& in) {
    int exit_code = kExitOk;
    const std::optional<sweep::SweepTarget> target = open_target(in, &exit_code);
    if (!target) return exit_code;
    if (!outputs_writable(o, in)) return kExitCannotWrite;

    std::vector<sweep::PlanEntry> entries;
    try {
        entries = make_plan(o, in, target->plan);
    } catch (const InputError& e) {
        spdlog::error("{}", e.what());
        return kExitUsage;
    }
    std::string gpus;
    for (int g : target->gpus) gpus += (gpus.empty() ? "" : ",") + std::to_string(g);
    spdlog::info("sweep of {} (shape, bucket) entries on GPU {} ({}, gfx {}, cu_num {}) into {}; routing {}, {} "
                 "in turn",
                 entries.size(), gpus, target->arch, target->plan.gfx, target->plan.cu_num, in.output.string(),
                 in.routing, in.routings);

    const sweep::SweepSettings settings = settings_for(o, in, *target);
    rtc::KernelCache cache(settings.task.cache_dir);
    rtc::CompilePool pool(&cache, o.compile_threads);
    sweep::RtcCompileAhead compiler(pool, target->arch, o.test_break);
    std::vector<std::unique_ptr<sweep::TaskWorker>> workers;
    for (int g : target->gpus)
        workers.push_back(std::make_unique<sweep::GpuWorker>(g, measure::self_executable(), o.task_timeout_s));
    sweep::WorkerPool runner(std::move(workers));

    std::vector<sweep::BucketReport> reports;
    try {
        reports = sweep::run_sweep(entries, target->plan, settings, runner, compiler);
    } catch (const sweep::CannotWriteOutput& e) {
        spdlog::error("{}", e.what());
        return kExitCannotWrite;
    } catch (const InputError& e) {  // OUT was replaced by something else while running
        spdlog::error("{}", e.what());
        return kExitUsage;
    }
    if (runner.restarts() > 0) spdlog::warn("worker processes were restarted {} time(s) (crash or timeout)", runner.restarts());
    std::cout << sweep::format_summary(reports);
    if (const std::string not_finished = sweep::format_not_finished(reports); !not_finished.empty()) {
        spdlog::error("{}", not_finished);
        return kExitFailed;
    }
    return kExitOk;
}

int run_sweep_command(SweepOptions o) {
    o.cache_dir = rtc::KernelCache::dir_or_default(o.cache_dir).string();
    const std::optional<Inputs> in = read_inputs(o);
    if (!in) return kExitUsage;
    return o.dry_run ? run_dry(o, *in) : run_real(o, *in);
}

}  // namespace

Command add_sweep_command(CLI::App& parent) {
    auto o = std::make_shared<SweepOptions>();
    CLI::App* app = parent.add_subcommand(
        "sweep", "Tune every (shape, token bucket) of a shapes file on this host's GPUs and write AITER's tuned table "
                 "(resumable: rows are written as they are found, a rerun skips them)");
    app->add_option("--shapes", o->shapes, "Untuned shape CSV (AITER format)")->required();
    app->add_option("-o,--output", o->output, "Tuned table to fill (default: output/<shapes stem>_tuned.csv)");
    app->add_option("--tokens", o->tokens,
                    "Token buckets: 'aiter' (1,2,4,...,16384,32768,131072) or a list like 1,2,4; every distinct shape "
                    "is tuned at each. Default: each row's token, as the bucket AITER looks up");
    auto* only_missing = app->add_flag("--only-missing", o->only_missing,
                                       "Skip (shape, bucket) entries that a --tuned table already covers for this GPU");
    auto* tuned = app->add_option("--tuned", o->tuned, "Tuned table for --only-missing (repeat for several)");
    only_missing->needs(tuned);
    tuned->needs(only_missing);
    app->add_option("--err-ratio", o->err_ratio, "Largest accepted error of a candidate (AITER's errRatio)")
        ->check(number_in(0.0, 1.0))
        ->capture_default_str();
    app->add_option("--metric", o->metric, "Error metric: cosine (AITER's FlyDSL metric), row-cosine or mismatch")
        ->capture_default_str();
    app->add_option("--seed", o->seed, "Seed of the synthetic inputs and routing")->capture_default_str();
    app->add_option("--routing", o->routing, "random | balanced | skewed[:s] | file:PATH")->capture_default_str();
    app->add_option("--profile-out", o->profile_out, "Also write every candidate's time, error and failure here (CSV)");
    app->add_option("--report", o->report, "Write a JSON report per (shape, bucket) here, updated after each");
    auto* dry_run =
        app->add_flag("--dry-run", o->dry_run, "Print the plan (entries, candidate counts) without a GPU and exit");
    // A real sweep takes all three from the GPU.
    app->add_option("--arch", o->arch, "Dry run: the target whose limits prune the candidates")
        ->check(CLI::IsMember(kernels::known_archs()))
        ->capture_default_str()
        ->needs(dry_run);
    app->add_option("--gfx", o->gfx, "Dry run: the gfx the rows would be stamped with (default: from --arch)")
        ->needs(dry_run);
    app->add_option("--cu-num", o->cu_num, "Dry run: the cu_num the rows would be stamped with (default: from --arch)")
        ->check(positive_number())
        ->needs(dry_run);
    app->add_option("--gpus", o->gpus, "GPUs to use: all, or a list like 0,1 (one worker process each)")
        ->capture_default_str();
    app->add_option("--shard", o->shard, "Tune only part i of n of the plan (0-based; for clusters, docs/cluster.md)")
        ->capture_default_str();
    app->add_flag("--retune", o->retune, "Measure entries the output already has again");
    app->add_option("--min-improvement-pct", o->min_improvement_pct,
                    "With --retune, replace a row only when the new one is faster by more than this")
        ->check(number_in(0.0, 100.0))
        ->capture_default_str();
    app->add_option("--finalist-margin", o->finalist_margin,
                    "Time every candidate briefly, then in full only those within this factor of the fastest of "
                    "their stage, block_m and kind (what stage 1 writes, what stage 2 reads); 0 times every candidate in full")
        ->check(CLI::Validator(
            [](std::string& v) -> std::string {
                double x = 0;
                const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
                const bool number = ec == std::errc() && end == v.data() + v.size() && std::isfinite(x);
                return number && (x == 0 || x >= 1) ? "" : "--finalist-margin must be 0 or a number of at least 1";
            },
            "0 or >= 1"))
        ->capture_default_str();
    app->add_option("--clock-rounds", o->clock_rounds,
                    "Time again, this many rounds interleaved, the candidates whose timings met different SM clocks "
                    "and lie close enough for the clocks to reorder them; each keeps its median round (0: never)")
        ->check(CLI::Range(0, 100))
        ->capture_default_str();
    add_routings_option(*app, o->routings);
    add_replay_ms_option(*app, o->replay_ms);
    app->add_option("--task-timeout", o->task_timeout_s,
                    "Seconds one candidate may take (incl. a worker's start and data setup) before its worker is "
                    "killed and restarted")
        ->check(positive_number())
        ->capture_default_str();
    app->add_option("--cache-dir", o->cache_dir, "Compiled-kernel cache (default: $XDG_CACHE_HOME/moetune)");
    app->add_option("--compile-threads", o->compile_threads, "Compiler threads (default: one per core)");
    app->add_flag("--no-heuristics", o->no_heuristics, "Keep configs the block_m heuristic would prune");
    add_mma_option(*app, o->mma_paths);
    add_kernels_option(*app, o->kernels);
    app->add_option("--test-break", o->test_break,
                    "Testing only: build every candidate as a broken variant (1 wrong, 2 fault, 3 hang)")
        ->check(number_in(0, 3))
        ->group("Testing");
    return {app, [o] { return run_sweep_command(*o); }};
}

}  // namespace moetune::cli
