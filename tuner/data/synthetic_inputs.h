#pragma once
// Seeded synthetic MoE inputs (docs/synthetic-data-and-routing.md). Every byte comes from the
// stateless generators of kernel_templates/common/synthetic.h, so the same (shape, seed) gives the
// same tensors for every candidate, on every run, and on the GPU (which generates them with the
// same functions instead of uploading them).
#include <cstdint>
#include <vector>

#include "data/moe_problem.h"
#include "formats/mx_quantize.h"

namespace moetune::data {

using formats::ActivationScales;

// MXFP4 w1/w2 and their e8m0 scales in the logical layout of MoeWeights.
MoeWeights make_synthetic_weights(const MoeShape& shape, uint64_t seed);

// The bf16 hidden states [tokens, model_dim], as floats (each exactly a bf16 value).
std::vector<float> make_synthetic_hidden(const MoeShape& shape, uint64_t seed);

// The hidden states quantised to MXFP8 [tokens, model_dim] with AITER's scales, or unit scales.
MxfpMatrix make_synthetic_activations(const MoeShape& shape, uint64_t seed, ActivationScales mode);

}  // namespace moetune::data
