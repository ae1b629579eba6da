#include "bench/roofline.h"

#include <algorithm>

namespace moetune::bench {
namespace {

constexpr double kFp4BytesPerElement = 0.5;
constexpr double kMxBlock = 32;  // elements per e8m0 scale

}  // namespace

MoeWork moe_work(const data::MoeShape& s, int experts_touched) {
    const double m = s.tokens, d = s.model_dim, inter = s.inter_dim;
    const double weights_per_expert = 2 * inter * d + d * inter;  // W1 (gate and up) + W2 elements
    const double expert_bytes = weights_per_expert * kFp4BytesPerElement + weights_per_expert / kMxBlock;
    const double activation_bytes = m * d + m * d / kMxBlock;  // FP8 values + scales
    const double output_bytes = m * d * 2;                     // bf16
    MoeWork w;
    w.bytes = experts_touched * expert_bytes + activation_bytes + output_bytes;
    w.flops = 2 * m * s.topk * d * (2 * inter) + 2 * m * s.topk * inter * d;
    return w;
}

double roofline_us(const MoeWork& w, const Peaks& p) {
    return std::max(w.bytes / (p.hbm_tbps * 1e12), w.flops / (p.tflops * 1e12)) * 1e6;
}

double achieved_tbps(const MoeWork& w, double us) { return us > 0 ? w.bytes / (us * 1e-6) / 1e12 : 0; }

double achieved_tflops(const MoeWork& w, double us) { return us > 0 ? w.flops / (us * 1e-6) / 1e12 : 0; }

}  // namespace moetune::bench
