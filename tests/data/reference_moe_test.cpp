// The CPU reference MoE against a naive loop written from the definitions (own e2m1/e4m3 decode,
// double accumulation), on tiny shapes including experts without tokens.
#include <cmath>
#include <cstdint>
#include <vector>

#include "data/reference_moe.h"
#include "data/routing_generators.h"
#include "data/synthetic_inputs.h"
#include "support/catch.hpp"

using namespace moetune::data;

namespace {

double e2m1(unsigned code) {
    static const double magnitude[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    return (code & 8) ? -magnitude[code & 7] : magnitude[code & 7];
}

double e4m3fn(uint8_t b) {
    const int e = (b >> 3) & 0xF, m = b & 7;
    const double v = e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, e - 7);
    return (b & 0x80) ? -v : v;
}

double scale(uint8_t b) { return std::ldexp(1.0, int(b) - 127); }

// Element k of row `row` of an MXFP4 tensor [rows, cols] stored as fp4x2 + e8m0.
double fp4_at(const std::vector<uint8_t>& packed, const std::vector<uint8_t>& scales, size_t row, int cols, int k) {
    const uint8_t byte = packed[row * size_t(cols / 2) + size_t(k / 2)];
    return e2m1(k % 2 == 0 ? byte & 0xF : byte >> 4) * scale(scales[row * size_t(cols / 32) + size_t(k / 32)]);
}

double fp8_at(const MxfpMatrix& m, size_t row, int k) {
    return e4m3fn(m.values[row * size_t(m.cols) + size_t(k)]) * scale(m.scales[row * size_t(m.cols / 32) + size_t(k / 32)]);
}

struct Expected {
    std::vector<double> value;
    std::vector<double> magnitude;  // sum of |products|: the scale of FP32 rounding error
};

Expected naive_stage1(const MoeShape& s, const MxfpMatrix& act, const MoeWeights& w, const Routing& r) {
    Expected out;
    for (int t = 0; t < s.tokens; ++t)
        for (int slot = 0; slot < s.topk; ++slot) {
            const int e = r.ids[size_t(t * s.topk + slot)];
            for (int n = 0; n < s.inter_dim; ++n) {
                double gate = 0, up = 0, gate_mag = 0, up_mag = 0;
                for (int k = 0; k < s.model_dim; ++k) {
                    const double x = fp8_at(act, size_t(t), k);
                    const double g = x * fp4_at(w.w1, w.w1_scale, size_t(e) * 2 * s.inter_dim + size_t(n), s.model_dim, k);
                    const double u =
                        x * fp4_at(w.w1, w.w1_scale, size_t(e) * 2 * s.inter_dim + size_t(s.inter_dim + n), s.model_dim, k);
                    gate += g;
                    up += u;
                    gate_mag += std::fabs(g);
                    up_mag += std::fabs(u);
                }
                const double silu = gate / (1.0 + std::exp(-gate));
                out.value.push_back(silu * up);
                out.magnitude.push_back(gate_mag * std::fabs(up) + up_mag * std::fabs(silu) + 1e-30);
            }
        }
    return out;
}

Expected naive_stage2(const MoeShape& s, const MxfpMatrix& act, const MoeWeights& w, const Routing& r) {
    Expected out;
    for (int t = 0; t < s.tokens; ++t)
        for (int n = 0; n < s.model_dim; ++n) {
            double sum = 0, mag = 0;
            for (int slot = 0; slot < s.topk; ++slot) {
                const size_t row = size_t(t * s.topk + slot);
                const int e = r.ids[row];
                for (int k = 0; k < s.inter_dim; ++k) {
                    const double p = r.weights[row] * fp8_at(act, row, k) *
                                     fp4_at(w.w2, w.w2_scale, size_t(e) * s.model_dim + size_t(n), s.inter_dim, k);
                    sum += p;
                    mag += std::fabs(p);
                }
            }
            out.value.push_back(sum);
            out.magnitude.push_back(mag + 1e-30);
        }
    return out;
}

void require_close(const std::vector<float>& got, const Expected& want) {
    REQUIRE(got.size() == want.value.size());
    for (size_t i = 0; i < got.size(); ++i) {
        INFO("element " << i << ": got " << got[i] << ", want " << want.value[i]);
        // FP32 accumulation of a few hundred terms: error well below 1e-5 of the terms' magnitude.
        REQUIRE(std::fabs(double(got[i]) - want.value[i]) <= 1e-5 * want.magnitude[i]);
    }
}

void check_against_naive(const MoeShape& shape, const Routing& routing, uint64_t seed) {
    const MoeWeights w = make_synthetic_weights(shape, seed);
    const MxfpMatrix act = make_synthetic_activations(shape, seed, ActivationScales::mxfp8);
    const std::vector<float> stage1 = reference_stage1(shape, act, w, routing);
    require_close(stage1, naive_stage1(shape, act, w, routing));

    const MxfpMatrix inter = quantize_stage1_output(shape, stage1, ActivationScales::mxfp8);
    require_close(reference_stage2(shape, inter, w, routing), naive_stage2(shape, inter, w, routing));
}

}  // namespace

TEST_CASE("reference stages equal a naive loop on tiny shapes", "[data][reference]") {
    SECTION("every expert used") {
        const MoeShape shape{.tokens = 5, .model_dim = 64, .inter_dim = 32, .experts = 4, .topk = 2};
        check_against_naive(shape, random_routing(5, 4, 2, 1), 1);
    }
    SECTION("most experts without tokens, topk 1") {
        const MoeShape shape{.tokens = 2, .model_dim = 96, .inter_dim = 64, .experts = 16, .topk = 1};
        check_against_naive(shape, random_routing(2, 16, 1, 2), 2);
    }
    SECTION("balanced routing, K not a multiple of 8 blocks") {
        const MoeShape shape{.tokens = 7, .model_dim = 160, .inter_dim = 96, .experts = 5, .topk = 3};
        check_against_naive(shape, balanced_routing(7, 5, 3), 3);
    }
}

TEST_CASE("stage-2 rows are the unweighted per-slot products", "[data][reference]") {
    const MoeShape shape{.tokens = 3, .model_dim = 64, .inter_dim = 32, .experts = 4, .topk = 2};
    const Routing r = random_routing(3, 4, 2, 5);
    const MoeWeights w = make_synthetic_weights(shape, 5);
    const MxfpMatrix inter = quantize_stage1_output(
        shape, reference_stage1(shape, make_synthetic_activations(shape, 5, ActivationScales::mxfp8), w, r),
        ActivationScales::mxfp8);
    const std::vector<float> rows = reference_stage2_rows(shape, inter, w, r);
    const std::vector<float> out = reference_stage2(shape, inter, w, r);
    REQUIRE(rows.size() == size_t(3 * 2 * 64));
    for (int t = 0; t < 3; ++t)
        for (int n = 0; n < 64; ++n) {
            const float expect = (0.0f + r.weights[size_t(t * 2)] * rows[size_t((t * 2) * 64 + n)]) +
                                 r.weights[size_t(t * 2 + 1)] * rows[size_t((t * 2 + 1) * 64 + n)];
            REQUIRE(out[size_t(t * 64 + n)] == expect);
        }
}

TEST_CASE("the stage-2 input is the bf16-rounded stage-1 output quantised to MXFP8", "[data][reference]") {
    const MoeShape shape{.tokens = 1, .model_dim = 64, .inter_dim = 32, .experts = 2, .topk = 1};
    // 1 + 2^-4 + 2^-12: bf16 rounds it to the e4m3 tie 1 + 2^-4, which goes to even (1.0);
    // without the bf16 step it would round up to 1.125.
    std::vector<float> stage1(32, 0.0f);
    stage1[0] = 1.0f + 0.0625f + 1.0f / 4096.0f;
    const MxfpMatrix unit = quantize_stage1_output(shape, stage1, ActivationScales::unit);
    CHECK(unit.scales[0] == 127);
    CHECK(unit.values[0] == 0x38);
    const MxfpMatrix real = quantize_stage1_output(shape, stage1, ActivationScales::mxfp8);
    CHECK(real.scales[0] == 127 - 8);
    CHECK(real.values[0] == 0x78);  // 1.0625 * 256 = 272, a tie between 256 and 288 -> 256
    CHECK_THROWS_AS(quantize_stage1_output(shape, std::vector<float>(31), ActivationScales::unit),
                    std::invalid_argument);
}

// A medium shape through both stages gives finite, non-trivial outputs. (How fast the CPU reference
// is, is a benchmark question, not a unit test's: no timing is asserted here.)
TEST_CASE("a medium shape runs through both stages", "[data][reference]") {
    const MoeShape shape{.tokens = 33, .model_dim = 512, .inter_dim = 256, .experts = 8, .topk = 2};
    const MoeWeights w = make_synthetic_weights(shape, 1);
    const MxfpMatrix act = make_synthetic_activations(shape, 1, ActivationScales::mxfp8);
    const Routing r = random_routing(33, 8, 2, 1);
    const std::vector<float> s1 = reference_stage1(shape, act, w, r);
    const std::vector<float> s2 = reference_stage2(shape, quantize_stage1_output(shape, s1, ActivationScales::mxfp8), w, r);
    int nonzero = 0;
    for (float v : s2) {
        REQUIRE(std::isfinite(v));
        nonzero += v != 0.f;
    }
    CHECK(nonzero > int(s2.size()) * 9 / 10);
}
