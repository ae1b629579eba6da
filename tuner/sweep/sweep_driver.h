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
#include "sweep/run_report.h"
#include "sweep/task_runner.h"

namespace moetune::sweep {

struct SweepSettings {
    std::filesystem::path output;
    std::optional<std::filesystem::path> profile_out;
    std::optional<std::filesystem::path> report;
    RunInfo run;  // the report's header
    bool retune = false;
    double min_improvement_pct = 3.0;
    // Every task is a copy of this with the shape and kernel name filled in: seed, routing, arch,
    // cache_dir, metric, err_ratio (also the selection's), timing, test_break.
    measure::MeasureTask task;
    // When set: every candidate is first validated and timed with these (brief) options, then only
    // the finalists -- within finalist_margin of the fastest of their stage and block_m -- are
    // timed again with task.timing (select/screening.h).
    std::optional<measure::TimingOptions> screening;
    double finalist_margin = 1.25;
    Progress::Mode progress = Progress::Mode::off;
};

// One report per entry, in plan order. Throws InputError when OUT exists but cannot take rows
// (tuned_output.h), CannotWriteOutput (output_paths.h) when OUT, the profile or the report cannot
// be written, and whatever the runner throws when it cannot go on; what was written before stays.
std::vector<BucketReport> run_sweep(const std::vector<PlanEntry>& entries, const PlanTarget& target,
                                    const SweepSettings& settings, TaskRunner& runner, CompileAhead& compiler);

}  // namespace moetune::sweep
