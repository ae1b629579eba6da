#pragma once
// Seeded routing generators (docs/synthetic-data-and-routing.md). Routing is made on the CPU and
// uploaded, so these may use <cmath>; their random bits still come from the counter-based hash
// of kernel_templates/common/synthetic.h, so a (seed, shape) gives the same routing everywhere.
// All produce slot 0 = the highest-scoring expert, like torch.topk. Require 1 <= topk <= experts.
#include <cstdint>

#include "data/moe_problem.h"

namespace moetune::data {

// AITER's default: scores ~ N(0,1) per (token, expert), softmax, top-k, weights renormalised over
// the k chosen (fused_topk(..., renormalize=True)). Ties go to the lower expert id.
Routing random_routing(int tokens, int experts, int topk, uint64_t seed);

// Round-robin: slot s of token t gets expert (t*topk + s) mod experts, weight 1/topk. Expert
// loads differ by at most one and a token never repeats an expert.
Routing balanced_routing(int tokens, int experts, int topk);

// Zipf-like popularity: the expert of seeded popularity rank r (0 = hottest) is drawn with weight
// (r+1)^-exponent; each token takes topk distinct experts by Gumbel-top-k sampling (equivalent to
// drawing without replacement in proportion to popularity); weights are the softmax of the
// perturbed log-popularities over the chosen k. exponent 0 = uniformly random expert sets.
Routing skewed_routing(int tokens, int experts, int topk, double exponent, uint64_t seed);

}  // namespace moetune::data
