// Error metrics: AITER's mismatch fraction and cosine difference, the per-row cosine that catches
// localised corruption (AITER #5032), NaN handling, and the err column format.
#include <cmath>
#include <random>
#include <vector>

#include "common/input_error.h"
#include "data/error_metrics.h"
#include "support/catch.hpp"

using namespace moetune::data;

TEST_CASE("mismatch fraction follows isclose(ref, out, rtol=atol=0.01)", "[data][metrics]") {
    std::vector<float> ref(100, 2.0f), out(100, 2.0f);
    CHECK(mismatch_fraction(ref, out) == 0.0);
    for (int i = 0; i < 7; ++i) out[size_t(i)] = 2.04f;  // |d| 0.04 > 0.01 + 0.01*2.04
    CHECK(mismatch_fraction(ref, out) == Approx(0.07));
    // Tolerance is relative to the output (torch.isclose's `other`): 0.01 + 0.01*|out|.
    std::vector<float> r1 = {1.0f}, o1 = {1.0195f};  // 0.0195 <= 0.0201950
    CHECK(mismatch_fraction(r1, o1) == 0.0);
    o1[0] = 1.021f;  // 0.021 > 0.02021
    CHECK(mismatch_fraction(r1, o1) == 1.0);
}

TEST_CASE("one catastrophic element makes the mismatch 100%", "[data][metrics]") {
    std::vector<float> ref(1000, 0.5f), out(1000, 0.5f);
    out[17] = 1.6f;  // |d| 1.1 > 0.5 * max(0.5, 1)
    CHECK(mismatch_fraction(ref, out) == 1.0);
    out[17] = 0.99f;  // |d| 0.49: a plain mismatch
    CHECK(mismatch_fraction(ref, out) == Approx(0.001));
    ref[3] = 100.0f;
    out[3] = 140.0f;  // |d| 40 <= 0.5*100: mismatch, not catastrophic
    CHECK(mismatch_fraction(ref, out) == Approx(0.002));
}

TEST_CASE("cosine difference is 1 - 2*sum(xy)/sum(x^2+y^2)", "[data][metrics]") {
    const std::vector<float> x = {1, 2, 3, -4};
    std::vector<float> y = x;
    CHECK(cosine_difference(x, y) == 0.0);
    for (float& v : y) v *= 2;
    CHECK(cosine_difference(x, y) == Approx(1.0 - 4.0 / 5.0));  // y = 2x
    for (float& v : y) v = -v / 2;
    CHECK(cosine_difference(x, y) == Approx(2.0));  // y = -x
    CHECK(cosine_difference(x, std::vector<float>(4, 0.0f)) == 1.0);
    CHECK(cosine_difference(std::vector<float>(4, 0.0f), std::vector<float>(4, 0.0f)) == 0.0);
}

TEST_CASE("corrupted rows pass the whole-tensor cosine but fail the row metric (AITER #5032)", "[data][metrics]") {
    const int rows = 100, cols = 64;
    std::mt19937 rng(1);
    std::vector<float> ref(size_t(rows * cols));
    for (float& v : ref) v = (rng() & 1) ? 1.0f : -1.0f;  // every row has the same norm
    std::vector<float> out = ref;
    for (int r = 0; r < 90; r += 5)  // rows 0, 5, ..., 85
        for (int c = 0; c < cols; ++c) out[size_t(r * cols + c)] = 0.0f;
    // 18 distinct rows zeroed: whole-tensor cosine diff = 1 - 2*82/182 = 0.0989 < 0.1.
    size_t zero_rows = 0;
    for (int r = 0; r < rows; ++r) zero_rows += out[size_t(r * cols)] == 0.0f;
    REQUIRE(zero_rows == 18);
    CHECK(cosine_difference(ref, out) == Approx(1.0 - 164.0 / 182.0));
    const ErrorVerdict whole = evaluate_error(ErrorMetric::cosine, ref, out, cols, 0.1);
    CHECK(whole.passed);
    const ErrorVerdict per_row = evaluate_error(ErrorMetric::row_cosine, ref, out, cols, 0.1);
    CHECK(per_row.err == 1.0);
    CHECK_FALSE(per_row.passed);
    // And an intact output passes the row metric.
    CHECK(evaluate_error(ErrorMetric::row_cosine, ref, ref, cols, 0.1).passed);
}

TEST_CASE("NaN in the output fails every metric whatever the threshold", "[data][metrics]") {
    std::vector<float> ref(64, 1.0f), out(64, 1.0f);
    out[40] = NAN;
    CHECK(mismatch_fraction(ref, out) == 1.0);
    CHECK(cosine_difference(ref, out) == 1.0);
    CHECK(worst_row_cosine_difference(ref, out, 32) == 1.0);
    for (ErrorMetric m : {ErrorMetric::mismatch, ErrorMetric::cosine, ErrorMetric::row_cosine}) {
        INFO(to_string(m));
        CHECK_FALSE(evaluate_error(m, ref, out, 32, 100.0).passed);
    }
    out[40] = INFINITY;
    CHECK_FALSE(evaluate_error(ErrorMetric::cosine, ref, out, 32, 100.0).passed);
    // An all-NaN output (a kernel that wrote nothing into a NaN-filled buffer):
    const std::vector<float> unwritten(64, NAN);
    CHECK_FALSE(evaluate_error(ErrorMetric::mismatch, ref, unwritten, 32, 0.1).passed);
}

TEST_CASE("metrics reject mismatched sizes; metric names parse", "[data][metrics]") {
    CHECK_THROWS_AS(cosine_difference(std::vector<float>(3), std::vector<float>(4)), std::invalid_argument);
    CHECK_THROWS_AS(worst_row_cosine_difference(std::vector<float>(6), std::vector<float>(6), 4), std::invalid_argument);
    for (ErrorMetric m : {ErrorMetric::mismatch, ErrorMetric::cosine, ErrorMetric::row_cosine})
        CHECK(parse_error_metric(to_string(m)) == m);
    CHECK(parse_error_metric("row-cosine") == ErrorMetric::row_cosine);
    CHECK_THROWS_AS(parse_error_metric("l2"), moetune::InputError);
}

TEST_CASE("the err column is written like Python's f'{err:.1%}'", "[data][metrics]") {
    CHECK(format_err_column(0.0) == "0.0%");
    CHECK(format_err_column(0.053) == "5.3%");
    CHECK(format_err_column(0.12345) == "12.3%");
    CHECK(format_err_column(1.0) == "100.0%");
    CHECK(format_err_column(0.0005) == "0.1%");   // Python: f"{0.0005:.1%}" == '0.1%'
    CHECK(format_err_column(0.00049) == "0.0%");
    CHECK(format_err_column(0.0989) == "9.9%");
    CHECK(format_err_column(NAN) == "nan%");
}

TEST_CASE("max abs and relative L2 difference between two outputs", "[data][metrics]") {
    const std::vector<float> ref{3.0f, -4.0f, 0.0f};
    const std::vector<float> out{3.0f, -3.5f, 0.25f};
    CHECK(max_abs_difference(ref, out) == 0.5);
    // sqrt(0.25 + 0.0625) / 5
    CHECK(relative_l2_difference(ref, out) == Approx(std::sqrt(0.3125) / 5.0));
    CHECK(relative_l2_difference(ref, ref) == 0.0);
    const std::vector<float> zeros(3, 0.0f);
    CHECK(relative_l2_difference(zeros, zeros) == 0.0);
    CHECK(std::isinf(relative_l2_difference(zeros, out)));
    const std::vector<float> nan_out{3.0f, NAN, 0.0f};
    CHECK(std::isnan(max_abs_difference(ref, nan_out)));
    CHECK_THROWS(max_abs_difference(ref, std::vector<float>{1.0f}));
}
