#include "data/reference_moe.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "common/mx_types.h"
#include "data/mx_matrix.h"
#include "common/parallel_for.h"

namespace moetune::data {
namespace {

float dot_fp32(const float* a, const float* b, int n) {
    float s[8] = {};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; ++j) s[j] += a[i + j] * b[i + j];
    for (; i < n; ++i) s[i % 8] += a[i] * b[i];
    return ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));
}

float silu(float x) { return x / (1.0f + std::exp(-x)); }

void require(bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument("reference MoE: " + what);
}

void check_common(const MoeShape& s, const MoeWeights& w, const Routing& r) {
    require(s.tokens >= 0 && s.model_dim > 0 && s.inter_dim > 0 && s.experts > 0 && s.topk > 0,
            "shape dimensions must be positive");
    require(s.model_dim % formats::kMxBlock == 0 && s.inter_dim % formats::kMxBlock == 0,
            "model_dim and inter_dim must be multiples of 32");
    const size_t e = size_t(s.experts), model = size_t(s.model_dim), inter = size_t(s.inter_dim);
    require(w.w1.size() == e * 2 * inter * model / 2 && w.w1_scale.size() == e * 2 * inter * model / 32,
            "w1 does not match the shape");
    require(w.w2.size() == e * model * inter / 2 && w.w2_scale.size() == e * model * inter / 32,
            "w2 does not match the shape");
    require(r.tokens == s.tokens && r.topk == s.topk && r.ids.size() == size_t(s.tokens) * size_t(s.topk) &&
                r.weights.size() == r.ids.size(),
            "routing does not match the shape");
    for (int32_t id : r.ids) require(id >= 0 && id < s.experts, "expert id out of range");
}

void check_matrix(const MxfpMatrix& m, int rows, int cols, const char* what) {
    require(m.rows == rows && m.cols == cols && m.values.size() == size_t(rows) * size_t(cols) &&
                m.scales.size() == size_t(rows) * size_t(cols / formats::kMxBlock),
            std::string(what) + " is not an MXFP8 [" + std::to_string(rows) + ", " + std::to_string(cols) + "] matrix");
}

// Routed rows (t*topk + s) grouped by expert, ascending within each expert.
std::vector<std::vector<int>> rows_by_expert(const Routing& r, int experts) {
    std::vector<std::vector<int>> rows(static_cast<size_t>(experts));
    for (size_t i = 0; i < r.ids.size(); ++i) rows[size_t(r.ids[i])].push_back(int(i));
    return rows;
}

// Expert e's rows of an MXFP4 weight tensor [E, rows, cols], dequantised.
std::vector<float> dequantize_expert(const std::vector<uint8_t>& packed, const std::vector<uint8_t>& scales, int64_t e,
                                     int rows, int cols) {
    const size_t per_expert = size_t(rows) * size_t(cols);
    std::vector<float> out(per_expert);
    formats::dequantize_mxfp4(std::span(packed).subspan(size_t(e) * per_expert / 2, per_expert / 2),
                              std::span(scales).subspan(size_t(e) * per_expert / formats::kMxBlock,
                                                        per_expert / formats::kMxBlock),
                              rows, cols, out);
    return out;
}

}  // namespace

std::vector<float> reference_stage1(const MoeShape& shape, const MxfpMatrix& act, const MoeWeights& weights,
                                    const Routing& routing) {
    check_common(shape, weights, routing);
    check_matrix(act, shape.tokens, shape.model_dim, "stage-1 activation");
    const int model = shape.model_dim, inter = shape.inter_dim;
    const std::vector<float> a = dequantize_mxfp8_matrix(act);
    const auto rows = rows_by_expert(routing, shape.experts);
    std::vector<float> out(size_t(shape.tokens) * size_t(shape.topk) * size_t(inter));
    // Experts write disjoint output rows, so they run in parallel without locking.
    parallel_for(shape.experts, [&](int64_t e) {
        if (rows[size_t(e)].empty()) return;
        const std::vector<float> w = dequantize_expert(weights.w1, weights.w1_scale, e, 2 * inter, model);
        for (int r : rows[size_t(e)]) {
            const float* x = a.data() + size_t(r / shape.topk) * size_t(model);
            float* y = out.data() + size_t(r) * size_t(inter);
            for (int n = 0; n < inter; ++n) {
                const float gate = dot_fp32(x, w.data() + size_t(n) * size_t(model), model);
                const float up = dot_fp32(x, w.data() + size_t(inter + n) * size_t(model), model);
                y[n] = silu(gate) * up;
            }
        }
    });
    return out;
}

MxfpMatrix quantize_stage1_output(const MoeShape& shape, std::span<const float> stage1, ActivationScales mode) {
    const int rows = shape.tokens * shape.topk;
    require(stage1.size() == size_t(rows) * size_t(shape.inter_dim), "stage-1 output is not [M*topk, inter]");
    std::vector<float> bf16(stage1.begin(), stage1.end());
    for (float& v : bf16) v = mx_round_to_bf16(v);
    return quantize_mxfp8_matrix(bf16, rows, shape.inter_dim, mode);
}

std::vector<float> reference_stage2_rows(const MoeShape& shape, const MxfpMatrix& inter_act, const MoeWeights& weights,
                                         const Routing& routing) {
    check_common(shape, weights, routing);
    check_matrix(inter_act, shape.tokens * shape.topk, shape.inter_dim, "stage-2 activation");
    const int model = shape.model_dim, inter = shape.inter_dim;
    const std::vector<float> a = dequantize_mxfp8_matrix(inter_act);
    const auto rows = rows_by_expert(routing, shape.experts);
    std::vector<float> out(size_t(shape.tokens) * size_t(shape.topk) * size_t(model));
    // Experts write disjoint output rows, so they run in parallel without locking.
    parallel_for(shape.experts, [&](int64_t e) {
        if (rows[size_t(e)].empty()) return;
        const std::vector<float> w = dequantize_expert(weights.w2, weights.w2_scale, e, model, inter);
        for (int r : rows[size_t(e)]) {
            const float* x = a.data() + size_t(r) * size_t(inter);
            float* y = out.data() + size_t(r) * size_t(model);
            for (int n = 0; n < model; ++n) y[n] = dot_fp32(x, w.data() + size_t(n) * size_t(inter), inter);
        }
    });
    return out;
}

std::vector<float> reference_stage2(const MoeShape& shape, const MxfpMatrix& inter_act, const MoeWeights& weights,
                                    const Routing& routing) {
    const std::vector<float> rows = reference_stage2_rows(shape, inter_act, weights, routing);
    const size_t model = size_t(shape.model_dim);
    std::vector<float> out(size_t(shape.tokens) * model, 0.0f);
    for (size_t t = 0; t < size_t(shape.tokens); ++t)
        for (size_t s = 0; s < size_t(shape.topk); ++s) {
            const size_t r = t * size_t(shape.topk) + s;
            const float w = routing.weights[r];
            for (size_t n = 0; n < model; ++n) out[t * model + n] += w * rows[r * model + n];
        }
    return out;
}

}  // namespace moetune::data
