// Synthetic inputs: same seed same bytes, different seed different bytes, and statistics that look
// like AITER's per-1x32-quantised randn weights.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/mx_types.h"
#include "common/synthetic.h"
#include "data/synthetic_inputs.h"
#include "support/catch.hpp"

using namespace moetune::data;

namespace {

const MoeShape kShape{.tokens = 16, .model_dim = 256, .inter_dim = 128, .experts = 4, .topk = 2};

double fraction_differing(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    size_t differ = 0;
    for (size_t i = 0; i < a.size(); ++i) differ += a[i] != b[i];
    return double(differ) / double(a.size());
}

}  // namespace

TEST_CASE("the hash is splitmix64's finaliser keyed by seed and stream", "[data][synthetic]") {
    // splitmix64 seeded with 0 first returns mix(0x9E3779B97F4A7C15) = 0xE220A8397B1DCDAF.
    CHECK(mx_synth_mix64(0x9E3779B97F4A7C15ull) == 0xE220A8397B1DCDAFull);
    // Known answers of the keyed Weyl sequence, from a separate Python implementation of
    // synthetic.h's description (key = mix(seed ^ stream * 0xD1B54A32D192ED03), element i =
    // mix(key + (i + 1) * 0x9E3779B97F4A7C15)): the inputs behind every tuned table stay the same
    // from one version to the next.
    CHECK(mx_synth_hash64(1, MX_SYNTH_W1, 0) == 0x077CA23776407269ull);
    CHECK(mx_synth_hash64(42, MX_SYNTH_HIDDEN, 1000) == 0x537A08037797268Bull);
    CHECK(mx_synth_hash(1, MX_SYNTH_W1, 0) == 0x077CA237u);
    CHECK(mx_synth_hash(1, MX_SYNTH_W1, 0) != mx_synth_hash(1, MX_SYNTH_W2, 0));
    CHECK(mx_synth_hash(1, MX_SYNTH_W1, 0) != mx_synth_hash(2, MX_SYNTH_W1, 0));
    CHECK(mx_synth_hash(1, MX_SYNTH_W1, 0) != mx_synth_hash(1, MX_SYNTH_W1, 1));
}

TEST_CASE("the element generators' known answers: FP4 bytes, scale bytes, hidden values", "[data][synthetic]") {
    // From the same Python implementation: the e2m1 thresholds, the scale offsets {-1, 0, 0, +1}
    // around the stream's centre, Irwin-Hall of four 16-bit uniforms rounded to bf16.
    const unsigned char w1[4] = {0xB1, 0x03, 0x06, 0x1E}, w2[4] = {0x0B, 0x5A, 0x2D, 0xCC};
    const unsigned char w1_scale[4] = {120, 121, 119, 119}, w2_scale[4] = {122, 122, 121, 123};
    const float hidden[4] = {0.263671875f, -0.3203125f, -0.427734375f, -0.0888671875f};
    for (int i = 0; i < 4; ++i) {
        INFO("element " << i);
        CHECK(mx_synth_fp4_byte(42, MX_SYNTH_W1, i) == w1[i]);
        CHECK(mx_synth_fp4_byte(42, MX_SYNTH_W2, i) == w2[i]);
        CHECK(mx_synth_e8m0(42, MX_SYNTH_W1_SCALE, i) == w1_scale[i]);
        CHECK(mx_synth_e8m0(42, MX_SYNTH_W2_SCALE, i) == w2_scale[i]);
        CHECK(mx_synth_hidden(42, i) == hidden[i]);
    }
}

TEST_CASE("synthetic weights and activations are a pure function of shape and seed", "[data][synthetic]") {
    const MoeWeights a = make_synthetic_weights(kShape, 42);
    const MoeWeights b = make_synthetic_weights(kShape, 42);
    CHECK(a.w1 == b.w1);
    CHECK(a.w1_scale == b.w1_scale);
    CHECK(a.w2 == b.w2);
    CHECK(a.w2_scale == b.w2_scale);
    CHECK(a.w1.size() == size_t(4 * 256 * 256 / 2));
    CHECK(a.w1_scale.size() == size_t(4 * 256 * 256 / 32));
    CHECK(a.w2.size() == size_t(4 * 256 * 128 / 2));
    CHECK(a.w2_scale.size() == size_t(4 * 256 * 128 / 32));

    const MoeWeights c = make_synthetic_weights(kShape, 43);
    CHECK(fraction_differing(a.w1, c.w1) > 0.8);
    CHECK(fraction_differing(a.w2, c.w2) > 0.8);
    CHECK(fraction_differing(a.w1_scale, c.w1_scale) > 0.4);

    const MxfpMatrix x = make_synthetic_activations(kShape, 42, ActivationScales::mxfp8);
    const MxfpMatrix y = make_synthetic_activations(kShape, 42, ActivationScales::mxfp8);
    const MxfpMatrix z = make_synthetic_activations(kShape, 7, ActivationScales::mxfp8);
    CHECK(x.values == y.values);
    CHECK(x.scales == y.scales);
    CHECK(fraction_differing(x.values, z.values) > 0.8);
    CHECK(make_synthetic_hidden(kShape, 42) == make_synthetic_hidden(kShape, 42));
}

TEST_CASE("an element does not depend on the size of the tensor it is generated in", "[data][synthetic]") {
    // Counter-based: a GPU generating any sub-range produces the same bytes.
    MoeShape more = kShape;
    more.tokens = 40;
    const std::vector<float> small = make_synthetic_hidden(kShape, 9);
    const std::vector<float> large = make_synthetic_hidden(more, 9);
    CHECK(std::equal(small.begin(), small.end(), large.begin()));
}

TEST_CASE("tensors are the documented streams, element i = generator(seed, stream, i)", "[data][synthetic]") {
    // Big enough to be generated in several parallel chunks; this is the contract the GPU
    // generation kernel follows.
    const MoeShape shape{.tokens = 300, .model_dim = 1024, .inter_dim = 512, .experts = 5, .topk = 2};
    const MoeWeights w = make_synthetic_weights(shape, 77);
    REQUIRE(w.w1.size() > size_t(2) << 20);
    for (size_t i = 0; i < w.w1.size(); ++i) REQUIRE(w.w1[i] == mx_synth_fp4_byte(77, MX_SYNTH_W1, i));
    for (size_t i = 0; i < w.w1_scale.size(); ++i) REQUIRE(w.w1_scale[i] == mx_synth_e8m0(77, MX_SYNTH_W1_SCALE, i));
    for (size_t i = 0; i < w.w2.size(); ++i) REQUIRE(w.w2[i] == mx_synth_fp4_byte(77, MX_SYNTH_W2, i));
    for (size_t i = 0; i < w.w2_scale.size(); ++i) REQUIRE(w.w2_scale[i] == mx_synth_e8m0(77, MX_SYNTH_W2_SCALE, i));
    const std::vector<float> h = make_synthetic_hidden(shape, 77);
    for (size_t i = 0; i < h.size(); ++i) REQUIRE(mx_bits_of(h[i]) == mx_bits_of(mx_synth_hidden(77, i)));
}

TEST_CASE("synthetic fp4 codes follow the per-1x32-quantised randn distribution", "[data][synthetic]") {
    // Target code frequencies (synthetic.h) and a tolerance far below their differences.
    const double target[8] = {0.1068, 0.2040, 0.1802, 0.1480, 0.1620, 0.1246, 0.0646, 0.0098};
    std::vector<double> count(16, 0);
    const size_t bytes = 1 << 19;
    for (size_t i = 0; i < bytes; ++i) {
        const uint8_t b = mx_synth_fp4_byte(5, MX_SYNTH_W1, i);
        ++count[b & 0xF];
        ++count[b >> 4];
    }
    const double n = 2.0 * double(bytes);
    double negative = 0;
    for (int c = 8; c < 16; ++c) negative += count[size_t(c)];
    CHECK(negative / n == Approx(0.5).margin(0.003));
    for (int m = 0; m < 8; ++m) {
        INFO("magnitude code " << m);
        CHECK((count[size_t(m)] + count[size_t(m) + 8]) / n == Approx(target[m]).margin(0.003));
    }
}

TEST_CASE("synthetic scales stay in a narrow band around each stream's centre", "[data][synthetic]") {
    const MoeShape shape{.tokens = 1, .model_dim = 512, .inter_dim = 256, .experts = 8, .topk = 2};
    const MoeWeights w = make_synthetic_weights(shape, 3);
    auto check_band = [](const std::vector<uint8_t>& s, int centre) {
        std::vector<double> count(3, 0);
        for (uint8_t b : s) {
            REQUIRE(std::abs(int(b) - centre) <= 1);
            ++count[size_t(b - centre + 1)];
        }
        CHECK(count[0] / double(s.size()) == Approx(0.25).margin(0.02));
        CHECK(count[1] / double(s.size()) == Approx(0.50).margin(0.02));
        CHECK(count[2] / double(s.size()) == Approx(0.25).margin(0.02));
    };
    check_band(w.w1_scale, 120);
    check_band(w.w2_scale, 122);
}

TEST_CASE("synthetic hidden states are bf16 values with mean 0 and std ~0.577", "[data][synthetic]") {
    const MoeShape shape{.tokens = 256, .model_dim = 1024, .inter_dim = 256, .experts = 8, .topk = 2};
    const std::vector<float> h = make_synthetic_hidden(shape, 11);
    double sum = 0, squares = 0;
    for (float v : h) {
        REQUIRE(mx_round_to_bf16(v) == v);
        REQUIRE(std::fabs(v) < 2.0f);
        sum += v;
        squares += double(v) * v;
    }
    const double mean = sum / double(h.size());
    CHECK(mean == Approx(0.0).margin(0.005));
    CHECK(std::sqrt(squares / double(h.size()) - mean * mean) == Approx(std::sqrt(1.0 / 3.0)).margin(0.005));
}

TEST_CASE("activation scales: AITER's rule from the hidden states, or all 127", "[data][synthetic]") {
    const std::vector<float> h = make_synthetic_hidden(kShape, 4);
    const MxfpMatrix real = make_synthetic_activations(kShape, 4, ActivationScales::mxfp8);
    const MxfpMatrix unit = make_synthetic_activations(kShape, 4, ActivationScales::unit);
    REQUIRE(real.rows == kShape.tokens);
    REQUIRE(real.cols == kShape.model_dim);
    for (size_t b = 0; b < real.scales.size(); ++b) {
        float amax = 0;
        for (size_t i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(h[b * 32 + i]));
        REQUIRE(real.scales[b] == mx_mxfp8_scale_from_amax(amax));
        REQUIRE(unit.scales[b] == 127);
    }
    for (size_t i = 0; i < h.size(); ++i) REQUIRE(unit.values[i] == mx_float_to_e4m3fn(h[i]));
}
