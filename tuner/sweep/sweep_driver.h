#pragma once
// The sweep itself: for each plan entry in order, compile its candidates (ahead, while the
// previous bucket is measured), measure them, pick the winner (select/winner.h) and write its row
// into OUT at once, atomically. Entries OUT already has are skipped unless --retune; a retuned
// row replaces the old one only when faster by --min-improvement-pct (select/improvement.h).
// The profile and the report are appended / rewritten after every bucket too, so whenever the
// process dies, OUT, the profile and the report agree on what was finished.
#include <filesystem>
#include <optional>
#include <vector>

#include "measure/measure_task.h"
#include "sweep/bucket_report.h"
#include "sweep/compile_ahead.h"
#include "sweep/plan.h"
#include "sweep/progress.h"
#include "sweep/sweep_settings.h"
#include "sweep/task_runner.h"

namespace moetune::sweep {

// One report per entry, in plan order. Throws InputError when OUT exists but cannot take rows
// (tuned_output.h), CannotWriteOutput (output_paths.h) when OUT, the profile or the report cannot
// be written, and whatever the runner throws when it cannot go on; what was written before stays.
std::vector<BucketReport> run_sweep(const std::vector<PlanEntry>& entries, const PlanTarget& target,
                                    const SweepSettings& settings, TaskRunner& runner, CompileAhead& compiler);

}  // namespace moetune::sweep
