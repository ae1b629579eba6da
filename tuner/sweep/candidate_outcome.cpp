#include "sweep/candidate_outcome.h"

#include "kernels/kernel_name.h"
#include "measure/failure.h"
#include "sweep/handoff_passes.h"

namespace moetune::sweep {

select::CandidateResult candidate_result(const MeasuredCandidate& c) {
    const measure::MeasureResult& r = c.result;
    return {kernels::kernel_name(c.config), kernels::stage_number(c.config.stage), kernels::sort_block_m(c.config),
            r.ok, r.us, r.err, candidate_kind(c.config), r.sm_mhz_before, r.sm_mhz_after};
}

CandidateOutcome candidate_outcome(const MeasuredCandidate& c, double err_ratio) {
    // The harness gates with the same metric and ratio and reports a gated kernel as "wrong".
    if (measure::failure_kind(c.result.failure) == "wrong") return CandidateOutcome::over_err_ratio;
    const select::CandidateResult r = candidate_result(c);
    if (!select::measured(r)) return CandidateOutcome::failed;
    return select::passes(r, err_ratio) ? CandidateOutcome::pass : CandidateOutcome::over_err_ratio;
}

std::string_view outcome_name(CandidateOutcome o) {
    switch (o) {
        case CandidateOutcome::pass: return "pass";
        case CandidateOutcome::over_err_ratio: return "err>ratio";
        case CandidateOutcome::failed: return "failed";
    }
    return "?";
}

}  // namespace moetune::sweep
