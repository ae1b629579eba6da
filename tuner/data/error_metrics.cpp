#include "data/error_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "common/input_error.h"

namespace moetune::data {
namespace {

void check_sizes(std::span<const float> ref, std::span<const float> out) {
    if (ref.size() != out.size()) throw std::invalid_argument("error metric: reference and output differ in size");
}

bool all_finite(std::span<const float> x) {
    return std::all_of(x.begin(), x.end(), [](float v) { return std::isfinite(v); });
}

double cosine_difference_unchecked(std::span<const float> ref, std::span<const float> out) {
    double xy = 0, squares = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        const double x = ref[i], y = out[i];
        xy += x * y;
        squares += x * x + y * y;
    }
    return squares == 0 ? 0.0 : 1.0 - 2.0 * xy / squares;
}

}  // namespace

ErrorMetric parse_error_metric(std::string_view text) {
    for (ErrorMetric m : {ErrorMetric::mismatch, ErrorMetric::cosine, ErrorMetric::row_cosine})
        if (text == to_string(m)) return m;
    throw InputError("", 0, "unknown error metric '" + std::string(text) + "' (expected mismatch, cosine or row-cosine)");
}

std::string_view to_string(ErrorMetric metric) {
    switch (metric) {
    case ErrorMetric::mismatch: return "mismatch";
    case ErrorMetric::cosine: return "cosine";
    case ErrorMetric::row_cosine: return "row-cosine";
    }
    return "?";
}

double mismatch_fraction(std::span<const float> ref, std::span<const float> out, double rtol, double atol) {
    check_sizes(ref, out);
    if (ref.empty()) return 0.0;
    size_t mismatched = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        const double r = ref[i], o = out[i];
        if (!std::isfinite(r) || !std::isfinite(o)) return 1.0;
        const double delta = std::fabs(r - o);
        if (delta > 0.5 * std::max(std::fabs(r), 1.0)) return 1.0;
        if (delta > atol + rtol * std::fabs(o)) ++mismatched;
    }
    return double(mismatched) / double(ref.size());
}

double cosine_difference(std::span<const float> ref, std::span<const float> out) {
    check_sizes(ref, out);
    if (!all_finite(ref) || !all_finite(out)) return 1.0;
    return cosine_difference_unchecked(ref, out);
}

double max_abs_difference(std::span<const float> ref, std::span<const float> out) {
    check_sizes(ref, out);
    double worst = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        const double d = std::fabs(double(ref[i]) - out[i]);
        if (std::isnan(d)) return d;
        worst = std::max(worst, d);
    }
    return worst;
}

double relative_l2_difference(std::span<const float> ref, std::span<const float> out) {
    check_sizes(ref, out);
    double diff = 0, norm = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        const double d = double(ref[i]) - out[i];
        diff += d * d;
        norm += double(ref[i]) * ref[i];
    }
    if (norm == 0) return diff == 0 ? 0.0 : std::numeric_limits<double>::infinity();
    return std::sqrt(diff / norm);
}

double worst_row_cosine_difference(std::span<const float> ref, std::span<const float> out, std::size_t row_length) {
    check_sizes(ref, out);
    if (row_length == 0 || ref.size() % row_length != 0)
        throw std::invalid_argument("error metric: size is not a multiple of the row length");
    if (!all_finite(ref) || !all_finite(out)) return 1.0;
    double worst = 0;
    for (size_t start = 0; start < ref.size(); start += row_length)
        worst = std::max(worst, cosine_difference_unchecked(ref.subspan(start, row_length), out.subspan(start, row_length)));
    return worst;
}

ErrorVerdict evaluate_error(ErrorMetric metric, std::span<const float> ref, std::span<const float> out,
                            std::size_t row_length, double threshold) {
    ErrorVerdict v;
    switch (metric) {
    case ErrorMetric::mismatch: v.err = mismatch_fraction(ref, out); break;
    case ErrorMetric::cosine: v.err = cosine_difference(ref, out); break;
    case ErrorMetric::row_cosine: v.err = worst_row_cosine_difference(ref, out, row_length); break;
    }
    v.passed = all_finite(out) && v.err <= threshold;
    return v;
}

std::string format_err_column(double err) {
    // Python formats 100*err with %.1f (correctly rounded, like glibc's printf).
    if (std::isnan(err)) return "nan%";  // printf may write "-nan"; Python never does
    char cell[64];
    std::snprintf(cell, sizeof cell, "%.1f%%", err * 100.0);
    return cell;
}

}  // namespace moetune::data
