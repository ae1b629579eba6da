// The GPU permutation into the mma_k128 layout (kernel_templates/weight_layout.hip) against the
// host's formats::lay_out_values / lay_out_scales, byte for byte, on small shapes; likewise the _gemv
// kernels' copy and f16 rows (formats/f16_gemv_layout.h).
#include <string>
#include <vector>

#include "common/fp4_weight_blocks.h"
#include "data/synthetic_inputs.h"
#include "data_gpu/data_kernels.h"
#include "data_gpu/device_moe_data.h"
#include "data_gpu/mxfp8_widen_gpu.h"
#include "formats/f16_gemv_layout.h"
#include "formats/weight_layout.h"
#include "gpu/stream.h"
#include "measure/harness_kernels.h"
#include "measure/weight_layout_gpu.h"
#include "measure/weight_rebase_gpu.h"
#include "formats/mx_rebase.h"
#include "support/catch.hpp"

using namespace moetune;
using formats::WeightLayout;
using formats::WeightRole;

namespace {

const measure::HarnessKernels& harness_kernels() {
    static const measure::HarnessKernels kernels(nullptr);
    return kernels;
}

std::size_t first_difference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
        if (a[i] != b[i]) return i;
    return a.size() == b.size() ? std::string::npos : std::min(a.size(), b.size());
}

// The four tensors made on the GPU (`gpu`) against the host's (`expected`: w1, w1_scale, w2, w2_scale).
void check_same_bytes(const std::vector<uint8_t> (&expected)[4], const data::MoeWeights& gpu, const data::MoeShape& shape) {
    const std::vector<uint8_t>* actual[] = {&gpu.w1, &gpu.w1_scale, &gpu.w2, &gpu.w2_scale};
    const char* names[] = {"w1", "w1_scale", "w2", "w2_scale"};
    for (int i = 0; i < 4; ++i) {
        INFO(names[i] << " of model_dim " << shape.model_dim << " inter_dim " << shape.inter_dim
                      << ": first difference at byte " << first_difference(expected[i], *actual[i]));
        CHECK(*actual[i] == expected[i]);
    }
}

}  // namespace

TEST_CASE("mma_k128 weights made on the GPU equal the host layout byte for byte", "[gpu][measure][layout]") {
    // inter 128 and model 256: the smallest sizes the layout takes (K multiple of 128, w1 rows of 32),
    // plus a larger one with several K chunks, row groups and experts.
    for (const data::MoeShape shape : {data::MoeShape{1, 256, 128, 3, 2}, data::MoeShape{1, 512, 384, 5, 2}}) {
        const data::MoeWeights logical = data::make_synthetic_weights(shape, 7);
        const data::DeviceMoeWeights device_logical = data::upload(logical);
        const gpu::Stream stream;
        const data::DeviceMoeWeights laid_out =
            measure::lay_out_mma_k128_gpu(harness_kernels(), shape, device_logical, stream);
        stream.synchronize();
        const data::MoeWeights gpu = data::download(laid_out);

        const formats::ExpertWeightDims w1{shape.experts, 2 * shape.inter_dim, shape.model_dim};
        const formats::ExpertWeightDims w2{shape.experts, shape.model_dim, shape.inter_dim};
        const WeightLayout mma = WeightLayout::mma_k128;
        const std::vector<uint8_t> expected[] = {
            formats::lay_out_values(mma, WeightRole::gate_up, w1, logical.w1),
            formats::lay_out_scales(mma, WeightRole::gate_up, w1, logical.w1_scale),
            formats::lay_out_values(mma, WeightRole::down, w2, logical.w2),
            formats::lay_out_scales(mma, WeightRole::down, w2, logical.w2_scale)};
        check_same_bytes(expected, gpu, shape);
        // The permutation really moves bytes (the comparison could not pass by copying).
        CHECK(gpu.w1 != logical.w1);
        CHECK(gpu.w1_scale != logical.w1_scale);
        CHECK(gpu.w2 != logical.w2);
        CHECK(gpu.w2_scale == logical.w2_scale);  // down scales keep their row-major order
    }
}

TEST_CASE("the GPU layout refuses dims the layout cannot take", "[gpu][measure][layout]") {
    const gpu::Stream stream;
    const gpu::DeviceBuffer<uint8_t> bytes(3 * 48 * 64 / 2);
    // 48 rows of gate/up: not a whole number of 32-row GU blocks.
    CHECK_THROWS_AS(measure::lay_out_mma_k128_gpu(harness_kernels(), WeightRole::gate_up, {3, 48, 64}, false, bytes,
                                                  stream),
                    std::invalid_argument);
    // K = 64: not a multiple of the 128-wide chunk.
    CHECK_THROWS_AS(
        measure::lay_out_mma_k128_gpu(harness_kernels(), WeightRole::down, {3, 48, 64}, false, bytes, stream),
        std::invalid_argument);
    // A buffer that does not match the dims.
    CHECK_THROWS_AS(measure::lay_out_mma_k128_gpu(harness_kernels(), WeightRole::down, {3, 48, 128}, false, bytes,
                                                  stream),
                    std::invalid_argument);
}

// The rebased weights of the FP8 warpgroup-product kernels (kernel_templates/weight_rebase.hip) made
// from the kernel layout on the GPU equal the host's formats::rebase_coded_weights byte for byte, and
// their FP4 blocks formats::fp4_weight_blocks.
TEST_CASE("rebased weights made on the GPU equal the host's", "[gpu][measure][layout]") {
    const data::MoeShape shape{1, 512, 384, 5, 2};
    const data::MoeWeights logical = data::make_synthetic_weights(shape, 7);
    const gpu::Stream stream;
    const data::MoeWeights laid_out =
        data::download(measure::lay_out_mma_k128_gpu(harness_kernels(), shape, data::upload(logical), stream));
    struct Tensor {
        const std::vector<uint8_t>& coded;
        const std::vector<uint8_t>& scales;
        int rows, K;
    };
    for (const Tensor& t : {Tensor{laid_out.w1, laid_out.w1_scale, shape.experts * 2 * shape.inter_dim, shape.model_dim},
                            Tensor{laid_out.w2, laid_out.w2_scale, shape.experts * shape.model_dim, shape.inter_dim}}) {
        std::vector<uint8_t> rebased(std::size_t(t.rows) * t.K), bases(static_cast<std::size_t>(t.rows));
        formats::rebase_coded_weights(t.coded, t.scales, t.rows, t.K, rebased, bases);
        const gpu::DeviceBuffer<uint8_t> coded{std::span<const uint8_t>(t.coded)}, scales{std::span<const uint8_t>(t.scales)};
        gpu::DeviceBuffer<uint8_t> gpu_rebased(rebased.size()), gpu_bases(bases.size());
        measure::rebase_weights_gpu(harness_kernels(), {1, t.rows, t.K}, coded.data(), scales.data(), gpu_rebased.data(),
                                    gpu_bases.data(), stream);
        stream.synchronize();
        INFO("rows " << t.rows << ", K " << t.K << ": first difference at byte "
                     << first_difference(rebased, gpu_rebased.download()));
        CHECK(gpu_bases.download() == bases);
        CHECK(gpu_rebased.download() == rebased);

        // The same weights as FP4 blocks (weight_fp4_blocks, formats::fp4_weight_blocks).
        std::vector<uint8_t> blocks(std::size_t(t.rows) * std::size_t(mx_fp4_blocks_row_bytes(t.K)));
        formats::fp4_weight_blocks(t.coded, t.scales, t.rows, t.K, blocks, bases);
        gpu::DeviceBuffer<uint8_t> gpu_blocks(blocks.size());
        measure::fp4_weight_blocks_gpu(harness_kernels(), {1, t.rows, t.K}, coded.data(), scales.data(), gpu_blocks.data(),
                                       gpu_bases.data(), stream);
        stream.synchronize();
        INFO("FP4 blocks: first difference at byte " << first_difference(blocks, gpu_blocks.download()));
        CHECK(gpu_bases.download() == bases);
        CHECK(gpu_blocks.download() == blocks);
    }
}

TEST_CASE("the _gemv kernels' weight copy and f16 rows made on the GPU equal the host's", "[gpu][measure][layout]") {
    for (const data::MoeShape shape : {data::MoeShape{1, 256, 128, 3, 2}, data::MoeShape{3, 512, 384, 5, 2}}) {
        const data::MoeWeights logical = data::make_synthetic_weights(shape, 7);
        const gpu::Stream stream;
        const data::MoeWeights gpu =
            data::download(measure::lay_out_f16_tiles_gpu(harness_kernels(), shape, data::upload(logical), stream));
        const formats::ExpertWeightDims w1{shape.experts, 2 * shape.inter_dim, shape.model_dim};
        const formats::ExpertWeightDims w2{shape.experts, shape.model_dim, shape.inter_dim};
        const std::vector<uint8_t> expected[] = {
            formats::lay_out_f16_tile_values(WeightRole::gate_up, w1, logical.w1),
            formats::lay_out_f16_tile_scales(WeightRole::gate_up, w1, logical.w1_scale),
            formats::lay_out_f16_tile_values(WeightRole::down, w2, logical.w2),
            formats::lay_out_f16_tile_scales(WeightRole::down, w2, logical.w2_scale)};
        check_same_bytes(expected, gpu, shape);

        static const data::DataKernels data_kernels(nullptr);
        const data::MxfpMatrix act =
            data::make_synthetic_activations(shape, 7, formats::ActivationScales::mxfp8);
        const gpu::DeviceBuffer<uint16_t> rows = data::mxfp8_to_f16_rows_gpu(data_kernels, data::upload(act), stream);
        stream.synchronize();
        CHECK(rows.download() == formats::mxfp8_values_to_f16_rows(act.values, act.rows, act.cols));
    }
}
