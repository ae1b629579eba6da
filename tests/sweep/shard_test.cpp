// --shard i/n: parsing, and that the shards of a plan partition it the same way on every host.
#include <set>

#include "support/catch.hpp"
#include "sweep/shard.h"
#include "sweep_fakes.h"

using namespace moetune::sweep;

TEST_CASE("shard: i/n parses, anything else says what is wrong") {
    CHECK(parse_shard("0/1").index == 0);
    CHECK(parse_shard("3/4").index == 3);
    CHECK(parse_shard("3/4").count == 4);
    const auto message = [](const char* text) {
        try {
            parse_shard(text);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(message("4/4") == "'4/4': the shard index i must be 0..3 (0-based, as Slurm's --array=0-3)");
    CHECK(message("1/0") == "'1/0': the shard count n must be at least 1");
    CHECK(message("-1/4").find("0..3") != std::string::npos);
    CHECK(message("2") == "'2' is not of the form i/n (e.g. 0/4)");
    CHECK(message("a/4") == "'a/4' is not of the form i/n with whole numbers i and n");
    CHECK(message("1/4x") == "'1/4x' is not of the form i/n with whole numbers i and n");
    CHECK(message("/4") == "'/4' is not of the form i/n with whole numbers i and n");
}

TEST_CASE("shard: the shards of a plan are disjoint, cover it, and are round robin") {
    const std::vector<PlanEntry> plan = moetune::test::reference_plan({});
    REQUIRE(plan.size() == 15);
    for (int n : {1, 2, 4, 7, 15, 20}) {
        std::multiset<std::string> keys;
        for (int i = 0; i < n; ++i) {
            const std::vector<PlanEntry> part = shard_of(plan, Shard{i, n});
            CHECK(part.size() == (plan.size() + static_cast<std::size_t>(n - 1 - i)) / static_cast<std::size_t>(n));
            for (std::size_t k = 0; k < part.size(); ++k) {
                CHECK(part[k].key == plan[static_cast<std::size_t>(i) + k * static_cast<std::size_t>(n)].key);
                keys.insert(part[k].key);
            }
        }
        CHECK(keys.size() == plan.size());
        for (const PlanEntry& e : plan) CHECK(keys.count(e.key) == 1);
    }
}

TEST_CASE("shard: a host computes the same shard from the same file") {
    // What a shard holds depends on the file alone (its plan's order), pinned here: round robin
    // spreads the large buckets, shard 1/4 holds tokens 2, 32, 512, 8192.
    const auto part_a = shard_of(moetune::test::reference_plan({}), Shard{1, 4});
    std::vector<long long> tokens;
    for (const PlanEntry& e : part_a) tokens.push_back(e.shape.token);
    CHECK(tokens == std::vector<long long>{2, 32, 512, 8192});
}
