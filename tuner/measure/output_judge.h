#pragma once
// The verdict on one validating run of a candidate: its output (as floats) against the reference.
// Pure host code, so every rule is tested without a GPU.
//   1. Any NaN/Inf fails as "nan": outputs are NaN-filled before the run, so an element the kernel
//      never wrote is NaN (and so is a real overflow).
//   2. zero_start (stage-2 atomic, whose output must be zeroed, so NaN-filling cannot mark unwritten
//      rows): a row left all zero where the reference row is not fails as "wrong" -- the atomic
//      counterpart of rule 1 for tokens the kernel skipped.
//   3. The gating metric (data/error_metrics.h) above err_ratio fails as "wrong".
#include <cstddef>
#include <span>
#include <string>

#include "data/error_metrics.h"

namespace moetune::measure {

struct Judgement {
    bool ok = false;
    double err = 0;       // the gating metric's value (1.0 when the output is not finite)
    std::string failure;  // "" when ok
};

// ref and out: [rows, row_length] row-major.
Judgement judge_output(std::span<const float> ref, std::span<const float> out, std::size_t row_length,
                       data::ErrorMetric metric, double err_ratio, bool zero_start);

}  // namespace moetune::measure
