#pragma once
// How far a kernel's output is from the reference (aiter-fmoe-format.md §3.6), and which of the
// measures gates a candidate. AITER mixes two metrics under one threshold, and its whole-tensor
// cosine lets localised corruption through (a kernel destroying 18% of the rows passed, AITER
// #5032); the worst per-row cosine difference closes that hole.
//
// Every metric returns 1.0 (100%) when either tensor holds a NaN or an infinity, and
// evaluate_error fails such an output whatever the threshold: outputs are NaN-filled before a
// candidate runs, so a kernel that leaves rows unwritten must fail.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace moetune::data {

enum class ErrorMetric { mismatch, cosine, row_cosine };

// Parses a flag value: "mismatch", "cosine" or "row-cosine". Throws InputError otherwise.
ErrorMetric parse_error_metric(std::string_view text);
std::string_view to_string(ErrorMetric metric);

// AITER checkAllclose(ref, out): the fraction of elements failing torch.isclose(ref, out), i.e.
// |ref - out| > atol + rtol*|out|; 1.0 when any element is catastrophic (non-finite, or
// |ref - out| > 0.5 * max(|ref|, 1)).
double mismatch_fraction(std::span<const float> ref, std::span<const float> out, double rtol = 0.01,
                         double atol = 0.01);

// 1 - 2*sum(x*y) / sum(x^2 + y^2), accumulated in double; 0 = identical (two all-zero tensors
// included), 1 = orthogonal or one side all zero, 2 = negated.
double cosine_difference(std::span<const float> ref, std::span<const float> out);

// The largest cosine_difference over rows of row_length elements.
double worst_row_cosine_difference(std::span<const float> ref, std::span<const float> out, std::size_t row_length);

// How far two outputs of the same MoE lie apart (bench's default vs tuned arm): the largest |a - b|,
// and ||a - b|| / ||ref|| (0 when both are all zero). Non-finite values propagate (NaN / inf).
double max_abs_difference(std::span<const float> ref, std::span<const float> out);
double relative_l2_difference(std::span<const float> ref, std::span<const float> out);

struct ErrorVerdict {
    double err = 0;       // the metric's value, what the CSV err column shows
    bool passed = false;  // err <= threshold and the output is finite
};

// The gating metric on one stage's output [rows, row_length].
ErrorVerdict evaluate_error(ErrorMetric metric, std::span<const float> ref, std::span<const float> out,
                            std::size_t row_length, double threshold);

// The err1/err2 CSV cell as AITER writes it, Python's f"{err:.1%}": 0.053 -> "5.3%".
std::string format_err_column(double err);

}  // namespace moetune::data
