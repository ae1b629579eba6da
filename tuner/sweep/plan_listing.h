#pragma once
// `sweep --dry-run`: the plan as text, one line per (shape, bucket) under a heading per shape:
// candidate counts per stage and pruned configs, or why the entry is skipped (unsupported, or
// already in the output and so skipped by a rerun without --retune).
#include <string>
#include <vector>

#include "sweep/plan.h"
#include "sweep/tuned_output.h"

namespace moetune::sweep {

std::string format_plan(const std::vector<PlanEntry>& entries, const TunedOutput& output, bool retune);

}  // namespace moetune::sweep
