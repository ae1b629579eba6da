// Routing generators and the --routing flag: each generator's invariants, determinism, and
// validation messages that name the token.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/input_error.h"
#include "data/routing.h"
#include "data/routing_generators.h"
#include "data/routing_spec.h"
#include "data/routing_validation.h"
#include "support/catch.hpp"

using namespace moetune::data;
using moetune::InputError;

namespace {

std::vector<int> expert_loads(const Routing& r, int experts) {
    std::vector<int> load(size_t(experts), 0);
    for (int32_t e : r.ids) ++load[size_t(e)];
    return load;
}

void check_common_invariants(const Routing& r, int tokens, int experts, int topk) {
    REQUIRE(r.tokens == tokens);
    REQUIRE(r.topk == topk);
    REQUIRE(r.ids.size() == size_t(tokens) * size_t(topk));
    REQUIRE_NOTHROW(validate_routing(r, experts, topk, "test"));
    for (int t = 0; t < tokens; ++t) {
        double sum = 0;
        for (int s = 0; s < topk; ++s) {
            const float w = r.weights[size_t(t * topk + s)];
            REQUIRE(w > 0.0f);
            sum += w;
        }
        REQUIRE(sum == Approx(1.0).margin(1e-5));
    }
}

std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no InputError)";
}

}  // namespace

TEST_CASE("the routings that another seed changes are the ones said to vary with it", "[data][routing]") {
    // Timing rotates routings by seed (TimingOptions::routings), so the predicate must match make_routing.
    const MoeShape shape{.tokens = 4, .model_dim = 64, .inter_dim = 32, .experts = 96, .topk = 5};
    for (const char* text : {"random", "skewed", "skewed:0.5", "balanced"}) {
        INFO(text);
        const RoutingSpec spec = parse_routing_spec(text);
        const bool changes = make_routing(spec, shape, 7).ids != make_routing(spec, shape, 8).ids;
        CHECK(changes == varies_with_seed(spec));
    }
    CHECK_FALSE(varies_with_seed(parse_routing_spec("file:x.csv")));
    CHECK(varies_with_seed(parse_routing_spec("random")));
}

TEST_CASE("--routing values parse and print back", "[data][routing]") {
    CHECK(parse_routing_spec("random").kind == RoutingSpec::Kind::random);
    CHECK(parse_routing_spec("balanced").kind == RoutingSpec::Kind::balanced);
    const RoutingSpec plain = parse_routing_spec("skewed");
    CHECK(plain.kind == RoutingSpec::Kind::skewed);
    CHECK(plain.skew == RoutingSpec::kDefaultSkew);
    CHECK(parse_routing_spec("skewed:0.5").skew == 0.5);
    CHECK(parse_routing_spec("skewed:2").skew == 2.0);
    const RoutingSpec file = parse_routing_spec("file:/tmp/a b.txt");
    CHECK(file.kind == RoutingSpec::Kind::file);
    CHECK(file.path == "/tmp/a b.txt");
    for (const char* text : {"random", "balanced", "skewed:1.2", "skewed:0.25", "file:x.csv"})
        CHECK(to_string(parse_routing_spec(text)) == text);
    for (const char* bad : {"", "zipf", "skewed:", "skewed:abc", "skewed:1.5x", "skewed:-1", "file:", "Random"}) {
        INFO("value '" << bad << "'");
        CHECK_THROWS_AS(parse_routing_spec(bad), InputError);
        CHECK(message_of([&] { parse_routing_spec(bad); }).find("'" + std::string(bad) + "'") != std::string::npos);
    }
}

TEST_CASE("random routing: softmax top-k, renormalised, slot 0 the strongest", "[data][routing]") {
    const int tokens = 500, experts = 32, topk = 6;
    const Routing r = random_routing(tokens, experts, topk, 1);
    check_common_invariants(r, tokens, experts, topk);
    for (int t = 0; t < tokens; ++t)
        for (int s = 1; s < topk; ++s) REQUIRE(r.weights[size_t(t * topk + s - 1)] >= r.weights[size_t(t * topk + s)]);
    // Scores are i.i.d., so every expert is about equally likely: expected load 93.75 each.
    for (int load : expert_loads(r, experts)) {
        CHECK(load > 50);
        CHECK(load < 140);
    }
    CHECK(random_routing(tokens, experts, topk, 1).ids == r.ids);
    CHECK(random_routing(tokens, experts, topk, 1).weights == r.weights);
    CHECK(random_routing(tokens, experts, topk, 2).ids != r.ids);
}

TEST_CASE("balanced routing: round-robin, loads within one, uniform weights", "[data][routing]") {
    for (const auto& [tokens, experts, topk] : {std::tuple{7, 5, 3}, std::tuple{33, 96, 5}, std::tuple{100, 8, 8}}) {
        const Routing r = balanced_routing(tokens, experts, topk);
        check_common_invariants(r, tokens, experts, topk);
        const std::vector<int> load = expert_loads(r, experts);
        const auto [lo, hi] = std::minmax_element(load.begin(), load.end());
        CHECK(*hi - *lo <= 1);
        CHECK(std::accumulate(load.begin(), load.end(), 0) == tokens * topk);
        CHECK(std::all_of(r.weights.begin(), r.weights.end(), [&](float w) { return w == 1.0f / float(topk); }));
        CHECK(r.ids[0] == 0);
        CHECK(r.ids[1] == 1 % experts);
    }
}

TEST_CASE("skewed routing: popularity falls with rank, s = 0 is flat", "[data][routing]") {
    const int tokens = 2000, experts = 64, topk = 4;
    const Routing skewed = skewed_routing(tokens, experts, topk, 1.2, 3);
    check_common_invariants(skewed, tokens, experts, topk);
    std::vector<int> load = expert_loads(skewed, experts);
    std::sort(load.rbegin(), load.rend());
    // Zipf(1.2) over 64 experts with 4 picks: the hottest expert is in most tokens, the coldest in few.
    CHECK(load.front() > tokens / 2);
    CHECK(load.back() < tokens / 20);
    CHECK(load[0] > load[8]);
    CHECK(load[8] > load[40]);
    // The hot experts are not simply ids 0, 1, 2...: the popularity order is seeded.
    std::set<long> hottest;
    for (uint64_t seed = 3; seed < 11; ++seed) {
        const std::vector<int> by_id = expert_loads(skewed_routing(200, experts, topk, 1.2, seed), experts);
        hottest.insert(std::max_element(by_id.begin(), by_id.end()) - by_id.begin());
    }
    CHECK(hottest.size() > 1);

    const Routing flat = skewed_routing(tokens, experts, topk, 0.0, 3);
    check_common_invariants(flat, tokens, experts, topk);
    for (int l : expert_loads(flat, experts)) {
        CHECK(l > 80);  // expected 125
        CHECK(l < 170);
    }
    CHECK(skewed_routing(tokens, experts, topk, 1.2, 3).ids == skewed.ids);
}

TEST_CASE("make_routing dispatches on the spec and is deterministic", "[data][routing]") {
    const MoeShape shape{.tokens = 33, .model_dim = 64, .inter_dim = 32, .experts = 16, .topk = 5};
    CHECK(make_routing(parse_routing_spec("balanced"), shape, 1).ids == balanced_routing(33, 16, 5).ids);
    CHECK(make_routing(parse_routing_spec("random"), shape, 8).ids == random_routing(33, 16, 5, 8).ids);
    CHECK(make_routing(parse_routing_spec("skewed:2"), shape, 8).ids == skewed_routing(33, 16, 5, 2.0, 8).ids);
    MoeShape too_many = shape;
    too_many.topk = 17;
    CHECK_THROWS_AS(make_routing(parse_routing_spec("random"), too_many, 1), std::invalid_argument);
}

TEST_CASE("validation names the token and the problem", "[data][routing]") {
    Routing r = balanced_routing(4, 8, 3);  // tokens: {0,1,2} {3,4,5} {6,7,0} {1,2,3}
    r.ids[7] = 8;
    CHECK(message_of([&] { validate_routing(r, 8, 3, "gen"); }) == "gen: token 2: expert id 8 out of range [0, 8)");
    r.ids[7] = -1;
    CHECK(message_of([&] { validate_routing(r, 8, 3, "gen"); }) == "gen: token 2: expert id -1 out of range [0, 8)");
    r.ids[7] = 7;
    r.ids[11] = 1;
    CHECK(message_of([&] { validate_routing(r, 8, 3, "gen"); }) ==
          "gen: token 3: expert 1 appears twice (slots 0 and 2)");
    r.ids[11] = 3;
    r.weights[4] = NAN;
    CHECK(message_of([&] { validate_routing(r, 8, 3, "gen"); }) == "gen: token 1: weight of slot 1 is not finite");
    r.weights[4] = 0.5f;
    CHECK_NOTHROW(validate_routing(r, 8, 3, "gen"));
    CHECK(message_of([&] { validate_routing(r, 8, 4, "gen"); }) == "gen: topk is 3, expected 4");
    const std::vector<int32_t> ids = {1, 2};
    const std::vector<float> weights = {0.5f, 0.5f};
    CHECK(routing_row_problem(ids, weights, 8, 3) == "expected topk=3 expert ids, found 2");
}
