#pragma once
// The device data every candidate of one (shape, token bucket, seed, routing) shares, built once and
// kept resident while candidates of the bucket are measured:
//   - the activations: synthetic hidden states quantised to MXFP8 with AITER's dynamic scales;
//   - the routing of the spec, and its moe_sorting per block_m (sorted on the GPU at first use); for
//     timing over several routings (TimingOptions::routings), the spec's routings of the seeds after
//     this one, sorted alike at first use (no references: only routing 0 is judged);
//   - the references, computed on the GPU and kept on the host for judging: stage 1 (float), the
//     stage-2 input made from it (MXFP8 of its bf16 rounding, as AITER's unfused path feeds stage 2),
//     and stage 2 from that input. Stage-2 candidates run on this reference input, so each stage is
//     judged on its own;
//   - for cold-L2 timing, extra copies of each stage's input (uploaded at first use);
//   - each input widened for the kernels that read the wide layout, rebased for those that read
//     rebased rows (at first use; the library writes both straight from bf16, outside a stage's time),
//     and as f16 rows for the _gemv kernels (at first use; the library cannot run those yet).
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "data/moe_problem.h"
#include "data/routing_spec.h"
#include "data_gpu/data_kernels.h"
#include "data_gpu/device_moe_data.h"
#include "data_gpu/mxfp8_rebase_gpu.h"
#include "gpu/device_buffer.h"
#include "gpu/stream.h"
#include "measure/shape_weights.h"

namespace moetune::measure {

class BucketData {
public:
    // Throws InputError for a routing file that cannot be used. Returns when the references are done.
    BucketData(const data::DataKernels& kernels, const ShapeWeights& weights, const data::MoeShape& shape,
               uint64_t seed, const data::RoutingSpec& routing, const gpu::Stream& stream);

    bool serves(const data::MoeShape& shape, uint64_t seed, const data::RoutingSpec& routing) const;
    const data::MoeShape& shape() const { return shape_; }

    // The input of a stage's candidates: stage 1 the activations [M, model_dim], stage 2 the
    // reference stage-2 input [M*topk, inter]. copy > 0: an identical copy for cold-L2 rotation
    // (made at first use; asking for copy n makes every missing one up to n from one download).
    const data::DeviceMxfpMatrix& input(int stage, int copy = 0);
    // The same input in the wide layout, for kernels that read it (kernels::reads_wide_activations):
    // made from input(stage, copy) at first use.
    const gpu::DeviceBuffer<uint16_t>& wide_input(int stage, int copy = 0);
    // The same input rebased, for kernels that read rebased rows (kernels::reads_rebased_rows), with
    // interleaved words when they read them so: made from input(stage, copy) at first use.
    const data::DeviceRebasedMatrix& rebased_input(int stage, bool interleave_words, int copy = 0);
    // The same input with each 32-byte block's words interleaved (kernels::reads_mx_rows), the same scales.
    const data::DeviceMxfpMatrix& interleaved_input(int stage, int copy = 0);
    // The same input's values as f16 rows (kernels::reads_f16_rows; its scales are input(stage, copy)'s).
    const gpu::DeviceBuffer<uint16_t>& f16_input(int stage, int copy = 0);

    // moe_sorting of the routing with this block size; routing r > 0: of the spec's routing of seed + r.
    const data::DeviceSortedRouting& sorted(int block_m, int routing = 0);

    // [M*topk, inter] and [M, model_dim].
    const std::vector<float>& reference_stage1() const { return reference_stage1_; }
    const std::vector<float>& reference_stage2() const { return reference_stage2_; }

private:
    const data::DataKernels& kernels_;
    const gpu::Stream& stream_;
    data::MoeShape shape_;
    uint64_t seed_;
    data::RoutingSpec routing_;
    std::map<int, data::DeviceRouting> device_routings_;  // by routing: 0 the judged one, the others at first use
    data::DeviceMxfpMatrix inputs_[2];
    std::vector<float> reference_stage1_;
    std::vector<float> reference_stage2_;
    std::map<std::pair<int, int>, data::DeviceSortedRouting> sorted_;  // by (block_m, routing)
    std::deque<data::DeviceMxfpMatrix> input_copies_[2];  // copies 1, 2, ...; a deque keeps references stable
    std::map<int, gpu::DeviceBuffer<uint16_t>> wide_inputs_[2];  // by copy
    std::map<std::pair<bool, int>, data::DeviceRebasedMatrix> rebased_inputs_[2];  // by (interleaved, copy)
    std::map<int, data::DeviceMxfpMatrix> interleaved_inputs_[2];                   // by copy
    std::map<int, gpu::DeviceBuffer<uint16_t>> f16_inputs_[2];                      // by copy
};

}  // namespace moetune::measure
