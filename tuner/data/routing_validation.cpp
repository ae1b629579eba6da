#include "data/routing_validation.h"

#include <cmath>

#include "common/input_error.h"

namespace moetune::data {

std::string routing_row_problem(std::span<const int32_t> ids, std::span<const float> weights, int experts, int topk) {
    if (int(ids.size()) != topk)
        return "expected topk=" + std::to_string(topk) + " expert ids, found " + std::to_string(ids.size());
    if (weights.size() != ids.size())
        return std::to_string(ids.size()) + " expert ids but " + std::to_string(weights.size()) + " weights";
    for (size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= experts)
            return "expert id " + std::to_string(ids[i]) + " out of range [0, " + std::to_string(experts) + ")";
        for (size_t j = 0; j < i; ++j)
            if (ids[j] == ids[i])
                return "expert " + std::to_string(ids[i]) + " appears twice (slots " + std::to_string(j) + " and " +
                       std::to_string(i) + ")";
        if (!std::isfinite(weights[i])) return "weight of slot " + std::to_string(i) + " is not finite";
    }
    return "";
}

void validate_routing(const Routing& routing, int experts, int topk, const std::string& source) {
    if (routing.topk != topk)
        throw InputError(source, 0, "topk is " + std::to_string(routing.topk) + ", expected " + std::to_string(topk));
    const size_t entries = size_t(routing.tokens) * size_t(topk);
    if (routing.tokens < 0 || routing.ids.size() != entries || routing.weights.size() != entries)
        throw InputError(source, 0, "ids/weights do not hold tokens*topk entries");
    for (int t = 0; t < routing.tokens; ++t) {
        const size_t row = size_t(t) * size_t(topk);
        const std::string problem = routing_row_problem(std::span(routing.ids).subspan(row, size_t(topk)),
                                                        std::span(routing.weights).subspan(row, size_t(topk)),
                                                        experts, topk);
        if (!problem.empty()) throw InputError(source, 0, "token " + std::to_string(t) + ": " + problem);
    }
}

}  // namespace moetune::data
