// The host-side arithmetic of timing: median and spread of replays, and the cold-L2 copy count.
#include <vector>

#include "measure/candidate_launch.h"
#include "measure/graph_timing.h"
#include "support/catch.hpp"

using namespace moetune::measure;

TEST_CASE("per-launch time is the median replay divided by the launches in the graph", "[measure][timing]") {
    // Odd count: the middle value; the outlier 9.0 moves neither the median nor ...
    TimingStats s = summarize_replays({2.0f, 9.0f, 2.2f, 1.8f, 2.1f}, 20);
    CHECK(s.us_per_launch == Approx(2.1 * 1000 / 20));
    // ... but shows in the spread: (9.0 - 1.8) / 2.1.
    CHECK(s.spread_pct == Approx((9.0 - 1.8) / 2.1 * 100).epsilon(1e-6));
    // Even count: the mean of the two middle values.
    s = summarize_replays({4.0f, 1.0f, 3.0f, 2.0f}, 1);
    CHECK(s.us_per_launch == Approx(2500.0));
    CHECK(s.spread_pct == Approx(3.0 / 2.5 * 100));
    // One replay: no spread.
    s = summarize_replays({0.5f}, 10);
    CHECK(s.us_per_launch == Approx(50.0));
    CHECK(s.spread_pct == 0.0);
}

TEST_CASE("summarize_replays refuses nothing to summarise", "[measure][timing]") {
    CHECK_THROWS_AS(summarize_replays({}, 20), std::invalid_argument);
    CHECK_THROWS_AS(summarize_replays({1.0f}, 0), std::invalid_argument);
}

TEST_CASE("cold-L2 rotation uses enough copies to exceed the L2, at most one per launch", "[measure][timing]") {
    constexpr std::size_t l2 = 50u << 20;  // H200: 50 MiB
    // 1 MiB per copy: 51 copies exceed the L2, but a graph of 20 launches can rotate over 20 only.
    CHECK(cold_l2_copies(1u << 20, l2, 20) == 20);
    CHECK(cold_l2_copies(1u << 20, l2, 100) == 51);
    // 30 MiB: two copies exceed it.
    CHECK(cold_l2_copies(30u << 20, l2, 20) == 2);
    // A copy larger than the L2 evicts itself: one is enough.
    CHECK(cold_l2_copies(200u << 20, l2, 20) == 1);
    // Degenerate inputs still give a usable count.
    CHECK(cold_l2_copies(0, l2, 20) == 20);
    CHECK(cold_l2_copies(1u << 20, l2, 0) == 1);
}

TEST_CASE("launches per graph adapt so one replay lasts about replay_ms", "[measure][timing]") {
    TimingOptions o;
    o.launches_per_graph = 20;
    o.replay_ms = 2.0;
    CHECK(adapted_launches_per_graph(0.010, o) == 20);  // 10 us kernel: capped at 20 launches
    CHECK(adapted_launches_per_graph(0.150, o) == 13);  // 13 x 150 us fits 2 ms, 14 does not
    CHECK(adapted_launches_per_graph(0.5, o) == 4);
    CHECK(adapted_launches_per_graph(5.0, o) == 1);     // longer than the budget: alone, never 0
    CHECK(adapted_launches_per_graph(0.0, o) == 20);    // no reading: the fixed count
    o.replay_ms = 0;
    CHECK(adapted_launches_per_graph(5.0, o) == 20);    // adaptation off
}

TEST_CASE("launches per graph take each timed routing equally often", "[measure][timing]") {
    TimingOptions o;
    o.launches_per_graph = 20;
    o.replay_ms = 2.0;
    o.routings = 8;
    CHECK(adapted_launches_per_graph(0.010, o) == 16);  // 20 fit: two of each of the 8
    CHECK(adapted_launches_per_graph(0.150, o) == 8);   // 13 fit: one of each
    CHECK(adapted_launches_per_graph(0.5, o) == 4);     // fewer than the routings: the first 4, once each
    CHECK(adapted_launches_per_graph(5.0, o) == 1);
    o.routings = 5;
    CHECK(adapted_launches_per_graph(0.010, o) == 20);  // already a multiple
    o.replay_ms = 0;
    o.routings = 3;
    CHECK(adapted_launches_per_graph(5.0, o) == 18);    // adaptation off: the fixed count, rounded down alike
}
