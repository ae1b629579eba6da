#include "data/routing_generators.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "common/synthetic.h"

namespace moetune::data {
namespace {

void check_dims(int tokens, int experts, int topk) {
    if (tokens < 0 || experts <= 0 || topk <= 0 || topk > experts)
        throw std::invalid_argument("routing: need tokens >= 0 and 1 <= topk <= experts");
}

// A uniform in the open interval (0, 1) from 32 random bits, so log() never sees 0.
double open_uniform(uint32_t bits) { return (double(bits) + 0.5) * 0x1p-32; }

// Picks the topk highest scores of one token (ties: lower expert id first) and writes their ids
// and softmax weights renormalised over the chosen k. Softmax over all experts followed by
// renormalisation over k equals softmax over the k chosen scores, which is what is computed.
void take_top_k(const std::vector<double>& scores, int topk, int32_t* ids, float* weights) {
    std::vector<int32_t> order(scores.size());
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + topk, order.end(), [&](int32_t a, int32_t b) {
        return scores[size_t(a)] != scores[size_t(b)] ? scores[size_t(a)] > scores[size_t(b)] : a < b;
    });
    const double top = scores[size_t(order[0])];
    double sum = 0;
    std::vector<double> e(static_cast<size_t>(topk));
    for (int s = 0; s < topk; ++s) sum += e[size_t(s)] = std::exp(scores[size_t(order[size_t(s)])] - top);
    for (int s = 0; s < topk; ++s) {
        ids[s] = order[size_t(s)];
        weights[s] = float(e[size_t(s)] / sum);
    }
}

Routing empty_routing(int tokens, int topk) {
    Routing r;
    r.tokens = tokens;
    r.topk = topk;
    r.ids.resize(size_t(tokens) * size_t(topk));
    r.weights.resize(r.ids.size());
    return r;
}

// Seeded popularity rank of every expert (a Fisher-Yates shuffle), so the hot experts are spread
// over the id range instead of always being 0, 1, 2...
std::vector<int> popularity_ranks(int experts, uint64_t seed) {
    std::vector<int> expert_of_rank(static_cast<size_t>(experts));
    std::iota(expert_of_rank.begin(), expert_of_rank.end(), 0);
    for (int i = experts - 1; i > 0; --i) {
        const uint64_t j = mx_synth_hash64(seed, MX_SYNTH_EXPERT_ORDER, uint64_t(i)) % uint64_t(i + 1);
        std::swap(expert_of_rank[size_t(i)], expert_of_rank[size_t(j)]);
    }
    std::vector<int> rank(static_cast<size_t>(experts));
    for (int r = 0; r < experts; ++r) rank[size_t(expert_of_rank[size_t(r)])] = r;
    return rank;
}

}  // namespace

Routing random_routing(int tokens, int experts, int topk, uint64_t seed) {
    check_dims(tokens, experts, topk);
    Routing r = empty_routing(tokens, topk);
    std::vector<double> scores(static_cast<size_t>(experts));
    for (int t = 0; t < tokens; ++t) {
        for (int e = 0; e < experts; ++e) {
            // Box-Muller from the two halves of one 64-bit draw.
            const uint64_t h = mx_synth_hash64(seed, MX_SYNTH_ROUTING, uint64_t(t) * uint64_t(experts) + uint64_t(e));
            const double radius = std::sqrt(-2.0 * std::log(open_uniform(uint32_t(h >> 32))));
            scores[size_t(e)] = radius * std::cos(2.0 * std::numbers::pi * open_uniform(uint32_t(h)));
        }
        take_top_k(scores, topk, &r.ids[size_t(t) * size_t(topk)], &r.weights[size_t(t) * size_t(topk)]);
    }
    return r;
}

Routing balanced_routing(int tokens, int experts, int topk) {
    check_dims(tokens, experts, topk);
    Routing r = empty_routing(tokens, topk);
    for (size_t i = 0; i < r.ids.size(); ++i) {
        r.ids[i] = int32_t(i % size_t(experts));
        r.weights[i] = 1.0f / float(topk);
    }
    return r;
}

Routing skewed_routing(int tokens, int experts, int topk, double exponent, uint64_t seed) {
    check_dims(tokens, experts, topk);
    if (!(exponent >= 0) || !std::isfinite(exponent)) throw std::invalid_argument("skewed routing: exponent must be >= 0");
    const std::vector<int> rank = popularity_ranks(experts, seed);
    std::vector<double> log_popularity(static_cast<size_t>(experts));
    for (int e = 0; e < experts; ++e) log_popularity[size_t(e)] = -exponent * std::log(double(rank[size_t(e)] + 1));

    Routing r = empty_routing(tokens, topk);
    std::vector<double> keys(static_cast<size_t>(experts));
    for (int t = 0; t < tokens; ++t) {
        for (int e = 0; e < experts; ++e) {
            const uint64_t h = mx_synth_hash64(seed, MX_SYNTH_ROUTING, uint64_t(t) * uint64_t(experts) + uint64_t(e));
            const double gumbel = -std::log(-std::log(open_uniform(uint32_t(h >> 32))));
            keys[size_t(e)] = log_popularity[size_t(e)] + gumbel;
        }
        take_top_k(keys, topk, &r.ids[size_t(t) * size_t(topk)], &r.weights[size_t(t) * size_t(topk)]);
    }
    return r;
}

}  // namespace moetune::data
