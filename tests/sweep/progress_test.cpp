// The progress line's text and its ETA.
#include "support/catch.hpp"
#include "sweep/progress.h"

using namespace moetune::sweep;

TEST_CASE("progress: durations read like a clock") {
    CHECK(format_duration(0) == "0s");
    CHECK(format_duration(42.4) == "42s");
    CHECK(format_duration(187) == "3m07s");
    CHECK(format_duration(3900) == "1h05m");
    CHECK(format_duration(-5) == "0s");
}

TEST_CASE("progress: the ETA is the time per unit of work so far times the work left") {
    CHECK_FALSE(estimate_eta(0, 100, 10.0));
    CHECK(*estimate_eta(10, 100, 5.0) == Approx(45.0));
    CHECK(*estimate_eta(100, 100, 50.0) == 0.0);
}

TEST_CASE("progress: a candidate's work grows with its bucket, as the H200 sweep's did") {
    CHECK(candidate_work(1) == Approx(1.0).epsilon(0.01));
    CHECK(candidate_work(64) == Approx(1.25));
    // The 2-GPU sweep: ~12 ms per candidate at small M, ~0.85 s at 16384 (70x).
    CHECK(candidate_work(16384) / candidate_work(1) == Approx(65).epsilon(0.05));
    // 100 small candidates done in 1.2 s; 46 left at 16384 tokens: about 46 x 0.78 s, not 46 x 12 ms.
    const double done = 100 * candidate_work(1);
    const double total = done + 46 * candidate_work(16384);
    CHECK(*estimate_eta(done, total, 1.2) == Approx(46 * 0.012 * candidate_work(16384)).epsilon(0.01));
}

TEST_CASE("progress: bar, counts, label and ETA on one line") {
    CHECK(format_progress(0, 400, "5120x2304 E96 top5, token 1", std::nullopt) ==
          "[>                   ] 0/400 candidates  5120x2304 E96 top5, token 1  ETA ?");
    CHECK(format_progress(200, 400, "x", 65.0) == "[==========>         ] 200/400 candidates  x  ETA 1m05s");
    CHECK(format_progress(400, 400, "x", 0.0) == "[====================] 400/400 candidates  x  ETA 0s");
    CHECK(format_progress(0, 0, "x", std::nullopt) == "[====================] 0/0 candidates  x  ETA ?");
}
