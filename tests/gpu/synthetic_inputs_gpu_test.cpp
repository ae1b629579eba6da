// GPU-generated synthetic inputs are the CPU's bytes: every byte on a small shape; at DSv4.1-Flash
// size (1.7 GB) all of expert 0 (the CPU generator with one expert makes exactly that prefix of
// each stream) and sampled rows of other experts.
#include <chrono>
#include <cstdio>
#include <vector>

#include "common/synthetic.h"
#include "data/synthetic_inputs.h"
#include "data_gpu/synthetic_inputs_gpu.h"
#include "data_gpu_fixture.h"
#include "gpu/event.h"
#include "support/catch.hpp"

using namespace moetune;
using moetune::test::first_difference;

TEST_CASE("GPU synthetic weights, hidden states and activations equal the CPU's on a small shape", "[gpu][synthetic]") {
    const data::MoeShape shape{7, 256, 128, 4, 2};
    const data::MoeWeights cpu = data::make_synthetic_weights(shape, test::kSeed);
    const data::MoeWeights gpu = data::generate_synthetic_weights_gpu(test::data_kernels(), shape, test::kSeed);
    CHECK(first_difference(cpu.w1, gpu.w1, "w1") == "");
    CHECK(first_difference(cpu.w1_scale, gpu.w1_scale, "w1_scale") == "");
    CHECK(first_difference(cpu.w2, gpu.w2, "w2") == "");
    CHECK(first_difference(cpu.w2_scale, gpu.w2_scale, "w2_scale") == "");

    const gpu::Stream stream;
    const auto hidden = data::generate_synthetic_hidden_gpu(test::data_kernels(), shape, test::kSeed, stream);
    stream.synchronize();
    CHECK(first_difference(data::make_synthetic_hidden(shape, test::kSeed), hidden.download(), "hidden") == "");

    for (auto mode : {formats::ActivationScales::mxfp8, formats::ActivationScales::unit}) {
        INFO("scales " << formats::to_string(mode));
        const data::MxfpMatrix expected = data::make_synthetic_activations(shape, test::kSeed, mode);
        const data::MxfpMatrix act = data::download(
            data::generate_synthetic_activations_gpu(test::data_kernels(), shape, test::kSeed, mode, stream));
        CHECK(act.rows == expected.rows);
        CHECK(act.cols == expected.cols);
        CHECK(first_difference(expected.values, act.values, "activation values") == "");
        CHECK(first_difference(expected.scales, act.scales, "activation scales") == "");
    }
}

TEST_CASE("GPU synthetic weights equal the CPU's at DSv4.1-Flash size", "[gpu][synthetic]") {
    const data::MoeShape shape = test::dsv41_flash(1);
    const std::size_t model = shape.model_dim, inter = shape.inter_dim;
    const data::MoeWeights& gpu = test::dsv41_host_weights();
    REQUIRE(gpu.w1.size() == std::size_t(shape.experts) * 2 * inter * model / 2);
    REQUIRE(gpu.w2_scale.size() == std::size_t(shape.experts) * model * inter / 32);

    data::MoeShape one_expert = shape;
    one_expert.experts = 1;
    const data::MoeWeights cpu = data::make_synthetic_weights(one_expert, test::kSeed);
    auto prefix = [](const std::vector<uint8_t>& v, std::size_t n) {
        return std::vector<uint8_t>(v.begin(), v.begin() + n);
    };
    CHECK(first_difference(cpu.w1, prefix(gpu.w1, cpu.w1.size()), "w1 expert 0") == "");
    CHECK(first_difference(cpu.w1_scale, prefix(gpu.w1_scale, cpu.w1_scale.size()), "w1_scale expert 0") == "");
    CHECK(first_difference(cpu.w2, prefix(gpu.w2, cpu.w2.size()), "w2 expert 0") == "");
    CHECK(first_difference(cpu.w2_scale, prefix(gpu.w2_scale, cpu.w2_scale.size()), "w2_scale expert 0") == "");

    // Rows of later experts: first, last, the gate/up boundary, computed on the CPU element by element.
    for (std::size_t e : {1u, 47u, 95u}) {
        for (std::size_t row : {std::size_t(0), inter - 1, inter, 2 * inter - 1}) {
            INFO("w1 expert " << e << " row " << row);
            const std::size_t first = (e * 2 * inter + row) * model / 2;
            std::vector<uint8_t> expected(model / 2);
            for (std::size_t i = 0; i < expected.size(); ++i)
                expected[i] = mx_synth_fp4_byte(test::kSeed, MX_SYNTH_W1, first + i);
            CHECK(first_difference(expected,
                                   std::vector<uint8_t>(gpu.w1.begin() + first, gpu.w1.begin() + first + model / 2),
                                   "w1 row") == "");
        }
        const std::size_t row = model - 1;
        INFO("w2 expert " << e << " last row, and its scales");
        const std::size_t first = (e * model + row) * inter / 2, first_scale = (e * model + row) * inter / 32;
        std::vector<uint8_t> expected(inter / 2), expected_scales(inter / 32);
        for (std::size_t i = 0; i < expected.size(); ++i)
            expected[i] = mx_synth_fp4_byte(test::kSeed, MX_SYNTH_W2, first + i);
        for (std::size_t i = 0; i < expected_scales.size(); ++i)
            expected_scales[i] = mx_synth_e8m0(test::kSeed, MX_SYNTH_W2_SCALE, first_scale + i);
        CHECK(first_difference(expected,
                               std::vector<uint8_t>(gpu.w2.begin() + first, gpu.w2.begin() + first + inter / 2),
                               "w2 row") == "");
        CHECK(first_difference(expected_scales,
                               std::vector<uint8_t>(gpu.w2_scale.begin() + first_scale,
                                                    gpu.w2_scale.begin() + first_scale + inter / 32),
                               "w2_scale row") == "");
    }
}

TEST_CASE("GPU synthetic weight generation time at DSv4.1-Flash size", "[gpu][synthetic]") {
    const gpu::Stream stream;
    gpu::Event start, stop;
    start.record(stream);
    const data::DeviceMoeWeights w =
        data::generate_synthetic_weights_gpu(test::data_kernels(), test::dsv41_flash(1), test::kSeed + 1, stream);
    stop.record(stream);
    const float ms = gpu::Event::elapsed_ms(start, stop);
    std::printf("generate_synthetic_weights_gpu DSv4.1-Flash (%.2f GB): %.2f ms\n",
                double(w.w1.bytes() + w.w1_scale.bytes() + w.w2.bytes() + w.w2_scale.bytes()) / 1e9, ms);
    CHECK(ms > 0.0f);
}
