#include "measure/candidate_launch.h"

#include <algorithm>

#include "formats/bf16_vector.h"
#include "formats/f16_gemv_layout.h"
#include "formats/mx_quantize.h"

namespace moetune::measure {
namespace {

// The bytes of one copy: what a launch reads besides weights and routing, and what it writes.
template <class... Buffers>
std::size_t bytes_of(const Buffers&... buffers) {
    return (buffers.bytes() + ...);
}

}  // namespace

int cold_l2_copies(std::size_t bytes_per_copy, std::size_t l2_bytes, int launches_per_graph) {
    const std::size_t enough = l2_bytes / std::max<std::size_t>(bytes_per_copy, 1) + 1;
    return static_cast<int>(std::clamp<std::size_t>(enough, 1, std::max(launches_per_graph, 1)));
}

CandidateLaunch::CandidateLaunch(const kernels::KernelConfig& config, const gpu::Kernel& kernel,
                                 const data::DataKernels& data_kernels, const HarnessKernels& harness_kernels,
                                 const ShapeWeights& weights, BucketData& bucket, bool cold_l2, std::size_t l2_bytes,
                                 int launches_per_graph, int routings)
    : stage_(config, kernel, bucket.shape()),
      data_kernels_(data_kernels),
      harness_kernels_(harness_kernels),
      weights_(weights),
      bucket_(bucket),
      // Made here, before any launch is captured.
      rebased_weights_(kernels::weight_copy(config) == kernels::WeightCopy::rebased_e4m3
                           ? &weights.rebased(harness_kernels, gpu::Stream::borrow(nullptr))
                           : nullptr),
      e4m3_coded_(kernels::weight_copy(config) == kernels::WeightCopy::e4m3_coded_fp4
                      ? &weights.e4m3_coded(config.stage, harness_kernels, gpu::Stream::borrow(nullptr))
                      : nullptr),
      fp4_blocks_(kernels::weight_copy(config) == kernels::WeightCopy::fp4_blocks
                      ? &weights.fp4_blocks(harness_kernels, gpu::Stream::borrow(nullptr))
                      : nullptr),
      f16_tiles_(kernels::weight_copy(config) == kernels::WeightCopy::f16_tiles
                     ? &weights.f16_tiles(harness_kernels, gpu::Stream::borrow(nullptr))
                     : nullptr) {
    for (int r = 0; r < std::max(routings, 1); ++r) sorted_.push_back(&bucket.sorted(kernels::sort_block_m(config), r));
    outputs_.push_back(allocate_outputs());
    inputs_.push_back(input_of(0));
    if (!cold_l2) return;
    const Outputs& o = outputs_.front();
    const Input& in = inputs_.front();
    const std::size_t per_copy = in.bytes() + bytes_of(o.bf16, o.fp8, o.fp8_scale, o.partial);
    const int copies = cold_l2_copies(per_copy, l2_bytes, launches_per_graph);
    bucket.input(kernels::stage_number(config.stage), copies - 1);  // makes all missing copies from one download
    for (int c = 1; c < copies; ++c) {
        outputs_.push_back(allocate_outputs());
        inputs_.push_back(input_of(c));
    }
}

std::size_t CandidateLaunch::Input::bytes() const {
    if (wide) return wide->bytes();
    if (rebased) return bytes_of(rebased->values, rebased->bases);
    if (f16) return bytes_of(*f16, mxfp8->scales);
    return bytes_of(mxfp8->values, mxfp8->scales);
}

CandidateLaunch::Input CandidateLaunch::input_of(int copy) const {
    const int stage = kernels::stage_number(stage_.config.stage);
    Input in{.mxfp8 = kernels::reads_mx_rows(stage_.config) ? &bucket_.interleaved_input(stage, copy)
                                                             : &bucket_.input(stage, copy)};
    if (kernels::reads_wide_activations(stage_.config)) in.wide = &bucket_.wide_input(stage, copy);
    if (kernels::reads_rebased_rows(stage_.config))
        in.rebased = &bucket_.rebased_input(stage, kernels::reads_interleaved_rows(stage_.config), copy);
    if (kernels::reads_f16_rows(stage_.config)) in.f16 = &bucket_.f16_input(stage, copy);
    return in;
}

CandidateLaunch::Outputs CandidateLaunch::allocate_outputs() const {
    const data::MoeShape& s = bucket_.shape();
    const std::size_t routed_rows = std::size_t(s.tokens) * s.topk;
    Outputs o;
    if (stage_.config.stage == kernels::Stage::gate_up) {
        const std::size_t elements = routed_rows * s.inter_dim;
        if (!stage_.config.fused_mxfp8_out) o.bf16 = gpu::DeviceBuffer<uint16_t>(elements);
        o.fp8 = gpu::DeviceBuffer<uint8_t>(elements);
        o.fp8_scale = gpu::DeviceBuffer<uint8_t>(elements / formats::kMxBlock);
    } else {
        o.bf16 = gpu::DeviceBuffer<uint16_t>(std::size_t(s.tokens) * s.model_dim);
        if (stage_.config.mode == kernels::Stage2Mode::reduce)
            o.partial = gpu::DeviceBuffer<uint16_t>(routed_rows * s.model_dim);
    }
    return o;
}

void CandidateLaunch::poison(int copy) {
    Outputs& o = outputs_.at(copy);
    if (!o.bf16.empty()) o.bf16.fill_bytes(0xFF);  // bf16 0xFFFF: NaN
    if (!o.fp8.empty()) o.fp8.fill_bytes(0x7F);    // e4m3fn 0x7F: NaN
    if (!o.fp8_scale.empty()) o.fp8_scale.fill_bytes(0xFF);  // e8m0 0xFF: NaN
    if (!o.partial.empty()) o.partial.fill_bytes(0xFF);
}

void CandidateLaunch::enqueue(const gpu::Stream& stream, int launch) {
    const int copy = launch % copies();
    const data::DeviceSortedRouting& sorted = *sorted_.at(launch % routings());
    if (stage_.config.stage == kernels::Stage::gate_up) enqueue_stage1(stream, copy, sorted);
    else enqueue_stage2(stream, copy, sorted);
}

void CandidateLaunch::enqueue_stage1(const gpu::Stream& stream, int copy, const data::DeviceSortedRouting& sorted) {
    const Input& in = inputs_.at(copy);
    const Outputs& o = outputs_.at(copy);
    const data::DeviceMoeWeights& w = weights_.kernel_layout();
    const DeviceRebasedWeights* r = rebased_weights_;
    const DeviceRebasedWeights* bases = weight_bases();
    const launch::Stage1Buffers io{.act = in.mxfp8->values.data(),
                                   .act_scale = in.mxfp8->scales.data(),
                                   .act_wide = in.wide ? in.wide->data() : nullptr,
                                   .act_rebased = in.rebased ? in.rebased->values.data() : nullptr,
                                   .act_base = in.rebased ? in.rebased->bases.data() : nullptr,
                                   .w1 = w.w1.data(),
                                   .w1_scale = w.w1_scale.data(),
                                   .w1_rebased = r ? r->w1.data() : nullptr,
                                   .w1_base = bases ? bases->w1_base.data() : nullptr,
                                   .w1_e4m3_coded = e4m3_coded_ ? e4m3_coded_->data() : nullptr,
                                   .w1_fp4_blocks = fp4_blocks_ ? fp4_blocks_->w1.data() : nullptr,
                                   .act_f16 = in.f16 ? in.f16->data() : nullptr,
                                   .w1_f16_tiles = f16_tiles_ ? f16_tiles_->w1.data() : nullptr,
                                   .w1_f16_tile_scales = f16_tiles_ ? f16_tiles_->w1_scale.data() : nullptr,
                                   .f16_out = stage_.config.gemv ? o.bf16.data() : nullptr,
                                   .bf16_out = o.bf16.data(),
                                   .out = o.fp8.data(),
                                   .out_scale = o.fp8_scale.data()};
    launch::enqueue_stage1(stage_, data_kernels_, sorted, io, stream);
}

void CandidateLaunch::enqueue_stage2(const gpu::Stream& stream, int copy, const data::DeviceSortedRouting& sorted) {
    const Input& in = inputs_.at(copy);
    const Outputs& o = outputs_.at(copy);
    const data::DeviceMoeWeights& w = weights_.kernel_layout();
    const DeviceRebasedWeights* r = rebased_weights_;
    const DeviceRebasedWeights* bases = weight_bases();
    const launch::Stage2Buffers io{.act = in.mxfp8->values.data(),
                                   .act_scale = in.mxfp8->scales.data(),
                                   .act_wide = in.wide ? in.wide->data() : nullptr,
                                   .act_rebased = in.rebased ? in.rebased->values.data() : nullptr,
                                   .act_base = in.rebased ? in.rebased->bases.data() : nullptr,
                                   .w2 = w.w2.data(),
                                   .w2_scale = w.w2_scale.data(),
                                   .w2_rebased = r ? r->w2.data() : nullptr,
                                   .w2_base = bases ? bases->w2_base.data() : nullptr,
                                   .w2_e4m3_coded = e4m3_coded_ ? e4m3_coded_->data() : nullptr,
                                   .w2_fp4_blocks = fp4_blocks_ ? fp4_blocks_->w2.data() : nullptr,
                                   .act_f16 = in.f16 ? in.f16->data() : nullptr,
                                   .w2_f16_tiles = f16_tiles_ ? f16_tiles_->w2.data() : nullptr,
                                   .w2_f16_tile_scales = f16_tiles_ ? f16_tiles_->w2_scale.data() : nullptr,
                                   .partial = o.partial.data(),
                                   .out = o.bf16.data()};
    launch::enqueue_stage2(stage_, harness_kernels_.kernel(harness_kernel_names::kReduce), sorted, io, stream);
}

std::vector<float> CandidateLaunch::output(int copy) const {
    const Outputs& o = outputs_.at(copy);
    const data::MoeShape& s = bucket_.shape();
    const int rows = s.tokens * s.topk;
    if (stage_.config.stage == kernels::Stage::gate_up && stage_.config.gemv)
        return formats::dequantize_f16_rows(o.bf16.download(), o.fp8_scale.download(), rows, s.inter_dim);
    if (stage_.config.stage == kernels::Stage::gate_up && stage_.config.fused_mxfp8_out) {
        std::vector<float> out(std::size_t(rows) * s.inter_dim);
        formats::dequantize_mxfp8(o.fp8.download(), o.fp8_scale.download(), rows, s.inter_dim, out);
        return out;
    }
    return formats::bf16_to_floats(o.bf16.download());
}

const std::vector<float>& CandidateLaunch::reference() const {
    return stage_.config.stage == kernels::Stage::gate_up ? bucket_.reference_stage1() : bucket_.reference_stage2();
}

std::size_t CandidateLaunch::row_length() const {
    const data::MoeShape& s = bucket_.shape();
    return std::size_t(stage_.config.stage == kernels::Stage::gate_up ? s.inter_dim : s.model_dim);
}

bool CandidateLaunch::zero_start() const {
    return stage_.config.stage == kernels::Stage::down && stage_.config.mode == kernels::Stage2Mode::atomic;
}

}  // namespace moetune::measure
