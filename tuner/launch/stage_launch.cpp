#include "launch/stage_launch.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/moe_args.h"
#include "data_gpu/mxfp8_quant_gpu.h"
#include "data_gpu/mxfp8_rebase_gpu.h"
#include "gpu/device.h"
#include "gpu/device_buffer.h"
#include "gpu/event.h"
#include "kernels/kernel_name.h"
#include "kernels/launch_geometry.h"
#include "kernels/resource_model.h"
#include "kernels/stage_handoff.h"
#include "kernels/static_checks.h"

namespace moetune::launch {
namespace {

// The workgroups of a persistent kernel (kernels::persistent_tiles) the current GPU holds at once;
// 0 for the others, whose grid does not depend on it.
long long resident_workgroups(const kernels::KernelConfig& c, const gpu::Kernel& kernel) {
    if (!kernels::persistent_tiles(c)) return 0;
    const int per_sm = kernel.resident_workgroups_per_sm(unsigned(kernels::threads_per_block(c)),
                                                         std::size_t(kernels::dynamic_shared_bytes(c)));
    return (long long)std::max(per_sm, 1) * gpu::device_info(gpu::current_device()).cu_num;
}

gpu::LaunchShape to_launch_shape(const kernels::LaunchGeometry& g) {
    return {{g.grid.x, g.grid.y, g.grid.z}, {g.block.x, g.block.y, g.block.z}, g.dynamic_shared_bytes};
}

// `shape`, launched to overlap the stream's previous kernel when `overlap` (gpu::LaunchShape::overlap_previous).
gpu::LaunchShape overlapping(gpu::LaunchShape shape, bool overlap) {
    shape.overlap_previous = overlap;
    return shape;
}

// A kernel that reads the wide layout given none would read through a null pointer on the device.
void require_wide_input(const StageLaunch& stage, const void* act_wide) {
    if (kernels::reads_wide_activations(stage.config) && !act_wide)
        throw std::invalid_argument(kernels::kernel_name(stage.config) +
                                    " reads pre-widened activations, but none were given (act_wide is null)");
}

// What the kernel reads as w and w_scale (kernels::weight_copy): the kernel layout, its rebased copy,
// its values in the e4m3 code with the layout's scales, or its FP4 blocks with the rebased bases.
// The weights' buffers of one stage, as Stage1Buffers / Stage2Buffers hold them.
struct StageWeights {
    const uint8_t* w;
    const uint8_t* w_scale;
    const uint8_t* rebased;
    const uint8_t* base;
    const uint8_t* e4m3_coded;
    const uint8_t* fp4_blocks;
    const uint8_t* f16_tiles;
    const uint8_t* f16_tile_scales;
};
StageWeights stage_weights(const Stage1Buffers& io) {
    return {io.w1, io.w1_scale, io.w1_rebased, io.w1_base, io.w1_e4m3_coded, io.w1_fp4_blocks, io.w1_f16_tiles,
            io.w1_f16_tile_scales};
}
StageWeights stage_weights(const Stage2Buffers& io) {
    return {io.w2, io.w2_scale, io.w2_rebased, io.w2_base, io.w2_e4m3_coded, io.w2_fp4_blocks, io.w2_f16_tiles,
            io.w2_f16_tile_scales};
}

std::pair<const uint8_t*, const uint8_t*> weight_input(const StageLaunch& stage, const StageWeights& in) {
    auto require = [&](bool given, const char* what) {
        if (!given) throw std::invalid_argument(kernels::kernel_name(stage.config) + " reads " + what + ", but none were given");
    };
    switch (kernels::weight_copy(stage.config)) {
        case kernels::WeightCopy::coded_fp4: return {in.w, in.w_scale};
        case kernels::WeightCopy::rebased_e4m3:
            require(in.rebased && in.base, "rebased weights");
            return {in.rebased, in.base};
        case kernels::WeightCopy::e4m3_coded_fp4:
            require(in.e4m3_coded, "weights in the e4m3 code");
            return {in.e4m3_coded, in.w_scale};
        case kernels::WeightCopy::fp4_blocks:
            require(in.fp4_blocks && in.base, "FP4 weight blocks");
            return {in.fp4_blocks, in.base};
        case kernels::WeightCopy::f16_tiles:
            require(in.f16_tiles && in.f16_tile_scales, "the weights' f16 tiles");
            return {in.f16_tiles, in.f16_tile_scales};
    }
    throw std::logic_error("weight_input: unknown weight copy");
}

// What the kernel reads as act and act_scale: MXFP8 values and scales, or the rows rebased.
struct ActivationInput {
    const uint8_t* act;
    const uint8_t* act_scale;
};
ActivationInput activation_input(const StageLaunch& stage, const uint8_t* act, const uint8_t* act_scale,
                                 const uint8_t* act_rebased, const uint8_t* act_base, const uint16_t* act_f16) {
    if (kernels::reads_f16_rows(stage.config)) {
        if (!act_f16 || !act_scale)
            throw std::invalid_argument(kernels::kernel_name(stage.config) +
                                        " reads f16 rows, but none were given (act_f16 or act_scale is null)");
        return {reinterpret_cast<const uint8_t*>(act_f16), act_scale};
    }
    if (!kernels::reads_rebased_rows(stage.config)) return {act, act_scale};
    if (!act_rebased || !act_base)
        throw std::invalid_argument(kernels::kernel_name(stage.config) +
                                    " reads rebased activations, but none were given (act_rebased or act_base is null)");
    return {act_rebased, act_base};
}

}  // namespace

StageLaunch::StageLaunch(const kernels::KernelConfig& config, const gpu::Kernel& kernel, const data::MoeShape& shape)
    : config(config),
      kernel(kernel),
      shape(shape),
      grid(to_launch_shape(kernels::launch_geometry(config, shape, resident_workgroups(config, kernel)))) {}

bool finds_rows_in_routing(const StageLaunch& stage) {
    const long long entries = 1LL * stage.shape.tokens * stage.shape.topk;
    return stage.config.stage == kernels::Stage::gate_up && kernels::register_fed_wgmma(stage.config) &&
           entries <= kMxRoutedEntriesMax && entries <= kernels::threads_per_block(stage.config);
}

WeightsByExpert stage2_weights(const StageLaunch& stage, const Stage2Buffers& io) {
    const auto [w2, w2_scale] = weight_input(stage, stage_weights(io));
    return {w2, w2_scale,
            kernels::expert_bytes(kernels::weight_copy(stage.config), stage.shape.model_dim, stage.shape.inter_dim)};
}

bool asks_l2_for(const StageLaunch& stage1, const WeightsByExpert& w) {
    const auto whole = [](long long v) { return v % 16 == 0; };
    return stage1.config.stage == kernels::Stage::gate_up && kernels::register_fed_wgmma(stage1.config) &&
           whole(w.bytes.values) && whole(w.bytes.scales) && whole(reinterpret_cast<std::uintptr_t>(w.values)) &&
           whole(reinterpret_cast<std::uintptr_t>(w.scales));
}

void enqueue_stage1(const StageLaunch& stage, const data::DataKernels& data_kernels,
                    const data::DeviceSortedRouting& sorted, const Stage1Buffers& io, const gpu::Stream& stream) {
    require_wide_input(stage, io.act_wide);
    if (io.topk_ids && !finds_rows_in_routing(stage))
        throw std::invalid_argument(kernels::kernel_name(stage.config) + " does not find its rows in the routing at " +
                                    std::to_string(stage.shape.tokens) + " tokens (enqueue_stage1: topk_ids given)");
    if (!io.topk_ids && io.sort_done)
        throw std::invalid_argument("enqueue_stage1: sort_done is for a kernel given the routing (topk_ids)");
    const WeightsByExpert& next = io.stage2_weights;
    if ((next.values || next.scales) && !(next.values && next.scales && asks_l2_for(stage, next)))
        throw std::invalid_argument(kernels::kernel_name(stage.config) +
                                    ": stage 2's weights are asked of L2 by a register-fed stage 1, both tensors, in "
                                    "16-byte pieces (enqueue_stage1: stage2_weights)");
    if (!io.rebased_out != !io.rebased_out_base)
        throw std::invalid_argument("enqueue_stage1: rebased_out and rebased_out_base are given together or not at all");
    const data::MoeShape& s = stage.shape;
    const bool fused = stage.config.fused_mxfp8_out;
    if (io.out_interleaved && (io.wide_out || io.rebased_out ||
                               kernels::stage_handoff(kernels::stage1_output(stage.config), kernels::Stage2Input::mx_rows) ==
                                   kernels::StageHandoff::impossible))
        throw std::invalid_argument(kernels::kernel_name(stage.config) +
                                    ": interleaved MXFP8 output is for a stage 2 reading MXFP8 rows, from a register-fed "
                                    "_fp8 kernel or the quantisation of a bf16 output");
    // A _gemv stage 1 writes f16 rows and their scales, what a _gemv stage 2 reads: nothing runs after it.
    const bool f16_rows = kernels::stage1_output(stage.config) == kernels::Stage1Output::f16_rows;
    if (f16_rows && (!io.f16_out || !io.out_scale || io.wide_out || io.rebased_out || io.out_interleaved))
        throw std::invalid_argument(kernels::kernel_name(stage.config) +
                                    " writes f16 rows and their scales (f16_out, out_scale), and nothing else");
    void* out = f16_rows ? static_cast<void*>(io.f16_out)
                : fused  ? static_cast<void*>(io.out)
                         : static_cast<void*>(io.bf16_out);
    const ActivationInput in = activation_input(stage, io.act, io.act_scale, io.act_rebased, io.act_base, io.act_f16);
    const auto [w1, w1_scale] = weight_input(stage, stage_weights(io));
    const MoeStage1Args args{in.act,
                             in.act_scale,
                             w1,
                             w1_scale,
                             sorted.sorted_token_ids.data(),
                             sorted.sorted_expert_ids.data(),
                             sorted.num_valid_ids.data(),
                             out,
                             fused || f16_rows ? io.out_scale : nullptr,
                             s.tokens,
                             s.topk,
                             s.model_dim,
                             s.inter_dim,
                             io.act_wide,
                             fused ? io.wide_out : nullptr,
                             io.out_interleaved ? 1 : 0,
                             io.topk_ids,
                             s.experts,
                             next.values,
                             next.scales,
                             next.bytes.values,
                             next.bytes.scales};
    stage.kernel.launch(overlapping(stage.grid, io.overlap_previous), stream, args);
    if (io.sort_done) stream.wait(*io.sort_done);
    if (f16_rows) return;
    const int rows = s.tokens * s.topk;
    if (fused) {
        // A row's base spans the N tiles of its workgroups: rebased after the kernel.
        if (io.rebased_out)
            data::enqueue_rebase_mxfp8(data_kernels, io.out, io.out_scale, rows, s.inter_dim, io.rebased_out,
                                       io.rebased_out_base, stream, io.rebased_out_interleaved);
        return;
    }
    const unsigned long long blocks = 1ULL * rows * s.inter_dim / kernels::kMxBlock;
    // A stage 2 that reads the wide layout or rebased rows reads nothing else: one pass to it.
    if (io.wide_out) data::enqueue_quantize_mxfp8_bf16_wide(data_kernels, io.bf16_out, blocks, io.wide_out, stream);
    else if (io.rebased_out)
        data::enqueue_quantize_mxfp8_bf16_rebased(data_kernels, io.bf16_out, rows, s.inter_dim, io.rebased_out,
                                                  io.rebased_out_base, stream, io.rebased_out_interleaved);
    else data::enqueue_quantize_mxfp8_bf16(data_kernels, io.bf16_out, blocks, io.out, io.out_scale, stream, io.out_interleaved);
}

void enqueue_stage2(const StageLaunch& stage, const gpu::Kernel& reduce, const data::DeviceSortedRouting& sorted,
                    const Stage2Buffers& io, const gpu::Stream& stream) {
    require_wide_input(stage, io.act_wide);
    const data::MoeShape& s = stage.shape;
    const bool atomic = stage.config.mode == kernels::Stage2Mode::atomic;
    if (atomic && !io.out_zeroed) gpu::fill_bytes_async(io.out, std::size_t(s.tokens) * s.model_dim * sizeof(uint16_t), 0, stream);
    const ActivationInput in = activation_input(stage, io.act, io.act_scale, io.act_rebased, io.act_base, io.act_f16);
    const WeightsByExpert w2 = stage2_weights(stage, io);
    const MoeStage2Args args{in.act, in.act_scale, w2.values, w2.scales, sorted.sorted_token_ids.data(),
                             sorted.sorted_weights.data(), sorted.sorted_expert_ids.data(), sorted.num_valid_ids.data(),
                             atomic ? io.out : io.partial, s.tokens, s.topk, s.model_dim, s.inter_dim, io.act_wide};
    // A zeroing of out between stage 1 and this kernel is a memset, not a kernel to overlap.
    stage.kernel.launch(overlapping(stage.grid, io.overlap_previous && (!atomic || io.out_zeroed)), stream, args);
    if (atomic) return;
    const MoeReduceArgs reduce_args{io.partial, io.out, s.tokens, s.topk, s.model_dim};
    reduce.launch(to_launch_shape(kernels::reduce_launch_geometry(s)), stream, reduce_args);
}

}  // namespace moetune::launch
