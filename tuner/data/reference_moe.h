#pragma once
// The CPU reference MoE every candidate is judged against (small shapes and tests; tuning-size
// shapes use the GPU reference kernel, which must agree with this within FP32 rounding). Both
// stages start from dequantised MX inputs and accumulate in FP32; each stage's output is
// returned on its own so each stage can be checked alone.
//
// Dot products use 8 interleaved FP32 partial sums (element i goes to sum i % 8), combined
// pairwise ((s0+s4)+(s2+s6))+((s1+s5)+(s3+s7)): FP32 accumulation, in an order the compiler can
// vectorise.
#include <span>
#include <vector>

#include "data/moe_problem.h"
#include "formats/mx_quantize.h"

namespace moetune::data {

using formats::ActivationScales;

// Stage 1 -> [M*topk, inter], row t*topk+s = SiLU(gate) * up with
// gate[n] = dot(act[t], w1[e][n]), up[n] = dot(act[t], w1[e][inter + n]), e = ids[t*topk+s].
// act: MXFP8 [M, model_dim]; weights in the logical layout.
std::vector<float> reference_stage1(const MoeShape& shape, const MxfpMatrix& act, const MoeWeights& weights,
                                    const Routing& routing);

// The stage-2 input made from a stage-1 output: rounded to bf16 (the dtype stage 1 writes in
// AITER's non-fused path), then MXFP8 with AITER's scale rule or unit scales -> [M*topk, inter].
MxfpMatrix quantize_stage1_output(const MoeShape& shape, std::span<const float> stage1, ActivationScales mode);

// Stage 2 per routed row -> [M*topk, model_dim], row t*topk+s = dot(inter_act[t*topk+s], w2[e][n])
// (unweighted: what a reduce-mode stage-2 kernel writes before its reduction).
std::vector<float> reference_stage2_rows(const MoeShape& shape, const MxfpMatrix& inter_act, const MoeWeights& weights,
                                         const Routing& routing);

// Stage 2 -> [M, model_dim]: sum over s = 0..topk-1, in that order, of weight[t,s] * row t*topk+s
// of reference_stage2_rows.
std::vector<float> reference_stage2(const MoeShape& shape, const MxfpMatrix& inter_act, const MoeWeights& weights,
                                    const Routing& routing);

}  // namespace moetune::data
