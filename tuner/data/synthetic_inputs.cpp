#include "data/synthetic_inputs.h"

#include <algorithm>
#include <stdexcept>

#include "common/synthetic.h"
#include "data/mx_matrix.h"
#include "common/parallel_for.h"

namespace moetune::data {
namespace {

void check_shape(const MoeShape& s) {
    if (s.tokens < 0 || s.model_dim <= 0 || s.inter_dim <= 0 || s.experts <= 0 || s.topk <= 0)
        throw std::invalid_argument("synthetic inputs: shape dimensions must be positive");
    if (s.model_dim % formats::kMxBlock != 0 || s.inter_dim % formats::kMxBlock != 0)
        throw std::invalid_argument("synthetic inputs: model_dim and inter_dim must be multiples of 32");
}

// Elements per parallel work item: large enough to amortise scheduling, small enough to balance.
constexpr int64_t kChunk = int64_t(1) << 20;

// out[i] = generate(i) for every i, in parallel chunks: the generators are counter-based, so the
// split cannot change a byte.
template <typename T, typename Generate>
std::vector<T> generate_stream(size_t count, const Generate& generate) {
    std::vector<T> out(count);
    parallel_for((int64_t(count) + kChunk - 1) / kChunk, [&](int64_t chunk) {
        const size_t end = std::min(count, size_t(chunk + 1) * size_t(kChunk));
        for (size_t i = size_t(chunk) * size_t(kChunk); i < end; ++i) out[i] = generate(i);
    });
    return out;
}

std::vector<uint8_t> fp4_stream(uint64_t seed, unsigned stream, size_t bytes) {
    return generate_stream<uint8_t>(bytes, [&](size_t i) { return mx_synth_fp4_byte(seed, stream, i); });
}

std::vector<uint8_t> scale_stream(uint64_t seed, unsigned stream, size_t count) {
    return generate_stream<uint8_t>(count, [&](size_t i) { return mx_synth_e8m0(seed, stream, i); });
}

}  // namespace

MoeWeights make_synthetic_weights(const MoeShape& shape, uint64_t seed) {
    check_shape(shape);
    const size_t e = size_t(shape.experts), model = size_t(shape.model_dim), inter = size_t(shape.inter_dim);
    MoeWeights w;
    w.w1 = fp4_stream(seed, MX_SYNTH_W1, e * 2 * inter * model / 2);
    w.w1_scale = scale_stream(seed, MX_SYNTH_W1_SCALE, e * 2 * inter * model / formats::kMxBlock);
    w.w2 = fp4_stream(seed, MX_SYNTH_W2, e * model * inter / 2);
    w.w2_scale = scale_stream(seed, MX_SYNTH_W2_SCALE, e * model * inter / formats::kMxBlock);
    return w;
}

std::vector<float> make_synthetic_hidden(const MoeShape& shape, uint64_t seed) {
    check_shape(shape);
    return generate_stream<float>(size_t(shape.tokens) * size_t(shape.model_dim),
                                  [&](size_t i) { return mx_synth_hidden(seed, i); });
}

MxfpMatrix make_synthetic_activations(const MoeShape& shape, uint64_t seed, ActivationScales mode) {
    return quantize_mxfp8_matrix(make_synthetic_hidden(shape, seed), shape.tokens, shape.model_dim, mode);
}

}  // namespace moetune::data
