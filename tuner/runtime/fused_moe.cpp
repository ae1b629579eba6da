// moetune::FusedMoe (include/moetune/fused_moe.h): plans per bucket (bucket_planner.h), kernels
// (stage_kernels.h), a workspace (workspace.h), and launch/stage_launch.h's sequence -- the one the
// tuner timed -- on the caller's buffers and stream.
#include "moetune/fused_moe.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include "data_gpu/data_kernels.h"
#include "data_gpu/moe_sorting_gpu.h"
#include "data_gpu/mxfp8_quant_gpu.h"
#include "gpu/device.h"
#include "gpu/event.h"
#include "gpu/stream.h"
#include "kernels/device_limits.h"
#include "kernels/kernel_config.h"
#include "kernels/kernel_name.h"
#include "launch/stage_launch.h"
#include "measure/device_kernel_limits.h"
#include "measure/harness_kernels.h"
#include "rtc/kernel_cache.h"
#include "runtime/bucket_planner.h"
#include "runtime/cache_dir.h"
#include "runtime/stage_kernels.h"
#include "runtime/workspace.h"
#include "table/bucket.h"

namespace moetune {
namespace {

// The most routing entries at which a register-fed stage 1 finds its rows in the routing (run()):
// on the H100 one and two tokens of top-5 gained 1.4 and 0.9 us against the same kernels waiting for
// the sort, four tokens lost 0.1 and eight 3.0 (docs/results/2026-12-06-h100-mx-rows, call 1).
constexpr int kRoutedRowsUpTo = 16;

gpu::DeviceInfo current_device_info() {
    if (const std::string why = gpu::unavailable_reason(); !why.empty())
        throw std::runtime_error("FusedMoe: no usable GPU: " + why);
    return gpu::device_info(gpu::current_device());
}

kernels::DeviceLimits limits_of(const gpu::DeviceInfo& info) {
    const std::optional<kernels::DeviceLimits> limits = measure::device_kernel_limits(info);
    if (!limits) throw std::runtime_error("FusedMoe: moetune has no kernels for " + info.name + " (" + info.arch + ")");
    return *limits;
}

std::function<void(const std::string&)> log_or_clog(std::function<void(const std::string&)> log) {
    if (log) return log;
    return [](const std::string& line) { std::clog << line << '\n'; };
}

void require_buffer(const void* p, const std::string& what) {
    if (!p) throw std::invalid_argument("FusedMoe::run: " + what + " is null");
}

// The copy of stage `stage`'s weights its kernel reads (kernels::weight_copy), which the caller gives
// besides the kernel layout: w{stage}_rebased and w{stage}_base, w{stage}_e4m3_coded, or
// w{stage}_fp4_blocks and w{stage}_base.
void require_weight_copy(const kernels::KernelConfig& c, int stage, const void* rebased, const void* e4m3_coded,
                         const void* fp4_blocks, const void* base) {
    const std::string w = "w" + std::to_string(stage), why = " (this bucket's stage " + std::to_string(stage) + " reads ";
    switch (kernels::weight_copy(c)) {
        case kernels::WeightCopy::coded_fp4: return;
        case kernels::WeightCopy::rebased_e4m3:
            require_buffer(rebased, w + "_rebased" + why + "rebased weights)");
            require_buffer(base, w + "_base" + why + "rebased weights)");
            return;
        case kernels::WeightCopy::e4m3_coded_fp4:
            require_buffer(e4m3_coded, w + "_e4m3_coded" + why + "the weights in the e4m3 code)");
            return;
        case kernels::WeightCopy::fp4_blocks:
            require_buffer(fp4_blocks, w + "_fp4_blocks" + why + "FP4 weight blocks)");
            require_buffer(base, w + "_base" + why + "FP4 weight blocks)");
            return;
        case kernels::WeightCopy::f16_tiles:
            // The planner refuses a _gemv row (runtime/bucket_planner.cpp) before any run.
            throw std::logic_error("FusedMoe::run: the _gemv kernels' weight copy is not served by the library yet");
    }
}

}  // namespace

struct FusedMoe::Impl {
    Impl(MoeShapeKey shape, TunedTables tables, FusedMoeOptions options, gpu::DeviceInfo device)
        : info(std::move(device)),
          overlap_launches(options.overlap_launches),
          l2_stage2_weights(options.l2_stage2_weights),
          cache(runtime::cache_dir(options)),
          planner(std::move(shape), std::move(tables), {info.gfx, info.cu_num}, limits_of(info),
                  log_or_clog(std::move(options.log))) {}

    void prepare(int max_tokens);
    void run(const FusedMoeArgs& args, const gpu::Stream& stream);
    // Whether a prepared plan's kernel reads this copy of the weights.
    bool reads(kernels::WeightCopy copy) const;

    gpu::DeviceInfo info;
    bool overlap_launches;   // FusedMoeOptions::overlap_launches
    bool l2_stage2_weights;  // FusedMoeOptions::l2_stage2_weights
    rtc::KernelCache cache;
    runtime::BucketPlanner planner;  // throws for a shape the kernels do not implement
    std::unique_ptr<data::DataKernels> data_kernels;  // activation quantisation, sort (made by prepare)
    std::unique_ptr<measure::HarnessKernels> support;  // stage 2's reduce
    runtime::StageKernels stage_kernels;
    std::map<long long, runtime::BucketPlan> plans;  // by bucket, every bucket up to the workspace's tokens
    std::optional<runtime::Workspace> workspace;
    // The sort runs on `side` while the caller's stream quantises the activations (they are
    // independent): a captured graph holds them as parallel branches, one kernel less on the critical
    // path, and stage 1 follows the quantisation on the same stream, so it can overlap its end.
    gpu::Stream side;
    gpu::Event forked{gpu::Event::Kind::ordering}, sorted_event{gpu::Event::Kind::ordering};
};

void FusedMoe::Impl::prepare(int max_tokens) {
    if (max_tokens < 1)
        throw std::invalid_argument("prepare: max_tokens must be >= 1, got " + std::to_string(max_tokens));
    if (workspace && workspace->tokens >= max_tokens) return;
    std::vector<kernels::KernelConfig> configs;
    runtime::WorkspaceNeeds needs;
    for (long long bucket : table::aiter_buckets()) {
        if (bucket > table::padded_m(max_tokens)) break;
        const runtime::BucketPlan& p = plans[bucket] = planner.plan(static_cast<int>(bucket));
        configs.push_back(p.configs.stage1);
        configs.push_back(p.configs.stage2);
        needs.stage1_bf16 = needs.stage1_bf16 || !p.configs.stage1.fused_mxfp8_out;
        needs.partials = needs.partials || p.configs.stage2.mode == kernels::Stage2Mode::reduce;
        const bool stage1_wide = kernels::reads_wide_activations(p.configs.stage1);
        const bool stage2_wide = kernels::reads_wide_activations(p.configs.stage2);
        // The FP8 warpgroup-product kernels read their rows rebased (kernels::reads_rebased_rows), and
        // a copy of the weights from the caller (kernels::weight_copy, FusedMoe::reads_rebased_weights).
        const bool stage1_rebased = kernels::reads_rebased_rows(p.configs.stage1);
        const bool stage2_rebased = kernels::reads_rebased_rows(p.configs.stage2);
        needs.act_wide = needs.act_wide || stage1_wide;
        needs.act_mxfp8 = needs.act_mxfp8 || (!stage1_wide && !stage1_rebased);
        needs.stage1_wide = needs.stage1_wide || stage2_wide;
        // A _fp8 stage 1 writes MXFP8, which is rebased for such a stage 2.
        needs.stage1_mxfp8 = needs.stage1_mxfp8 || (!stage2_wide && (!stage2_rebased || p.configs.stage1.fused_mxfp8_out));
        needs.act_rebased = needs.act_rebased || stage1_rebased;
        needs.stage1_rebased = needs.stage1_rebased || stage2_rebased;
        needs.block_ms.insert(p.plan.block_m);
    }
    stage_kernels.load(configs, info.arch, cache);
    if (!data_kernels) data_kernels = std::make_unique<data::DataKernels>(&cache);
    if (!support) support = std::make_unique<measure::HarnessKernels>(&cache);
    workspace.reset();  // free the smaller one first
    data::MoeShape at_most = planner.problem();
    at_most.tokens = max_tokens;
    workspace.emplace(at_most, needs);
}

void FusedMoe::Impl::run(const FusedMoeArgs& a, const gpu::Stream& stream) {
    if (a.tokens < 0)
        throw std::invalid_argument("FusedMoe::run: tokens must be >= 0, got " + std::to_string(a.tokens));
    if (a.tokens == 0) return;
    if (!workspace || a.tokens > workspace->tokens)
        throw std::invalid_argument("FusedMoe::run: " + std::to_string(a.tokens) + " tokens, but prepare() was given " +
                                    std::to_string(workspace ? workspace->tokens : 0) +
                                    "; call prepare() with at least the largest token count first");
    using Buffer = std::pair<const void*, const char*>;
    for (const auto& [p, what] : std::initializer_list<Buffer>{{a.hidden, "hidden"},
                                                               {a.topk_ids, "topk_ids"},
                                                               {a.topk_weights, "topk_weights"},
                                                               {a.w1, "w1"},
                                                               {a.w1_scale, "w1_scale"},
                                                               {a.w2, "w2"},
                                                               {a.w2_scale, "w2_scale"},
                                                               {a.out, "out"}})
        require_buffer(p, what);
    // The FP8 warpgroup-product kernels' epilogues store (or add) 16 bytes of a row at a time.
    if (reinterpret_cast<std::uintptr_t>(a.out) % 16 != 0)
        throw std::invalid_argument("FusedMoe::run: out must be 16-byte aligned");

    const runtime::BucketPlan& p = plans.at(table::padded_m(a.tokens));
    require_weight_copy(p.configs.stage1, 1, a.w1_rebased, a.w1_e4m3_coded, a.w1_fp4_blocks, a.w1_base);
    require_weight_copy(p.configs.stage2, 2, a.w2_rebased, a.w2_e4m3_coded, a.w2_fp4_blocks, a.w2_base);
    data::MoeShape shape = planner.problem();
    shape.tokens = a.tokens;
    runtime::Workspace& ws = *workspace;

    const auto* hidden = static_cast<const uint16_t*>(a.hidden);
    const unsigned long long act_blocks = 1ULL * a.tokens * shape.model_dim / kernels::kMxBlock;
    // The atomic stage 2 accumulates into out: the sort's spare blocks zero it, one graph node less.
    const bool atomic = p.configs.stage2.mode == kernels::Stage2Mode::atomic;
    const std::size_t out_bytes = std::size_t(a.tokens) * shape.model_dim * sizeof(uint16_t);
    data::DeviceSortedRouting& sorted = ws.sorted.at(p.plan.block_m);
    forked.record(stream);
    side.wait(forked);
    data::moe_sorting_gpu(*data_kernels, {a.topk_ids, a.topk_weights, a.tokens, shape.topk}, sorted, side,
                          atomic ? a.out : nullptr, atomic ? out_bytes : 0);
    sorted_event.record(side);

    // A stage 1 that reads the wide layout or rebased rows reads nothing else: one pass to it.
    const bool stage1_wide_in = kernels::reads_wide_activations(p.configs.stage1);
    if (stage1_wide_in)
        data::enqueue_quantize_mxfp8_bf16_wide(*data_kernels, hidden, act_blocks, ws.act_wide.data(), stream);
    else if (kernels::reads_rebased_rows(p.configs.stage1))
        data::enqueue_quantize_mxfp8_bf16_rebased(*data_kernels, hidden, a.tokens, shape.model_dim, ws.act_rebased.data(),
                                                  ws.act_base.data(), stream, kernels::reads_interleaved_rows(p.configs.stage1));
    else
        data::enqueue_quantize_mxfp8_bf16(*data_kernels, hidden, act_blocks, ws.act.data(), ws.act_scale.data(), stream,
                                          kernels::reads_mx_rows(p.configs.stage1));

    const bool stage2_wide_in = kernels::reads_wide_activations(p.configs.stage2);
    const bool stage2_rebased_in = kernels::reads_rebased_rows(p.configs.stage2);
    const launch::StageLaunch stage1(p.configs.stage1, stage_kernels.kernel(p.configs.stage1), shape);
    // At one to three tokens a register-fed stage 1 finds its rows in the routing: it need not wait for
    // the sort (one kernel less on the critical path), only what follows it does. Past 16 routing
    // entries the kernel's own placement (a pass over the entries for each) costs more than the wait
    // (docs/kernel-design.md, "Routed rows").
    const bool routed = overlap_launches && launch::finds_rows_in_routing(stage1) &&
                        a.tokens * shape.topk <= kRoutedRowsUpTo;
    if (!routed) stream.wait(sorted_event);
    const launch::StageLaunch stage2(p.configs.stage2, stage_kernels.kernel(p.configs.stage2), shape);
    const launch::Stage2Buffers stage2_io{.act = ws.stage1_out.data(),
                                          .act_scale = ws.stage1_out_scale.data(),
                                          .act_wide = stage2_wide_in ? ws.stage1_wide.data() : nullptr,
                                          .act_rebased = ws.stage1_rebased.data(),
                                          .act_base = ws.stage1_base.data(),
                                          .w2 = static_cast<const uint8_t*>(a.w2),
                                          .w2_scale = static_cast<const uint8_t*>(a.w2_scale),
                                          .w2_rebased = static_cast<const uint8_t*>(a.w2_rebased),
                                          .w2_base = static_cast<const uint8_t*>(a.w2_base),
                                          .w2_e4m3_coded = static_cast<const uint8_t*>(a.w2_e4m3_coded),
                                          .w2_fp4_blocks = static_cast<const uint8_t*>(a.w2_fp4_blocks),
                                          .partial = ws.partials.data(),
                                          .out = static_cast<uint16_t*>(a.out),
                                          .out_zeroed = atomic,
                                          .overlap_previous = overlap_launches};
    // Stage 2's weights of the routed experts (at most one an entry), asked of L2 by stage 1 where they
    // fit in three quarters of it: stage 1's own weights pass through L2 evict-first beside them.
    const launch::WeightsByExpert w2 = launch::stage2_weights(stage2, stage2_io);
    const bool w2_to_l2 = l2_stage2_weights && launch::asks_l2_for(stage1, w2) &&
                          (unsigned long long)(a.tokens * shape.topk) * (w2.bytes.values + w2.bytes.scales) <=
                              info.l2_bytes / 4 * 3;
    launch::enqueue_stage1(stage1, *data_kernels, sorted,
                           {.act = ws.act.data(),
                            .act_scale = ws.act_scale.data(),
                            .act_wide = stage1_wide_in ? ws.act_wide.data() : nullptr,
                            .act_rebased = ws.act_rebased.data(),
                            .act_base = ws.act_base.data(),
                            .w1 = static_cast<const uint8_t*>(a.w1),
                            .w1_scale = static_cast<const uint8_t*>(a.w1_scale),
                            .w1_rebased = static_cast<const uint8_t*>(a.w1_rebased),
                            .w1_base = static_cast<const uint8_t*>(a.w1_base),
                            .w1_e4m3_coded = static_cast<const uint8_t*>(a.w1_e4m3_coded),
                            .w1_fp4_blocks = static_cast<const uint8_t*>(a.w1_fp4_blocks),
                            .bf16_out = ws.stage1_bf16.data(),
                            .out = ws.stage1_out.data(),
                            .out_scale = ws.stage1_out_scale.data(),
                            .out_interleaved = kernels::reads_mx_rows(p.configs.stage2),
                            .wide_out = stage2_wide_in ? ws.stage1_wide.data() : nullptr,
                            .rebased_out = stage2_rebased_in ? ws.stage1_rebased.data() : nullptr,
                            .rebased_out_base = stage2_rebased_in ? ws.stage1_base.data() : nullptr,
                            .rebased_out_interleaved = kernels::reads_interleaved_rows(p.configs.stage2),
                            .overlap_previous = overlap_launches,
                            .topk_ids = routed ? a.topk_ids : nullptr,
                            .sort_done = routed ? &sorted_event : nullptr,
                            .stage2_weights = w2_to_l2 ? w2 : launch::WeightsByExpert{}},
                           stream);

    launch::enqueue_stage2(stage2, support->kernel(measure::harness_kernel_names::kReduce), sorted, stage2_io, stream);
}

FusedMoe::FusedMoe(MoeShapeKey shape, TunedTables tables, FusedMoeOptions options)
    : impl_(std::make_unique<Impl>(std::move(shape), std::move(tables), std::move(options), current_device_info())) {}

FusedMoe::~FusedMoe() = default;
FusedMoe::FusedMoe(FusedMoe&&) noexcept = default;
FusedMoe& FusedMoe::operator=(FusedMoe&&) noexcept = default;

const std::string& FusedMoe::gfx() const { return impl_->info.gfx; }

int FusedMoe::cu_num() const { return impl_->info.cu_num; }

bool FusedMoe::Impl::reads(kernels::WeightCopy copy) const {
    return std::ranges::any_of(plans, [&](const auto& bucket_plan) {
        const kernels::ConfigPair& c = bucket_plan.second.configs;
        return kernels::weight_copy(c.stage1) == copy || kernels::weight_copy(c.stage2) == copy;
    });
}

bool FusedMoe::reads_rebased_weights() const { return impl_->reads(kernels::WeightCopy::rebased_e4m3); }

bool FusedMoe::reads_e4m3_coded_weights() const { return impl_->reads(kernels::WeightCopy::e4m3_coded_fp4); }

bool FusedMoe::reads_fp4_weight_blocks() const { return impl_->reads(kernels::WeightCopy::fp4_blocks); }

KernelPlan FusedMoe::plan(int tokens) const { return impl_->planner.plan(tokens).plan; }

void FusedMoe::prepare(int max_tokens) { impl_->prepare(max_tokens); }

int FusedMoe::prepared_tokens() const { return impl_->workspace ? impl_->workspace->tokens : 0; }

void FusedMoe::run(const FusedMoeArgs& args, void* stream) { impl_->run(args, gpu::Stream::borrow(stream)); }

}  // namespace moetune
