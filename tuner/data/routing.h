#pragma once
// The routing of one (shape, seed) as chosen by `--routing`: the single entry point the rest of
// moetune calls, so every candidate of a shape sees the same, validated routing.
#include <cstdint>

#include "data/moe_problem.h"
#include "data/routing_spec.h"

namespace moetune::data {

// For file routing, token t uses row t mod (rows in the file): a capture of any length serves
// every token bucket (the first M rows when the file has at least M). Throws InputError for an
// invalid file (FILE:LINE) and validates generated routing too ("token N").
Routing make_routing(const RoutingSpec& spec, const MoeShape& shape, uint64_t seed);

}  // namespace moetune::data
