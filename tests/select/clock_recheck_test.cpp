// Clock recheck: which candidates the sweep times again because their timings met different SM clocks.
#include <vector>

#include "select/clock_recheck.h"
#include "support/catch.hpp"

using moetune::select::CandidateResult;
using moetune::select::clock_recheck;

namespace {

// A passing candidate of stage 1, block_m 32, kind 0, timed between clock readings `before` and `after`.
CandidateResult at(double us, double before, double after, int block_m = 32, int kind = 0) {
    return {"k", 1, block_m, true, us, 0.0, kind, before, after};
}

}  // namespace

TEST_CASE("clock recheck: none where every timing met one clock") {
    const std::vector<CandidateResult> r = {at(100, 1980, 1980), at(100.5, 1981, 1979), at(101, 1980, 1985)};
    CHECK(clock_recheck(r, 0.1).empty());  // 1985 / 1979: 0.3 %, within one clock
}

TEST_CASE("clock recheck: the candidates within the clocks' ratio of the fastest, when the clocks differ") {
    const std::vector<CandidateResult> r = {
        at(100, 2100, 2100),  // 0: the fastest, at the highest clock
        at(103, 1980, 1980),  // 1: within 2100 / 1980 = 1.0606 of it: the clocks could reverse the order
        at(105, 1980, 2010),  // 2: within
        at(107, 2100, 2100),  // 3: outside 1.0606
    };
    CHECK(clock_recheck(r, 0.1) == std::vector<std::size_t>{0, 1, 2});
}

TEST_CASE("clock recheck: a clock that moved during one timing counts") {
    // Both readings of the candidate before agree with the fastest's, the after of its own timing does not.
    const std::vector<CandidateResult> r = {at(100, 2000, 2000), at(101, 2000, 2040)};
    CHECK(clock_recheck(r, 0.1) == std::vector<std::size_t>{0, 1});
}

TEST_CASE("clock recheck: failed and over-err-ratio candidates are neither rechecked nor set the clocks") {
    std::vector<CandidateResult> r = {at(100, 2000, 2000), at(101, 2000, 2000), at(90, 1800, 1800),
                                      at(95, 1700, 1700)};
    r[2].ok = false;  // failed
    r[3].err = 0.5;   // over the ratio
    CHECK(clock_recheck(r, 0.1).empty());
}

TEST_CASE("clock recheck: each stage, block_m and kind on its own; a lone contender is not timed again") {
    const std::vector<CandidateResult> r = {
        at(100, 2100, 2100, 32), at(102, 1980, 1980, 32),  // 0, 1: block_m 32, clocks differ
        at(100, 2100, 2100, 64), at(120, 1980, 1980, 64),  // 2, 3: block_m 64: 3 is outside, 2 alone
        at(50, 2000, 2000, 32, 1), at(51, 2000, 2000, 32, 1),  // 4, 5: kind 1, one clock
    };
    CHECK(clock_recheck(r, 0.1) == std::vector<std::size_t>{0, 1});
}

TEST_CASE("clock recheck: no readings (a GPU whose clock the probe cannot read) give nothing") {
    const std::vector<CandidateResult> r = {at(100, 0, 0), at(100.1, 0, 0), at(100.2, 2000, 0)};
    CHECK(clock_recheck(r, 0.1).empty());
}
