#include "reference_tolerance.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

#include "formats/mx_quantize.h"

namespace moetune::test {
namespace {

struct Dot {
    double value = 0;      // only for propagating errors through SiLU, not compared
    double magnitude = 0;  // Σ|a_k * w_k|
};

Dot dot(const float* a, const float* w, int n) {
    Dot d;
    for (int k = 0; k < n; ++k) {
        const double term = double(a[k]) * double(w[k]);
        d.value += term;
        d.magnitude += std::fabs(term);
    }
    return d;
}

// For every routed row r of `routing` (ids in [0, experts)), calls row_work(r, weights of expert
// ids[r] dequantised [rows_per_expert, cols]), expert by expert on all cores.
template <class RowWork>
void for_rows_by_expert(const data::Routing& routing, int experts, const std::vector<uint8_t>& packed,
                        const std::vector<uint8_t>& scales, int rows_per_expert, int cols, const RowWork& row_work) {
    std::vector<std::vector<int>> rows(static_cast<std::size_t>(experts));
    for (std::size_t i = 0; i < routing.ids.size(); ++i)
        rows[static_cast<std::size_t>(routing.ids[i])].push_back(int(i));
    std::atomic<int> next{0};
    auto worker = [&] {
        std::vector<float> w(std::size_t(rows_per_expert) * cols);
        for (int e = next++; e < experts; e = next++) {
            if (rows[std::size_t(e)].empty()) continue;
            const std::size_t per_expert = w.size();
            formats::dequantize_mxfp4(std::span(packed).subspan(e * per_expert / 2, per_expert / 2),
                                      std::span(scales).subspan(e * per_expert / 32, per_expert / 32), rows_per_expert,
                                      cols, w);
            for (int r : rows[std::size_t(e)]) row_work(r, w);
        }
    };
    std::vector<std::thread> pool;
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned i = 1; i < threads; ++i) pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool) t.join();
}

std::vector<float> dequantize_mxfp8(const data::MxfpMatrix& m) {
    std::vector<float> out(std::size_t(m.rows) * m.cols);
    formats::dequantize_mxfp8(m.values, m.scales, m.rows, m.cols, out);
    return out;
}

}  // namespace

std::vector<float> stage1_tolerance(const data::MoeShape& s, const data::MxfpMatrix& act,
                                    const data::MoeWeights& weights, const data::Routing& routing) {
    const std::vector<float> a = dequantize_mxfp8(act);
    const int model = s.model_dim, inter = s.inter_dim;
    std::vector<float> tol(std::size_t(s.tokens) * s.topk * inter);
    for_rows_by_expert(routing, s.experts, weights.w1, weights.w1_scale, 2 * inter, model,
                       [&](int r, const std::vector<float>& w) {
                           const float* x = a.data() + std::size_t(r / s.topk) * model;
                           for (int n = 0; n < inter; ++n) {
                               const Dot g = dot(x, w.data() + std::size_t(n) * model, model);
                               const Dot u = dot(x, w.data() + std::size_t(inter + n) * model, model);
                               const double sigmoid = 1.0 / (1.0 + std::exp(-g.value));
                               const double silu = g.value * sigmoid;
                               const double dsilu = sigmoid * (1.0 + g.value * (1.0 - sigmoid));
                               const double dg = kRelative * g.magnitude, du = kRelative * u.magnitude;
                               tol[std::size_t(r) * inter + n] =
                                   float(std::fabs(dsilu) * dg * std::fabs(u.value) + std::fabs(silu) * du + dg * du +
                                         1e-6 * std::fabs(silu * u.value));
                           }
                       });
    return tol;
}

std::vector<float> stage2_rows_tolerance(const data::MoeShape& s, const data::MxfpMatrix& inter_act,
                                         const data::MoeWeights& weights, const data::Routing& routing) {
    const std::vector<float> a = dequantize_mxfp8(inter_act);
    const int model = s.model_dim, inter = s.inter_dim;
    std::vector<float> tol(std::size_t(s.tokens) * s.topk * model);
    for_rows_by_expert(routing, s.experts, weights.w2, weights.w2_scale, model, inter,
                       [&](int r, const std::vector<float>& w) {
                           const float* x = a.data() + std::size_t(r) * inter;
                           for (int n = 0; n < model; ++n)
                               tol[std::size_t(r) * model + n] =
                                   float(kRelative * dot(x, w.data() + std::size_t(n) * inter, inter).magnitude);
                       });
    return tol;
}

std::vector<float> stage2_tolerance(const data::MoeShape& s, const std::vector<float>& rows_tolerance,
                                    const std::vector<float>& rows, const data::Routing& routing) {
    const std::size_t model = s.model_dim;
    std::vector<float> tol(std::size_t(s.tokens) * model);
    for (std::size_t t = 0; t < std::size_t(s.tokens); ++t)
        for (std::size_t n = 0; n < model; ++n) {
            double sum = 0;
            for (std::size_t slot = 0; slot < std::size_t(s.topk); ++slot) {
                const std::size_t r = t * s.topk + slot;
                const double w = std::fabs(routing.weights[r]);
                sum += w * rows_tolerance[r * model + n] + 1e-6 * w * std::fabs(rows[r * model + n]);
            }
            tol[t * model + n] = float(sum);
        }
    return tol;
}

}  // namespace moetune::test
