#pragma once
// The synthetic expert weights of one shape (its expert sizes) and seed, resident on
// the device in both layouts: logical for the reference kernels, mma_k128 for the candidates (and,
// made at first use, the copies the FP8 warpgroup-product candidates read: kernels::weight_copy).
// DSv4.1-Flash: 2 x 1.7 GB, generated and permuted on the GPU in milliseconds.
#include <cstdint>
#include <optional>

#include "data/moe_problem.h"
#include "data_gpu/data_kernels.h"
#include "data_gpu/device_moe_data.h"
#include "gpu/device_buffer.h"
#include "gpu/stream.h"
#include "kernels/kernel_config.h"
#include "measure/harness_kernels.h"
#include "measure/weight_rebase_gpu.h"

namespace moetune::measure {

class ShapeWeights {
public:
    // Returns when both layouts are complete.
    ShapeWeights(const data::DataKernels& data_kernels, const HarnessKernels& harness_kernels,
                 const data::MoeShape& shape, uint64_t seed, const gpu::Stream& stream);

    // Same weights for `shape` (token count and top-k aside) and `seed`?
    bool serves(const data::MoeShape& shape, uint64_t seed) const;

    const data::DeviceMoeWeights& logical() const { return logical_; }
    const data::DeviceMoeWeights& kernel_layout() const { return kernel_layout_; }
    // The kernel layout rebased (weight_rebase_gpu.h), made on `stream` at the first call, which
    // returns when it is complete.
    const DeviceRebasedWeights& rebased(const HarnessKernels& harness_kernels, const gpu::Stream& stream) const;
    // The kernel layout as FP4 blocks and their bases (fp4_weight_blocks_gpu), made likewise.
    const DeviceRebasedWeights& fp4_blocks(const HarnessKernels& harness_kernels, const gpu::Stream& stream) const;
    // The weights of `stage` (w1 or w2) in the kernel layout and the e4m3 code
    // (kernels::WeightCopy::e4m3_coded_fp4: the register-fed FP8 _wgmma kernels, which read them with
    // the kernel layout's scales), made likewise.
    const gpu::DeviceBuffer<uint8_t>& e4m3_coded(kernels::Stage stage, const HarnessKernels& harness_kernels,
                                                 const gpu::Stream& stream) const;
    // All four tensors as the _gemv kernels' copy (kernels::WeightCopy::f16_tiles), made likewise.
    const data::DeviceMoeWeights& f16_tiles(const HarnessKernels& harness_kernels, const gpu::Stream& stream) const;

private:
    data::MoeShape shape_;
    uint64_t seed_;
    data::DeviceMoeWeights logical_;
    data::DeviceMoeWeights kernel_layout_;
    mutable std::optional<DeviceRebasedWeights> rebased_;
    mutable std::optional<DeviceRebasedWeights> fp4_blocks_;
    mutable std::optional<gpu::DeviceBuffer<uint8_t>> e4m3_coded_[2];  // w1, w2
    mutable std::optional<data::DeviceMoeWeights> f16_tiles_;
};

}  // namespace moetune::measure
