#include "measure/weight_layout_gpu.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "kernels/kernel_config.h"

namespace moetune::measure {
namespace {

void require(bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument("weight layout (GPU): " + what);
}

// Enough blocks per expert to fill the device with all experts together, never more than needed.
unsigned blocks_per_expert(unsigned long long units, int experts) {
    constexpr unsigned long long kTargetBlocks = 4096;
    const unsigned long long threads = harness_kernel_names::kLayoutThreads;
    const unsigned long long needed = (units + threads - 1) / threads;
    const unsigned long long share = std::max<unsigned long long>(1, kTargetBlocks / experts);
    return static_cast<unsigned>(std::max<unsigned long long>(1, std::min(needed, share)));
}

}  // namespace

formats::ExpertWeightDims expert_weight_dims(const data::MoeShape& shape, formats::WeightRole role) {
    if (role == formats::WeightRole::gate_up) return {shape.experts, 2 * shape.inter_dim, shape.model_dim};
    return {shape.experts, shape.model_dim, shape.inter_dim};
}

std::size_t weight_tensor_bytes(const formats::ExpertWeightDims& d, bool scales) {
    const kernels::WeightCopyBytes e = kernels::expert_bytes(kernels::WeightCopy::coded_fp4, d.rows, d.cols);
    return std::size_t(d.experts) * std::size_t(scales ? e.scales : e.values);
}

void lay_out_mma_k128_gpu(const HarnessKernels& kernels, formats::WeightRole role, const formats::ExpertWeightDims& d,
                          bool scales, const uint8_t* logical, uint8_t* kernel_layout, const gpu::Stream& stream,
                          const MxE2m1Code& code) {
    using namespace harness_kernel_names;
    require(d.experts > 0 && d.rows > 0 && d.cols > 0 && d.cols % 32 == 0,
            "experts, rows and cols must be positive, cols a multiple of 32");
    const bool gate_up = role == formats::WeightRole::gate_up;
    if (gate_up) require(d.rows % 32 == 0, "gate_up weights need rows (2*inter_dim) a multiple of 32");
    const unsigned long long row_bytes = scales ? d.cols / 32 : d.cols / 2;
    const unsigned long long expert_bytes = row_bytes * static_cast<unsigned long long>(d.rows);
    require(expert_bytes <= std::numeric_limits<unsigned>::max(), "one expert must stay below 4 GiB");

    const unsigned rows = static_cast<unsigned>(d.rows), bytes = static_cast<unsigned>(row_bytes);
    const gpu::Dim3 block{static_cast<unsigned>(kLayoutThreads)};
    if (scales) {
        const gpu::Dim3 grid{blocks_per_expert(expert_bytes, d.experts), static_cast<unsigned>(d.experts)};
        kernels.kernel(gate_up ? kRowsGateUp : kRows)
            .launch({grid, block}, stream, logical, kernel_layout, rows, bytes);
    } else {
        require(row_bytes % 64 == 0, "K must be a multiple of 128");
        require(d.rows % 8 == 0, "rows must be a multiple of 8");
        const gpu::Dim3 grid{blocks_per_expert(expert_bytes / 4, d.experts), static_cast<unsigned>(d.experts)};
        const auto* src = reinterpret_cast<const unsigned*>(logical);
        auto* dst = reinterpret_cast<unsigned*>(kernel_layout);
        kernels.kernel(gate_up ? kFragmentsGateUp : kFragments)
            .launch({grid, block}, stream, src, dst, rows, bytes, code);
    }
}

gpu::DeviceBuffer<uint8_t> lay_out_mma_k128_gpu(const HarnessKernels& kernels, formats::WeightRole role,
                                                const formats::ExpertWeightDims& d, bool scales,
                                                const gpu::DeviceBuffer<uint8_t>& logical, const gpu::Stream& stream,
                                                const MxE2m1Code& code) {
    require(logical.size() == weight_tensor_bytes(d, scales),
            "buffer of " + std::to_string(logical.size()) + " bytes does not match the dims");
    gpu::DeviceBuffer<uint8_t> out(logical.size());
    lay_out_mma_k128_gpu(kernels, role, d, scales, logical.data(), out.data(), stream, code);
    return out;
}

data::DeviceMoeWeights lay_out_mma_k128_gpu(const HarnessKernels& kernels, const data::MoeShape& shape,
                                            const data::DeviceMoeWeights& logical, const gpu::Stream& stream) {
    using formats::WeightRole;
    const formats::ExpertWeightDims w1 = expert_weight_dims(shape, WeightRole::gate_up);
    const formats::ExpertWeightDims w2 = expert_weight_dims(shape, WeightRole::down);
    data::DeviceMoeWeights out;
    out.w1 = lay_out_mma_k128_gpu(kernels, WeightRole::gate_up, w1, false, logical.w1, stream);
    out.w1_scale = lay_out_mma_k128_gpu(kernels, WeightRole::gate_up, w1, true, logical.w1_scale, stream);
    out.w2 = lay_out_mma_k128_gpu(kernels, WeightRole::down, w2, false, logical.w2, stream);
    out.w2_scale = lay_out_mma_k128_gpu(kernels, WeightRole::down, w2, true, logical.w2_scale, stream);
    return out;
}

data::DeviceMoeWeights lay_out_f16_tiles_gpu(const HarnessKernels& kernels, const data::MoeShape& shape,
                                             const data::DeviceMoeWeights& logical, const gpu::Stream& stream) {
    using namespace harness_kernel_names;
    const gpu::Dim3 block{static_cast<unsigned>(kLayoutThreads)};
    // One tensor's values (4-byte words, 8 elements) or scale words (8 a tile and pair, 4 bytes each).
    auto one = [&](formats::WeightRole role, bool scales, const gpu::DeviceBuffer<uint8_t>& src) {
        const formats::ExpertWeightDims d = expert_weight_dims(shape, role);
        const bool gate_up = role == formats::WeightRole::gate_up;
        require(d.cols % 64 == 0 && d.rows % (gate_up ? 32 : 16) == 0,
                "f16 tiles need K a multiple of 64 and rows of 16 (32 for gate_up)");
        require(std::size_t(d.rows) * d.cols / 2 <= std::numeric_limits<unsigned>::max(), "one expert must stay below 4 GiB");
        gpu::DeviceBuffer<uint8_t> out(weight_tensor_bytes(d, scales));
        const unsigned long long words = out.size() / 4 / d.experts;
        const gpu::Dim3 grid{blocks_per_expert(words, d.experts), static_cast<unsigned>(d.experts)};
        auto* dst = reinterpret_cast<unsigned*>(out.data());
        const unsigned rows = static_cast<unsigned>(d.rows), K = static_cast<unsigned>(d.cols);
        if (scales)
            kernels.kernel(gate_up ? kF16TileScalesGateUp : kF16TileScales)
                .launch({grid, block}, stream, src.data(), dst, rows, K);
        else
            kernels.kernel(gate_up ? kF16TilesGateUp : kF16Tiles)
                .launch({grid, block}, stream, src.data(), dst, rows, K, formats::e2m1_f16_code());
        return out;
    };
    using formats::WeightRole;
    data::DeviceMoeWeights out;
    out.w1 = one(WeightRole::gate_up, false, logical.w1);
    out.w1_scale = one(WeightRole::gate_up, true, logical.w1_scale);
    out.w2 = one(WeightRole::down, false, logical.w2);
    out.w2_scale = one(WeightRole::down, true, logical.w2_scale);
    return out;
}

}  // namespace moetune::measure
