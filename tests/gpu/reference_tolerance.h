#pragma once
// How far apart two correct FP32 evaluations of the reference MoE may be. The GPU and the CPU sum
// the same exactly-rounded products a*w in different orders (the GPU in ascending k with FMA, the
// CPU in 8 interleaved partial sums), so per dot product they differ by a few rounding errors of
// the partial sums. Bounded by |Δ| <= kRelative * Σ|a_k*w_k| per dot product:
//   - the worst case of two different orders is (γ_K + γ_K)·Σ|terms| ≈ 6e-4 at K = 5120, but it needs
//     every rounding error to align; rounding errors are random, and the observed difference is
//     ~ sqrt(K)·2^-24·Σ|terms|/K·(a few) ≈ 1e-6·Σ|terms|, a hundred times below kRelative;
//   - a real bug is far above it: a wrong scale on one 32-block, a wrong row or expert, or a dropped
//     k tile moves the sum by ~1e-3·Σ|terms| or more (one block of 32 out of K/32 = 160).
// The stage-1 tolerance carries the gate and up errors through SiLU(gate)·up; stage 2 carries the
// row errors through the routing-weighted sum. Each adds 1e-6·|value| for the final few roundings
// (exp, division, the weighted sum), far below the dot-product term.
#include <vector>

#include "data/moe_problem.h"

namespace moetune::test {

inline constexpr double kRelative = 1e-4;

// [M*topk, inter]: for row t*topk+s and column n, the allowed |gpu - cpu| of SiLU(gate)*up.
std::vector<float> stage1_tolerance(const data::MoeShape& shape, const data::MxfpMatrix& act,
                                    const data::MoeWeights& weights, const data::Routing& routing);
// [M*topk, model_dim]: the allowed difference of the unweighted stage-2 rows.
std::vector<float> stage2_rows_tolerance(const data::MoeShape& shape, const data::MxfpMatrix& inter_act,
                                         const data::MoeWeights& weights, const data::Routing& routing);
// [M, model_dim]: the allowed difference of the weighted stage-2 output, from the rows' tolerance
// and magnitudes.
std::vector<float> stage2_tolerance(const data::MoeShape& shape, const std::vector<float>& rows_tolerance,
                                    const std::vector<float>& rows, const data::Routing& routing);

}  // namespace moetune::test
