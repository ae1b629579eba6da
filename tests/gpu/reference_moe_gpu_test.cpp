// The GPU reference MoE agrees with the CPU reference within FP32 rounding (reference_tolerance.h)
// at DSv4.1-Flash size for M = 1, 33 and 4096, and is deterministic. The CPU reference runs on a
// sub-problem made of the compared tokens (their routing rows and activation rows): every routed
// row of the MoE depends only on its own token, so the sub-problem's outputs are exactly those
// tokens' rows of the full problem. All tokens are compared for M <= 64, 32 evenly spread tokens
// (first and last included) for M = 4096.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include "data/reference_moe.h"
#include "data/routing_generators.h"
#include "data/synthetic_inputs.h"
#include "data_gpu/mxfp8_quant_gpu.h"
#include "data_gpu/reference_moe_gpu.h"
#include "data_gpu/synthetic_inputs_gpu.h"
#include "data_gpu_fixture.h"
#include "reference_tolerance.h"
#include "support/catch.hpp"

using namespace moetune;
using formats::ActivationScales;
using moetune::test::first_difference;

namespace {

std::vector<int> compared_tokens(int tokens) {
    std::vector<int> picked;
    if (tokens <= 64) {
        for (int t = 0; t < tokens; ++t) picked.push_back(t);
        return picked;
    }
    constexpr int kSample = 32;
    for (int i = 0; i < kSample; ++i) picked.push_back(int((long long)i * (tokens - 1) / (kSample - 1)));
    return picked;
}

data::Routing subset_routing(const data::Routing& r, const std::vector<int>& tokens) {
    data::Routing sub;
    sub.tokens = int(tokens.size());
    sub.topk = r.topk;
    for (int t : tokens)
        for (int s = 0; s < r.topk; ++s) {
            sub.ids.push_back(r.ids[std::size_t(t) * r.topk + s]);
            sub.weights.push_back(r.weights[std::size_t(t) * r.topk + s]);
        }
    return sub;
}

// Rows `rows` of an MXFP8 matrix.
data::MxfpMatrix subset_rows(const data::MxfpMatrix& m, const std::vector<int>& rows) {
    data::MxfpMatrix sub;
    sub.rows = int(rows.size());
    sub.cols = m.cols;
    const std::size_t cols = m.cols, blocks = m.cols / 32;
    for (int r : rows) {
        sub.values.insert(sub.values.end(), m.values.begin() + r * cols, m.values.begin() + (r + 1) * cols);
        sub.scales.insert(sub.scales.end(), m.scales.begin() + r * blocks, m.scales.begin() + (r + 1) * blocks);
    }
    return sub;
}

// The routed rows (t*topk + s) of the compared tokens, in sub-problem order.
std::vector<int> routed_rows(const std::vector<int>& tokens, int topk) {
    std::vector<int> rows;
    for (int t : tokens)
        for (int s = 0; s < topk; ++s) rows.push_back(t * topk + s);
    return rows;
}

// "" when every compared element is within tolerance; else the first one that is not, and how many.
// cpu and tol: [gpu_rows.size(), cols]; gpu: the full output, whose row gpu_rows[i] is cpu's row i.
std::string out_of_tolerance(const std::vector<float>& cpu, const std::vector<float>& gpu,
                             const std::vector<int>& gpu_rows, std::size_t cols, const std::vector<float>& tol,
                             const std::string& what) {
    std::size_t bad = 0, first_row = 0, first_col = 0;
    double worst_ratio = 0;
    for (std::size_t i = 0; i < gpu_rows.size(); ++i)
        for (std::size_t c = 0; c < cols; ++c) {
            const float expected = cpu[i * cols + c], actual = gpu[std::size_t(gpu_rows[i]) * cols + c];
            const double diff = std::fabs(double(expected) - double(actual)), allowed = tol[i * cols + c];
            worst_ratio = std::max(worst_ratio, allowed > 0 ? diff / allowed : (diff > 0 ? INFINITY : 0.0));
            if (!(diff <= allowed)) {
                if (bad++ == 0) first_row = i, first_col = c;
            }
        }
    std::printf("%s: %zu elements compared, worst |gpu - cpu| / tolerance = %.3g\n", what.c_str(),
                gpu_rows.size() * cols, worst_ratio);
    if (bad == 0) return {};
    std::ostringstream s;
    s.precision(9);
    const std::size_t i = first_row * cols + first_col;
    s << what << " row " << gpu_rows[first_row] << " col " << first_col << ": cpu " << cpu[i] << " gpu "
      << gpu[std::size_t(gpu_rows[first_row]) * cols + first_col] << " tolerance " << tol[i] << " (" << bad << " of "
      << gpu_rows.size() * cols << " elements out of tolerance)";
    return s.str();
}

void check_against_cpu(int tokens) {
    INFO("DSv4.1-Flash M=" << tokens);
    const data::MoeShape shape = test::dsv41_flash(tokens);
    const data::Routing routing = data::random_routing(tokens, shape.experts, shape.topk, test::kSeed + tokens);
    const data::MxfpMatrix act = data::make_synthetic_activations(shape, test::kSeed, ActivationScales::mxfp8);
    const data::DeviceRouting d_routing = data::upload(routing);
    const data::DeviceMxfpMatrix d_act = data::upload(act);
    const data::DeviceMoeWeights& d_weights = test::dsv41_device_weights();
    const data::MoeWeights& weights = test::dsv41_host_weights();
    const auto& kernels = test::data_kernels();
    const gpu::Stream stream;

    // The sub-problem the CPU evaluates.
    const std::vector<int> tokens_compared = compared_tokens(tokens);
    const std::vector<int> rows_compared = routed_rows(tokens_compared, shape.topk);
    data::MoeShape sub_shape = shape;
    sub_shape.tokens = int(tokens_compared.size());
    const data::Routing sub_routing = subset_routing(routing, tokens_compared);

    // Stage 1.
    const gpu::DeviceBuffer<float> d_stage1 =
        data::reference_stage1_gpu(kernels, shape, d_act, d_weights, d_routing, stream);
    const std::vector<float> stage1 = d_stage1.download();
    CHECK(first_difference(stage1,
                           data::reference_stage1_gpu(kernels, shape, d_act, d_weights, d_routing, stream).download(),
                           "stage 1, second GPU run") == "");
    const data::MxfpMatrix sub_act = subset_rows(act, tokens_compared);
    CHECK(out_of_tolerance(data::reference_stage1(sub_shape, sub_act, weights, sub_routing), stage1, rows_compared,
                           shape.inter_dim, test::stage1_tolerance(sub_shape, sub_act, weights, sub_routing),
                           "stage 1 M=" + std::to_string(tokens)) == "");

    // Stage 2 from the MXFP8 stage-1 output, the same bytes for GPU and CPU.
    const data::DeviceMxfpMatrix d_inter =
        data::quantize_mxfp8_gpu(kernels, d_stage1, tokens * shape.topk, shape.inter_dim, ActivationScales::mxfp8,
                                 data::Bf16Rounding::to_bf16_first, stream);
    stream.synchronize();
    const data::MxfpMatrix inter = data::download(d_inter);
    const data::MxfpMatrix expected_inter = data::quantize_stage1_output(shape, stage1, ActivationScales::mxfp8);
    CHECK(first_difference(expected_inter.values, inter.values, "stage-2 input values") == "");
    CHECK(first_difference(expected_inter.scales, inter.scales, "stage-2 input scales") == "");

    const data::MxfpMatrix sub_inter = subset_rows(inter, rows_compared);
    const std::vector<float> rows2 =
        data::reference_stage2_rows_gpu(kernels, shape, d_inter, d_weights, d_routing, stream).download();
    const std::vector<float> cpu_rows2 = data::reference_stage2_rows(sub_shape, sub_inter, weights, sub_routing);
    const std::vector<float> rows_tol = test::stage2_rows_tolerance(sub_shape, sub_inter, weights, sub_routing);
    CHECK(out_of_tolerance(cpu_rows2, rows2, rows_compared, shape.model_dim, rows_tol,
                           "stage 2 rows M=" + std::to_string(tokens)) == "");

    const std::vector<float> out2 =
        data::reference_stage2_gpu(kernels, shape, d_inter, d_weights, d_routing, stream).download();
    CHECK(first_difference(out2,
                           data::reference_stage2_gpu(kernels, shape, d_inter, d_weights, d_routing, stream).download(),
                           "stage 2, second GPU run") == "");
    CHECK(out_of_tolerance(data::reference_stage2(sub_shape, sub_inter, weights, sub_routing), out2, tokens_compared,
                           shape.model_dim, test::stage2_tolerance(sub_shape, rows_tol, cpu_rows2, sub_routing),
                           "stage 2 M=" + std::to_string(tokens)) == "");
}

}  // namespace

TEST_CASE("GPU reference stage 1 and 2 match the CPU at DSv4.1-Flash size, M=1", "[gpu][reference]") {
    check_against_cpu(1);
}

TEST_CASE("GPU reference stage 1 and 2 match the CPU at DSv4.1-Flash size, M=33", "[gpu][reference]") {
    check_against_cpu(33);
}

TEST_CASE("GPU reference stage 1 and 2 match the CPU at DSv4.1-Flash size, M=4096", "[gpu][reference]") {
    check_against_cpu(4096);
}

TEST_CASE("GPU reference time at DSv4.1-Flash size, M=16384", "[gpu][reference]") {
    const int tokens = 16384;
    const data::MoeShape shape = test::dsv41_flash(tokens);
    const auto& kernels = test::data_kernels();
    const gpu::Stream stream;
    const data::DeviceRouting routing =
        data::upload(data::random_routing(tokens, shape.experts, shape.topk, test::kSeed));
    const data::DeviceMxfpMatrix act =
        data::generate_synthetic_activations_gpu(kernels, shape, test::kSeed, ActivationScales::mxfp8, stream);
    const auto& weights = test::dsv41_device_weights();

    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    const gpu::DeviceBuffer<float> stage1 = data::reference_stage1_gpu(kernels, shape, act, weights, routing, stream);
    const auto t1 = clock::now();
    const data::DeviceMxfpMatrix inter =
        data::quantize_mxfp8_gpu(kernels, stage1, tokens * shape.topk, shape.inter_dim, ActivationScales::mxfp8,
                                 data::Bf16Rounding::to_bf16_first, stream);
    const gpu::DeviceBuffer<float> out = data::reference_stage2_gpu(kernels, shape, inter, weights, routing, stream);
    const auto t2 = clock::now();
    const double s1 = std::chrono::duration<double>(t1 - t0).count(),
                 s2 = std::chrono::duration<double>(t2 - t1).count();
    const double rows = double(tokens) * shape.topk;
    std::printf("GPU reference DSv4.1-Flash M=%d: stage 1 %.3f s (%.1f TFLOP/s), stage 2 %.3f s (%.1f TFLOP/s)\n",
                tokens, s1, 2.0 * rows * 2 * shape.inter_dim * shape.model_dim / s1 / 1e12, s2,
                2.0 * rows * shape.model_dim * shape.inter_dim / s2 / 1e12);
    CHECK(out.size() == std::size_t(tokens) * shape.model_dim);
}
