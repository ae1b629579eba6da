#pragma once
// What the sweep adds to AITER's per-stage selection for pairs whose library sequence runs a pass
// between the stages (kernels/stage_handoff.h): each such pass is timed once per bucket, as a task
// of its own beside the candidates' final timing, and select::select_winner charges it to the pairs
// that need it (the row's us1 holds it), so a tuned row's us is what the library runs.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernels/kernel_config.h"
#include "kernels/stage_handoff.h"
#include "select/winner.h"

namespace moetune::sweep {

// A candidate's kind in the selection (select::CandidateResult::kind): stage 1 its
// kernels::Stage1Output, stage 2 its kernels::Stage2Input.
int candidate_kind(const kernels::KernelConfig& c);

// The passes some stage-1 and stage-2 kernel of `configs` would run between them, each once, in a
// fixed order.
std::vector<kernels::StageHandoff> handoff_passes(const std::vector<kernels::KernelConfig>& configs);

// select_winner's cost of a pair of kinds: 0 within the stages, the pass's time from `pass_us` (by
// kernels::handoff_pass_name, as BucketReport::handoff_passes holds them), nullopt for a pair the
// library cannot run or whose pass has no time (not timed, or it failed).
select::HandoffCost handoff_cost(std::map<std::string, std::optional<double>> pass_us);

}  // namespace moetune::sweep
