#include "launch/stage_launch.h"

#include <stdexcept>

#include "common/moe_args.h"
#include "data_gpu/mxfp8_quant_gpu.h"
#include "gpu/device_buffer.h"
#include "kernels/kernel_name.h"
#include "kernels/launch_geometry.h"

namespace moetune::launch {
namespace {

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

}  // namespace

StageLaunch::StageLaunch(const kernels::KernelConfig& config, const gpu::Kernel& kernel, const data::MoeShape& shape)
    : config(config), kernel(kernel), shape(shape), grid(to_launch_shape(kernels::launch_geometry(config, shape))) {}

void enqueue_stage1(const StageLaunch& stage, const data::DataKernels& data_kernels,
                    const data::DeviceSortedRouting& sorted, const Stage1Buffers& io, const gpu::Stream& stream) {
    require_wide_input(stage, io.act_wide);
    const data::MoeShape& s = stage.shape;
    const bool fused = stage.config.fused_mxfp8_out;
    void* out = fused ? static_cast<void*>(io.out) : static_cast<void*>(io.bf16_out);
    const MoeStage1Args args{io.act,
                             io.act_scale,
                             io.w1,
                             io.w1_scale,
                             sorted.sorted_token_ids.data(),
                             sorted.sorted_expert_ids.data(),
                             sorted.num_valid_ids.data(),
                             out,
                             fused ? io.out_scale : nullptr,
                             s.tokens,
                             s.topk,
                             s.model_dim,
                             s.inter_dim,
                             io.act_wide,
                             fused ? io.wide_out : nullptr};
    stage.kernel.launch(overlapping(stage.grid, io.overlap_previous), stream, args);
    if (fused) return;
    const unsigned long long blocks = 1ULL * s.tokens * s.topk * s.inter_dim / kernels::kMxBlock;
    // A stage 2 that reads the wide layout reads nothing else: one pass to it.
    if (io.wide_out) data::enqueue_quantize_mxfp8_bf16_wide(data_kernels, io.bf16_out, blocks, io.wide_out, stream);
    else data::enqueue_quantize_mxfp8_bf16(data_kernels, io.bf16_out, blocks, io.out, io.out_scale, stream);
}

void enqueue_stage2(const StageLaunch& stage, const gpu::Kernel& reduce, const data::DeviceSortedRouting& sorted,
                    const Stage2Buffers& io, const gpu::Stream& stream) {
    require_wide_input(stage, io.act_wide);
    const data::MoeShape& s = stage.shape;
    const bool atomic = stage.config.mode == kernels::Stage2Mode::atomic;
    if (atomic && !io.out_zeroed) gpu::fill_bytes_async(io.out, std::size_t(s.tokens) * s.model_dim * sizeof(uint16_t), 0, stream);
    const MoeStage2Args args{io.act, io.act_scale, io.w2, io.w2_scale, sorted.sorted_token_ids.data(),
                             sorted.sorted_weights.data(), sorted.sorted_expert_ids.data(), sorted.num_valid_ids.data(),
                             atomic ? io.out : io.partial, s.tokens, s.topk, s.model_dim, s.inter_dim, io.act_wide};
    // A zeroing of out between stage 1 and this kernel is a memset, not a kernel to overlap.
    stage.kernel.launch(overlapping(stage.grid, io.overlap_previous && (!atomic || io.out_zeroed)), stream, args);
    if (atomic) return;
    const MoeReduceArgs reduce_args{io.partial, io.out, s.tokens, s.topk, s.model_dim};
    reduce.launch(to_launch_shape(kernels::reduce_launch_geometry(s)), stream, reduce_args);
}

}  // namespace moetune::launch
