#pragma once
// One launch of a candidate as it is validated and timed: the kernel plus what AITER counts with it
// (aiter-fmoe-format.md §3.6-3.7) -- launch/stage_launch.h's sequence, the one libmoetune runs: a
// bf16 stage-1 output's separate MXFP8 quantisation (AITER's fairness adder: a fused candidate does
// that work inside), stage 2's zeroing or reduce -- and the buffers it writes. Moe_sorting is
// outside (AITER excludes it too): each block_m is sorted once per bucket. So is making the input a
// kernel reads in the wide layout or as rebased rows (BucketData, at first use): the library writes
// those straight from bf16 in the pass that would otherwise write MXFP8 (launch/stage_launch.h).
//
// Cold-L2 timing rotates the launches of a graph over `copies()` sets of input and outputs, and timing
// over several routings rotates them over `routings()` sorted routings; copy 0 on routing 0 is the
// launch that is validated.
#include <cstddef>
#include <vector>

#include "data_gpu/data_kernels.h"
#include "gpu/device_buffer.h"
#include "gpu/module.h"
#include "gpu/stream.h"
#include "kernels/kernel_config.h"
#include "launch/stage_launch.h"
#include "measure/bucket_data.h"
#include "measure/harness_kernels.h"
#include "measure/shape_weights.h"

namespace moetune::measure {

// Copies for cold-L2 rotation: enough that together they exceed the L2 (floor(l2 / bytes) + 1),
// but no more than there are launches to rotate over. Pure.
int cold_l2_copies(std::size_t bytes_per_copy, std::size_t l2_bytes, int launches_per_graph);

class CandidateLaunch {
public:
    // `kernel` must be the config's compiled entry point and outlive this object, as must the others.
    // cold_l2: rotate over cold_l2_copies(...) copies, else one; routings: the bucket's routings 0 ..
    // routings - 1 (BucketData::sorted). Throws std::invalid_argument when the config does not tile the
    // shape (kernels::launch_geometry).
    CandidateLaunch(const kernels::KernelConfig& config, const gpu::Kernel& kernel,
                    const data::DataKernels& data_kernels, const HarnessKernels& harness_kernels,
                    const ShapeWeights& weights, BucketData& bucket, bool cold_l2, std::size_t l2_bytes,
                    int launches_per_graph, int routings = 1);

    int copies() const { return static_cast<int>(outputs_.size()); }
    int routings() const { return static_cast<int>(sorted_.size()); }

    // NaN-fills every buffer launch `copy` writes (bf16 0xFFFF, e4m3 0x7F, e8m0 0xFF). Synchronous.
    void poison(int copy);
    // Enqueues launch i of a graph: on copy i mod copies()'s buffers and routing i mod routings(); capturable.
    void enqueue(const gpu::Stream& stream, int launch);

    // After a completed launch: what is judged, as floats [rows, row_length()] -- stage 1 its output
    // (dequantised when _fp8 or _gemv), stage 2 the final [M, model_dim] -- and the reference to judge it by.
    std::vector<float> output(int copy) const;
    const std::vector<float>& reference() const;
    std::size_t row_length() const;
    // Stage-2 atomic: the output starts zeroed, so unwritten rows read 0, not NaN (output_judge.h).
    bool zero_start() const;

private:
    struct Outputs {
        gpu::DeviceBuffer<uint16_t> bf16;           // stage 1 bf16 (_gemv: f16 rows) out [M*topk, inter]; stage 2 [M, model_dim]
        gpu::DeviceBuffer<uint8_t> fp8, fp8_scale;  // stage 1: _fp8 output, or the separate quantisation's
        gpu::DeviceBuffer<uint16_t> partial;        // stage 2 reduce: [M*topk, model_dim]
    };
    Outputs allocate_outputs() const;
    void enqueue_stage1(const gpu::Stream& stream, int copy, const data::DeviceSortedRouting& sorted);
    void enqueue_stage2(const gpu::Stream& stream, int copy, const data::DeviceSortedRouting& sorted);

    launch::StageLaunch stage_;
    const data::DataKernels& data_kernels_;
    const HarnessKernels& harness_kernels_;
    const ShapeWeights& weights_;
    BucketData& bucket_;
    std::vector<const data::DeviceSortedRouting*> sorted_;  // per routing
    const DeviceRebasedWeights* rebased_weights_;  // for a kernel that reads them, else null
    const gpu::DeviceBuffer<uint8_t>* e4m3_coded_;  // likewise, the stage's weights (kernels::weight_copy)
    const DeviceRebasedWeights* fp4_blocks_;        // likewise
    const data::DeviceMoeWeights* f16_tiles_;        // likewise
    // The copy whose weight bases the kernel reads: the rebased weights' or the FP4 blocks' (both have
    // them); null when it reads neither.
    const DeviceRebasedWeights* weight_bases() const { return rebased_weights_ ? rebased_weights_ : fp4_blocks_; }
    // The stage's input of one copy: MXFP8, or widened, rebased or as f16 rows when the kernel reads that.
    struct Input {
        const data::DeviceMxfpMatrix* mxfp8 = nullptr;
        const gpu::DeviceBuffer<uint16_t>* wide = nullptr;
        const data::DeviceRebasedMatrix* rebased = nullptr;
        const gpu::DeviceBuffer<uint16_t>* f16 = nullptr;  // the values as f16 rows, with mxfp8's scales
        std::size_t bytes() const;  // what the kernel reads of it
    };
    Input input_of(int copy) const;

    std::vector<Input> inputs_;      // per copy
    std::vector<Outputs> outputs_;  // per copy
};

}  // namespace moetune::measure
