// How much the rebased rows of the FP8 warpgroup-product kernels (kernel_templates/common/mx_rebase.h)
// change the MoE itself, on the synthetic inputs the tuner and `moetune bench` use, at the K of
// DSv4.1-Flash (model_dim 5120, inter_dim 2304; four experts keep it fast): the reference MoE on the
// exact MXFP8 activations against the same reference on rebased ones. The synthetic weights' block
// scales lie within one octave of each other, so their rebasing is exact (formats tests); what is
// left is the activations' and the stage-2 inputs' rows, whose blocks sit up to a few octaves below
// their row's largest. Measured so that a difference between an FP8 arm and a bf16 arm in `moetune
// bench` is not blamed on the rebasing (docs/kernel-design.md, "FP8 warpgroup products on rebased
// weights").
#include <cstdint>
#include <vector>

#include "data/error_metrics.h"
#include "data/mx_matrix.h"
#include "data/reference_moe.h"
#include "data/routing_generators.h"
#include "data/synthetic_inputs.h"
#include "formats/mx_rebase.h"
#include "support/catch.hpp"

using namespace moetune;
using namespace moetune::data;

namespace {

// m's rebased rows as an MXFP8 matrix: the rebased values, every block's scale the row's base.
MxfpMatrix as_rebased(const MxfpMatrix& m) {
    MxfpMatrix r = m;
    std::vector<uint8_t> bases(std::size_t(m.rows));
    formats::rebase_mxfp8(m.values, m.scales, m.rows, m.cols, r.values, bases);
    const int blocks = m.cols / 32;
    for (int i = 0; i < m.rows; ++i)
        for (int b = 0; b < blocks; ++b) r.scales[std::size_t(i) * blocks + b] = bases[std::size_t(i)];
    return r;
}

}  // namespace

TEST_CASE("rebased rows change the synthetic MoE by under 1e-5 (rel L2)", "[data][rebase]") {
    const MoeShape s{16, 5120, 2304, 4, 2};
    const MoeWeights w = make_synthetic_weights(s, 0);
    const MxfpMatrix act = quantize_mxfp8_matrix(make_synthetic_hidden(s, 0), s.tokens, s.model_dim,
                                                 ActivationScales::mxfp8);
    const Routing routing = random_routing(s.tokens, s.experts, s.topk, 0);

    const std::vector<float> stage1 = reference_stage1(s, act, w, routing);
    const std::vector<float> stage1_rebased = reference_stage1(s, as_rebased(act), w, routing);
    CHECK(relative_l2_difference(stage1, stage1_rebased) < 1e-5);

    const MxfpMatrix inter = quantize_stage1_output(s, stage1, ActivationScales::mxfp8);
    const MxfpMatrix inter_rebased = as_rebased(quantize_stage1_output(s, stage1_rebased, ActivationScales::mxfp8));
    const std::vector<float> out = reference_stage2(s, inter, w, routing);
    const std::vector<float> out_rebased = reference_stage2(s, inter_rebased, w, routing);
    const double rel_l2 = relative_l2_difference(out, out_rebased);
    UNSCOPED_INFO("rel L2 of the MoE output, rebased against exact rows: " << rel_l2);
    CHECK(rel_l2 < 1e-5);
    CHECK(rel_l2 > 0.0);  // some stage-2 input blocks do lose bits: the check is not vacuous
}
