#include "data/error_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "common/input_error.h"
#include "common/parallel_for.h"

namespace moetune::data {
namespace {

void check_sizes(std::span<const float> ref, std::span<const float> out) {
    if (ref.size() != out.size()) throw std::invalid_argument("error metric: reference and output differ in size");
}

int64_t length(std::span<const float> x) { return int64_t(x.size()); }

bool all_finite(std::span<const float> x) {
    return parallel_reduce(
        length(x), true,
        [&](int64_t begin, int64_t end) {
            return std::all_of(x.begin() + begin, x.begin() + end, [](float v) { return std::isfinite(v); });
        },
        [](bool a, bool b) { return a && b; });
}

// Sums of x*y and x*x + y*y.
struct CosineSums {
    double xy = 0, squares = 0;
};

CosineSums cosine_sums(std::span<const float> ref, std::span<const float> out, int64_t begin, int64_t end) {
    CosineSums s;
    for (int64_t i = begin; i < end; ++i) {
        const double x = ref[size_t(i)], y = out[size_t(i)];
        s.xy += x * y;
        s.squares += x * x + y * y;
    }
    return s;
}

double cosine_of(const CosineSums& s) { return s.squares == 0 ? 0.0 : 1.0 - 2.0 * s.xy / s.squares; }

double cosine_difference_unchecked(std::span<const float> ref, std::span<const float> out) {
    return cosine_of(parallel_reduce(
        length(ref), CosineSums{}, [&](int64_t begin, int64_t end) { return cosine_sums(ref, out, begin, end); },
        [](CosineSums a, CosineSums b) { return CosineSums{a.xy + b.xy, a.squares + b.squares}; }));
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
    // Per slice: the mismatched count, or -1 when a value is not finite or far off (the whole
    // output counts as mismatched then).
    const int64_t mismatched = parallel_reduce(
        length(ref), int64_t(0),
        [&](int64_t begin, int64_t end) {
            int64_t count = 0;
            for (int64_t i = begin; i < end; ++i) {
                const double r = ref[size_t(i)], o = out[size_t(i)];
                if (!std::isfinite(r) || !std::isfinite(o)) return int64_t(-1);
                const double delta = std::fabs(r - o);
                if (delta > 0.5 * std::max(std::fabs(r), 1.0)) return int64_t(-1);
                if (delta > atol + rtol * std::fabs(o)) ++count;
            }
            return count;
        },
        [](int64_t a, int64_t b) { return a < 0 || b < 0 ? int64_t(-1) : a + b; });
    return mismatched < 0 ? 1.0 : double(mismatched) / double(ref.size());
}

double cosine_difference(std::span<const float> ref, std::span<const float> out) {
    check_sizes(ref, out);
    if (!all_finite(ref) || !all_finite(out)) return 1.0;
    return cosine_difference_unchecked(ref, out);
}

double max_abs_difference(std::span<const float> ref, std::span<const float> out) {
    check_sizes(ref, out);
    return parallel_reduce(
        length(ref), 0.0,
        [&](int64_t begin, int64_t end) {
            double worst = 0;
            for (int64_t i = begin; i < end; ++i) {
                const double d = std::fabs(double(ref[size_t(i)]) - out[size_t(i)]);
                if (std::isnan(d)) return d;
                worst = std::max(worst, d);
            }
            return worst;
        },
        [](double a, double b) { return std::isnan(a) || std::isnan(b) ? std::nan("") : std::max(a, b); });
}

double relative_l2_difference(std::span<const float> ref, std::span<const float> out) {
    check_sizes(ref, out);
    struct Sums {
        double diff = 0, norm = 0;
    };
    const auto [diff, norm] = parallel_reduce(
        length(ref), Sums{},
        [&](int64_t begin, int64_t end) {
            Sums s;
            for (int64_t i = begin; i < end; ++i) {
                const double d = double(ref[size_t(i)]) - out[size_t(i)];
                s.diff += d * d;
                s.norm += double(ref[size_t(i)]) * ref[size_t(i)];
            }
            return s;
        },
        [](Sums a, Sums b) { return Sums{a.diff + b.diff, a.norm + b.norm}; });
    if (norm == 0) return diff == 0 ? 0.0 : std::numeric_limits<double>::infinity();
    return std::sqrt(diff / norm);
}

double worst_row_cosine_difference(std::span<const float> ref, std::span<const float> out, std::size_t row_length) {
    check_sizes(ref, out);
    if (row_length == 0 || ref.size() % row_length != 0)
        throw std::invalid_argument("error metric: size is not a multiple of the row length");
    if (!all_finite(ref) || !all_finite(out)) return 1.0;
    const int64_t rows = length(ref) / int64_t(row_length);
    const int64_t rows_per_slice = std::max<int64_t>(1, kParallelSlice / int64_t(row_length));
    return parallel_reduce(
        rows, 0.0,
        [&](int64_t begin, int64_t end) {
            double worst = 0;
            for (int64_t r = begin; r < end; ++r)
                worst = std::max(worst, cosine_of(cosine_sums(ref, out, r * int64_t(row_length), (r + 1) * int64_t(row_length))));
            return worst;
        },
        [](double a, double b) { return std::max(a, b); }, rows_per_slice);
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
