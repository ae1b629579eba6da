// The verdict rules of one validating run (measure/output_judge.h), on small hand-made outputs.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "measure/failure.h"
#include "measure/output_judge.h"
#include "support/catch.hpp"
#include "support/test_env.h"

using moetune::data::ErrorMetric;
using moetune::measure::failure_kind;
using moetune::measure::judge_output;
using moetune::test::contains;

namespace {

// 4 rows of 8: row r, column c = (r + 1) * (c - 3.5) / 8, no zero row.
std::vector<float> reference() {
    std::vector<float> v;
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 8; ++c) v.push_back(float((r + 1) * (c - 3.5) / 8));
    return v;
}


}  // namespace

TEST_CASE("an output equal to the reference passes with err 0", "[measure][judge]") {
    const std::vector<float> ref = reference();
    for (ErrorMetric m : {ErrorMetric::cosine, ErrorMetric::row_cosine, ErrorMetric::mismatch}) {
        const auto j = judge_output(ref, ref, 8, m, 0.1, false);
        CHECK(j.ok);
        CHECK(j.failure.empty());
        CHECK(j.err == 0.0);
    }
}

TEST_CASE("one unwritten (NaN-filled) element fails as nan and says where", "[measure][judge]") {
    const std::vector<float> ref = reference();
    std::vector<float> out = ref;
    out[2 * 8 + 5] = std::numeric_limits<float>::quiet_NaN();
    out[3 * 8 + 1] = std::numeric_limits<float>::infinity();
    const auto j = judge_output(ref, out, 8, ErrorMetric::cosine, 0.1, false);
    CHECK_FALSE(j.ok);
    CHECK(failure_kind(j.failure) == "nan");
    CHECK(contains(j.failure, "2 of 32 output values"));
    CHECK(contains(j.failure, "row 2, column 5"));
    CHECK(j.err == 1.0);  // the metrics' value for a non-finite output
}

TEST_CASE("a finite output over the gate fails as wrong with metric, value and gate", "[measure][judge]") {
    const std::vector<float> ref = reference();
    std::vector<float> out = ref;
    for (int c = 0; c < 8; ++c) out[1 * 8 + c] = -out[1 * 8 + c];  // one row negated
    const auto whole = judge_output(ref, out, 8, ErrorMetric::cosine, 0.1, false);
    CHECK_FALSE(whole.ok);
    CHECK(failure_kind(whole.failure) == "wrong");
    CHECK(contains(whole.failure, "cosine "));
    CHECK(contains(whole.failure, " > 0.1"));
    CHECK(whole.err > 0.1);
    // The worst row is negated outright: row-cosine 2.
    const auto rows = judge_output(ref, out, 8, ErrorMetric::row_cosine, 0.1, false);
    CHECK(failure_kind(rows.failure) == "wrong");
    CHECK(rows.err == Approx(2.0));
    // A looser gate lets the whole-tensor cosine through.
    CHECK(judge_output(ref, out, 8, ErrorMetric::cosine, 0.5, false).ok);
}

TEST_CASE("atomic outputs: a row left at zero fails even when the metric would pass", "[measure][judge]") {
    std::vector<float> ref(64 * 8, 1.0f);
    std::vector<float> out = ref;
    for (int c = 0; c < 8; ++c) out[40 * 8 + c] = 0.0f;  // token 40 never accumulated
    // 1 row of 64 missing: whole-tensor cosine ~0.008, under the gate.
    CHECK(judge_output(ref, out, 8, ErrorMetric::cosine, 0.1, false).ok);
    const auto j = judge_output(ref, out, 8, ErrorMetric::cosine, 0.1, true);
    CHECK_FALSE(j.ok);
    CHECK(failure_kind(j.failure) == "wrong");
    CHECK(contains(j.failure, "1 output rows left at zero (first: row 40)"));
    // A zero reference row may stay zero (a token whose routing weights are all zero).
    for (int c = 0; c < 8; ++c) ref[40 * 8 + c] = 0.0f;
    CHECK(judge_output(ref, out, 8, ErrorMetric::cosine, 0.1, true).ok);
}

TEST_CASE("mismatched sizes are a harness bug, not a verdict", "[measure][judge]") {
    const std::vector<float> ref = reference();
    const std::vector<float> shorter(ref.begin(), ref.end() - 8);
    CHECK_THROWS_AS(judge_output(ref, shorter, 8, ErrorMetric::cosine, 0.1, false), std::invalid_argument);
    CHECK_THROWS_AS(judge_output(ref, ref, 5, ErrorMetric::cosine, 0.1, false), std::invalid_argument);
}

TEST_CASE("outputs of many slices: counts, first positions and metrics as one pass would give them", "[measure][judge]") {
    // 3.5 slices of common/parallel_for.h (2^20 values each), rows of 1000 that straddle slice ends.
    const std::size_t row = 1000, rows = 3670;
    std::vector<float> ref(row * rows);
    for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = float(std::sin(0.001 * double(i)) + 0.25);

    std::vector<float> out = ref;
    const auto clean = judge_output(ref, out, row, ErrorMetric::cosine, 1e-6, false);
    CHECK(clean.ok);
    CHECK(std::fabs(clean.err) < 1e-12);

    // Non-finite values in the second and fourth slices: the count is over all, the first is the earliest.
    out[(std::size_t(1) << 20) + 7] = std::numeric_limits<float>::quiet_NaN();
    out[3 * (std::size_t(1) << 20) + 11] = std::numeric_limits<float>::infinity();
    const auto nan = judge_output(ref, out, row, ErrorMetric::cosine, 0.1, false);
    CHECK(failure_kind(nan.failure) == "nan");
    CHECK(contains(nan.failure, "2 of 3670000 output values"));
    const std::size_t first = (std::size_t(1) << 20) + 7;
    CHECK(contains(nan.failure, "row " + std::to_string(first / row) + ", column " + std::to_string(first % row)));

    // Zero rows in several slices (stage-2 atomic): all counted, the first named.
    out = ref;
    for (std::size_t r : {std::size_t(3000), std::size_t(1200), std::size_t(1048)})
        std::fill(out.begin() + std::ptrdiff_t(r * row), out.begin() + std::ptrdiff_t((r + 1) * row), 0.0f);
    const auto zero = judge_output(ref, out, row, ErrorMetric::row_cosine, 0.1, true);
    CHECK(failure_kind(zero.failure) == "wrong");
    CHECK(contains(zero.failure, "3 output rows left at zero (first: row 1048)"));
}
