#include "measure/output_judge.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

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

    std::size_t non_finite = 0, first_non_finite = 0;
    for (std::size_t i = 0; i < out.size(); ++i)
        if (!std::isfinite(out[i]) && non_finite++ == 0) first_non_finite = i;
    if (non_finite > 0) {
        j.failure = failure_text("nan", std::to_string(non_finite) + " of " + std::to_string(out.size()) +
                                            " output values are NaN/Inf, unwritten or overflowed (first at " +
                                            position(first_non_finite, row_length) + ")");
        return j;
    }

    if (zero_start) {
        std::size_t zero_rows = 0, first_zero_row = 0;
        for (std::size_t r = 0; r < out.size() / row_length; ++r)
            if (all_zero(out.subspan(r * row_length, row_length)) &&
                !all_zero(ref.subspan(r * row_length, row_length)) && zero_rows++ == 0)
                first_zero_row = r;
        if (zero_rows > 0) {
            j.failure = failure_text("wrong", std::to_string(zero_rows) + " output rows left at zero (first: row " +
                                                  std::to_string(first_zero_row) + ")");
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
