#pragma once
// One measured candidate as the sweep sees it: the stage and block_m come from the config the
// sweep sent (not from the result, which a crashed worker cannot fill in), the rest from the
// measurement. Its outcome is what the report counts and the profile shows.
#include <string_view>

#include "kernels/kernel_config.h"
#include "measure/measure_task.h"
#include "select/winner.h"

namespace moetune::sweep {

enum class CandidateOutcome {
    pass,            // takes part in the selection
    over_err_ratio,  // ran, but its error is above --err-ratio (measure's "wrong", or err > ratio)
    failed,          // compile, launch, fault, NaN output, timeout, no usable time
};

struct MeasuredCandidate {
    kernels::KernelConfig config;
    measure::MeasureResult result;
};

select::CandidateResult candidate_result(const MeasuredCandidate& c);
CandidateOutcome candidate_outcome(const MeasuredCandidate& c, double err_ratio);
std::string_view outcome_name(CandidateOutcome o);  // "pass", "err>ratio", "failed"

}  // namespace moetune::sweep
