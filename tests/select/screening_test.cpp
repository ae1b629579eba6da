// Screening: which candidates are timed in full after the brief first pass.
#include <stdexcept>
#include <vector>

#include "select/screening.h"
#include "support/catch.hpp"

using moetune::select::CandidateResult;
using moetune::select::screening_finalists;

namespace {

CandidateResult ok(int stage, int block_m, double us, double err = 0.0) { return {"k", stage, block_m, true, us, err}; }

}  // namespace

TEST_CASE("screening: finalists are within the margin of the fastest of their stage and block_m") {
    const std::vector<CandidateResult> r = {
        ok(1, 32, 100),  // 0: fastest stage 1, bm 32
        ok(1, 32, 124),  // 1: within 1.25x
        ok(1, 32, 126),  // 2: outside
        ok(2, 32, 10),   // 3: fastest stage 2, bm 32 -- its own reference, not stage 1's
        ok(2, 32, 12),   // 4
        ok(1, 64, 300),  // 5: slow overall, but the fastest stage 1 of bm 64: kept, it may still pair best
        ok(1, 64, 400),  // 6: outside
    };
    CHECK(screening_finalists(r, 0.1, 1.25) == std::vector<std::size_t>{0, 1, 3, 4, 5});
    CHECK(screening_finalists(r, 0.1, 1.0) == std::vector<std::size_t>{0, 3, 5});
}

TEST_CASE("screening: failed and over-err-ratio candidates neither qualify nor set the reference") {
    const std::vector<CandidateResult> r = {
        {"broken", 1, 32, false, 1, 0},  // fast but failed
        ok(1, 32, 50, 0.5),              // fast but over the error ratio
        ok(1, 32, 100),
        ok(1, 32, 110),
    };
    CHECK(screening_finalists(r, 0.1, 1.2) == std::vector<std::size_t>{2, 3});
    CHECK_THROWS_AS(screening_finalists(r, 0.1, 0.9), std::invalid_argument);
}

TEST_CASE("screening: each kind of a stage and block_m has its own reference") {
    // The winner rule keeps the fastest of each kind (what a stage 1 writes, what a stage 2 reads):
    // a slower kind may still win through a cheaper handoff, so its best is a finalist too.
    const std::vector<CandidateResult> r = {
        {"a", 1, 32, true, 100, 0, /*kind=*/1},
        {"b", 1, 32, true, 140, 0, /*kind=*/0},  // outside kind 1's margin, kind 0's fastest
        {"c", 1, 32, true, 190, 0, /*kind=*/0},  // outside kind 0's margin
    };
    CHECK(screening_finalists(r, 0.1, 1.25) == std::vector<std::size_t>{0, 1});
}
