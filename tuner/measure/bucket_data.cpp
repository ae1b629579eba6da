#include "measure/bucket_data.h"

#include <stdexcept>

#include "data/routing.h"
#include "formats/mx_rebase.h"
#include "data_gpu/moe_sorting_gpu.h"
#include "data_gpu/mxfp8_quant_gpu.h"
#include "data_gpu/mxfp8_widen_gpu.h"
#include "data_gpu/reference_moe_gpu.h"
#include "data_gpu/synthetic_inputs_gpu.h"

namespace moetune::measure {

BucketData::BucketData(const data::DataKernels& kernels, const ShapeWeights& weights, const data::MoeShape& shape,
                       uint64_t seed, const data::RoutingSpec& routing, const gpu::Stream& stream)
    : kernels_(kernels), stream_(stream), shape_(shape), seed_(seed), routing_(routing) {
    const data::DeviceRouting& device_routing =
        device_routings_.emplace(0, data::upload(data::make_routing(routing, shape, seed))).first->second;
    // Production's activation quantisation (dynamic MXFP8 scales), not the unit scales AITER's tuner
    // feeds a8w4 candidates: the kernels are judged on the inputs they will see.
    inputs_[0] =
        data::generate_synthetic_activations_gpu(kernels, shape, seed, formats::ActivationScales::mxfp8, stream);
    const int routed_rows = shape.tokens * shape.topk;
    {
        const gpu::DeviceBuffer<float> stage1 =
            data::reference_stage1_gpu(kernels, shape, inputs_[0], weights.logical(), device_routing, stream);
        inputs_[1] = data::quantize_mxfp8_gpu(kernels, stage1, routed_rows, shape.inter_dim,
                                              formats::ActivationScales::mxfp8, data::Bf16Rounding::to_bf16_first,
                                              stream);
        stream.synchronize();  // `stage1` is freed at the end of this block
        reference_stage1_ = stage1.download();
    }
    reference_stage2_ =
        data::reference_stage2_gpu(kernels, shape, inputs_[1], weights.logical(), device_routing, stream).download();
}

bool BucketData::serves(const data::MoeShape& shape, uint64_t seed, const data::RoutingSpec& routing) const {
    return seed == seed_ && data::to_string(routing) == data::to_string(routing_) && shape.tokens == shape_.tokens &&
           shape.model_dim == shape_.model_dim && shape.inter_dim == shape_.inter_dim &&
           shape.experts == shape_.experts && shape.topk == shape_.topk;
}

const data::DeviceMxfpMatrix& BucketData::input(int stage, int copy) {
    if (stage != 1 && stage != 2) throw std::invalid_argument("stage must be 1 or 2");
    if (copy == 0) return inputs_[stage - 1];
    std::deque<data::DeviceMxfpMatrix>& copies = input_copies_[stage - 1];
    if (copies.size() < static_cast<std::size_t>(copy)) {
        const data::MxfpMatrix host = data::download(inputs_[stage - 1]);
        while (copies.size() < static_cast<std::size_t>(copy)) copies.push_back(data::upload(host));
    }
    return copies[copy - 1];
}

const gpu::DeviceBuffer<uint16_t>& BucketData::wide_input(int stage, int copy) {
    const data::DeviceMxfpMatrix& mxfp8 = input(stage, copy);  // checks stage, makes the copy
    auto it = wide_inputs_[stage - 1].find(copy);
    if (it == wide_inputs_[stage - 1].end()) {
        it = wide_inputs_[stage - 1].emplace(copy, data::widen_mxfp8_gpu(kernels_, mxfp8, stream_)).first;
        stream_.synchronize();
    }
    return it->second;
}

const gpu::DeviceBuffer<uint16_t>& BucketData::f16_input(int stage, int copy) {
    const data::DeviceMxfpMatrix& mxfp8 = input(stage, copy);  // checks stage, makes the copy
    auto it = f16_inputs_[stage - 1].find(copy);
    if (it == f16_inputs_[stage - 1].end()) {
        it = f16_inputs_[stage - 1].emplace(copy, data::mxfp8_to_f16_rows_gpu(kernels_, mxfp8, stream_)).first;
        stream_.synchronize();
    }
    return it->second;
}

const data::DeviceRebasedMatrix& BucketData::rebased_input(int stage, bool interleave_words, int copy) {
    const data::DeviceMxfpMatrix& mxfp8 = input(stage, copy);  // checks stage, makes the copy
    auto& made = rebased_inputs_[stage - 1];
    auto it = made.find({interleave_words, copy});
    if (it == made.end()) {
        it = made.emplace(std::pair{interleave_words, copy}, data::rebase_mxfp8_gpu(kernels_, mxfp8, stream_, interleave_words))
                 .first;
        stream_.synchronize();
    }
    return it->second;
}

const data::DeviceMxfpMatrix& BucketData::interleaved_input(int stage, int copy) {
    const data::DeviceMxfpMatrix& mxfp8 = input(stage, copy);  // checks stage, makes the copy
    auto it = interleaved_inputs_[stage - 1].find(copy);
    if (it == interleaved_inputs_[stage - 1].end()) {
        data::MxfpMatrix host = data::download(mxfp8);
        host.values = formats::interleave_mxfp8_words(host.values);
        it = interleaved_inputs_[stage - 1].emplace(copy, data::upload(host)).first;
    }
    return it->second;
}

const data::DeviceSortedRouting& BucketData::sorted(int block_m, int routing) {
    if (routing < 0) throw std::invalid_argument("routing must not be negative");
    auto it = sorted_.find({block_m, routing});
    if (it == sorted_.end()) {
        auto r = device_routings_.find(routing);
        if (r == device_routings_.end())
            r = device_routings_
                    .emplace(routing, data::upload(data::make_routing(routing_, shape_, seed_ + uint64_t(routing))))
                    .first;
        data::DeviceSortedRouting s =
            data::allocate_sorted_routing(shape_.tokens, shape_.topk, shape_.experts, block_m);
        data::moe_sorting_gpu(kernels_, r->second, s, stream_);
        stream_.synchronize();
        it = sorted_.emplace(std::pair{block_m, routing}, std::move(s)).first;
    }
    return it->second;
}

}  // namespace moetune::measure
