#include "data/routing.h"

#include "data/routing_file.h"
#include "data/routing_generators.h"
#include "data/routing_validation.h"

namespace moetune::data {
namespace {

Routing repeat_rows(const Routing& rows, int tokens) {
    Routing r;
    r.tokens = tokens;
    r.topk = rows.topk;
    r.ids.reserve(size_t(tokens) * size_t(rows.topk));
    r.weights.reserve(r.ids.capacity());
    for (int t = 0; t < tokens; ++t) {
        const size_t from = size_t(t % rows.tokens) * size_t(rows.topk);
        r.ids.insert(r.ids.end(), rows.ids.begin() + long(from), rows.ids.begin() + long(from + size_t(rows.topk)));
        r.weights.insert(r.weights.end(), rows.weights.begin() + long(from),
                         rows.weights.begin() + long(from + size_t(rows.topk)));
    }
    return r;
}

Routing generate(const RoutingSpec& spec, const MoeShape& shape, uint64_t seed) {
    switch (spec.kind) {
    case RoutingSpec::Kind::file:
        return repeat_rows(read_routing_file(spec.path, shape.experts, shape.topk), shape.tokens);
    case RoutingSpec::Kind::balanced: return balanced_routing(shape.tokens, shape.experts, shape.topk);
    case RoutingSpec::Kind::skewed: return skewed_routing(shape.tokens, shape.experts, shape.topk, spec.skew, seed);
    case RoutingSpec::Kind::random: break;
    }
    return random_routing(shape.tokens, shape.experts, shape.topk, seed);
}

}  // namespace

Routing make_routing(const RoutingSpec& spec, const MoeShape& shape, uint64_t seed) {
    Routing r = generate(spec, shape, seed);
    // Generators are valid by construction and file rows were checked line by line; this
    // catches a generator bug before it reaches a sort kernel.
    validate_routing(r, shape.experts, shape.topk, to_string(spec) + " routing");
    return r;
}

}  // namespace moetune::data
