#include "measure/measurer.h"

#include <cmath>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include <spdlog/spdlog.h>

#include "common/input_error.h"
#include "data/error_metrics.h"
#include "data/routing_spec.h"
#include "data_gpu/data_kernels.h"
#include "gpu/device.h"
#include "gpu/gpu_error.h"
#include "gpu/module.h"
#include "gpu/stream.h"
#include "instantiate/kernel_request.h"
#include "kernels/kernel_name.h"
#include "kernels/stage_handoff.h"
#include "kernels/static_checks.h"
#include "measure/bucket_data.h"
#include "measure/candidate_launch.h"
#include "measure/failure.h"
#include "measure/graph_timing.h"
#include "measure/handoff_pass_launch.h"
#include "measure/harness_kernels.h"
#include "measure/output_judge.h"
#include "measure/shape_weights.h"
#include "measure/sm_clock_probe.h"
#include "rtc/compiler.h"
#include "rtc/kernel_cache.h"

namespace moetune::measure {
namespace {

// A classified failure of one task, thrown by the steps below and turned into the result's text.
struct TaskFailure {
    std::string text;
};

[[noreturn]] void fail(std::string_view kind, std::string_view detail) {
    throw TaskFailure{failure_text(kind, detail)};
}

struct CheckedTask {
    data::ErrorMetric metric;
    data::RoutingSpec routing;
};

CheckedTask check_task(const MeasureTask& t) {
    if (std::string why = timing_options_error(t.timing); !why.empty()) fail("input", why);
    if (auto why = kernels::shape_error(t.shape)) fail("input", *why);
    if (!(t.err_ratio >= 0) || !std::isfinite(t.err_ratio)) fail("input", "err_ratio must be a finite number >= 0");
    if (t.test_break < 0 || t.test_break > 3) fail("input", "test_break must be 0..3");
    CheckedTask checked;
    try {
        checked = {data::parse_error_metric(t.metric), data::parse_routing_spec(t.routing)};
    } catch (const InputError& e) {
        fail("input", e.what());
    }
    if (t.timing.routings > 1 && !data::varies_with_seed(checked.routing))
        fail("input", "routing " + t.routing + " is the same whatever the seed: it cannot be timed as " +
                          std::to_string(t.timing.routings) + " routings");
    return checked;
}

}  // namespace

struct Measurer::State {
    explicit State(int device) : gpu(device), info(gpu::device_info(device)) {}

    int gpu;
    gpu::DeviceInfo info;
    gpu::Stream stream;
    // The kernels of the harness are built with the first task's cache directory and kept.
    std::optional<rtc::KernelCache> harness_cache;
    std::unique_ptr<data::DataKernels> data_kernels;
    std::unique_ptr<HarnessKernels> harness_kernels;
    std::unique_ptr<SmClockProbe> clock_probe;
    std::unique_ptr<ShapeWeights> weights;
    std::unique_ptr<BucketData> bucket;
    bool context_lost = false;

    // After a GpuError: does the context still work? Sticky errors (an illegal address, a trap)
    // make every later call fail, a refused launch or a failed allocation does not.
    bool healthy() const {
        try {
            stream.synchronize();
            return true;
        } catch (const gpu::GpuError&) {
            return false;
        }
    }

    void prepare(const MeasureTask& task, const data::RoutingSpec& routing) {
        if (!data_kernels) {
            if (!task.cache_dir.empty()) harness_cache.emplace(task.cache_dir);
            const rtc::KernelCache* cache = harness_cache ? &*harness_cache : nullptr;
            data_kernels = std::make_unique<data::DataKernels>(cache);
            harness_kernels = std::make_unique<HarnessKernels>(cache);
            clock_probe = std::make_unique<SmClockProbe>(cache);
        }
        if (!weights || !weights->serves(task.shape, task.seed)) {
            bucket.reset();
            weights.reset();  // free the old weights before allocating new ones
            spdlog::debug("gpu {}: generating weights for model_dim {} inter_dim {} experts {} seed {}", gpu,
                          task.shape.model_dim, task.shape.inter_dim, task.shape.experts, task.seed);
            weights = std::make_unique<ShapeWeights>(*data_kernels, *harness_kernels, task.shape, task.seed, stream);
        }
        if (!bucket || !bucket->serves(task.shape, task.seed, routing)) {
            bucket.reset();
            spdlog::debug("gpu {}: inputs and references for {} tokens, routing {}", gpu, task.shape.tokens,
                          data::to_string(routing));
            try {
                bucket = std::make_unique<BucketData>(*data_kernels, *weights, task.shape, task.seed, routing, stream);
            } catch (const InputError& e) {
                fail("input", e.what());
            }
        }
    }

    rtc::CompiledCode compile(const MeasureTask& task, const kernels::KernelConfig& config) const {
        const std::string arch = task.arch.empty() ? info.arch : task.arch;
        try {
            const std::optional<rtc::KernelCache> cache =
                task.cache_dir.empty() ? std::nullopt : std::optional<rtc::KernelCache>(task.cache_dir);
            const rtc::CompileRequest request = instantiate::kernel_compile_request(config, arch, task.test_break);
            const rtc::CompiledCode code = rtc::compile(request, cache ? &*cache : nullptr);
            if (!code.from_cache)
                spdlog::debug("{}: compiled in the worker ({} ms)", task.kernel_name, code.compile_ms);
            return code;
        } catch (const rtc::CompileError& e) {
            fail("compile", e.what());
        } catch (const std::invalid_argument& e) {
            fail("config", e.what());
        }
    }

    void measure(const MeasureTask& task, const kernels::KernelConfig& config, MeasureResult& result) {
        const CheckedTask checked = check_task(task);
        std::string gpu_failure_kind = "internal";  // what a GpuError means if the context survives it
        try {
            prepare(task, checked.routing);
            const rtc::CompiledCode code = compile(task, config);
            gpu_failure_kind = "launch";
            const gpu::Module module(code.code);
            const gpu::Kernel kernel = module.kernel(code.lowered_names.at(0));
            std::optional<CandidateLaunch> launch;
            try {
                launch.emplace(config, kernel, *data_kernels, *harness_kernels, *weights, *bucket, task.timing.cold_l2,
                               info.l2_bytes, task.timing.launches_per_graph, task.timing.routings);
            } catch (const std::invalid_argument& e) {
                fail("config", e.what());
            }

            launch->poison(0);
            launch->enqueue(stream, 0);
            stream.synchronize();
            const Judgement j = judge_output(launch->reference(), launch->output(0), launch->row_length(),
                                             checked.metric, task.err_ratio, launch->zero_start());
            result.err = j.err;
            if (!j.ok) throw TaskFailure{j.failure};

            time(task.timing, result, [&](int i) { launch->enqueue(stream, i); });
        } catch (const gpu::GpuError& e) {
            context_lost = !healthy();
            fail(context_lost ? "fault" : gpu_failure_kind, e.what());
        }
    }

    // The pass between the stages that `pass` runs (kernels/stage_handoff.h), on the bucket's stage-2
    // input: checked, then timed like a candidate.
    void measure_pass(const MeasureTask& task, kernels::StageHandoff pass, MeasureResult& result) {
        const CheckedTask checked = check_task(task);
        std::string gpu_failure_kind = "internal";
        try {
            prepare(task, checked.routing);
            gpu_failure_kind = "launch";
            HandoffPassLaunch launch(pass, *data_kernels, *bucket);
            launch.poison();
            launch.enqueue(stream);
            stream.synchronize();
            if (std::string why = launch.mismatch(); !why.empty()) fail("wrong", why);
            time(task.timing, result, [&](int) { launch.enqueue(stream); });
        } catch (const gpu::GpuError& e) {
            context_lost = !healthy();
            fail(context_lost ? "fault" : gpu_failure_kind, e.what());
        }
    }

    // Graph timing of enqueue(launch) with `options` (R adapted to one launch's time, which has run
    // once already), into result: us, spread, R, the SM clock before and after, ok.
    void time(const TimingOptions& options, MeasureResult& result, const std::function<void(int)>& enqueue) {
        const TimingOptions timing = adapt_to_launch_time(stream, options, [&] { enqueue(0); });
        result.sm_mhz_before = clock_probe->mhz(stream);
        const TimingStats t = time_in_graph(stream, timing, enqueue);
        result.sm_mhz_after = clock_probe->mhz(stream);
        result.us = t.us_per_launch;
        result.launches_per_graph = timing.launches_per_graph;
        result.spread_pct = t.spread_pct;
        result.ok = true;
    }
};

Measurer::Measurer(int gpu) {
    gpu::set_device(gpu);
    state_ = std::make_unique<State>(gpu);
}

Measurer::~Measurer() = default;

bool Measurer::context_lost() const { return state_->context_lost; }

MeasureResult Measurer::run(const MeasureTask& task) {
    MeasureResult result;
    result.kernel_name = task.kernel_name;
    const std::optional<kernels::StageHandoff> pass = kernels::parse_handoff_pass(task.kernel_name);
    std::string why;
    const std::optional<kernels::KernelConfig> config =
        pass ? std::nullopt : kernels::parse_kernel_name(task.kernel_name, &why);
    if (!pass && !config) {
        result.failure = failure_text("config", "'" + task.kernel_name + "': " + why);
        return result;
    }
    if (config) {
        result.stage = kernels::stage_number(config->stage);
        result.block_m = kernels::sort_block_m(*config);
    }
    if (state_->context_lost) {
        result.failure = failure_text("fault", "the GPU context was lost to an earlier fault in this process");
        return result;
    }
    try {
        gpu::set_device(state_->gpu);  // the device is per thread; run() may be called from another
        if (pass) state_->measure_pass(task, *pass, result);
        else state_->measure(task, *config, result);
    } catch (const TaskFailure& f) {
        result.failure = f.text;
    } catch (const std::exception& e) {
        result.failure = failure_text("internal", e.what());
    }
    if (!result.failure.empty()) {
        result.ok = false;
        result.us = 0;
        result.spread_pct = 0;
    }
    spdlog::debug("{}: {}", task.kernel_name, result.ok ? "ok" : result.failure);
    return result;
}

}  // namespace moetune::measure
