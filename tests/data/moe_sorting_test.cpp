// CPU moe_sorting against a hand-worked example and against an independent brute force
// (sort all (expert, token, slot) triples, then lay out padded segments) on random routings.
#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "data/moe_sorting.h"
#include "data/routing_generators.h"
#include "support/catch.hpp"

using namespace moetune::data;

namespace {

constexpr int32_t entry(int token, int slot) { return (slot << 24) | token; }

SortedRouting brute_force_sort(const Routing& r, int experts, int block_m) {
    std::vector<std::tuple<int, int, int, float>> triples;  // expert, token, slot, weight
    for (int t = 0; t < r.tokens; ++t)
        for (int s = 0; s < r.topk; ++s)
            triples.emplace_back(r.ids[size_t(t * r.topk + s)], t, s, r.weights[size_t(t * r.topk + s)]);
    std::sort(triples.begin(), triples.end());

    const int64_t length = int64_t(r.tokens) * r.topk + int64_t(experts) * block_m - r.topk;
    SortedRouting out;
    out.block_m = block_m;
    out.sorted_token_ids.assign(size_t(length), (r.topk << 24) | r.tokens);
    out.sorted_weights.assign(size_t(length), 0.0f);
    out.sorted_expert_ids.assign(size_t((length + block_m - 1) / block_m), -1);
    size_t pos = 0;
    for (size_t i = 0; i < triples.size();) {
        const int e = std::get<0>(triples[i]);
        const size_t begin = pos;
        for (; i < triples.size() && std::get<0>(triples[i]) == e; ++i, ++pos) {
            out.sorted_token_ids[pos] = entry(std::get<1>(triples[i]), std::get<2>(triples[i]));
            out.sorted_weights[pos] = std::get<3>(triples[i]);
        }
        while (pos % size_t(block_m) != 0) ++pos;
        for (size_t b = begin / size_t(block_m); b < pos / size_t(block_m); ++b) out.sorted_expert_ids[b] = e;
    }
    out.num_valid_ids[0] = int32_t(pos);
    out.num_valid_ids[1] = r.tokens;
    return out;
}

void require_equal(const SortedRouting& a, const SortedRouting& b) {
    REQUIRE(a.block_m == b.block_m);
    REQUIRE(a.num_valid_ids[0] == b.num_valid_ids[0]);
    REQUIRE(a.num_valid_ids[1] == b.num_valid_ids[1]);
    REQUIRE(a.sorted_token_ids == b.sorted_token_ids);
    REQUIRE(a.sorted_weights == b.sorted_weights);
    REQUIRE(a.sorted_expert_ids == b.sorted_expert_ids);
}

// Random routing over `used_experts` randomly chosen experts, so the others get no tokens.
Routing random_subset_routing(int tokens, int experts, int topk, unsigned seed, int used_experts) {
    std::mt19937 rng(seed);
    std::vector<int32_t> pool(static_cast<size_t>(experts));
    for (int e = 0; e < experts; ++e) pool[size_t(e)] = e;
    std::shuffle(pool.begin(), pool.end(), rng);
    pool.resize(size_t(used_experts));
    Routing r;
    r.tokens = tokens;
    r.topk = topk;
    std::uniform_real_distribution<float> weight(0.0f, 1.0f);
    for (int t = 0; t < tokens; ++t) {
        std::shuffle(pool.begin(), pool.end(), rng);
        for (int s = 0; s < topk; ++s) {
            r.ids.push_back(pool[size_t(s)]);
            r.weights.push_back(weight(rng));
        }
    }
    return r;
}

}  // namespace

TEST_CASE("moe_sorting on a hand-worked example", "[data][sort]") {
    Routing r;
    r.tokens = 3;
    r.topk = 2;
    r.ids = {2, 0, 0, 3, 2, 3};
    r.weights = {0.6f, 0.4f, 0.7f, 0.3f, 0.5f, 0.5f};
    const int32_t pad = (2 << 24) | 3;

    const SortedRouting s2 = moe_sorting_cpu(r, 4, 2);
    CHECK(s2.sorted_token_ids == std::vector<int32_t>{entry(0, 1), entry(1, 0), entry(0, 0), entry(2, 0), entry(1, 1),
                                                      entry(2, 1), pad, pad, pad, pad, pad, pad});
    CHECK(s2.sorted_weights == std::vector<float>{0.4f, 0.7f, 0.6f, 0.5f, 0.3f, 0.5f, 0, 0, 0, 0, 0, 0});
    CHECK(s2.sorted_expert_ids == std::vector<int32_t>{0, 2, 3, -1, -1, -1});
    CHECK(s2.num_valid_ids[0] == 6);
    CHECK(s2.num_valid_ids[1] == 3);

    const SortedRouting s4 = moe_sorting_cpu(r, 4, 4);
    CHECK(s4.sorted_token_ids.size() == 20);  // 3*2 + 4*4 - 2
    CHECK(std::vector<int32_t>(s4.sorted_token_ids.begin(), s4.sorted_token_ids.begin() + 12) ==
          std::vector<int32_t>{entry(0, 1), entry(1, 0), pad, pad, entry(0, 0), entry(2, 0), pad, pad, entry(1, 1),
                               entry(2, 1), pad, pad});
    CHECK(s4.sorted_expert_ids == std::vector<int32_t>{0, 2, 3, -1, -1});
    CHECK(s4.num_valid_ids[0] == 12);
}

TEST_CASE("moe_sorting equals the brute force on random routings", "[data][sort]") {
    unsigned seed = 1;
    for (int block_m : {16, 32, 64, 128})
        for (const auto& [tokens, experts, topk, used] :
             {std::tuple{1, 8, 2, 8}, std::tuple{3, 16, 4, 5}, std::tuple{33, 96, 5, 96}, std::tuple{33, 96, 5, 12},
              std::tuple{200, 32, 8, 32}, std::tuple{200, 64, 6, 7}, std::tuple{0, 4, 2, 4}, std::tuple{517, 8, 1, 3}}) {
            INFO("block_m " << block_m << " M " << tokens << " E " << experts << " topk " << topk << " used " << used);
            const Routing r = random_subset_routing(tokens, experts, topk, seed++, used);
            const SortedRouting s = moe_sorting_cpu(r, experts, block_m);
            require_equal(s, brute_force_sort(r, experts, block_m));

            // Invariants a consumer relies on, checked directly as well.
            REQUIRE(int64_t(s.sorted_token_ids.size()) == max_num_tokens_padded(tokens, topk, experts, block_m));
            REQUIRE(int64_t(s.sorted_expert_ids.size()) == max_num_m_blocks(tokens, topk, experts, block_m));
            REQUIRE(s.num_valid_ids[0] % block_m == 0);
            std::vector<int> seen(size_t(tokens) * size_t(topk), 0);
            for (int32_t i = 0; i < s.num_valid_ids[0]; ++i) {
                const int32_t v = s.sorted_token_ids[size_t(i)];
                const int t = v & 0xFFFFFF, slot = v >> 24;
                const int e = s.sorted_expert_ids[size_t(i / block_m)];
                if (t == tokens) {
                    REQUIRE(slot == topk);
                    REQUIRE(s.sorted_weights[size_t(i)] == 0.0f);
                    continue;
                }
                REQUIRE(r.ids[size_t(t * topk + slot)] == e);
                ++seen[size_t(t * topk + slot)];
            }
            REQUIRE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
            // Experts without tokens own no block; blocks appear in ascending expert order.
            const int used_blocks = s.num_valid_ids[0] / block_m;
            REQUIRE(std::is_sorted(s.sorted_expert_ids.begin(), s.sorted_expert_ids.begin() + used_blocks));
            REQUIRE(std::all_of(s.sorted_expert_ids.begin() + used_blocks, s.sorted_expert_ids.end(),
                                [](int32_t e) { return e == -1; }));
        }
}

TEST_CASE("moe_sorting of generated routings matches the brute force", "[data][sort]") {
    for (int block_m : {16, 32, 64, 128}) {
        const Routing r = skewed_routing(300, 96, 5, 1.5, 77);  // many cold experts
        require_equal(moe_sorting_cpu(r, 96, block_m), brute_force_sort(r, 96, block_m));
        const Routing b = balanced_routing(300, 96, 5);
        require_equal(moe_sorting_cpu(b, 96, block_m), brute_force_sort(b, 96, block_m));
    }
}

TEST_CASE("moe_sorting rejects what AITER's encoding cannot hold", "[data][sort]") {
    Routing r = balanced_routing(2, 4, 2);
    CHECK_THROWS_AS(moe_sorting_cpu(r, 4, 0), std::invalid_argument);
    r.ids[0] = 4;
    CHECK_THROWS_AS(moe_sorting_cpu(r, 4, 32), std::invalid_argument);
}
