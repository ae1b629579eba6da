// The winner rule: gating, fastest per (stage, block_m, kind), pairing on block_m with what runs between
// the stages, the sum, and every tie.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>

#include "select/winner.h"
#include "support/catch.hpp"

using moetune::select::CandidateResult;
using moetune::select::measured;
using moetune::select::passes;
using moetune::select::select_winner;
using moetune::select::Selection;

namespace {

CandidateResult ok(const std::string& name, int stage, int block_m, double us, double err = 0.0) {
    return {name, stage, block_m, true, us, err};
}

CandidateResult failed(const std::string& name, int stage, int block_m) { return {name, stage, block_m, false, 0, 0}; }

}  // namespace

TEST_CASE("select: the pair with the smallest us1 + us2 wins, not the fastest single stage") {
    // block_m 32 has the fastest stage 1, block_m 64 the smaller sum.
    const Selection s = select_winner({ok("s1_bm32", 1, 32, 10), ok("s2_bm32", 2, 32, 30), ok("s1_bm64", 1, 64, 12),
                                       ok("s2_bm64", 2, 64, 20)},
                                      0.1);
    REQUIRE(s.winner);
    CHECK(s.winner->block_m == 64);
    CHECK(s.winner->stage1.kernel_name == "s1_bm64");
    CHECK(s.winner->stage2.kernel_name == "s2_bm64");
    CHECK(s.winner->us() == 32.0);
    REQUIRE(s.runner_up);
    CHECK(s.runner_up->block_m == 32);
    CHECK(s.runner_up->us() == 40.0);
}

TEST_CASE("select: stages pair only on the same block_m") {
    // The fastest stage 2 is at block_m 16, where no stage 1 passes: it cannot be used.
    const Selection s = select_winner(
        {ok("s1_bm32", 1, 32, 10), ok("s2_bm16", 2, 16, 1), ok("s2_bm32", 2, 32, 50), failed("s1_bm16", 1, 16)}, 0.1);
    REQUIRE(s.winner);
    CHECK(s.winner->block_m == 32);
    CHECK(s.winner->stage2.kernel_name == "s2_bm32");
    CHECK_FALSE(s.runner_up);
    CHECK(s.unpaired_block_m == std::vector<int>{16});
}

TEST_CASE("select: per block_m the fastest passing kernel of each stage is kept") {
    const Selection s = select_winner({ok("a", 1, 32, 11), ok("b", 1, 32, 9), ok("c", 1, 32, 10), ok("x", 2, 32, 7),
                                       ok("y", 2, 32, 5)},
                                      0.1);
    REQUIRE(s.winner);
    CHECK(s.winner->stage1.kernel_name == "b");
    CHECK(s.winner->stage2.kernel_name == "y");
    CHECK(s.winner->us() == 14.0);
}

TEST_CASE("select: failed, over-ratio and unusable times are dropped") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<CandidateResult> results = {
        ok("fast_but_wrong", 1, 32, 1, 0.2),  // err 20% > 10%
        ok("nan_err", 1, 32, 2, nan),         // a metric that could not be computed never passes
        ok("zero_time", 1, 32, 0),            // AITER retries us == 0; a zero is not a time
        ok("negative_time", 1, 32, -1),       // AITER's marker of an exception
        ok("inf_time", 1, 32, inf),           // AITER's marker of a timeout
        failed("crashed", 1, 32),
        ok("at_the_ratio", 1, 32, 9, 0.1),    // err == err_ratio passes (AITER drops err > errRatio)
        ok("slow_good", 1, 32, 10, 0.0),
        ok("s2", 2, 32, 5)};
    const Selection s = select_winner(results, 0.1);
    REQUIRE(s.winner);
    CHECK(s.winner->stage1.kernel_name == "at_the_ratio");
    CHECK(s.winner->stage1.err == 0.1);
    CHECK_FALSE(passes(results[0], 0.1));
    CHECK(passes(results[0], 0.25));
    CHECK(measured(results[0]));
    CHECK(measured(results[1]));  // a NaN err: it ran and was timed, the gate rejects it
    for (std::size_t i : {2, 3, 4, 5}) CHECK_FALSE(measured(results[i]));
}

TEST_CASE("select: no passing pair gives no winner") {
    CHECK_FALSE(select_winner({}, 0.1).winner);
    CHECK_FALSE(select_winner({ok("s1", 1, 32, 10)}, 0.1).winner);
    const Selection s = select_winner({ok("s1", 1, 32, 10, 0.5), ok("s2", 2, 32, 10, 0.5)}, 0.1);
    CHECK_FALSE(s.winner);
    CHECK_FALSE(s.runner_up);
}

TEST_CASE("select: equal stage times go to the smallest kernel name, in any input order") {
    std::vector<CandidateResult> results = {ok("k_c", 1, 32, 10), ok("k_a", 1, 32, 10), ok("k_b", 1, 32, 10),
                                            ok("m_b", 2, 32, 4),  ok("m_a", 2, 32, 4)};
    std::mt19937 rng(7);
    for (int round = 0; round < 20; ++round) {
        std::shuffle(results.begin(), results.end(), rng);
        const Selection s = select_winner(results, 0.1);
        REQUIRE(s.winner);
        CHECK(s.winner->stage1.kernel_name == "k_a");
        CHECK(s.winner->stage2.kernel_name == "m_a");
    }
}

TEST_CASE("select: equal sums go to the smaller block_m, in any input order") {
    std::vector<CandidateResult> results = {ok("s1_128", 1, 128, 5), ok("s2_128", 2, 128, 5), ok("s1_64", 1, 64, 6),
                                            ok("s2_64", 2, 64, 4),   ok("s1_16", 1, 16, 8),   ok("s2_16", 2, 16, 2)};
    std::mt19937 rng(11);
    for (int round = 0; round < 20; ++round) {
        std::shuffle(results.begin(), results.end(), rng);
        const Selection s = select_winner(results, 0.1);
        REQUIRE(s.winner);
        CHECK(s.winner->block_m == 16);
        REQUIRE(s.runner_up);
        CHECK(s.runner_up->block_m == 64);
    }
}

TEST_CASE("select: a result of an unknown stage is never picked") {
    const Selection s = select_winner({ok("s1", 1, 32, 10), ok("s2", 2, 32, 10), ok("s3", 3, 32, 1)}, 0.1);
    REQUIRE(s.winner);
    CHECK(s.winner->stage1.kernel_name == "s1");
    CHECK(s.winner->stage2.kernel_name == "s2");
}

namespace {

CandidateResult of_kind(const std::string& name, int stage, int block_m, double us, int kind) {
    return {name, stage, block_m, true, us, 0.0, kind};
}

// Output kinds 0 and 1, input kinds 0 and 1: 0 -> anything and 1 -> 0 run as they are, 1 -> 1
// runs a 7 us pass between the stages; output 2 cannot feed input 1.
std::optional<double> test_cost(int output, int input) {
    if (output == 2 && input == 1) return std::nullopt;
    return output == 1 && input == 1 ? 7.0 : 0.0;
}

}  // namespace

TEST_CASE("select: a pair is charged what runs between its stages, counted in us1") {
    const std::vector<CandidateResult> r = {of_kind("s1_fused", 1, 32, 10, 1), of_kind("s1_bf16", 1, 32, 14, 0),
                                            of_kind("s2_rebased", 2, 32, 20, 1), of_kind("s2_plain", 2, 32, 24, 0)};
    // Without charges the fastest of each stage pair up: 10 + 20.
    const Selection free = select_winner(r, 0.1);
    REQUIRE(free.winner);
    CHECK(free.winner->stage1.kernel_name == "s1_fused");
    CHECK(free.winner->stage2.kernel_name == "s2_rebased");
    CHECK(free.winner->us() == 30);
    // Charged: 10 + 7 + 20 = 37 loses to 14 + 20 = 34 and to 10 + 24 = 34; of those equal sums the
    // one with the smaller stage-1 name wins (s1_bf16 < s1_fused).
    const Selection s = select_winner(r, 0.1, test_cost);
    REQUIRE(s.winner);
    CHECK(s.winner->stage1.kernel_name == "s1_bf16");
    CHECK(s.winner->stage2.kernel_name == "s2_rebased");
    CHECK(s.winner->handoff_us == 0);
    CHECK(s.winner->us() == 34);
    // When the pass still pays, it is in the pair's us1 and us.
    const Selection paid = select_winner({of_kind("s1_fused", 1, 32, 10, 1), of_kind("s1_bf16", 1, 32, 30, 0),
                                          of_kind("s2_rebased", 2, 32, 20, 1), of_kind("s2_plain", 2, 32, 40, 0)},
                                         0.1, test_cost);
    REQUIRE(paid.winner);
    CHECK(paid.winner->stage1.kernel_name == "s1_fused");
    CHECK(paid.winner->handoff_us == 7);
    CHECK(paid.winner->us1() == 17);
    CHECK(paid.winner->us() == 37);
}

TEST_CASE("select: pairs the library cannot hand over are left out, and a block_m of only those is unpaired") {
    const Selection s = select_winner({of_kind("s1_bm32", 1, 32, 10, 2), of_kind("s2_bm32", 2, 32, 10, 1),
                                       of_kind("s1_bm64", 1, 64, 30, 2), of_kind("s2_bm64_a", 2, 64, 5, 1),
                                       of_kind("s2_bm64_b", 2, 64, 20, 0)},
                                      0.1, test_cost);
    REQUIRE(s.winner);
    CHECK(s.winner->block_m == 64);
    CHECK(s.winner->stage2.kernel_name == "s2_bm64_b");  // not the faster s2_bm64_a, which it cannot feed
    CHECK(s.winner->us() == 50);
    CHECK_FALSE(s.runner_up);
    CHECK(s.unpaired_block_m == std::vector<int>{32});
}
