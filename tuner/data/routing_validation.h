#pragma once
// What makes a routing usable by moe_sorting and the reference: every token has exactly topk
// expert ids, each in [0, experts), no expert twice within a token, and finite weights.
#include <span>
#include <string>

#include "data/moe_problem.h"

namespace moetune::data {

// Why one token's row is invalid, or "" when it is valid. Shared by the file parser (which adds
// the file and line) and validate_routing (which adds the token).
std::string routing_row_problem(std::span<const int32_t> ids, std::span<const float> weights, int experts, int topk);

// Throws InputError(source, 0, "token N: ...") for the first invalid token, or when the routing's
// own sizes disagree with topk.
void validate_routing(const Routing& routing, int experts, int topk, const std::string& source);

}  // namespace moetune::data
