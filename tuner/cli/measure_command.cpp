// moetune measure --shapes F --tokens N [--stage 1|2] [--kernels REGEX] [--seed S] [--routing R]
//                 [--metric M] [--err-ratio X] [--cache-dir D] [--timeout S] [--isolate|--in-process]
//                 [--gpu G] [--cold-l2] [--routings N] [--test-break wrong|fault|hang] [--json OUT]
// Measures the candidates of each distinct shape of F at N tokens (after static pruning, filtered by
// --kernels): all are compiled in parallel into the kernel cache first, then each is validated
// against the reference and timed (tuner/measure, docs/measurement.md), one table row per candidate
// as it finishes. By default every candidate runs in a worker process, so a faulting or hanging
// kernel is recorded as failed and the run goes on. Exit: 0 all passed, 1 some failed, 2 bad input,
// 3 no GPU, 4 the --json file cannot be written.
#include <algorithm>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <set>
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
#include "cli/timing_flags.h"
#include "common/atomic_file.h"
#include "common/input_error.h"
#include "data/error_metrics.h"
#include "data/routing_spec.h"
#include "gpu/device.h"
#include "instantiate/kernel_request.h"
#include "kernels/candidates.h"
#include "kernels/device_limits.h"
#include "kernels/kernel_name.h"
#include "kernels/supported_shape.h"
#include "measure/failure.h"
#include "measure/harness_kernels.h"
#include "measure/measurer.h"
#include "measure/worker_client.h"
#include "rtc/compile_pool.h"
#include "rtc/kernel_cache.h"
#include "table/schema.h"
#include "table/table_reader.h"
#include "table/table_shape.h"

namespace moetune::cli {
namespace {

struct MeasureOptions {
    std::string shapes;
    int tokens = 0;
    int stage = 0;  // 0: both
    std::string kernels;
    uint64_t seed = 0;
    std::string routing = "random";
    std::string metric = "cosine";
    double err_ratio = 0.1;
    std::string cache_dir;
    double timeout_s = 60;
    bool isolate = false;  // the default; the flag only makes it explicit
    bool in_process = false;
    int gpu = 0;
    bool cold_l2 = false;
    std::optional<int> routings;  // unset: timed_routings' default
    double replay_ms = measure::TimingOptions{}.replay_ms;
    std::string test_break;  // "", wrong, fault, hang
    std::string json;
    std::vector<kernels::MmaPath> mma_paths = kernels::EnumerationOptions{}.mma_paths;
};

int test_break_code(const std::string& flag) {
    if (flag == "wrong") return 1;
    if (flag == "fault") return 2;
    if (flag == "hang") return 3;
    return 0;
}

// The distinct supported shapes of the file at `tokens`. Rows that are not valid or not supported are
// reported and skipped; throws InputError for a file that is not a shape table.
std::vector<data::MoeShape> read_shapes(const std::string& path, int tokens) {
    const table::Table t = table::read_table(path);
    for (std::string_view c : table::kShapeColumns)
        if (!t.has_column(c)) throw InputError(t.file, t.header_line, "no " + std::string(c) + " column");
    std::vector<data::MoeShape> shapes;
    for (const table::TableRow& row : t.rows) {
        std::string why;
        std::optional<data::MoeShape> shape;
        try {
            shape = kernels::supported_moe_shape(table::read_shape(t, row), &why);
            if (!shape) throw InputError(t.file, row.line, why);
        } catch (const InputError& e) {
            spdlog::warn("{}; row skipped", e.what());
            continue;
        }
        shape->tokens = tokens;
        const bool seen = std::any_of(shapes.begin(), shapes.end(), [&](const data::MoeShape& s) {
            return s.model_dim == shape->model_dim && s.inter_dim == shape->inter_dim && s.experts == shape->experts &&
                   s.topk == shape->topk;
        });
        if (!seen) shapes.push_back(*shape);
    }
    return shapes;
}

// The tasks of one shape: the candidates of the chosen stages whose names match --kernels.
std::vector<measure::MeasureTask> make_tasks(const MeasureOptions& o, const data::MoeShape& shape,
                                             const kernels::DeviceLimits& limits, const measure::MeasureTask& base) {
    const kernels::EnumerationOptions enumeration{.mma_paths = o.mma_paths,
                                                  .names = kernels::name_filter(o.kernels)};  // checked by CLI11
    std::vector<measure::MeasureTask> tasks;
    for (kernels::Stage stage : {kernels::Stage::gate_up, kernels::Stage::down}) {
        if (o.stage != 0 && o.stage != kernels::stage_number(stage)) continue;
        for (const kernels::KernelConfig& c : kernels::enumerate_candidates(stage, shape, limits, enumeration).kept) {
            measure::MeasureTask t = base;
            t.shape = shape;
            t.kernel_name = kernels::kernel_name(c);
            tasks.push_back(std::move(t));
        }
    }
    return tasks;
}

// Compiles every candidate (and what a worker needs besides) into the cache on all cores, with the
// request the worker builds too (instantiate::kernel_compile_request), so the worker only loads them.
// Returns the compile failure of each kernel that did not build. (instantiate::compile_kernels does
// not build the --test-break variants, hence a pool here.)
std::map<std::string, std::string> compile_all(const std::vector<measure::MeasureTask>& tasks,
                                               const rtc::KernelCache& cache, const std::string& arch, int test_break) {
    rtc::CompilePool pool(&cache);
    std::vector<std::future<rtc::CompiledCode>> support;
    for (rtc::CompileRequest& r : measure::worker_support_requests(arch)) support.push_back(pool.submit(std::move(r)));
    std::map<std::string, std::future<rtc::CompiledCode>> running;
    std::map<std::string, std::string> failures;
    for (const measure::MeasureTask& t : tasks) {
        if (running.count(t.kernel_name) || failures.count(t.kernel_name)) continue;
        try {
            const kernels::KernelConfig config = *kernels::parse_kernel_name(t.kernel_name);
            running.emplace(t.kernel_name,
                            pool.submit(instantiate::kernel_compile_request(config, arch, test_break)));
        } catch (const std::exception& e) {
            failures.emplace(t.kernel_name, measure::failure_text("compile", e.what()));
        }
    }
    for (auto& f : support) f.get();  // a broken harness or data kernel is a bug: let it throw
    for (auto& [name, future] : running) {
        try {
            future.get();
        } catch (const std::exception& e) {
            failures.emplace(name, measure::failure_text("compile", e.what()));
        }
    }
    spdlog::info("compiled {} kernels into {} ({} failed)", running.size(), cache.dir().string(), failures.size());
    return failures;
}

std::string status_of(const measure::MeasureResult& r) { return r.ok ? "ok" : r.failure; }

void print_row(const measure::MeasureResult& r) {
    const std::string us = r.ok ? fmt::format("{:.2f}", r.us) : "-";
    const std::string err = r.ok || measure::failure_kind(r.failure) == "wrong" ? fmt::format("{:.4f}", r.err) : "-";
    // The SM clock right before and after the timed replays: times are comparable at one clock.
    const std::string clock = r.ok ? fmt::format("{:.0f}-{:.0f}", r.sm_mhz_before, r.sm_mhz_after) : "-";
    fmt::print("{:<68} {:>10} {:>8} {:>10}  {}\n", r.kernel_name, us, err, clock, status_of(r));
    std::fflush(stdout);
}

int run_measure(const MeasureOptions& o) {
    if (const std::string why = gpu::unavailable_reason(); !why.empty()) {
        spdlog::error("no GPU: {}", why);
        return kExitNoGpu;
    }
    if (o.gpu >= gpu::device_count()) {
        spdlog::error("--gpu {}: this host has {} GPU(s)", o.gpu, gpu::device_count());
        return kExitUsage;
    }
    const gpu::DeviceInfo device = gpu::device_info(o.gpu);
    const std::optional<kernels::DeviceLimits> limits = kernels::device_limits_for_arch(device.arch);
    if (!limits) {
        spdlog::error("{} ({}): moetune has no candidate limits for this arch", device.name, device.arch);
        return kExitFailed;
    }

    std::vector<data::MoeShape> shapes;
    int routings = 1;
    try {
        routings = timed_routings(o.routings, o.routing, data::parse_routing_spec(o.routing));
        data::parse_error_metric(o.metric);
        shapes = read_shapes(o.shapes, o.tokens);
    } catch (const std::exception& e) {  // InputError (file and line), a --routings the routing cannot take
        spdlog::error("{}", e.what());
        return kExitUsage;
    }
    if (shapes.empty()) {
        spdlog::error("{}: no supported shape row", o.shapes);
        return kExitUsage;
    }

    const rtc::KernelCache cache(rtc::KernelCache::dir_or_default(o.cache_dir));
    measure::MeasureTask base;
    base.seed = o.seed;
    base.routing = o.routing;
    base.arch = device.arch;
    base.cache_dir = cache.dir().string();
    base.metric = o.metric;
    base.err_ratio = o.err_ratio;
    base.timing.cold_l2 = o.cold_l2;
    base.timing.routings = routings;
    base.timing.replay_ms = o.replay_ms;
    base.test_break = test_break_code(o.test_break);
    std::vector<measure::MeasureTask> tasks;
    for (const data::MoeShape& shape : shapes) {
        std::vector<measure::MeasureTask> more = make_tasks(o, shape, *limits, base);
        tasks.insert(tasks.end(), more.begin(), more.end());
    }
    if (tasks.empty()) {
        spdlog::error("no candidate{} for {} at {} tokens",
                      o.kernels.empty() ? "" : " matches --kernels '" + o.kernels + "'",
                      o.shapes, o.tokens);
        return kExitFailed;
    }
    spdlog::info("{} candidate(s) at {} tokens, timed over {} routing(s) in turn ({})", tasks.size(), o.tokens,
                 routings, o.routing);

    // A --json that cannot be written is found before the compiling and measuring, not after.
    if (!o.json.empty())
        if (const auto why = unwritable_reason(o.json)) {
            spdlog::error("cannot write {}: {}; nothing was measured", o.json, *why);
            return kExitCannotWrite;
        }
    const std::map<std::string, std::string> compile_failures = compile_all(tasks, cache, device.arch, base.test_break);
    std::unique_ptr<measure::WorkerClient> client;
    std::unique_ptr<measure::Measurer> measurer;
    if (o.in_process) measurer = std::make_unique<measure::Measurer>(o.gpu);
    else client = std::make_unique<measure::WorkerClient>(o.gpu, measure::self_executable(), o.timeout_s);

    fmt::print("{} ({}), {} tokens, {} candidates\n", device.name, device.arch, o.tokens, tasks.size());
    fmt::print("{:<68} {:>10} {:>8} {:>10}  {}\n", "kernel", "us", "err", "SM MHz", "status");
    nlohmann::json measurements = nlohmann::json::array();
    int failed = 0;
    for (const measure::MeasureTask& task : tasks) {
        measure::MeasureResult result;
        if (auto it = compile_failures.find(task.kernel_name); it != compile_failures.end()) {
            result.kernel_name = task.kernel_name;
            result.failure = it->second;
        } else {
            result = client ? client->run(task) : measurer->run(task);
        }
        if (!result.ok) ++failed;
        print_row(result);
        measurements.push_back({{"task", task}, {"result", result}});
    }
    fmt::print("{} of {} candidates passed{}\n", tasks.size() - failed, tasks.size(),
               client && client->restarts() > 0 ? fmt::format(" ({} worker restarts)", client->restarts()) : "");

    if (!o.json.empty()) {
        const nlohmann::json report = {
            {"gpu", {{"index", device.index}, {"name", device.name}, {"arch", device.arch}, {"gfx", device.gfx}}},
            {"measurements", measurements}};
        try {
            write_file_atomically(o.json, report.dump(2) + "\n");
        } catch (const std::exception& e) {
            spdlog::error("{}", e.what());
            return kExitCannotWrite;
        }
    }
    return failed > 0 ? kExitFailed : kExitOk;
}

}  // namespace

Command add_measure_command(CLI::App& parent) {
    auto o = std::make_shared<MeasureOptions>();
    CLI::App* app = parent.add_subcommand(
        "measure", "Validate and time the candidate kernels of a shape at one token count (docs/measurement.md)");
    app->add_option("--shapes", o->shapes, "Shape CSV (AITER untuned format); each distinct shape is measured")
        ->required();
    app->add_option("--tokens", o->tokens, "Token count M (the bucket)")
        ->required()
        ->check(number_in(1, (1 << 24) - 1));
    app->add_option("--stage", o->stage, "Only this stage (1: gate/up, 2: down)")->check(CLI::IsMember({1, 2}));
    add_mma_option(*app, o->mma_paths);
    add_kernels_option(*app, o->kernels);
    app->add_option("--seed", o->seed, "Seed of the synthetic inputs and routing")->capture_default_str();
    app->add_option("--routing", o->routing, "random | balanced | skewed[:s] | file:PATH")->capture_default_str();
    app->add_option("--metric", o->metric, "Error gate: cosine, row-cosine or mismatch")->capture_default_str();
    app->add_option("--err-ratio", o->err_ratio, "Largest accepted error")->capture_default_str()->check(
        non_negative_number());
    app->add_option("--cache-dir", o->cache_dir, "Compiled-kernel cache (default ~/.cache/moetune)");
    app->add_option("--timeout", o->timeout_s, "Seconds one candidate may take in its worker before it is killed")
        ->capture_default_str()
        ->check(positive_number());
    auto* isolate = app->add_flag("--isolate", o->isolate,
                                  "Run candidates in a worker process (default): faults and hangs fail only that "
                                  "candidate");
    app->add_flag("--in-process", o->in_process,
                  "Run candidates in this process (no timeout; after a GPU fault every later candidate fails)")
        ->excludes(isolate);
    app->add_option("--gpu", o->gpu, "Device index")->capture_default_str()->check(non_negative_number());
    app->add_flag("--cold-l2", o->cold_l2, "Rotate launches over copies of the activations so they miss in L2");
    add_routings_option(*app, o->routings);
    add_replay_ms_option(*app, o->replay_ms);
    app->add_option("--test-break", o->test_break,
                    "(test-only) build every candidate as a deliberately broken variant: wrong output, a GPU fault, "
                    "or a hang")
        ->check(CLI::IsMember({"wrong", "fault", "hang"}));
    app->add_option("--json", o->json, "Also write every task and result to this JSON file");
    return Command{app, [o] { return run_measure(*o); }};
}

}  // namespace moetune::cli
