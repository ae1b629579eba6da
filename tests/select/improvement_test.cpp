// The improvement threshold that guards existing rows during --retune.
#include <limits>

#include "select/improvement.h"
#include "support/catch.hpp"

using moetune::select::kDefaultMinImprovementPct;
using moetune::select::replaces_existing;

TEST_CASE("improvement: a new time replaces a row only when it is faster by the margin") {
    CHECK(replaces_existing(96.9, 100.0, 3.0));
    CHECK_FALSE(replaces_existing(97.0, 100.0, 3.0));  // exactly 3% is not more than 3% faster: strict
    CHECK_FALSE(replaces_existing(99.0, 100.0, 3.0));
    CHECK_FALSE(replaces_existing(120.0, 100.0, 3.0));
    CHECK(replaces_existing(99.0, 100.0, 0.0));         // no margin: any gain replaces
    CHECK_FALSE(replaces_existing(100.0, 100.0, 0.0));  // ... but an equal time does not
    CHECK(kDefaultMinImprovementPct == 3.0);
}

TEST_CASE("improvement: a row without a usable time is always replaced") {
    CHECK(replaces_existing(500.0, std::nullopt, 3.0));
    CHECK(replaces_existing(500.0, 0.0, 3.0));
    CHECK(replaces_existing(500.0, -1.0, 3.0));
    CHECK(replaces_existing(500.0, std::numeric_limits<double>::quiet_NaN(), 3.0));
    CHECK(replaces_existing(500.0, std::numeric_limits<double>::infinity(), 3.0));
}
