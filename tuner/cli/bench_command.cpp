// moetune bench --shapes F [--tuned T.csv ...] [--tokens LIST] [--rounds R] [--json OUT.json]
//               [--hbm-tbps X] [--peak-tflops Y] [--seed S] [--routing R] [--routings N] [--cache-dir D]
//               [--replay-ms MS] [--serial-launches] [--l2-stage2-weights]
// The whole fused MoE through libmoetune, per token bucket: the heuristic default and the tuned
// configuration on the same inputs, timed alternately; µs, speedup, TB/s, TFLOP/s, % of the
// roofline and how far the two arms' outputs differ. docs/benchmarks.md.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "bench/bench_report.h"
#include "bench/peak_probes.h"
#include "bench/shape_bench.h"
#include "cli/command.h"
#include "cli/number_checks.h"
#include "cli/exit_codes.h"
#include "cli/timing_flags.h"
#include "common/atomic_file.h"
#include "data/routing_spec.h"
#include "gpu/device.h"
#include "kernels/shape_rows.h"
#include "moetune/tuned_tables.h"
#include "rtc/kernel_cache.h"
#include "table/bucket.h"

namespace moetune::cli {
namespace {

// The H200's ceilings as performance-anchors.md measured them, which the roofline divides by unless
// the flags say otherwise: the FP8 rate of a rowwise-scaled FP8 matmul and a device-to-device copy by
// SM kernels. 0 measures that ceiling on this device at start (bench/peak_probes.h): the issue's
// targets are fractions of the anchors' roofline, so the anchors' figures stay the default.
constexpr double kDefaultPeakTflops = 1550;
constexpr double kDefaultHbmTbps = 4.27;

struct BenchOptions {
    std::string shapes;
    std::vector<std::string> tuned;
    std::string tokens;
    int rounds = 5;
    std::string json;
    double hbm_tbps = kDefaultHbmTbps;  // 0: measure
    double peak_tflops = kDefaultPeakTflops;  // 0: measure
    uint64_t seed = 0;
    std::string routing = "random";
    std::optional<int> routings;  // unset: timed_routings' default
    std::string cache_dir;
    double replay_ms = measure::TimingOptions{}.replay_ms;
    bool serial_launches = false;
    bool l2_stage2_weights = false;
};

// The command line the results came from, for the JSON's record.
std::string command_line(const BenchOptions& o) {
    std::string c = "moetune bench --shapes " + o.shapes;
    for (const std::string& t : o.tuned) c += " --tuned " + t;
    if (!o.tokens.empty()) c += " --tokens " + o.tokens;
    c += " --rounds " + std::to_string(o.rounds) + " --seed " + std::to_string(o.seed) + " --routing " + o.routing;
    if (o.routings) c += " --routings " + std::to_string(*o.routings);
    if (o.serial_launches) c += " --serial-launches";
    if (o.l2_stage2_weights) c += " --l2-stage2-weights";
    return c;
}

// The rows' distinct shapes, each with its token counts in file (or --tokens) order.
std::vector<bench::ShapeResults> group_by_shape(const kernels::ShapeRows& rows,
                                                std::vector<std::vector<int>>& tokens) {
    std::vector<bench::ShapeResults> shapes;
    for (const kernels::ShapeRow& r : rows.rows) {
        const auto key = [](const data::MoeShape& s) { return std::tie(s.model_dim, s.inter_dim, s.experts, s.topk); };
        auto it = std::find_if(shapes.begin(), shapes.end(),
                               [&](const bench::ShapeResults& s) { return key(s.shape) == key(r.shape); });
        if (it == shapes.end()) {
            shapes.push_back({r.shape, {}});
            tokens.emplace_back();
            it = shapes.end() - 1;
        }
        tokens[it - shapes.begin()].push_back(r.shape.tokens);
    }
    return shapes;
}

int run_bench(const BenchOptions& o) {
    kernels::ShapeRows rows;
    TunedTables tables;
    int routings = 1;
    try {
        routings = timed_routings(o.routings, o.routing, data::parse_routing_spec(o.routing));
        std::vector<int> tokens;
        try {
            if (!o.tokens.empty())
                for (long long t : table::parse_bucket_list(o.tokens)) tokens.push_back(static_cast<int>(t));
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(std::string("--tokens: ") + e.what());
        }
        rows = kernels::read_shape_rows(o.shapes, tokens);
        tables = TunedTables::load(o.tuned);
    } catch (const std::exception& e) {  // InputError, TableError, a bad --tokens or --routing: all name their input
        spdlog::error("{}", e.what());
        return kExitUsage;
    }
    for (const std::string& s : rows.skipped) spdlog::warn("{}; row skipped", s);
    if (rows.rows.empty()) {
        spdlog::error("{}: no shape row moetune's kernels run", o.shapes);
        return kExitUsage;
    }
    if (!o.json.empty())
        if (const auto why = unwritable_reason(o.json)) {
            spdlog::error("cannot write {}: {}; nothing was run", o.json, *why);
            return kExitCannotWrite;
        }

    if (const std::string why = gpu::unavailable_reason(); !why.empty()) {
        spdlog::error("no GPU: {}", why);
        return kExitNoGpu;
    }
    const gpu::DeviceInfo device = gpu::device_info(gpu::current_device());
    const gpu::Stream stream;
    bench::BenchHeader header;
    header.device = device.name;
    header.gfx = device.gfx;
    header.cu_num = device.cu_num;
    header.command = command_line(o);
    header.tuned_tables = o.tuned;
    bench::BenchSettings& s = header.settings;
    s.rounds = o.rounds;
    s.timing.replay_ms = o.replay_ms;
    s.seed = o.seed;
    s.routing = o.routing;
    s.timing.routings = routings;
    s.cache_dir = o.cache_dir;
    s.overlap_launches = !o.serial_launches;
    s.l2_stage2_weights = o.l2_stage2_weights;
    s.peaks.tflops = o.peak_tflops;
    s.peaks.hbm_tbps = o.hbm_tbps;
    const bool measure_hbm = o.hbm_tbps == 0;
    header.tflops_measured = o.peak_tflops == 0;
    if (header.tflops_measured && !bench::PeakProbes::measures_fp8(device.arch)) {
        spdlog::error("--peak-tflops 0: moetune has no FP8 tensor probe for {} ({}); give the peak", device.name,
                      device.arch);
        return kExitUsage;
    }
    if (measure_hbm || header.tflops_measured) {
        const rtc::KernelCache cache(rtc::KernelCache::dir_or_default(o.cache_dir));
        const bench::PeakProbes probes(&cache);
        if (measure_hbm) {
            header.hbm_measured = probes.hbm_streams(stream);
            s.peaks.hbm_tbps = header.hbm_measured->ceiling();
            spdlog::info("HBM measured: copy {:.2f} TB/s (read + written), read-only stream {:.2f} TB/s",
                         header.hbm_measured->copy_tbps, header.hbm_measured->read_tbps);
        }
        if (header.tflops_measured) s.peaks.tflops = probes.fp8_tflops(stream);
    }
    const auto source = [](bool measured) { return measured ? "measured" : "flag"; };
    spdlog::info("{} ({} {}): HBM {:.2f} TB/s ({}), FP8 peak {:.0f} TFLOP/s ({}), {} table row(s)", device.name,
                 device.gfx, device.cu_num, s.peaks.hbm_tbps, source(header.hbm_measured.has_value()), s.peaks.tflops,
                 source(header.tflops_measured), tables.rows());

    std::vector<std::vector<int>> tokens;
    std::vector<bench::ShapeResults> results = group_by_shape(rows, tokens);
    for (std::size_t i = 0; i < results.size(); ++i) {
        bench::ShapeResults& r = results[i];
        const data::MoeShape& sh = r.shape;
        const int max_tokens = *std::max_element(tokens[i].begin(), tokens[i].end());
        spdlog::info("shape {}x{} E{} top{}: preparing both arms up to {} tokens", sh.model_dim, sh.inter_dim,
                     sh.experts, sh.topk, max_tokens);
        bench::ShapeBench bench(sh, tables, s, max_tokens, stream);
        std::printf("%s\n", bench::bench_table_header().c_str());
        for (int m : tokens[i]) {
            r.buckets.push_back(bench.run(m));
            std::printf("%s\n", bench::bench_table_row(r.buckets.back()).c_str());
            std::fflush(stdout);
            if (!o.json.empty()) bench::write_bench_json(o.json, header, results);
        }
    }
    if (!o.json.empty()) spdlog::info("wrote {}", o.json);
    return kExitOk;
}

}  // namespace

Command add_bench_command(CLI::App& parent) {
    auto o = std::make_shared<BenchOptions>();
    CLI::App* app = parent.add_subcommand(
        "bench", "Time the fused MoE with the heuristic default and with tuned tables, against the roofline");
    app->add_option("--shapes", o->shapes, "Shape table (AITER untuned or tuned CSV)")->required();
    app->add_option("--tuned", o->tuned, "Tuned table(s), merged by AITER's rules; none: the default arm only");
    app->add_option("--tokens", o->tokens, "Token counts (comma-separated, or 'aiter'); default: the rows' own");
    app->add_option("--rounds", o->rounds, "Timed rounds per arm (arms alternate); the median is reported")
        ->check(positive_number())
        ->capture_default_str();
    app->add_option("--json", o->json, "Write the results here (rewritten after every bucket)");
    app->add_option("--hbm-tbps", o->hbm_tbps,
                    "HBM bandwidth for the roofline (default: the H200's, performance-anchors.md); 0 measures the "
                    "faster of a copy and a read-only stream by SM kernels on this device")
        ->check(non_negative_number())
        ->capture_default_str();
    app->add_option("--peak-tflops", o->peak_tflops,
                    "Dense FP8 tensor peak for the roofline (default: the H200's); 0 measures e4m3 warpgroup "
                    "products on this device (sm_90a)")
        ->check(non_negative_number())
        ->capture_default_str();
    app->add_option("--seed", o->seed, "Seed of the synthetic inputs and routing")->capture_default_str();
    app->add_option("--routing", o->routing, "random | balanced | skewed[:s] | file:PATH")->capture_default_str();
    add_routings_option(*app, o->routings);
    app->add_option("--cache-dir", o->cache_dir, "Compiled-kernel cache (default ~/.cache/moetune)");
    app->add_flag("--serial-launches", o->serial_launches,
                  "Launch every kernel after the one before it has finished (FusedMoeOptions::overlap_launches = "
                  "false), in both arms");
    app->add_flag("--l2-stage2-weights", o->l2_stage2_weights,
                  "A register-fed stage 1 asks L2 for stage 2's weights where they fit, instead of stage 2 "
                  "streaming them itself (FusedMoeOptions::l2_stage2_weights = true), in both arms");
    add_replay_ms_option(*app, o->replay_ms);
    return {app, [o] { return run_bench(*o); }};
}

}  // namespace moetune::cli
