#include "measure/output_judge.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

#include "common/parallel_for.h"
#include "measure/failure.h"

namespace moetune::measure {
namespace {

std::string number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", v);
    return text;
}

std::string position(std::size_t index, std::size_t row_length) {
    return "row " + std::to_string(index / row_length) + ", column " + std::to_string(index % row_length);
}

bool all_zero(std::span<const float> row) {
    for (float v : row)
        if (v != 0.0f) return false;
    return true;
}

// How many items of [0, count) `bad` holds for, and the first of them.
struct Found {
    int64_t count = 0;
    int64_t first = -1;
};

template <typename Bad>
Found find_all(int64_t count, const Bad& bad, int64_t slice = kParallelSlice) {
    return parallel_reduce(
        count, Found{},
        [&](int64_t begin, int64_t end) {
            Found f;
            for (int64_t i = begin; i < end; ++i)
                if (bad(i) && f.count++ == 0) f.first = i;
            return f;
        },
        [](Found a, Found b) { return Found{a.count + b.count, a.first >= 0 ? a.first : b.first}; }, slice);
}

}  // namespace

Judgement judge_output(std::span<const float> ref, std::span<const float> out, std::size_t row_length,
                       data::ErrorMetric metric, double err_ratio, bool zero_start) {
    if (ref.size() != out.size() || row_length == 0 || out.size() % row_length != 0)
        throw std::invalid_argument("judge_output: output of " + std::to_string(out.size()) +
                                    " values does not match the reference of " + std::to_string(ref.size()) +
                                    " in rows of " + std::to_string(row_length));
    Judgement j;
    const data::ErrorVerdict verdict = data::evaluate_error(metric, ref, out, row_length, err_ratio);
    j.err = verdict.err;

    const Found non_finite = find_all(int64_t(out.size()), [&](int64_t i) { return !std::isfinite(out[std::size_t(i)]); });
    if (non_finite.count > 0) {
        j.failure = failure_text("nan", std::to_string(non_finite.count) + " of " + std::to_string(out.size()) +
                                            " output values are NaN/Inf, unwritten or overflowed (first at " +
                                            position(std::size_t(non_finite.first), row_length) + ")");
        return j;
    }

    if (zero_start) {
        const auto row = [&](std::span<const float> x, int64_t r) {
            return x.subspan(std::size_t(r) * row_length, row_length);
        };
        const Found zero_rows = find_all(
            int64_t(out.size() / row_length), [&](int64_t r) { return all_zero(row(out, r)) && !all_zero(row(ref, r)); },
            std::max<int64_t>(1, kParallelSlice / int64_t(row_length)));
        if (zero_rows.count > 0) {
            j.failure = failure_text("wrong", std::to_string(zero_rows.count) + " output rows left at zero (first: row " +
                                                  std::to_string(zero_rows.first) + ")");
            return j;
        }
    }

    if (!verdict.passed) {
        j.failure = failure_text("wrong", std::string(data::to_string(metric)) + " " + number(j.err) + " > " +
                                              number(err_ratio));
        return j;
    }
    j.ok = true;
    return j;
}

}  // namespace moetune::measure
